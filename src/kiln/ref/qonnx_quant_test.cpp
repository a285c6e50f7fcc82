// QONNX's Quant, BipolarQuant and Trunc in the golden interpreter, on values
// worked out by hand from the formulas of graph/ops.h. Scales are powers of
// two, so every expected value is exact and compared exactly.
#include <limits>

#include "kiln/ref/testing/ref_testing.h"

namespace kiln::ref {
namespace {

using testing::eval1;
using testing::F;
using testing::FT;

std::vector<float> values(const Tensor& t) {
  const auto d = t.data<float>();
  return {d.begin(), d.end()};
}

std::vector<float> quant(const Tensor& x, const Tensor& scale, const Tensor& zeropt,
                         const IntQuantAttrs& a) {
  return values(eval1(OpKind::Quant, {&x, &scale, &zeropt}, FT(x.shape()), a));
}

IntQuantAttrs int_bits(int64_t bits, bool is_signed, bool narrow = false,
                       RoundingMode rounding = RoundingMode::Round) {
  return IntQuantAttrs{bits, is_signed, narrow, rounding};
}

const Tensor kZero = Tensor::scalar(0.0f);
const Tensor kOne = Tensor::scalar(1.0f);

// ---- Quant

TEST(QonnxQuant, SignedFourBitsClipsThenRoundsHalfToEven) {
  // x / 0.5 = -10, -2.5, -1.5, 0.5, 1.5, 2.5, 6.98, 7.5, 9; clip to [-8, 7]; ties to even.
  const Tensor x = F({9}, {-5, -1.25f, -0.75f, 0.25f, 0.75f, 1.25f, 3.49f, 3.75f, 4.5f});
  const Tensor s = Tensor::scalar(0.5f);
  EXPECT_EQ(quant(x, s, kZero, int_bits(4, true)),
            (std::vector<float>{-4, -1, -1, 0, 1, 1, 3.5f, 3.5f, 3.5f}));
  // narrow: [-7, 7], so -10 stops at -7.
  EXPECT_EQ(quant(x, s, kZero, int_bits(4, true, true)),
            (std::vector<float>{-3.5f, -1, -1, 0, 1, 1, 3.5f, 3.5f, 3.5f}));
}

TEST(QonnxQuant, UnsignedAndNarrowUnsigned) {
  // x / 0.5 = -10, 2.5, 9, 14.5, 30: [0, 15] (narrow [0, 14]).
  const Tensor x = F({5}, {-5, 1.25f, 4.5f, 7.25f, 15});
  const Tensor s = Tensor::scalar(0.5f);
  EXPECT_EQ(quant(x, s, kZero, int_bits(4, false)), (std::vector<float>{0, 1, 4.5f, 7, 7.5f}));
  EXPECT_EQ(quant(x, s, kZero, int_bits(4, false, true)), (std::vector<float>{0, 1, 4.5f, 7, 7}));
}

TEST(QonnxQuant, EveryRoundingModeOnTheSpecTable) {
  // The rounding table of QONNX's IntQuant documentation, at scale 1, 8-bit signed.
  const Tensor x = F({10}, {5.5f, 2.5f, 1.6f, 1.1f, 1.0f, -1.0f, -1.1f, -1.6f, -2.5f, -5.5f});
  const std::pair<RoundingMode, std::vector<float>> cases[] = {
      {RoundingMode::Round, {6, 2, 2, 1, 1, -1, -1, -2, -2, -6}},
      {RoundingMode::Ceil, {6, 3, 2, 2, 1, -1, -1, -1, -2, -5}},
      {RoundingMode::Floor, {5, 2, 1, 1, 1, -1, -2, -2, -3, -6}},
      {RoundingMode::Up, {6, 3, 2, 2, 1, -1, -2, -2, -3, -6}},
      {RoundingMode::Down, {5, 2, 1, 1, 1, -1, -1, -1, -2, -5}},
      {RoundingMode::HalfUp, {6, 3, 2, 1, 1, -1, -1, -2, -3, -6}},
      {RoundingMode::HalfDown, {5, 2, 2, 1, 1, -1, -1, -2, -2, -5}},
  };
  for (const auto& [mode, want] : cases)
    EXPECT_EQ(quant(x, kOne, kZero, int_bits(8, true, false, mode)), want) << enum_name(mode);
}

TEST(QonnxQuant, ZeroPointShiftsTheGrid) {
  // Unsigned 4-bit, scale 0.25, zero point 8: x / 0.25 + 8 = -4, 7.6, 8, 12, 16
  // -> clip [0, 15] -> 0, 7.6, 8, 12, 15 -> round -> minus 8, times 0.25.
  const Tensor x = F({5}, {-3, -0.1f, 0, 1, 2});
  EXPECT_EQ(quant(x, Tensor::scalar(0.25f), Tensor::scalar(8.0f), int_bits(4, false)),
            (std::vector<float>{-2, 0, 0, 1, 1.75f}));
}

TEST(QonnxQuant, PerChannelScaleAndZeroPoint) {
  // X [2, 3]; scale [2, 1] (one per row): 1 and 0.25; zero point [1, 3]: 0, 1, -1.
  const Tensor x = F({2, 3}, {1.3f, -2.6f, 9, 1.3f, -2.6f, 9});
  const Tensor s = F({2, 1}, {1, 0.25f});
  const Tensor z = F({1, 3}, {0, 1, -1});
  // Row 0: 1.3, -1.6, 8 -> 1, -2, 7 -> 1, -3, 8. Row 1: 5.2, -9.4, 35 -> 5, -8, 7
  // -> (5, -9, 8) * 0.25.
  EXPECT_EQ(quant(x, s, z, int_bits(4, true)), (std::vector<float>{1, -3, 8, 1.25f, -2.25f, 2}));
}

TEST(QonnxQuant, BitWidthsOneToEightSaturate) {
  // +-1000 hits the ends of the range of every width; signed 1-bit is bipolar.
  const Tensor x = F({2}, {1000, -1000});
  const float unsigned_max[] = {1, 3, 7, 15, 31, 63, 127, 255};
  const float signed_max[] = {1, 1, 3, 7, 15, 31, 63, 127};
  const float signed_min[] = {-1, -2, -4, -8, -16, -32, -64, -128};
  for (int64_t b = 1; b <= 8; ++b) {
    const auto i = static_cast<std::size_t>(b - 1);
    EXPECT_EQ(quant(x, kOne, kZero, int_bits(b, false)), (std::vector<float>{unsigned_max[i], 0}))
        << b << " bits unsigned";
    EXPECT_EQ(quant(x, kOne, kZero, int_bits(b, true)),
              (std::vector<float>{signed_max[i], signed_min[i]}))
        << b << " bits signed";
  }
}

TEST(QonnxQuant, SignedOneBitIsBipolar) {
  // x / 2 >= 0 -> +1, else -1; times the scale 2. 0 is +1. narrow changes nothing.
  const Tensor x = F({4}, {-0.5f, 0, 0.3f, 5});
  const std::vector<float> want = {-2, 2, 2, 2};
  EXPECT_EQ(quant(x, Tensor::scalar(2.0f), kZero, int_bits(1, true)), want);
  EXPECT_EQ(quant(x, Tensor::scalar(2.0f), kZero, int_bits(1, true, true)), want);
  // Unsigned 1-bit is {0, 1}.
  EXPECT_EQ(quant(x, kOne, kZero, int_bits(1, false)), (std::vector<float>{0, 0, 0, 1}));
}

TEST(QonnxQuant, NanStaysNan) {
  const Tensor x = F({1}, {std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE(std::isnan(quant(x, kOne, kZero, int_bits(4, true))[0]));
}

// ---- BipolarQuant

TEST(QonnxBipolarQuant, SignTimesScaleWithZeroPositive) {
  const Tensor x = F({2, 3}, {-3, -0.0f, 0, 1e-30f, 2, -1e-30f});
  // -0.0 >= 0 holds, so it is +1 like 0.
  EXPECT_EQ(values(eval1(OpKind::BipolarQuant, {&x, &kOne}, FT({2, 3}))),
            (std::vector<float>{-1, 1, 1, 1, 1, -1}));
  const Tensor s = F({2, 1}, {0.5f, 4});
  EXPECT_EQ(values(eval1(OpKind::BipolarQuant, {&x, &s}, FT({2, 3}))),
            (std::vector<float>{-0.5f, 0.5f, 0.5f, 4, 4, -4}));
}

// ---- Trunc

TruncAttrs trunc_attrs(int64_t version, int64_t in, int64_t out,
                       RoundingMode rounding = RoundingMode::Floor, bool is_signed = true,
                       bool narrow = false) {
  return TruncAttrs{version, in, out, is_signed, narrow, rounding};
}

std::vector<float> trunc_v1(const Tensor& x, const Tensor& s, const Tensor& z,
                            const TruncAttrs& a) {
  return values(eval1(OpKind::Trunc, {&x, &s, &z}, FT(x.shape()), a));
}
std::vector<float> trunc_v2(const Tensor& x, const Tensor& s, const Tensor& z,
                            const Tensor& out_scale, const TruncAttrs& a) {
  return values(eval1(OpKind::Trunc, {&x, &s, &z, &out_scale}, FT(x.shape()), a));
}

TEST(QonnxTrunc, OpsetOneDropsLowBits) {
  // 8 -> 4 bits: round half to even, then / 16: 37 -> 2.3125, -37 -> -2.3125,
  // 40.5 -> 40 -> 2.5, 255 -> 15.9375. No clipping; the scale stays the input's.
  const Tensor x = F({4}, {37, -37, 40.5f, 255});
  EXPECT_EQ(trunc_v1(x, kOne, kZero, trunc_attrs(1, 8, 4)), (std::vector<float>{2, -3, 2, 15}));
  EXPECT_EQ(trunc_v1(x, kOne, kZero, trunc_attrs(1, 8, 4, RoundingMode::Round)),
            (std::vector<float>{2, -2, 2, 16}));
  EXPECT_EQ(trunc_v1(x, kOne, kZero, trunc_attrs(1, 8, 4, RoundingMode::Ceil)),
            (std::vector<float>{3, -2, 3, 16}));
  // Scale 0.5, zero point 1: 18.5 / 0.5 + 1 = 38 -> 2.375 -> 2 -> (2 - 1) * 0.5.
  EXPECT_EQ(trunc_v1(F({1}, {18.5f}), Tensor::scalar(0.5f), kOne, trunc_attrs(1, 8, 4)),
            (std::vector<float>{0.5f}));
  // Equal widths drop nothing: only the inner round half to even.
  EXPECT_EQ(trunc_v1(F({2}, {2.5f, 3.5f}), kOne, kZero, trunc_attrs(1, 6, 6)),
            (std::vector<float>{2, 4}));
}

TEST(QonnxTrunc, OpsetTwoClipsToTheOutputWidthAndRescales) {
  // scale 0.5, out_scale 8: t = 16. x / 0.5 = 37, -37, 200, -200; / 16 =
  // 2.3125, -2.3125, 12.5, -12.5; clip to 4-bit signed [-8, 7]; floor; * 8.
  const Tensor x = F({4}, {18.5f, -18.5f, 100, -100});
  const Tensor s = Tensor::scalar(0.5f), os = Tensor::scalar(8.0f);
  EXPECT_EQ(trunc_v2(x, s, kZero, os, trunc_attrs(2, 8, 4)),
            (std::vector<float>{16, -24, 56, -64}));
  // Unsigned narrow: [0, 14].
  EXPECT_EQ(trunc_v2(x, s, kZero, os, trunc_attrs(2, 8, 4, RoundingMode::Floor, false, true)),
            (std::vector<float>{16, 0, 96, 0}));
  // Narrow signed: [-7, 7].
  EXPECT_EQ(trunc_v2(x, s, kZero, os, trunc_attrs(2, 8, 4, RoundingMode::Floor, true, true)),
            (std::vector<float>{16, -24, 56, -56}));
}

TEST(QonnxTrunc, OpsetTwoZeroPointAndNonPowerOfTwoScaleRatio) {
  // Zero point 16 moves to the output grid as 16 / t = 1: x = 0, 20 ->
  // 16, 36 -> / 16 = 1, 2.25 -> 1, 2 -> (1 - 1, 2 - 1) * 16.
  const Tensor sixteen = Tensor::scalar(16.0f);
  EXPECT_EQ(trunc_v2(F({2}, {0, 20}), kOne, sixteen, sixteen, trunc_attrs(2, 8, 4)),
            (std::vector<float>{0, 16}));
  // out_scale / scale = 12: log2 = 3.58 rounds to 4, so t = 16: 40 / 16 = 2.5 -> 2; * 12.
  EXPECT_EQ(trunc_v2(F({1}, {40}), kOne, kZero, Tensor::scalar(12.0f), trunc_attrs(2, 8, 4)),
            (std::vector<float>{24}));
}

}  // namespace
}  // namespace kiln::ref

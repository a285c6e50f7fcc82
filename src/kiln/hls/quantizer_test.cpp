// quantizer_params: ONNX quantizers as formats, by hand.
#include "kiln/hls/quantizer.h"

#include <gtest/gtest.h>

namespace kiln::hls {
namespace {

using numeric::OverflowMode;
using numeric::QuantMode;

TEST(Quantizer, PowerOfTwoExponent) {
  EXPECT_EQ(power_of_two_exponent(0.25), 2);
  EXPECT_EQ(power_of_two_exponent(8.0), -3);
  EXPECT_EQ(power_of_two_exponent(1.0), 0);
  EXPECT_FALSE(power_of_two_exponent(0.3).has_value());
  EXPECT_FALSE(power_of_two_exponent(0.0).has_value());
  EXPECT_FALSE(power_of_two_exponent(-0.5).has_value());
}

TEST(Quantizer, Int8PowerOfTwoIsAnExactSaturatingFormat) {
  const QuantizeParams p = quantizer_params(1.0 / 32, 0, DType::Int8);
  EXPECT_TRUE(p.exact);
  EXPECT_EQ(p.format, (FixedType{8, 3, true, QuantMode::RndConv, OverflowMode::Sat}));
  EXPECT_EQ(p.min_raw, -128);
  EXPECT_EQ(p.max_raw, 127);
}

TEST(Quantizer, Uint8WithZeroPoints) {
  // z = 0: unsigned 8 bits.
  const QuantizeParams u = quantizer_params(0.0625, 0, DType::UInt8);
  EXPECT_EQ(u.format, (FixedType{8, 4, false, QuantMode::RndConv, OverflowMode::Sat}));
  // z = 128: the int8 range.
  const QuantizeParams s = quantizer_params(0.0625, 128, DType::UInt8);
  EXPECT_EQ(s.format, (FixedType{8, 4, true, QuantMode::RndConv, OverflowMode::Sat}));
  EXPECT_EQ(s.min_raw, -128);
  EXPECT_EQ(s.max_raw, 127);
  // z = 3: -3 .. 252 needs 9 signed bits and a clamp.
  const QuantizeParams c = quantizer_params(0.0625, 3, DType::UInt8);
  EXPECT_EQ(c.format, (FixedType{9, 5, true, QuantMode::RndConv, OverflowMode::Sat}));
  EXPECT_EQ(c.min_raw, -3);
  EXPECT_EQ(c.max_raw, 252);
  EXPECT_NE(c.max_raw, c.format.max_raw());
}

TEST(Quantizer, Int16AndLargeScales) {
  const QuantizeParams p = quantizer_params(4.0, 0, DType::Int16);
  EXPECT_EQ(p.format, (FixedType{16, 18, true, QuantMode::RndConv, OverflowMode::Sat}));
}

TEST(Quantizer, QonnxBitWidthsNarrowRangesAndRoundingModes) {
  // 4-bit signed narrow, scale 2^-2, half away from zero: -7 .. 7 in fixed<4,2>.
  const QuantizeParams s = quantizer_params(0.25, 0, 4, true, true, QuantMode::RndInf);
  EXPECT_EQ(s.format, (FixedType{4, 2, true, QuantMode::RndInf, OverflowMode::Sat}));
  EXPECT_EQ(s.min_raw, -7);
  EXPECT_EQ(s.max_raw, 7);
  // 4-bit unsigned narrow, floor: 0 .. 14 in ufixed<4,3>.
  const QuantizeParams u = quantizer_params(0.5, 0, 4, false, true, QuantMode::Trn);
  EXPECT_EQ(u.format, (FixedType{4, 3, false, QuantMode::Trn, OverflowMode::Sat}));
  EXPECT_EQ(u.max_raw, 14);
  // 6-bit unsigned with zero point 3: -3 .. 60, 7 signed bits.
  const QuantizeParams z = quantizer_params(0.125, 3, 6, false, false, QuantMode::RndConv);
  EXPECT_EQ(z.format.width, 7);
  EXPECT_EQ(z.min_raw, -3);
  EXPECT_EQ(z.max_raw, 60);
}

TEST(Quantizer, OtherScalesKeepAFinerGrid) {
  // scale 0.1: 2^-4 < 0.1, so 4 + 3 fraction bits; range -12.8 .. 12.7 on 1/128.
  const QuantizeParams p = quantizer_params(0.1, 0, DType::Int8);
  EXPECT_FALSE(p.exact);
  EXPECT_EQ(p.format.frac(), 4 + kInexactExtraBits);
  EXPECT_EQ(p.min_raw, -1638);  // ceil(-12.8 * 128)
  EXPECT_EQ(p.max_raw, 1625);   // floor(12.7 * 128)
  EXPECT_EQ(p.format.width, 12);
}

TEST(Quantizer, BipolarIsPlusMinusOneOfATwoBitFormat) {
  const auto one = bipolar_params(1.0);
  ASSERT_TRUE(one.has_value());
  EXPECT_TRUE(one->bipolar);
  EXPECT_EQ(one->format, (FixedType{2, 2, true}));
  EXPECT_EQ(one->min_raw, -1);
  EXPECT_EQ(one->max_raw, 1);
  const auto half = bipolar_params(0.5);
  ASSERT_TRUE(half.has_value());
  EXPECT_EQ(half->format, (FixedType{2, 1, true}));  // raw +-1 = +-0.5
  EXPECT_FALSE(bipolar_params(0.3).has_value());
}

}  // namespace
}  // namespace kiln::hls

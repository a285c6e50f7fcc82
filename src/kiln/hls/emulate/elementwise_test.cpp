// Hand cases and float comparisons of the elementwise emulator kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kiln/hls/emulate/emulator.h"

namespace kiln::hls {
namespace {

using numeric::OverflowMode;
using numeric::QuantMode;

FixedType fmt(int w, int i, QuantMode q = QuantMode::Trn, OverflowMode o = OverflowMode::Wrap,
              bool s = true) {
  return FixedType{w, i, s, q, o};
}

FixedTensor tensor(const FixedType& t, std::vector<int64_t> shape, std::vector<int64_t> raw) {
  return FixedTensor{t, std::move(shape), std::move(raw)};
}

FixedTensor run(const Layer& layer, const std::vector<const FixedTensor*>& in,
                const FixedType& out_type, std::vector<int64_t> out_shape,
                OverflowCounts* counts = nullptr) {
  FixedTensor out{out_type, std::move(out_shape), {}};
  const OverflowCounts c = emulate_layer(layer, in, {&out});
  if (counts) *counts = c;
  return out;
}

Layer activation(ActKind kind, int64_t n, int64_t channels, double alpha = 0, double beta = 0) {
  Layer l;
  l.name = l.onnx_name = "act";
  ActivationParams p;
  p.n = n;
  p.channels = channels;
  p.act = {kind, alpha, beta};
  l.params = p;
  return l;
}

// Input fixed<8,4>: raw / 16.
const FixedType kIn = fmt(8, 4);

TEST(EmulateActivation, ReluLeakyClip) {
  const FixedTensor x = tensor(kIn, {4}, {-24, -1, 0, 40});  // -1.5, -0.0625, 0, 2.5
  EXPECT_EQ(run(activation(ActKind::Relu, 4, 4), {&x}, kIn, {4}).raw,
            (std::vector<int64_t>{0, 0, 0, 40}));
  // alpha 0.25: -1.5 -> -0.375 = -6/16; -0.0625 -> -0.015625 truncates to -1/16.
  EXPECT_EQ(run(activation(ActKind::LeakyRelu, 4, 4, 0.25), {&x}, kIn, {4}).raw,
            (std::vector<int64_t>{-6, -1, 0, 40}));
  // Rounding to nearest: -0.015625 -> 0 (ties up), -0.375 -> -6.
  EXPECT_EQ(
      run(activation(ActKind::LeakyRelu, 4, 4, 0.25), {&x}, fmt(8, 4, QuantMode::Rnd), {4}).raw,
      (std::vector<int64_t>{-6, 0, 0, 40}));
  // clip to [-1, 2]
  EXPECT_EQ(run(activation(ActKind::Clip, 4, 4, -1, 2), {&x}, kIn, {4}).raw,
            (std::vector<int64_t>{-16, -1, 0, 32}));
  // hi < lo: min(max(x, lo), hi) is always hi.
  EXPECT_EQ(run(activation(ActKind::Clip, 4, 4, 1, -1), {&x}, kIn, {4}).raw,
            (std::vector<int64_t>{-16, -16, -16, -16}));
}

TEST(EmulateActivation, HardSigmoidAndHardSwish) {
  // -4, -1.5, -0.0625, 0, 0.5, 2.5, 7.9375
  const FixedTensor x = tensor(kIn, {7}, {-64, -24, -1, 0, 8, 40, 127});
  // h = clamp(0.25 x + 0.5, 0, 1): 0, 0.125, 0.484375, 0.5, 0.625, 1, 1, in fixed<16,2>
  // (raw / 2^14), exact: 0.484375 = 7936 / 2^14.
  const FixedType h = fmt(16, 2);
  EXPECT_EQ(run(activation(ActKind::HardSigmoid, 7, 7, 0.25, 0.5), {&x}, h, {7}).raw,
            (std::vector<int64_t>{0, 2048, 7936, 8192, 10240, 16384, 16384}));
  // HardSwish, alpha 1/6 as param_t (16 fraction bits, round to nearest):
  // 10923 / 2^16. x = 2.5: h = 2.5 * 10923 / 2^16 + 0.5 = 0.91668..., y =
  // 2.29170... -> fixed<8,4> truncates to 36 / 16. x >= 3 gives h = 1 (y = x);
  // x <= -3 gives 0; x = -1.5: h = 0.24999..., y = -0.37498... -> -6 / 16.
  EXPECT_EQ(run(activation(ActKind::HardSwish, 7, 7, 1.0 / 6.0, 0.5), {&x}, kIn, {7}).raw,
            (std::vector<int64_t>{0, -6, -1, 0, 4, 36, 127}));
}

TEST(EmulateActivation, PReluUsesTheChannelSlope) {
  Layer l = activation(ActKind::PRelu, 4, 2);
  l.precision.weight = fmt(6, 2);  // raw / 16
  l.weights = {8, -16};            // 0.5, -1
  const FixedTensor x = tensor(kIn, {2, 2}, {-32, -32, 16, -4});
  EXPECT_EQ(run(l, {&x}, kIn, {2, 2}).raw, (std::vector<int64_t>{-16, 32, 16, 4}));
}

TEST(EmulateActivation, SigmoidReadsTheMidpointTable) {
  Layer l = activation(ActKind::Sigmoid, 5, 5);
  l.tables.table_size = 16;
  l.tables.table_range = 2;  // bins of 1/4 over [-2, 2)
  l.precision.table = fmt(8, 0, QuantMode::Trn, OverflowMode::Wrap, false);
  // x = -3 (clamped to bin 0), -2 (bin 0), 0.125 (bin 8), 1.9375 (bin 15), 7 (bin 15).
  const FixedTensor x = tensor(kIn, {5}, {-48, -32, 2, 31, 112});
  const FixedType out = fmt(10, 1);  // 9 fraction bits: table raw * 2
  // Entries 34, 135, 221 (tables_test, computed by hand).
  EXPECT_EQ(run(l, {&x}, out, {5}).raw, (std::vector<int64_t>{68, 68, 270, 442, 442}));
}

TEST(EmulateActivation, EluAndSeluOnTheExpTable) {
  Layer l = activation(ActKind::Elu, 2, 2, 1.0);
  l.tables.table_size = 4;
  l.tables.table_range = 4;                          // midpoints -3, -1, 1, 3
  l.precision.table = fmt(12, 4);                    // 8 fraction bits: exp(-1) = 94.18 -> 94
  const FixedTensor x = tensor(kIn, {2}, {-16, 8});  // -1 (bin 1), 0.5
  const FixedType out = fmt(16, 4);                  // 12 fraction bits
  // alpha * (94/256 - 1) = -162/256 = -2592/4096.
  EXPECT_EQ(run(l, {&x}, out, {2}).raw, (std::vector<int64_t>{-2592, 2048}));
  Layer s = l;
  std::get<ActivationParams>(s.params).act = {ActKind::Selu, 2.0, 1.5};
  // gamma * alpha * (94/256 - 1) = 3 * -162/256 = -486/256; gamma * 0.5 = 0.75.
  EXPECT_EQ(run(s, {&x}, out, {2}).raw, (std::vector<int64_t>{-486 * 16, 3072}));
}

TEST(EmulateActivation, TanhTracksFloatWithinTableError) {
  Layer l = activation(ActKind::Tanh, 2000, 2000);
  l.tables.table_size = 1024;
  l.tables.table_range = 8;  // bins of 1/64
  l.precision.table = fmt(18, 2, QuantMode::Rnd);
  const FixedType in = fmt(16, 6);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> d(-8 * 1024, 8 * 1024 - 1);
  FixedTensor x = tensor(in, {2000}, {});
  for (int i = 0; i < 2000; ++i) x.raw.push_back(d(rng));
  const FixedType out = fmt(18, 2);
  const FixedTensor y = run(l, {&x}, out, {2000});
  // Half a bin times max slope 1, plus the table's and the output's lsb.
  const double tol = 0.5 / 64 + std::ldexp(1, -16) + std::ldexp(1, -16);
  for (std::size_t i = 0; i < y.raw.size(); ++i) {
    const double xv = static_cast<double>(x.raw[i]) / 1024;
    ASSERT_NEAR(static_cast<double>(y.raw[i]) / 65536, std::tanh(xv), tol) << "x = " << xv;
  }
}

Layer softmax(int64_t rows, int64_t length) {
  Layer l;
  l.name = l.onnx_name = "sm";
  l.params = SoftmaxParams{rows, length};
  return l;
}

TEST(EmulateSoftmax, HandComputedRow) {
  Layer l = softmax(1, 3);
  l.tables.table_size = 8;
  l.tables.table_range = 4;  // E[k] = exp(-k/2): 256, 155, 94, 57 (/256)
  l.tables.inv_table_size = 8;
  l.tables.inv_table_range = 0;  // row of 3 -> range 4, 2 bins per unit
  l.precision.table = fmt(10, 2, QuantMode::Trn, OverflowMode::Wrap, false);
  l.precision.accum = fmt(12, 4);
  l.precision.inv_table = fmt(12, 4);  // 8 fraction bits
  // x = 1, 0.5, 1.25: m = 1.25, d = 0.25, 0.75, 0 -> bins 0, 1, 0.
  const FixedTensor x = tensor(kIn, {1, 3}, {16, 8, 20});
  // sum = (256 + 155 + 256)/256 = 2.6055 -> j = floor(5.21) = 5;
  // V[5] = 1 / (5.5 / 2) = 0.3636 -> 93/256.
  // y = e * inv: 256*93/65536 = 0.363, 155*93/65536 = 0.2199 -> 8 fraction bits:
  // 93, 56 (truncated 56.3), 93.
  const FixedTensor y = run(l, {&x}, fmt(10, 2), {1, 3});
  EXPECT_EQ(y.raw, (std::vector<int64_t>{93, 56, 93}));
}

TEST(EmulateSoftmax, TracksFloatSoftmax) {
  Layer l = softmax(50, 6);
  l.tables.table_size = 1024;
  l.tables.table_range = 8;
  l.tables.inv_table_size = 1024;
  l.precision.table = fmt(18, 1, QuantMode::Rnd, OverflowMode::Sat, false);
  l.precision.accum = fmt(20, 6);
  l.precision.inv_table = fmt(24, 10, QuantMode::Rnd, OverflowMode::Sat, false);
  const FixedType in = fmt(16, 6);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int64_t> d(-4 * 1024, 4 * 1024);
  FixedTensor x = tensor(in, {50, 6}, {});
  for (int i = 0; i < 300; ++i) x.raw.push_back(d(rng));
  const FixedTensor y = run(l, {&x}, fmt(18, 2), {50, 6});
  for (int r = 0; r < 50; ++r) {
    double m = -1e9, s = 0;
    for (int i = 0; i < 6; ++i) m = std::max(m, x.at(r * 6 + i));
    for (int i = 0; i < 6; ++i) s += std::exp(x.at(r * 6 + i) - m);
    for (int i = 0; i < 6; ++i) {
      const double ref = std::exp(x.at(r * 6 + i) - m) / s;
      // exp bins of 1/128 (relative error < 0.8%) and reciprocal bins of
      // 1/128 on a sum >= 1 (< 0.4%).
      ASSERT_NEAR(y.at(r * 6 + i), ref, 0.015 * ref + 1e-4) << r << "," << i;
    }
  }
}

// LogSoftmax: the Softmax row above up to the sum, then the log table.
TEST(EmulateLogSoftmax, HandComputedRow) {
  Layer l = softmax(1, 3);
  l.params = SoftmaxParams{1, 3, true};
  l.tables.table_size = 8;
  l.tables.table_range = 4;  // E[k] = exp(-k/2): 256, 155, 94, 57 (/256)
  l.tables.inv_table_size = 8;
  l.tables.inv_table_range = 0;  // row of 3 -> range 4, 2 bins per unit
  l.precision.table = fmt(10, 2, QuantMode::Trn, OverflowMode::Wrap, false);
  l.precision.accum = fmt(12, 4);
  l.precision.log_table = fmt(12, 4);  // 8 fraction bits
  l.precision.inv_table = fmt(4, 4);   // unused: a wrong pick would show
  // x = 1, 0.5, 1.25: m = 1.25, bins 0, 1, 0; sum = 667/256 = 2.6055 -> j = 5;
  // G[5] = log(5.5 / 2) = 1.01160 -> 258/256 (truncated 258.97).
  // y = (x - m) - G = -0.25 - 258/256, -0.75 - 258/256, -258/256, exact in
  // 8 fraction bits: -322, -450, -258.
  const FixedTensor x = tensor(kIn, {1, 3}, {16, 8, 20});
  const FixedTensor y = run(l, {&x}, fmt(10, 2), {1, 3});
  EXPECT_EQ(y.raw, (std::vector<int64_t>{-322, -450, -258}));
}

TEST(EmulateLogSoftmax, TracksFloatLogSoftmax) {
  Layer l = softmax(50, 6);
  l.params = SoftmaxParams{50, 6, true};
  l.tables.table_size = 1024;
  l.tables.table_range = 8;
  l.tables.inv_table_size = 1024;
  l.precision.table = fmt(18, 1, QuantMode::Rnd, OverflowMode::Sat, false);
  l.precision.accum = fmt(20, 6);
  l.precision.log_table = fmt(24, 8, QuantMode::Rnd, OverflowMode::Sat);
  const FixedType in = fmt(16, 6);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int64_t> d(-4 * 1024, 4 * 1024);
  FixedTensor x = tensor(in, {50, 6}, {});
  for (int i = 0; i < 300; ++i) x.raw.push_back(d(rng));
  const FixedTensor y = run(l, {&x}, fmt(20, 6), {50, 6});
  for (int r = 0; r < 50; ++r) {
    double m = -1e9, s = 0;
    for (int i = 0; i < 6; ++i) m = std::max(m, x.at(r * 6 + i));
    for (int i = 0; i < 6; ++i) s += std::exp(x.at(r * 6 + i) - m);
    for (int i = 0; i < 6; ++i) {
      const double ref = x.at(r * 6 + i) - m - std::log(s);
      // exp bins of 1/128 overstate the sum by < 0.8% (log: < 0.0079); log
      // bins of 1/128 on a sum >= 1 err by < 1/256; entries and result by
      // < 2^-14.
      ASSERT_NEAR(y.at(r * 6 + i), ref, 0.0079 + 1.0 / 256 + std::ldexp(1, -13)) << r << "," << i;
    }
  }
}

TEST(EmulateBinary, AddSaturatesAndCounts) {
  Layer l;
  l.name = "b";
  l.params = BinaryParams{BinaryOp::Add, 3, 3};
  const FixedTensor a = tensor(kIn, {3}, {100, -100, 3});
  const FixedTensor b = tensor(fmt(6, 2), {3}, {30, -30, 1});  // raw / 16
  OverflowCounts c;
  const FixedType sat = fmt(8, 4, QuantMode::Trn, OverflowMode::Sat);
  EXPECT_EQ(run(l, {&a, &b}, sat, {3}, &c).raw, (std::vector<int64_t>{127, -128, 4}));
  EXPECT_EQ(c.saturated, 2);
  EXPECT_EQ(run(l, {&a, &b}, kIn, {3}, &c).raw, (std::vector<int64_t>{-126, 126, 4}));
  EXPECT_EQ(c.wrapped, 2);
  std::get<BinaryParams>(l.params).op = BinaryOp::Mul;
  // 3/16 * 1/16 = 3/256 -> truncated to 0; 100/16 * 30/16 = 11.7 wraps.
  EXPECT_EQ(run(l, {&a, &b}, fmt(12, 8), {3}).raw[2], 0);
  std::get<BinaryParams>(l.params).op = BinaryOp::Sub;
  EXPECT_EQ(run(l, {&a, &b}, fmt(12, 8), {3}).raw, (std::vector<int64_t>{70, -70, 2}));
}

TEST(EmulateQuantize, BipolarGivesPlusOneFromZeroUp) {
  Layer l;
  l.name = "q";
  QuantizeParams p;
  p.format = fmt(2, 1);  // raw -1, +1 = -0.5, +0.5
  p.min_raw = -1;
  p.max_raw = 1;
  p.bipolar = true;
  l.params = p;
  const FixedTensor x = tensor(kIn, {4}, {-3, -1, 0, 90});
  EXPECT_EQ(run(l, {&x}, p.format, {4}).raw, (std::vector<int64_t>{-1, -1, 1, 1}));
}

TEST(EmulateBinary, BroadcastOperands) {
  // a: 2 pixels of 3 channels (raw / 16); the output keeps a's shape.
  const FixedTensor a = tensor(kIn, {2, 3}, {16, 32, -48, 8, 0, 100});
  Layer l;
  l.name = "b";
  // PerChannel: b is one value per channel, the same for both pixels.
  l.params = BinaryParams{BinaryOp::Mul, 6, 3, BinaryBroadcast::PerChannel};
  const FixedTensor gate = tensor(kIn, {1, 3}, {8, -16, 32});  // 0.5, -1, 2
  // 1*0.5, 2*-1, -3*2; 0.5*0.5, 0*-1, 6.25*2 (wraps in fixed<8,4>: 12.5 -> -3.5)
  EXPECT_EQ(run(l, {&a, &gate}, kIn, {2, 3}).raw, (std::vector<int64_t>{8, -32, -96, 4, 0, -56}));
  // PerPixel: b is one value per pixel, the same for its three channels.
  l.params = BinaryParams{BinaryOp::Sub, 6, 3, BinaryBroadcast::PerPixel};
  const FixedTensor pixel = tensor(kIn, {2, 1}, {16, -8});  // 1, -0.5
  EXPECT_EQ(run(l, {&a, &pixel}, kIn, {2, 3}).raw, (std::vector<int64_t>{0, 16, -64, 16, 8, 108}));
  // ReverseSub is b - a: ONNX's Sub with the broadcast operand first.
  l.params = BinaryParams{BinaryOp::ReverseSub, 6, 3, BinaryBroadcast::PerPixel};
  EXPECT_EQ(run(l, {&a, &pixel}, kIn, {2, 3}).raw,
            (std::vector<int64_t>{0, -16, 64, -16, -8, -108}));
  // Add saturates in the result type like the plain form.
  l.params = BinaryParams{BinaryOp::Add, 6, 3, BinaryBroadcast::PerChannel};
  OverflowCounts c;
  const FixedType sat = fmt(8, 4, QuantMode::Trn, OverflowMode::Sat);
  EXPECT_EQ(run(l, {&a, &gate}, sat, {2, 3}, &c).raw,
            (std::vector<int64_t>{24, 16, -16, 16, -16, 127}));
  EXPECT_EQ(c.saturated, 1);
}

TEST(EmulateMove, ConcatTransposeReshape) {
  Layer l;
  l.name = "c";
  l.params = ConcatParams{1};
  const FixedTensor a = tensor(kIn, {2, 1}, {1, 2});
  const FixedTensor b = tensor(kIn, {2, 2}, {3, 4, 5, 6});
  EXPECT_EQ(run(l, {&a, &b}, kIn, {2, 3}).raw, (std::vector<int64_t>{1, 3, 4, 2, 5, 6}));
  l.params = ConcatParams{0};
  const FixedTensor a2 = tensor(kIn, {1, 2}, {1, 2});
  EXPECT_EQ(run(l, {&a2, &b}, fmt(9, 5), {3, 2}).raw,
            (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));  // same value, wider format

  Layer t;
  t.name = "t";
  t.params = TransposeParams{{1, 0}};
  const FixedTensor m = tensor(kIn, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run(t, {&m}, kIn, {3, 2}).raw, (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
  t.params = TransposeParams{{2, 0, 1}};
  // [1, 2, 3] -> [3, 1, 2]: out[c][0][w] = in[0][w][c].
  const FixedTensor v = tensor(kIn, {1, 2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run(t, {&v}, kIn, {3, 1, 2}).raw, (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));

  Layer r;
  r.name = "r";
  r.params = ReshapeParams{};
  // To fixed<4,2>: 1/16 truncates to 0, 40/16 = 2.5 wraps to -1.5.
  const FixedTensor q = tensor(kIn, {2}, {1, 40});
  EXPECT_EQ(run(r, {&q}, fmt(4, 2), {2}).raw, (std::vector<int64_t>{0, -6}));
}

TEST(EmulateMatMul, AccumulatesInOrderWithSaturation) {
  Layer l;
  l.name = "mm";
  l.params = MatMulParams{1, 1, 3, 1};
  l.precision.accum = fmt(8, 4, QuantMode::Trn, OverflowMode::Sat);  // max 7.9375
  // A = [4, 4, -4], B = [1, 1, 1]: 4, then 8 saturates to 7.9375, then 3.9375.
  const FixedTensor a = tensor(kIn, {1, 3}, {64, 64, -64});
  const FixedTensor b = tensor(kIn, {3, 1}, {16, 16, 16});
  OverflowCounts c;
  EXPECT_EQ(run(l, {&a, &b}, kIn, {1, 1}, &c).raw, (std::vector<int64_t>{63}));
  EXPECT_EQ(c.saturated, 1);
  // Batched 2x2 by 2x2: [[1,2],[3,4]] * [[1,0],[0,1]] per batch.
  l.params = MatMulParams{2, 2, 2, 2};
  const FixedTensor a2 = tensor(kIn, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const FixedTensor b2 = tensor(kIn, {2, 2, 2}, {16, 0, 0, 16, 0, 16, 16, 0});
  EXPECT_EQ(run(l, {&a2, &b2}, kIn, {2, 2, 2}).raw, (std::vector<int64_t>{1, 2, 3, 4, 6, 5, 8, 7}));
}

TEST(EmulateBatchNorm, OneRounding) {
  Layer l;
  l.name = "bn";
  l.params = BatchNormParams{4, 2};
  l.precision.weight = fmt(8, 2);  // raw / 64
  l.precision.bias = fmt(8, 4);    // raw / 16
  l.weights = {32, -96};           // 0.5, -1.5
  l.bias = {1, 8};                 // 0.0625, 0.5
  const FixedTensor x = tensor(kIn, {2, 2}, {3, 16, -3, 0});
  // 3/16 * 0.5 + 1/16 = 2.5/16 -> 2 (TRN) or 3 (RND); 1 * -1.5 + 0.5 = -1;
  // -3/16 * 0.5 + 1/16 = -0.5/16 -> -1 (TRN) or 0 (RND, ties up); 0.5 -> 8.
  EXPECT_EQ(run(l, {&x}, kIn, {2, 2}).raw, (std::vector<int64_t>{2, -16, -1, 8}));
  EXPECT_EQ(run(l, {&x}, fmt(8, 4, QuantMode::Rnd), {2, 2}).raw,
            (std::vector<int64_t>{3, -16, 0, 8}));
}

}  // namespace
}  // namespace kiln::hls

// Emulator kernels of the dense/conv/pool family against hand-computed cases
// and against a double computation on random data.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/testing/emulate_testing.h"
#include "kiln/numeric/fixed.h"

namespace kiln::hls {
namespace {

using numeric::OverflowMode;
using numeric::QuantMode;
using testing::Outcome;
using testing::precision;
using testing::run;

FixedType fx(int w, int i, QuantMode q = QuantMode::Trn, OverflowMode o = OverflowMode::Wrap) {
  FixedType t;
  t.width = w;
  t.integer = i;
  t.quant = q;
  t.overflow = o;
  return t;
}

// Raw values of `values` in t (all exactly representable here).
std::vector<int64_t> raws(const std::vector<double>& values, const FixedType& t) {
  std::vector<int64_t> r;
  for (double v : values) r.push_back(static_cast<int64_t>(std::ldexp(v, t.frac())));
  return r;
}

std::vector<double> values(const FixedTensor& t) {
  std::vector<double> v;
  for (int64_t r : t.raw) v.push_back(std::ldexp(static_cast<double>(r), -t.type.frac()));
  return v;
}

FixedTensor tensor(const std::vector<double>& v, const FixedType& t) {
  FixedTensor x;
  x.type = t;
  x.shape = {static_cast<int64_t>(v.size())};
  x.raw = raws(v, t);
  return x;
}

Layer dense_layer(const std::vector<double>& w, const std::vector<double>& b, int n_in, int n_out,
                  const Precision& p) {
  Layer l;
  l.name = l.onnx_name = "fc";
  DenseParams dp;
  dp.n_in = n_in;
  dp.n_out = n_out;
  l.params = dp;
  l.precision = p;
  l.weights = raws(w, p.weight);
  l.bias = raws(b, p.bias);
  return l;
}

TEST(EmulateDense, TwoByTwo) {
  // y0 = 0.25 + 1.5*0.5 + (-0.25)*2 = 0.5; y1 = -0.5 + 1.5*1 + (-0.25)(-1.5) = 1.375.
  const Precision p = precision(fx(8, 4), fx(8, 4), fx(16, 8), fx(8, 4));
  const Layer l = dense_layer({0.5, 1.0, 2.0, -1.5}, {0.25, -0.5}, 2, 2, p);
  const FixedTensor x = tensor({1.5, -0.25}, fx(8, 4));
  Outcome r = run(l, x, fx(8, 4));
  EXPECT_EQ(values(r.out), (std::vector<double>{0.5, 1.375}));
  EXPECT_EQ(r.counts.wrapped + r.counts.saturated, 0);
  // Result with 2 fraction bits: 1.375 truncates to 1.25, rounds (half up) to 1.5.
  EXPECT_EQ(values(run(l, x, fx(8, 6)).out), (std::vector<double>{0.5, 1.25}));
  EXPECT_EQ(values(run(l, x, fx(8, 6, QuantMode::Rnd)).out), (std::vector<double>{0.5, 1.5}));
}

TEST(EmulateDense, AccumulatorWrapsAndSaturatesStepByStep) {
  // a = 3.5, then 3.5 + 3.5 = 7 does not fit ap_fixed<8,3> ([-4, 4)).
  Precision p = precision(fx(8, 4), fx(8, 4), fx(8, 3), fx(8, 4));
  Layer l = dense_layer({1.0, 1.0}, {0.0}, 2, 1, p);
  const FixedTensor x = tensor({3.5, 3.5}, fx(8, 4));
  Outcome wrap = run(l, x, fx(8, 4));
  EXPECT_EQ(values(wrap.out), (std::vector<double>{-1.0}));  // 7 - 8
  EXPECT_EQ(wrap.counts.wrapped, 1);
  l.precision.accum = fx(8, 3, QuantMode::Trn, OverflowMode::Sat);
  Outcome sat = run(l, x, fx(8, 4));
  // max of ap_fixed<8,3> is 4 - 2^-5 = 3.96875; result has 4 fraction bits: 3.9375.
  EXPECT_EQ(values(sat.out), (std::vector<double>{3.9375}));
  EXPECT_EQ(sat.counts.saturated, 1);
  // Order matters under saturation: bias -4 first, then +3.5 +3.5 stays in
  // range (3); with the bias last it would give 3.96875 - 4.
  l.bias = raws({-4.0}, p.bias);
  EXPECT_EQ(values(run(l, x, fx(8, 4)).out), (std::vector<double>{3.0}));
}

TEST(EmulateDense, FusedActivations) {
  const Precision p = precision(fx(8, 4), fx(8, 4), fx(16, 8), fx(16, 8));
  Layer l = dense_layer({1.0, -1.0}, {0.0, 0.0}, 1, 2, p);
  const FixedTensor x = tensor({2.5}, fx(8, 4));  // pre-activation: 2.5, -2.5
  auto& dp = std::get<DenseParams>(l.params);
  dp.act.kind = ActKind::Relu;
  EXPECT_EQ(values(run(l, x, fx(16, 8)).out), (std::vector<double>{2.5, 0.0}));
  dp.act.kind = ActKind::LeakyRelu;
  dp.act.alpha = 0.25;
  EXPECT_EQ(values(run(l, x, fx(16, 8)).out), (std::vector<double>{2.5, -0.625}));
  // alpha 0.1 is quantized to param_t (16 fraction bits, round): 6554 / 65536.
  dp.act.alpha = 0.1;
  const double alpha = 6554.0 / 65536.0;
  const double y1 = std::floor(-2.5 * alpha * 256) / 256;  // result truncates to 8 bits
  EXPECT_EQ(values(run(l, x, fx(16, 8)).out), (std::vector<double>{2.5, y1}));
  dp.act.kind = ActKind::Clip;
  dp.act.alpha = -1.0;
  dp.act.beta = 2.0;
  EXPECT_EQ(values(run(l, x, fx(16, 8)).out), (std::vector<double>{2.0, -1.0}));
}

Layer conv_layer(const ConvParams& cp, const std::vector<double>& w, const std::vector<double>& b,
                 const Precision& p) {
  Layer l;
  l.name = l.onnx_name = "conv";
  l.params = cp;
  l.precision = p;
  l.weights = raws(w, p.weight);
  l.bias = raws(b, p.bias);
  return l;
}

TEST(EmulateConv, ThreeByThreePaddedStrideTwo) {
  ConvParams cp;
  cp.in_h = cp.in_w = 4;
  cp.c_in = cp.c_out = 1;
  cp.out_h = cp.out_w = 2;
  cp.kernel_h = cp.kernel_w = 3;
  cp.stride_h = cp.stride_w = 2;
  cp.pad_top = cp.pad_bottom = cp.pad_left = cp.pad_right = 1;
  const Precision p = precision(fx(8, 4), fx(8, 4), fx(24, 16), fx(24, 16));
  std::vector<double> w(9, 1.0);
  w[4] = 2.0;  // centre
  const Layer l = conv_layer(cp, w, {0.5}, p);
  std::vector<double> x;
  for (int i = 1; i <= 16; ++i) x.push_back(i);  // x[h][w] = 4h + w + 1
  const Outcome r = run(l, tensor(x, fx(16, 10)), fx(24, 16));
  // (0,0): 1*2+2+5+6; (0,1): 2+3+4+6+7+8 + 3; (1,0): 5+6+9+10+13+14 + 9;
  // (1,1): 6+7+8+10+11+12+14+15+16 + 11; each + 0.5.
  EXPECT_EQ(values(r.out), (std::vector<double>{15.5, 33.5, 66.5, 110.5}));
}

TEST(EmulateConv, Depthwise) {
  ConvParams cp;
  cp.in_h = cp.in_w = 3;
  cp.c_in = cp.c_out = cp.groups = 2;
  cp.out_h = cp.out_w = 2;
  cp.kernel_h = cp.kernel_w = 2;
  const Precision p = precision(fx(8, 4), fx(8, 4), fx(24, 16), fx(24, 16));
  // Weights [kh][kw][1][c]: channel 0 all ones, channel 1 = 1, 2, 3, 4.
  const std::vector<double> w = {1, 1, 1, 2, 1, 3, 1, 4};
  const Layer l = conv_layer(cp, w, {0, 0}, p);
  std::vector<double> x;
  for (int i = 0; i < 9; ++i) {
    x.push_back(i);
    x.push_back(-i);
  }
  const Outcome r = run(l, tensor(x, fx(16, 10)), fx(24, 16));
  EXPECT_EQ(values(r.out), (std::vector<double>{8, -27, 12, -37, 20, -57, 24, -67}));
}

Layer pool_layer(const PoolParams& pp, const Precision& p) {
  Layer l;
  l.name = l.onnx_name = "pool";
  l.params = pp;
  l.precision = p;
  return l;
}

TEST(EmulatePool, MaxTwoByTwo) {
  PoolParams pp;
  pp.kind = PoolKind::Max;
  pp.in_h = pp.in_w = 4;
  pp.channels = 1;
  pp.out_h = pp.out_w = 2;
  pp.kernel_h = pp.kernel_w = pp.stride_h = pp.stride_w = 2;
  const Layer l = pool_layer(pp, precision(fx(8, 4), fx(8, 4), fx(16, 8), fx(8, 4)));
  const std::vector<double> x = {-1, -2, 3,  0,     //
                                 -3, -4, 1,  2.5,   //
                                 5,  0,  -1, -0.5,  //
                                 1,  1,  -2, -0.75};
  EXPECT_EQ(values(run(l, tensor(x, fx(8, 4)), fx(8, 4)).out),
            (std::vector<double>{-1, 3, 5, -0.5}));
}

TEST(EmulatePool, AveragePaddedCountsRealPixels) {
  PoolParams pp;
  pp.kind = PoolKind::Average;
  pp.in_h = pp.in_w = 3;
  pp.channels = 1;
  pp.out_h = pp.out_w = 2;
  pp.kernel_h = pp.kernel_w = pp.stride_h = pp.stride_w = 2;
  pp.pad_bottom = pp.pad_right = 1;
  Layer l = pool_layer(pp, precision(fx(8, 4), fx(8, 4), fx(16, 8), fx(16, 8)));
  std::vector<double> x;
  for (int i = 0; i < 9; ++i) x.push_back(i);
  const FixedTensor in = tensor(x, fx(16, 8));
  EXPECT_EQ(values(run(l, in, fx(16, 8)).out), (std::vector<double>{2, 3.5, 6.5, 8}));
  std::get<PoolParams>(l.params).count_include_pad = true;
  EXPECT_EQ(values(run(l, in, fx(16, 8)).out), (std::vector<double>{2, 1.75, 3.25, 2}));
}

TEST(EmulatePool, AverageUsesQuantizedReciprocal) {
  PoolParams pp;
  pp.kind = PoolKind::Average;
  pp.dims = 1;
  pp.in_w = 3;
  pp.channels = 1;
  pp.out_w = 1;
  pp.kernel_w = 3;
  const Layer l = pool_layer(pp, precision(fx(8, 4), fx(8, 4), fx(16, 8), fx(24, 8)));
  // 3 * Q_param(1/3) = 3 * 21845 / 65536 = 65535 / 65536, not 1.
  const Outcome r = run(l, tensor({1, 1, 1}, fx(8, 4)), fx(24, 8));
  EXPECT_EQ(r.out.raw, (std::vector<int64_t>{65535}));
}

TEST(EmulateZeroPad, PadsAndConverts) {
  Layer l;
  l.name = l.onnx_name = "pad";
  ZeroPadParams zp;
  zp.dims = 1;
  zp.in_w = 2;
  zp.channels = 1;
  zp.pad_left = 1;
  zp.pad_right = 2;
  l.params = zp;
  const Outcome r = run(l, tensor({1.75, -0.5}, fx(8, 4)), fx(8, 6));  // 2 fraction bits
  EXPECT_EQ(values(r.out), (std::vector<double>{0, 1.75, -0.5, 0, 0}));
}

// A random conv with wide accumulators is the double computation to within
// the accumulator's truncation (one lsb per step) and the result's.
TEST(EmulateConv, CloseToDoubleOnRandomData) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-2, 2);
  ConvParams cp;
  cp.in_h = 5;
  cp.in_w = 6;
  cp.c_in = 3;
  cp.c_out = 4;
  cp.kernel_h = cp.kernel_w = 3;
  cp.pad_top = cp.pad_left = 1;
  cp.stride_w = 2;
  cp.out_h = 4;  // (5 + 1 - 3) / 1 + 1
  cp.out_w = 2;  // (6 + 1 - 3) / 2 + 1
  const FixedType in_t = fx(16, 4), w_t = fx(12, 2);
  const Precision p = precision(w_t, fx(16, 4), fx(24, 10), fx(24, 10));
  std::vector<double> w(3 * 3 * 3 * 4), b(4), x(5 * 6 * 3);
  auto q = [](double v, const FixedType& t) {
    return std::floor(std::ldexp(v, t.frac())) / std::ldexp(1.0, t.frac());
  };
  for (double& v : w) v = q(u(rng), w_t);
  for (double& v : b) v = q(u(rng), p.bias);
  for (double& v : x) v = q(u(rng), in_t);
  const Layer l = conv_layer(cp, w, b, p);
  const Outcome r = run(l, tensor(x, in_t), p.result);
  ASSERT_EQ(r.out.raw.size(), 4u * 2 * 4);
  const double tol = (27 + 2) * p.accum.lsb();
  for (int oh = 0; oh < 4; ++oh)
    for (int ow = 0; ow < 2; ++ow)
      for (int co = 0; co < 4; ++co) {
        double s = b[co];
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw) {
            const int ih = oh + kh - 1, iw = ow * 2 + kw - 1;
            if (ih < 0 || ih >= 5 || iw < 0 || iw >= 6) continue;
            for (int ci = 0; ci < 3; ++ci)
              s += x[(ih * 6 + iw) * 3 + ci] * w[((kh * 3 + kw) * 3 + ci) * 4 + co];
          }
        const double got = values(r.out)[(oh * 2 + ow) * 4 + co];
        EXPECT_NEAR(got, s, tol) << oh << "," << ow << "," << co;
        EXPECT_LE(got, s + 1e-12);  // truncation only moves down
      }
  EXPECT_EQ(r.counts.wrapped + r.counts.saturated, 0);
}

}  // namespace
}  // namespace kiln::hls

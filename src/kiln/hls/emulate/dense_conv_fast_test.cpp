// The int64 fast path of the Dense/Conv accumulation (emulate/dense_conv.cpp)
// against the general 128-bit path, on random layers and formats, plus hand
// cases that run on the fast path.
#include <gtest/gtest.h>

#include <algorithm>
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

constexpr QuantMode kQuants[] = {QuantMode::Trn,     QuantMode::TrnZero,   QuantMode::Rnd,
                                 QuantMode::RndZero, QuantMode::RndMinInf, QuantMode::RndInf,
                                 QuantMode::RndConv};
constexpr OverflowMode kOverflows[] = {OverflowMode::Wrap, OverflowMode::Sat, OverflowMode::SatZero,
                                       OverflowMode::SatSym};

FixedType fx(int w, int i, bool is_signed = true, QuantMode q = QuantMode::Trn,
             OverflowMode o = OverflowMode::Wrap) {
  FixedType t;
  t.width = w;
  t.integer = i;
  t.is_signed = is_signed;
  t.quant = q;
  t.overflow = o;
  return t;
}

class Random {
 public:
  explicit Random(uint32_t seed) : gen_(seed) {}
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  // A format with W in [4, 32], I from -4 to W + 4, any sign and modes.
  FixedType format(int max_width = 32) {
    const int w = static_cast<int>(uniform(4, max_width));
    return fx(w, static_cast<int>(uniform(-4, w + 4)), uniform(0, 3) != 0, kQuants[uniform(0, 6)],
              kOverflows[uniform(0, 3)]);
  }
  // A raw value of t: mostly uniform over the range, sometimes an extreme,
  // zero or a small value (small values make ties and carries likely).
  int64_t raw(const FixedType& t) {
    switch (uniform(0, 7)) {
      case 0: return t.min_raw();
      case 1: return t.max_raw();
      case 2: return std::clamp<int64_t>(uniform(-3, 3), t.min_raw(), t.max_raw());
      default: return uniform(t.min_raw(), t.max_raw());
    }
  }
  std::vector<int64_t> raws(int64_t n, const FixedType& t) {
    std::vector<int64_t> r;
    for (int64_t i = 0; i < n; ++i) r.push_back(raw(t));
    return r;
  }

 private:
  std::mt19937_64 gen_;
};

struct Totals {
  int64_t cases = 0, fast_cases = 0, wrapped = 0, saturated = 0;
};

// Runs `layer` with the fast path on and off; outputs and counts must match.
void compare_paths(const Layer& layer, const FixedTensor& in, const FixedType& out_type,
                   Totals& totals) {
  bool used_fast = false, used_slow = true;
  const Outcome fast = run(layer, in, out_type, {}, &used_fast);
  const Outcome slow = run(layer, in, out_type, EmulatorOptions{.fast_path = false}, &used_slow);
  EXPECT_FALSE(used_slow);
  const Precision& p = layer.precision;
  ASSERT_EQ(fast.out.raw, slow.out.raw)
      << "x " << in.type.to_string() << " w " << p.weight.to_string() << " acc "
      << p.accum.to_string() << " out " << out_type.to_string();
  ASSERT_EQ(fast.counts.wrapped, slow.counts.wrapped) << p.accum.to_string();
  ASSERT_EQ(fast.counts.saturated, slow.counts.saturated) << p.accum.to_string();
  totals.cases++;
  if (used_fast) totals.fast_cases++;
  totals.wrapped += slow.counts.wrapped;
  totals.saturated += slow.counts.saturated;
}

Precision random_precision(Random& rnd) {
  // The accumulator is often narrow so that it wraps and saturates.
  return precision(rnd.format(), rnd.format(), rnd.format(), rnd.format());
}

TEST(EmulateFastPath, DenseMatchesGeneralPathOnRandomFormats) {
  Random rnd(20240611);
  Totals totals;
  for (int iter = 0; iter < 3000; ++iter) {
    Layer l;
    l.name = l.onnx_name = "fc";
    DenseParams dp;
    dp.n_in = rnd.uniform(1, 12);
    dp.n_out = rnd.uniform(1, 4);
    dp.act.kind = rnd.uniform(0, 1) ? ActKind::Relu : ActKind::None;
    l.params = dp;
    l.precision = random_precision(rnd);
    l.weights = rnd.raws(dp.n_in * dp.n_out, l.precision.weight);
    if (rnd.uniform(0, 3) != 0) l.bias = rnd.raws(dp.n_out, l.precision.bias);
    const int64_t rows = rnd.uniform(1, 2);
    FixedTensor x;
    x.type = rnd.format();
    x.shape = {rows, dp.n_in};
    x.raw = rnd.raws(rows * dp.n_in, x.type);
    compare_paths(l, x, l.precision.result, totals);
    if (HasFatalFailure()) return;
  }
  // The comparison must have exercised both paths and every overflow branch.
  EXPECT_GT(totals.fast_cases, totals.cases / 2);
  EXPECT_LT(totals.fast_cases, totals.cases);
  EXPECT_GT(totals.wrapped, 0);
  EXPECT_GT(totals.saturated, 0);
}

TEST(EmulateFastPath, ConvMatchesGeneralPathOnRandomFormats) {
  Random rnd(77);
  Totals totals;
  for (int iter = 0; iter < 1500; ++iter) {
    ConvParams cp;
    cp.dims = 2;
    cp.in_h = rnd.uniform(1, 5);
    cp.in_w = rnd.uniform(1, 5);
    cp.kernel_h = rnd.uniform(1, std::min<int64_t>(3, cp.in_h + 1));
    cp.kernel_w = rnd.uniform(1, std::min<int64_t>(3, cp.in_w + 1));
    cp.stride_h = rnd.uniform(1, 2);
    cp.stride_w = rnd.uniform(1, 2);
    cp.pad_top = rnd.uniform(0, 1);
    cp.pad_bottom = rnd.uniform(0, 1);
    cp.pad_left = rnd.uniform(0, 1);
    cp.pad_right = rnd.uniform(0, 1);
    const int64_t span_h = cp.in_h + cp.pad_top + cp.pad_bottom - cp.kernel_h;
    const int64_t span_w = cp.in_w + cp.pad_left + cp.pad_right - cp.kernel_w;
    if (span_h < 0 || span_w < 0) continue;
    cp.out_h = span_h / cp.stride_h + 1;
    cp.out_w = span_w / cp.stride_w + 1;
    cp.c_in = rnd.uniform(1, 3);
    if (rnd.uniform(0, 3) == 0) {
      cp.groups = cp.c_out = cp.c_in;  // depthwise
    } else {
      cp.groups = 1;
      cp.c_out = rnd.uniform(1, 3);
    }
    cp.act.kind = rnd.uniform(0, 1) ? ActKind::Relu : ActKind::None;
    Layer l;
    l.name = l.onnx_name = "conv";
    l.params = cp;
    l.precision = random_precision(rnd);
    l.weights =
        rnd.raws(cp.kernel_h * cp.kernel_w * (cp.c_in / cp.groups) * cp.c_out, l.precision.weight);
    if (rnd.uniform(0, 3) != 0) l.bias = rnd.raws(cp.c_out, l.precision.bias);
    FixedTensor x;
    x.type = rnd.format();
    x.shape = {cp.in_h, cp.in_w, cp.c_in};
    x.raw = rnd.raws(cp.in_h * cp.in_w * cp.c_in, x.type);
    compare_paths(l, x, l.precision.result, totals);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(totals.cases, 1000);
  EXPECT_GT(totals.fast_cases, totals.cases / 2);
  EXPECT_LT(totals.fast_cases, totals.cases);
  EXPECT_GT(totals.wrapped, 0);
  EXPECT_GT(totals.saturated, 0);
}

// Ties and overflow at every mode, on a dense layer whose accumulator drops
// product bits (F_acc = 2 < F_x + F_w = 8): a rounding step every MAC.
TEST(EmulateFastPath, RoundingModesMatchGeneralPathOnTies) {
  Random rnd(5);
  Totals totals;
  for (QuantMode q : kQuants) {
    for (OverflowMode o : kOverflows) {
      for (bool acc_signed : {true, false}) {
        for (int iter = 0; iter < 40; ++iter) {
          Layer l;
          l.name = l.onnx_name = "fc";
          DenseParams dp;
          dp.n_in = 8;
          dp.n_out = 2;
          l.params = dp;
          l.precision = precision(fx(6, 2), fx(8, 4), fx(6, 4, acc_signed, q, o), fx(16, 8));
          l.weights = rnd.raws(16, l.precision.weight);
          FixedTensor x;
          x.type = fx(6, 2);
          x.shape = {1, 8};
          x.raw = rnd.raws(8, x.type);
          compare_paths(l, x, l.precision.result, totals);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  EXPECT_EQ(totals.fast_cases, totals.cases);
  EXPECT_GT(totals.wrapped, 0);
  EXPECT_GT(totals.saturated, 0);
}

// The typical hls4ml precision takes the fast path, and a hand-computed sum
// comes out right: x = (1.5, -2.25, 0.5), W column = (0.75, 1.25, -3),
// bias 0.125: 0.125 + 1.125 - 2.8125 - 1.5 = -3.0625.
TEST(EmulateFastPath, TypicalPrecisionUsesFastPath) {
  Layer l;
  l.name = l.onnx_name = "fc";
  DenseParams dp;
  dp.n_in = 3;
  dp.n_out = 1;
  l.params = dp;
  l.precision = precision(fx(16, 6), fx(16, 6), fx(32, 12), fx(32, 12));
  // Raw values at 10 fraction bits (1024 per unit).
  l.weights = {768, 1280, -3072};
  l.bias = {128};
  FixedTensor x;
  x.type = fx(16, 6);
  x.shape = {1, 3};
  x.raw = {1536, -2304, 512};
  bool used = false;
  const Outcome r = run(l, x, fx(32, 12), {}, &used);
  EXPECT_TRUE(used);
  // -3.0625 at 20 fraction bits.
  EXPECT_EQ(r.out.raw, (std::vector<int64_t>{-3211264}));

  // Turned off, the same layer does not count.
  bool used_off = true;
  const Outcome s = run(l, x, fx(32, 12), EmulatorOptions{.fast_path = false}, &used_off);
  EXPECT_FALSE(used_off);
  EXPECT_EQ(s.out.raw, r.out.raw);
}

// Hand-computed ties to even on the fast path: products 0.125, 0.375, 0.125
// into an accumulator with LSB 0.25 and AP_RND_CONV:
// Q(0.125) = 0 (tie, to even 0); Q(0 + 0.375) = 0.5 (1.5 LSB -> 2);
// Q(0.5 + 0.125) = 0.5 (2.5 LSB -> 2). AP_RND gives 0.25, 0.75, 1.0 instead.
TEST(EmulateFastPath, HandComputedTies) {
  Layer l;
  l.name = l.onnx_name = "fc";
  DenseParams dp;
  dp.n_in = 3;
  dp.n_out = 1;
  l.params = dp;
  // x and w in <8,4> (16 per unit), accumulator <8,6> (4 per unit).
  l.weights = {4, 8, 4};  // 0.25, 0.5, 0.25
  FixedTensor x;
  x.type = fx(8, 4);
  x.shape = {1, 3};
  x.raw = {8, 12, 8};  // 0.5, 0.75, 0.5
  l.precision = precision(fx(8, 4), fx(8, 4), fx(8, 6, true, QuantMode::RndConv), fx(8, 6));
  bool used1 = false, used2 = false;
  EXPECT_EQ(run(l, x, fx(8, 6), {}, &used1).out.raw, (std::vector<int64_t>{2}));  // 0.5
  l.precision.accum.quant = QuantMode::Rnd;
  EXPECT_EQ(run(l, x, fx(8, 6), {}, &used2).out.raw, (std::vector<int64_t>{4}));  // 1.0
  EXPECT_TRUE(used1);
  EXPECT_TRUE(used2);
}

// Formats whose products do not fit int64 stay on the general path.
TEST(EmulateFastPath, WideFormatsUseGeneralPath) {
  Layer l;
  l.name = l.onnx_name = "fc";
  DenseParams dp;
  dp.n_in = 1;
  dp.n_out = 1;
  l.params = dp;
  l.precision = precision(fx(40, 10), fx(40, 10), fx(64, 20), fx(64, 20));
  l.weights = {int64_t{3} << 30};  // 3.0
  FixedTensor x;
  x.type = fx(40, 10);
  x.shape = {1, 1};
  x.raw = {int64_t{5} << 29};  // 2.5
  bool used = true;
  const Outcome r = run(l, x, fx(64, 20), {}, &used);
  EXPECT_FALSE(used);
  EXPECT_EQ(r.out.raw, (std::vector<int64_t>{int64_t{15} << 43}));  // 7.5 at 44 frac bits
}

}  // namespace
}  // namespace kiln::hls

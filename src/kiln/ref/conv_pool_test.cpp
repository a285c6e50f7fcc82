// Conv, pooling, Gemm and MatMul: hand-computed cases, plus the Eigen conv
// and GEMM paths against naive direct loops on random data.
#include <cmath>
#include <limits>
#include <random>
#include <tuple>

#include "kiln/ref/testing/ref_testing.h"

namespace kiln::ref {
namespace {

using testing::eval;
using testing::eval1;
using testing::expect_values;
using testing::F;
using testing::FT;
using testing::make_node;

ConvAttrs conv2d(std::vector<int64_t> kernel, std::vector<int64_t> strides,
                 std::vector<int64_t> pads, std::vector<int64_t> dil = {1, 1}, int64_t group = 1) {
  return ConvAttrs{std::move(kernel), std::move(strides), std::move(pads), std::move(dil), group};
}

std::vector<float> iota(int n, float start = 0) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// ---- Conv, hand-computed

TEST(Conv, PlainWithBias) {
  const Tensor x = F({1, 1, 3, 3}, iota(9, 1));
  const Tensor w = F({1, 1, 2, 2}, {1, 1, 1, 1});
  const Tensor b = F({1}, {1});
  expect_values(
      eval1(OpKind::Conv, {&x, &w, &b}, FT({1, 1, 2, 2}), conv2d({2, 2}, {1, 1}, {0, 0, 0, 0})),
      {1, 1, 2, 2}, {13, 17, 25, 29});
  // Bias omitted.
  expect_values(eval1(OpKind::Conv, {&x, &w, nullptr}, FT({1, 1, 2, 2}),
                      conv2d({2, 2}, {1, 1}, {0, 0, 0, 0})),
                {1, 1, 2, 2}, {12, 16, 24, 28});
}

TEST(Conv, PaddingAndStride) {
  // 3x3 kernel with taps only at (0,0) = 1 and (2,2) = 2, pad 1, stride 2:
  // y(i,j) = x[2i-1][2j-1] + 2 x[2i+1][2j+1] with zeros outside.
  const Tensor x = F({1, 1, 3, 3}, iota(9, 1));
  const Tensor w = F({1, 1, 3, 3}, {1, 0, 0, 0, 0, 0, 0, 0, 2});
  expect_values(
      eval1(OpKind::Conv, {&x, &w}, FT({1, 1, 2, 2}), conv2d({3, 3}, {2, 2}, {1, 1, 1, 1})),
      {1, 1, 2, 2}, {10, 0, 0, 5});
}

TEST(Conv, Dilation) {
  // x[r][c] = 4r + c; 2x2 ones dilated by 2: y(i,j) = 16i + 4j + 20.
  const Tensor x = F({1, 1, 4, 4}, iota(16));
  const Tensor w = F({1, 1, 2, 2}, {1, 1, 1, 1});
  expect_values(
      eval1(OpKind::Conv, {&x, &w}, FT({1, 1, 2, 2}), conv2d({2, 2}, {1, 1}, {0, 0, 0, 0}, {2, 2})),
      {1, 1, 2, 2}, {20, 24, 36, 40});
}

TEST(Conv, Groups) {
  const Tensor x = F({1, 2, 2, 2}, iota(8, 1));
  // Pointwise with two groups: channel scales 2 and 3.
  const Tensor w1 = F({2, 1, 1, 1}, {2, 3});
  expect_values(eval1(OpKind::Conv, {&x, &w1}, FT({1, 2, 2, 2}),
                      conv2d({1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 2)),
                {1, 2, 2, 2}, {2, 4, 6, 8, 15, 18, 21, 24});
  // 2x2 kernel per group: sum of channel 0, and x00 - x11 of channel 1.
  const Tensor w2 = F({2, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, -1});
  expect_values(eval1(OpKind::Conv, {&x, &w2}, FT({1, 2, 1, 1}),
                      conv2d({2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 2)),
                {1, 2, 1, 1}, {10, -3});
}

TEST(Conv, Depthwise) {
  // 4 channels of constant c+1, each kernel all c+1, pad 1 on a 2x2 input: every
  // 3x3 window covers the whole input, so y = 4 (c+1)^2.
  std::vector<float> xv, wv;
  for (int c = 0; c < 4; ++c) {
    for (int i = 0; i < 4; ++i) xv.push_back(static_cast<float>(c + 1));
    for (int i = 0; i < 9; ++i) wv.push_back(static_cast<float>(c + 1));
  }
  const Tensor x = F({1, 4, 2, 2}, xv), w = F({4, 1, 3, 3}, wv);
  std::vector<double> want;
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 4; ++i) want.push_back(4.0 * (c + 1) * (c + 1));
  expect_values(eval1(OpKind::Conv, {&x, &w}, FT({1, 4, 2, 2}),
                      conv2d({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 4)),
                {1, 4, 2, 2}, want);
}

TEST(Conv, OneDimensional) {
  // Kernel [1, 0, -1], pad 1, stride 2: y(o) = x[2o-1] - x[2o+1].
  const Tensor x = F({1, 1, 5}, {1, 2, 3, 4, 5});
  const Tensor w = F({1, 1, 3}, {1, 0, -1});
  expect_values(eval1(OpKind::Conv, {&x, &w}, FT({1, 1, 3}), ConvAttrs{{3}, {2}, {1, 1}, {1}, 1}),
                {1, 1, 3}, {-2, -2, 4});
}

TEST(Conv, ThreeDimensional) {
  const Tensor x = F({1, 1, 2, 2, 2}, iota(8, 1));
  const Tensor w = F({1, 1, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  expect_values(eval1(OpKind::Conv, {&x, &w}, FT({1, 1, 1, 1, 1}),
                      ConvAttrs{{2, 2, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, 1}),
                {1, 1, 1, 1, 1}, {36});
}

TEST(Conv, ChannelMismatchIsInvalidModel) {
  const Tensor x = F({1, 3, 2, 2}, iota(12));
  const Tensor w = F({1, 2, 1, 1}, {1, 1});
  try {
    eval1(OpKind::Conv, {&x, &w}, FT({1, 1, 2, 2}), conv2d({1, 1}, {1, 1}, {0, 0, 0, 0}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  }
}

// ---- Conv against a naive direct loop

struct ConvCase {
  int64_t n, c, m, group;
  Shape in, kernel, strides, pads, dilations;  // spatial; pads [begins..., ends...]
  bool bias;
};

// Direct 3-D convolution (1-D and 2-D cases are given unit leading dims), in double.
std::vector<double> naive_conv(const ConvCase& k, const std::vector<float>& x,
                               const std::vector<float>& w, const std::vector<float>& b,
                               const Shape& out) {
  const std::size_t sp = k.in.size();
  auto get3 = [&](const Shape& s, int64_t fill) {
    Shape r(3 - sp, fill);
    r.insert(r.end(), s.begin(), s.end());
    return r;
  };
  const Shape in = get3(k.in, 1), ker = get3(k.kernel, 1), st = get3(k.strides, 1),
              dl = get3(k.dilations, 1), o = get3(out, 1);
  Shape pb = get3(Shape(k.pads.begin(), k.pads.begin() + sp), 0);
  const int64_t cg = k.c / k.group, mg = k.m / k.group;
  std::vector<double> y;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t m = 0; m < k.m; ++m)
      for (int64_t od = 0; od < o[0]; ++od)
        for (int64_t oh = 0; oh < o[1]; ++oh)
          for (int64_t ow = 0; ow < o[2]; ++ow) {
            double acc = k.bias ? b[m] : 0.0;
            const int64_t g = m / mg;
            for (int64_t c = 0; c < cg; ++c)
              for (int64_t kd = 0; kd < ker[0]; ++kd)
                for (int64_t kh = 0; kh < ker[1]; ++kh)
                  for (int64_t kw = 0; kw < ker[2]; ++kw) {
                    const int64_t id = od * st[0] - pb[0] + kd * dl[0];
                    const int64_t ih = oh * st[1] - pb[1] + kh * dl[1];
                    const int64_t iw = ow * st[2] - pb[2] + kw * dl[2];
                    if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || iw < 0 || iw >= in[2])
                      continue;
                    const int64_t xc = g * cg + c;
                    const double xv = x[(((n * k.c + xc) * in[0] + id) * in[1] + ih) * in[2] + iw];
                    const double wv = w[(((m * cg + c) * ker[0] + kd) * ker[1] + kh) * ker[2] + kw];
                    acc += xv * wv;
                  }
            y.push_back(acc);
          }
  return y;
}

std::vector<float> random_values(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = dist(rng);
  return v;
}

TEST(Conv, MatchesNaiveLoopOnRandomData) {
  const std::vector<ConvCase> cases = {
      {2, 3, 4, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},
      {1, 3, 5, 1, {9, 8}, {3, 2}, {2, 2}, {0, 1, 1, 2}, {2, 2}, true},
      {1, 4, 6, 2, {6, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, false},
      {2, 8, 8, 8, {10, 10}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},     // depthwise
      {1, 6, 12, 6, {5, 7}, {3, 3}, {1, 2}, {1, 0, 1, 2}, {1, 1}, true},      // multiplier 2
      {2, 16, 8, 1, {5, 6}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, true},      // pointwise GEMM
      {1, 16, 8, 1, {5, 6}, {1, 1}, {2, 2}, {0, 0, 0, 0}, {1, 1}, false},     // 1x1 strided
      {1, 4, 4, 2, {5, 6}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, true},       // grouped pointwise
      {1, 128, 4, 1, {64, 64}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},   // banded im2col
      {1, 64, 160, 1, {10, 10}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},  // tiled GEMM
      {1, 3, 2, 1, {11}, {3}, {2}, {1, 2}, {2}, true},                        // 1-D
      {2, 2, 3, 1, {3, 5, 6}, {2, 3, 3}, {1, 2, 1}, {1, 1, 0, 0, 1, 2}, {1, 1, 2}, true},  // 3-D
      {1, 4, 4, 4, {3, 4, 4}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1, 0, 1, 1}, {1, 1, 1}, false},
  };
  std::mt19937 rng(1234);
  for (const ConvCase& k : cases) {
    const std::size_t sp = k.in.size();
    Shape out;
    for (std::size_t d = 0; d < sp; ++d)
      out.push_back(
          (k.in[d] + k.pads[d] + k.pads[sp + d] - k.dilations[d] * (k.kernel[d] - 1) - 1) /
              k.strides[d] +
          1);
    Shape xs{k.n, k.c}, ws{k.m, k.c / k.group}, ys{k.n, k.m};
    xs.insert(xs.end(), k.in.begin(), k.in.end());
    ws.insert(ws.end(), k.kernel.begin(), k.kernel.end());
    ys.insert(ys.end(), out.begin(), out.end());
    const auto xv = random_values(static_cast<std::size_t>(shape_numel(xs)), rng);
    const auto wv = random_values(static_cast<std::size_t>(shape_numel(ws)), rng);
    const auto bv = random_values(static_cast<std::size_t>(k.m), rng);
    const Tensor x = F(xs, xv), w = F(ws, wv), b = F({k.m}, bv);
    const ConvAttrs attrs{k.kernel, k.strides, k.pads, k.dilations, k.group};
    SCOPED_TRACE("conv x=" + shape_to_string(xs) + " w=" + shape_to_string(ws) + " " +
                 attrs_to_string(attrs));
    const Tensor y = eval1(OpKind::Conv, {&x, &w, k.bias ? &b : nullptr}, FT(ys), attrs);
    expect_values(y, ys, naive_conv(k, xv, wv, bv, out), 1e-4);
    // float64 runs the same code with double GEMM.
    const Tensor xd = x.cast(DType::Float64), wd = w.cast(DType::Float64),
                 bd = b.cast(DType::Float64);
    const Tensor yd = eval1(OpKind::Conv, {&xd, &wd, k.bias ? &bd : nullptr},
                            TensorType{DType::Float64, ys}, attrs);
    expect_values(yd, ys, naive_conv(k, xv, wv, bv, out), 1e-9);
  }
}

// ---- pooling

PoolAttrs pool2d(std::vector<int64_t> kernel, std::vector<int64_t> strides,
                 std::vector<int64_t> pads, bool ceil_mode = false, bool include_pad = false,
                 std::vector<int64_t> dil = {1, 1}) {
  return PoolAttrs{std::move(kernel), std::move(strides), std::move(pads),
                   std::move(dil),    ceil_mode,          include_pad};
}

TEST(MaxPool, BasicWithIndices) {
  // Two channels of x[r][c] = 4r + c (+16 for channel 1); indices are flat
  // positions in the whole input, so channel 1's start at 16.
  const Tensor x = F({1, 2, 4, 4}, iota(32));
  const auto r =
      eval(make_node(OpKind::MaxPool, 1, pool2d({2, 2}, {2, 2}, {0, 0, 0, 0}), {true, true}), {&x},
           {FT({1, 2, 2, 2}), TensorType{DType::Int64, {1, 2, 2, 2}}});
  ASSERT_EQ(r.size(), 2u);
  expect_values(r[0], {1, 2, 2, 2}, {5, 7, 13, 15, 21, 23, 29, 31});
  expect_values(r[1], {1, 2, 2, 2}, {5, 7, 13, 15, 21, 23, 29, 31});
  EXPECT_EQ(r[1].dtype(), DType::Int64);
}

TEST(MaxPool, PaddingIsMinusInfinity) {
  const Tensor x = F({1, 1, 2, 2}, {-1, -2, -3, -4});
  expect_values(
      eval1(OpKind::MaxPool, {&x}, FT({1, 1, 3, 3}), pool2d({2, 2}, {1, 1}, {1, 1, 1, 1})),
      {1, 1, 3, 3}, {-1, -1, -2, -1, -1, -2, -3, -3, -4});
}

TEST(MaxPool, CeilModeClipsWindows) {
  // 5x5, kernel 2, stride 2, ceil_mode: 3x3 output, the last windows hang over.
  const Tensor x = F({1, 1, 5, 5}, iota(25));
  expect_values(
      eval1(OpKind::MaxPool, {&x}, FT({1, 1, 3, 3}), pool2d({2, 2}, {2, 2}, {0, 0, 0, 0}, true)),
      {1, 1, 3, 3}, {6, 8, 9, 16, 18, 19, 21, 23, 24});
}

TEST(MaxPool, DilationAndOneD) {
  const Tensor x = F({1, 1, 4, 4}, iota(16));
  expect_values(eval1(OpKind::MaxPool, {&x}, FT({1, 1, 2, 2}),
                      pool2d({2, 2}, {1, 1}, {0, 0, 0, 0}, false, false, {2, 2})),
                {1, 1, 2, 2}, {10, 11, 14, 15});
  const Tensor v = F({1, 1, 5}, {3, 1, 4, 1, 5});
  expect_values(
      eval1(OpKind::MaxPool, {&v}, FT({1, 1, 2}), PoolAttrs{{3}, {2}, {0, 0}, {1}, false, false}),
      {1, 1, 2}, {4, 5});
}

// Direct max/average pooling over 2-D windows, in double.
std::vector<double> naive_pool(const std::vector<float>& x, int64_t planes, int64_t h, int64_t w,
                               const PoolAttrs& a, int64_t oh, int64_t ow, bool is_max) {
  std::vector<double> y;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t inside = 0, padded = 0;
        for (int64_t ki = 0; ki < a.kernel_shape[0]; ++ki)
          for (int64_t kj = 0; kj < a.kernel_shape[1]; ++kj) {
            const int64_t r = i * a.strides[0] - a.pads[0] + ki * a.dilations[0];
            const int64_t c = j * a.strides[1] - a.pads[1] + kj * a.dilations[1];
            if (r >= -a.pads[0] && r < h + a.pads[2] && c >= -a.pads[1] && c < w + a.pads[3])
              ++padded;
            if (r < 0 || r >= h || c < 0 || c >= w) continue;
            const double v = x[(p * h + r) * w + c];
            best = std::max(best, v);
            sum += v;
            ++inside;
          }
        y.push_back(is_max ? best
                           : sum / static_cast<double>(a.count_include_pad ? padded : inside));
      }
  return y;
}

TEST(Pool, MatchesNaiveLoopOnRandomData) {
  struct Case {
    int64_t h, w;
    PoolAttrs attrs;
  };
  const std::vector<Case> cases = {
      {7, 8, pool2d({3, 3}, {2, 2}, {1, 1, 1, 1}, false, false)},
      {7, 8, pool2d({3, 3}, {2, 2}, {1, 1, 1, 1}, true, true)},
      {9, 6, pool2d({2, 3}, {3, 1}, {0, 1, 0, 0}, true, false, {2, 1})},
      {6, 9, pool2d({3, 2}, {1, 2}, {2, 0, 0, 1}, false, true, {1, 3})},
  };
  std::mt19937 rng(99);
  for (const Case& k : cases) {
    const PoolAttrs& a = k.attrs;
    SCOPED_TRACE(attrs_to_string(Attrs{a}));
    auto out_dim = [&](int64_t in, std::size_t d) {
      const int64_t span =
          in + a.pads[d] + a.pads[d + 2] - a.dilations[d] * (a.kernel_shape[d] - 1) - 1;
      return (a.ceil_mode ? (span + a.strides[d] - 1) / a.strides[d] : span / a.strides[d]) + 1;
    };
    const int64_t oh = out_dim(k.h, 0), ow = out_dim(k.w, 1);
    const auto xv = random_values(static_cast<std::size_t>(3 * k.h * k.w), rng);
    const Tensor x = F({1, 3, k.h, k.w}, xv);
    const Shape ys{1, 3, oh, ow};
    expect_values(eval1(OpKind::MaxPool, {&x}, FT(ys), a), ys,
                  naive_pool(xv, 3, k.h, k.w, a, oh, ow, true));
    expect_values(eval1(OpKind::AveragePool, {&x}, FT(ys), a), ys,
                  naive_pool(xv, 3, k.h, k.w, a, oh, ow, false));
    // The Indices path computes the same maxima, and each index points at its value.
    const auto r = eval(make_node(OpKind::MaxPool, 1, a, {true, true}), {&x},
                        {FT(ys), TensorType{DType::Int64, ys}});
    expect_values(r[0], ys, naive_pool(xv, 3, k.h, k.w, a, oh, ow, true));
    for (int64_t i = 0; i < r[1].numel(); ++i)
      EXPECT_EQ(xv[static_cast<std::size_t>(r[1].data<int64_t>()[i])], r[0].data<float>()[i]);
  }
}

TEST(AveragePool, CountIncludePad) {
  const Tensor x = F({1, 1, 2, 2}, {1, 2, 3, 4});
  expect_values(eval1(OpKind::AveragePool, {&x}, FT({1, 1, 3, 3}),
                      pool2d({2, 2}, {1, 1}, {1, 1, 1, 1}, false, false)),
                {1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  expect_values(eval1(OpKind::AveragePool, {&x}, FT({1, 1, 3, 3}),
                      pool2d({2, 2}, {1, 1}, {1, 1, 1, 1}, false, true)),
                {1, 1, 3, 3}, {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1});
}

TEST(AveragePool, CeilModeWindowsPastThePaddedInput) {
  const Tensor x = F({1, 1, 5}, {1, 2, 3, 4, 5});
  // No end pad: the last window [4, 5] has one real tap; position 5 lies
  // beyond the padded input, so neither mode counts it.
  for (bool include : {false, true})
    expect_values(eval1(OpKind::AveragePool, {&x}, FT({1, 1, 3}),
                        PoolAttrs{{2}, {2}, {0, 0}, {1}, true, include}),
                  {1, 1, 3}, {1.5, 3.5, 5});
  // End pad 1: position 5 is padding inside the padded input.
  expect_values(
      eval1(OpKind::AveragePool, {&x}, FT({1, 1, 3}), PoolAttrs{{2}, {2}, {0, 1}, {1}, true, true}),
      {1, 1, 3}, {1.5, 3.5, 2.5});
  expect_values(eval1(OpKind::AveragePool, {&x}, FT({1, 1, 3}),
                      PoolAttrs{{2}, {2}, {0, 1}, {1}, true, false}),
                {1, 1, 3}, {1.5, 3.5, 5});
}

TEST(GlobalPool, AverageAndMax) {
  const Tensor x = F({1, 2, 2, 2}, iota(8, 1));
  expect_values(eval1(OpKind::GlobalAveragePool, {&x}, FT({1, 2, 1, 1})), {1, 2, 1, 1}, {2.5, 6.5});
  expect_values(eval1(OpKind::GlobalMaxPool, {&x}, FT({1, 2, 1, 1})), {1, 2, 1, 1}, {4, 8});
}

// ---- Gemm

TEST(Gemm, PlainAndTransposed) {
  const Tensor a = F({2, 3}, iota(6, 1)), b = F({3, 2}, iota(6, 1));
  expect_values(eval1(OpKind::Gemm, {&a, &b}, FT({2, 2}), GemmAttrs{}), {2, 2}, {22, 28, 49, 64});
  const Tensor at = F({3, 2}, {1, 4, 2, 5, 3, 6}), bt = F({2, 3}, {1, 3, 5, 2, 4, 6});
  // alpha 0.5, beta 2, C = [1, -1] broadcast over rows.
  const Tensor c = F({2}, {1, -1});
  expect_values(eval1(OpKind::Gemm, {&at, &bt, &c}, FT({2, 2}), GemmAttrs{0.5f, 2.0f, true, true}),
                {2, 2}, {13, 12, 26.5, 30});
  const Tensor ccol = F({2, 1}, {10, 20});
  expect_values(eval1(OpKind::Gemm, {&a, &bt, &ccol}, FT({2, 2}), GemmAttrs{1, 1, false, true}),
                {2, 2}, {32, 38, 69, 84});
  const Tensor cs = Tensor::scalar(1.0f);
  expect_values(eval1(OpKind::Gemm, {&at, &b, &cs}, FT({2, 2}), GemmAttrs{1, -1, true, false}),
                {2, 2}, {21, 27, 48, 63});
  const Tensor cfull = F({2, 2}, {1, 2, 3, 4});
  expect_values(eval1(OpKind::Gemm, {&a, &b, &cfull}, FT({2, 2}), GemmAttrs{}), {2, 2},
                {23, 30, 52, 68});
}

TEST(Gemm, InnerDimensionMismatchIsInvalidModel) {
  const Tensor a = F({2, 3}, iota(6)), b = F({2, 2}, iota(4));
  EXPECT_THROW(eval1(OpKind::Gemm, {&a, &b}, FT({2, 2}), GemmAttrs{}), Error);
}

TEST(Gemm, FullyConnectedRowMatchesNaive) {
  // [1 x K] x [N x K]^T: the matrix-vector path split across threads.
  const int64_t k = 300, n = 517;
  std::mt19937 rng(7);
  const auto av = random_values(k, rng), bv = random_values(n * k, rng), cv = random_values(n, rng);
  const Tensor a = F({1, k}, av), b = F({n, k}, bv), c = F({n}, cv);
  std::vector<double> want(n);
  for (int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (int64_t i = 0; i < k; ++i) s += static_cast<double>(av[i]) * bv[j * k + i];
    want[j] = 2 * s + 0.5 * cv[j];
  }
  expect_values(eval1(OpKind::Gemm, {&a, &b, &c}, FT({1, n}), GemmAttrs{2, 0.5f, false, true}),
                {1, n}, want, 1e-4);
  // Same without transposition: B given as [K x N].
  std::vector<float> bt(static_cast<std::size_t>(n * k));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < k; ++i) bt[i * n + j] = bv[j * k + i];
  const Tensor b2 = F({k, n}, bt);
  expect_values(eval1(OpKind::Gemm, {&a, &b2, &c}, FT({1, n}), GemmAttrs{2, 0.5f, false, false}),
                {1, n}, want, 1e-4);
}

TEST(Gemm, LargeTiledProductsMatchNaive) {
  // Big enough to be split into tiles over threads, along rows (m > n) and columns.
  std::mt19937 rng(11);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{150, 40, 200}, {40, 150, 200}}) {
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        const auto av = random_values(static_cast<std::size_t>(m * k), rng);
        const auto bv = random_values(static_cast<std::size_t>(k * n), rng);
        const Tensor a = F(ta ? Shape{k, m} : Shape{m, k}, av);
        const Tensor b = F(tb ? Shape{n, k} : Shape{k, n}, bv);
        std::vector<double> want;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t p = 0; p < k; ++p)
              s += static_cast<double>(ta ? av[p * m + i] : av[i * k + p]) *
                   (tb ? bv[j * k + p] : bv[p * n + j]);
            want.push_back(s);
          }
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + (ta ? " transA" : "") +
                     (tb ? " transB" : ""));
        expect_values(eval1(OpKind::Gemm, {&a, &b}, FT({m, n}), GemmAttrs{1, 1, ta, tb}), {m, n},
                      want, 1e-4);
        if (!ta && !tb)
          expect_values(eval1(OpKind::MatMul, {&a, &b}, FT({m, n})), {m, n}, want, 1e-4);
      }
  }
}

// ---- MatMul

TEST(MatMul, BatchedWithSharedWeight) {
  const Tensor a = F({2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0});
  const Tensor b = F({2, 2}, {1, 1, 0, 1});
  expect_values(eval1(OpKind::MatMul, {&a, &b}, FT({2, 2, 2})), {2, 2, 2},
                {1, 3, 3, 7, 0, 1, 1, 1});
}

TEST(MatMul, BroadcastBatchDims) {
  // A: two row vectors [1,2], [3,4] as [2,1,1,2]; B: three columns [1,0], [0,1], [1,1].
  const Tensor a = F({2, 1, 1, 2}, {1, 2, 3, 4});
  const Tensor b = F({3, 2, 1}, {1, 0, 0, 1, 1, 1});
  expect_values(eval1(OpKind::MatMul, {&a, &b}, FT({2, 3, 1, 1})), {2, 3, 1, 1},
                {1, 2, 3, 3, 4, 7});
  // Batched B against a 2-D A.
  const Tensor a2 = F({1, 2}, {1, 2});
  expect_values(eval1(OpKind::MatMul, {&a2, &b}, FT({3, 1, 1})), {3, 1, 1}, {1, 2, 3});
}

TEST(MatMul, OneDimensionalPromotion) {
  const Tensor v = F({3}, {1, 2, 3});
  const Tensor m = F({3, 2}, iota(6, 1));
  expect_values(eval1(OpKind::MatMul, {&v, &m}, FT({2})), {2}, {22, 28});
  const Tensor m2 = F({2, 3}, iota(6, 1));
  const Tensor ones = F({3}, {1, 1, 1});
  expect_values(eval1(OpKind::MatMul, {&m2, &ones}, FT({2})), {2}, {6, 15});
  expect_values(eval1(OpKind::MatMul, {&v, &v}, FT({})), {}, {14});
}

}  // namespace
}  // namespace kiln::ref

// Hand-computed cases for LayerNormalization, InstanceNormalization, LRN,
// ConvTranspose and Resize.
#include <cmath>

#include "kiln/ref/testing/ref_testing.h"

namespace kiln::ref {
namespace {

using testing::eval;
using testing::eval1;
using testing::expect_values;
using testing::F;
using testing::FT;
using testing::make_node;

TEST(LayerNorm, NormalizesRowsAndReportsStatistics) {
  // Rows [1, 3] (mean 2, var 1) and [0, 4] (mean 2, var 4); epsilon 0.
  // Normalized both are [-1, 1]; * scale [2, 1] + B [0.5, 0] = [-1.5, 1].
  const Tensor x = F({2, 2}, {1, 3, 0, 4});
  const Tensor scale = F({2}, {2, 1}), bias = F({2}, {0.5f, 0});
  const auto ys =
      eval(make_node(OpKind::LayerNormalization, 3, LayerNormAttrs{1, 0.0f}, {true, true, true}),
           {&x, &scale, &bias}, {FT({2, 2}), FT({2, 1}), FT({2, 1})});
  expect_values(ys[0], {2, 2}, {-1.5, 1, -1.5, 1});
  expect_values(ys[1], {2, 1}, {2, 2});
  expect_values(ys[2], {2, 1}, {1, 0.5});
  // Without B and over both axes: mean 2, var (1+1+4+4)/4 = 2.5.
  const double s = 1 / std::sqrt(2.5);
  const auto y = eval(make_node(OpKind::LayerNormalization, 2, LayerNormAttrs{0, 0.0f}),
                      {&x, &scale}, {FT({2, 2})});
  expect_values(y[0], {2, 2}, {-2 * s, s, -4 * s, 2 * s});
}

TEST(InstanceNorm, PerChannelStatistics) {
  // Channel 0 [1, 3]: mean 2, var 1, eps 1 -> (x - 2) / sqrt(2).
  // Channel 1 [5, 5]: var 0 -> 0 * 2 + B 1 = 1.
  const Tensor x = F({1, 2, 2}, {1, 3, 5, 5});
  const Tensor scale = F({2}, {1, 2}), bias = F({2}, {0, 1});
  expect_values(eval1(OpKind::InstanceNormalization, {&x, &scale, &bias}, FT({1, 2, 2}),
                      InstanceNormAttrs{1.0f}),
                {1, 2, 2}, {-1 / std::sqrt(2.0), 1 / std::sqrt(2.0), 1, 1});
}

TEST(Lrn, WindowAcrossChannels) {
  // size 2: window [c, c + 1]; alpha / size = 0.5, bias 1, beta 1.
  // Sums of squares 1+4 = 5, 4+9 = 13, 9.
  const Tensor x = F({1, 3, 1, 1}, {1, 2, 3});
  LrnAttrs a;
  a.alpha = 1.0f;
  a.beta = 1.0f;
  a.bias = 1.0f;
  a.size = 2;
  expect_values(eval1(OpKind::LRN, {&x}, FT({1, 3, 1, 1}), a), {1, 3, 1, 1},
                {1 / 3.5, 2 / 7.5, 3 / 5.5});
}

ConvTransposeAttrs ct1(int64_t k, int64_t stride, std::vector<int64_t> pads,
                       int64_t output_padding = 0, int64_t dilation = 1, int64_t group = 1) {
  return ConvTransposeAttrs{{k}, {stride}, std::move(pads), {output_padding}, {dilation}, group};
}

TEST(ConvTranspose, OneDimensionalStridesPadsDilation) {
  // x [1, 2, 3], w [1, 10]: each input i adds x_i * w_k at i * stride + k * dilation.
  const Tensor x = F({1, 1, 3}, {1, 2, 3});
  const Tensor w = F({1, 1, 2}, {1, 10});
  expect_values(eval1(OpKind::ConvTranspose, {&x, &w}, FT({1, 1, 6}), ct1(2, 2, {0, 0})), {1, 1, 6},
                {1, 10, 2, 20, 3, 30});
  expect_values(eval1(OpKind::ConvTranspose, {&x, &w}, FT({1, 1, 4}), ct1(2, 1, {0, 0})), {1, 1, 4},
                {1, 12, 23, 30});
  // pads [1, 0] drop the first output; output_padding 1 adds one at the end.
  expect_values(eval1(OpKind::ConvTranspose, {&x, &w}, FT({1, 1, 5}), ct1(2, 2, {1, 0})), {1, 1, 5},
                {10, 2, 20, 3, 30});
  expect_values(eval1(OpKind::ConvTranspose, {&x, &w}, FT({1, 1, 7}), ct1(2, 2, {0, 0}, 1)),
                {1, 1, 7}, {1, 10, 2, 20, 3, 30, 0});
  // Dilation 2: taps land at i and i + 2.
  expect_values(eval1(OpKind::ConvTranspose, {&x, &w}, FT({1, 1, 5}), ct1(2, 1, {0, 0}, 0, 2)),
                {1, 1, 5}, {1, 2, 13, 20, 30});
  // Negative end pad: an extra output that gets only the bias.
  const Tensor b = F({1}, {0.5f});
  expect_values(eval1(OpKind::ConvTranspose, {&x, &w, &b}, FT({1, 1, 7}), ct1(2, 2, {0, -1})),
                {1, 1, 7}, {1.5, 10.5, 2.5, 20.5, 3.5, 30.5, 0.5});
}

TEST(ConvTranspose, GroupsAndTwoDimensions) {
  // Group 2, 1x1 kernels: channel 0 * 2, channel 1 * 5.
  const Tensor x = F({1, 2, 2}, {1, 2, 3, 4});
  const Tensor w = F({2, 1, 1}, {2, 5});
  expect_values(eval1(OpKind::ConvTranspose, {&x, &w}, FT({1, 2, 2}), ct1(1, 1, {0, 0}, 0, 1, 2)),
                {1, 2, 2}, {2, 4, 15, 20});
  // 2-D, two output channels: a 2x2 kernel of ones sums shifted copies of x;
  // a kernel [[1, 0], [0, 0]] places x at the top left.
  const Tensor x2 = F({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor w2 = F({1, 2, 2, 2}, {1, 1, 1, 1, 1, 0, 0, 0});
  const ConvTransposeAttrs a{{2, 2}, {1, 1}, {0, 0, 0, 0}, {0, 0}, {1, 1}, 1};
  expect_values(eval1(OpKind::ConvTranspose, {&x2, &w2}, FT({1, 2, 3, 3}), a), {1, 2, 3, 3},
                {1, 3, 2, 4, 10, 6, 3, 7, 4,  //
                 1, 2, 0, 3, 4, 0, 0, 0, 0});
}

TEST(ConvTranspose, LargeLayerBuiltInBandsMatchesTheDefinition) {
  // 1024 output channels x 9 taps make the column matrix exceed one band, so
  // the input positions are processed in several bands. Expected values come
  // from the definition y[m][i + k] += x[i] * w[m][k], summed naively.
  const int64_t len = 1000, mg = 1024, k = 9;
  std::vector<float> xv(len), wv(mg * k);
  for (int64_t i = 0; i < len; ++i) xv[i] = static_cast<float>(i % 7 - 3);
  for (int64_t j = 0; j < mg * k; ++j) wv[j] = static_cast<float>((j / k + j % k) % 5 - 2);
  const Tensor x = F({1, 1, len}, xv), w = F({1, mg, k}, wv);
  const int64_t out = len + k - 1;
  std::vector<double> want(mg * out, 0.0);
  for (int64_t m = 0; m < mg; ++m)
    for (int64_t i = 0; i < len; ++i)
      for (int64_t t = 0; t < k; ++t) want[m * out + i + t] += xv[i] * wv[m * k + t];
  expect_values(eval1(OpKind::ConvTranspose, {&x, &w}, FT({1, mg, out}), ct1(k, 1, {0, 0})),
                {1, mg, out}, want);
}

ResizeAttrs resize_attrs(ResizeMode mode, ResizeCoord coord, std::vector<int64_t> sizes,
                         std::vector<double> scales) {
  ResizeAttrs a;
  a.mode = mode;
  a.coord = coord;
  a.sizes = std::move(sizes);
  a.scales = std::move(scales);
  return a;
}

TEST(Resize, NearestModes) {
  const Tensor x = F({1, 4}, {1, 2, 3, 4});
  // Upsample-style: asymmetric, floor: out j reads floor(j / 2).
  ResizeAttrs up = resize_attrs(ResizeMode::Nearest, ResizeCoord::Asymmetric, {1, 8}, {1, 2});
  up.nearest = NearestMode::Floor;
  expect_values(eval1(OpKind::Resize, {&x}, FT({1, 8}), up), {1, 8}, {1, 1, 2, 2, 3, 3, 4, 4});
  // Half pixel, scale 0.5: sources (j + 0.5) * 2 - 0.5 = 0.5 and 2.5, ties.
  ResizeAttrs down = resize_attrs(ResizeMode::Nearest, ResizeCoord::HalfPixel, {1, 2}, {1, 0.5});
  expect_values(eval1(OpKind::Resize, {&x}, FT({1, 2}), down), {1, 2}, {1, 3});
  down.nearest = NearestMode::RoundPreferCeil;
  expect_values(eval1(OpKind::Resize, {&x}, FT({1, 2}), down), {1, 2}, {2, 4});
}

TEST(Resize, LinearHalfPixelAndAlignCorners) {
  const Tensor x = F({1, 4}, {1, 2, 3, 4});
  // Sources (j + 0.5) / 2 - 0.5 = -0.25, 0.25, ..., 3.25; beyond the edges the edge repeats.
  expect_values(eval1(OpKind::Resize, {&x}, FT({1, 8}),
                      resize_attrs(ResizeMode::Linear, ResizeCoord::HalfPixel, {1, 8}, {1, 2})),
                {1, 8}, {1, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75, 4});
  // 4 -> 7 with aligned corners: source j * 3 / 6.
  expect_values(
      eval1(OpKind::Resize, {&x}, FT({1, 7}),
            resize_attrs(ResizeMode::Linear, ResizeCoord::AlignCorners, {1, 7}, {1, 7.0 / 4})),
      {1, 7}, {1, 1.5, 2, 2.5, 3, 3.5, 4});
  // Two dimensions at once: [[0, 1], [2, 3]] -> 3x3 aligned: bilinear midpoints.
  const Tensor sq = F({2, 2}, {0, 1, 2, 3});
  expect_values(
      eval1(OpKind::Resize, {&sq}, FT({3, 3}),
            resize_attrs(ResizeMode::Linear, ResizeCoord::AlignCorners, {3, 3}, {1.5, 1.5})),
      {3, 3}, {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3});
}

TEST(Resize, CubicWithAndWithoutExcludeOutside) {
  // A = -0.75 at fraction 0.5: weights W(1.5) = -0.09375, W(0.5) = 0.59375.
  const Tensor x = F({1, 4}, {1, 2, 3, 4});
  ResizeAttrs a = resize_attrs(ResizeMode::Cubic, ResizeCoord::Asymmetric, {1, 8}, {1, 2});
  // j = 1 (source 0.5) reads x[-1 -> 0], x0, x1, x2: -0.09375 + 0.59375 + 1.1875 - 0.28125.
  // j = 3 (source 1.5) is interior on a line: 2.5. j = 5 (2.5) reads x1, x2, x3, x[4 -> 3]:
  // -0.1875 + 1.78125 + 2.375 - 0.375; j = 7 (3.5) reads x2, x3, x3, x3.
  expect_values(eval1(OpKind::Resize, {&x}, FT({1, 8}), a), {1, 8},
                {1, 1.40625, 2, 2.5, 3, 3.59375, 4, -0.28125 + 4.75 - 0.375});
  // exclude_outside drops the tap at -1 and renormalizes: 1.5 / 1.09375.
  a.exclude_outside = true;
  EXPECT_NEAR(eval1(OpKind::Resize, {&x}, FT({1, 8}), a).as_double(1), 1.5 / 1.09375, 1e-6);
}

TEST(Resize, TfCropAndResize) {
  const Tensor x = F({1, 4}, {1, 2, 3, 4});
  // roi [0, 0.25] .. [1, 0.75] of dim 1 (size 4): sources 0.75 + 0.75 j.
  ResizeAttrs a = resize_attrs(ResizeMode::Linear, ResizeCoord::TfCropAndResize, {1, 3}, {1, 0.75});
  a.roi = {0, 0.25, 1, 0.75};
  expect_values(eval1(OpKind::Resize, {&x}, FT({1, 3}), a), {1, 3}, {1.75, 2.5, 3.25});
  // roi starting at -0.5: source -1.5 is outside and takes extrapolation_value.
  a.roi = {0, -0.5, 1, 0.5};
  a.extrapolation_value = 9.0f;
  expect_values(eval1(OpKind::Resize, {&x}, FT({1, 3}), a), {1, 3}, {9, 1, 2.5});
}

}  // namespace
}  // namespace kiln::ref

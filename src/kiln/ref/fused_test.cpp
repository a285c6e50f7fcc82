// Dense, fused activations and channels-last nodes, with values by hand or
// checked against the channels-first kernels on transposed data.
#include <limits>

#include "kiln/ref/kernels/kernels.h"
#include "kiln/ref/testing/ref_testing.h"

namespace kiln::ref::testing {
namespace {

TEST(Dense, ByHandWithBiasAndLeakyRelu) {
  // x [2, 2] = [[1, 2], [3, -4]]; W [2, 3] = [[1, 0, 2], [0, 1, -1]]; bias [0.5, -10, 0].
  const Tensor x = F({2, 2}, {1, 2, 3, -4});
  const Tensor w = F({2, 3}, {1, 0, 2, 0, 1, -1});
  const Tensor b = F({3}, {0.5f, -10, 0});
  // x W = [[1, 2, 0], [3, -4, 10]] + bias = [[1.5, -8, 0], [3.5, -14, 10]].
  expect_values(eval1(OpKind::Dense, {&x, &w, &b}, FT({2, 3}), DenseAttrs{}), {2, 3},
                {1.5, -8, 0, 3.5, -14, 10});
  DenseAttrs leaky;
  leaky.activation = FusedActivation{FusedActivation::Kind::LeakyRelu, 0.25f, 0, 0};
  expect_values(eval1(OpKind::Dense, {&x, &w, &b}, FT({2, 3}), leaky), {2, 3},
                {1.5, -2, 0, 3.5, -3.5, 10});
  DenseAttrs clip;
  clip.activation =
      FusedActivation{FusedActivation::Kind::Clip, 0, 0, std::numeric_limits<float>::infinity()};
  expect_values(eval1(OpKind::Dense, {&x, &w, &b}, FT({2, 3}), clip), {2, 3},
                {1.5, 0, 0, 3.5, 0, 10});
}

TEST(Dense, ThreeDimensionalInputUsesTheLastAxis) {
  const Tensor x = F({2, 1, 2}, {1, 2, 3, 4});
  const Tensor w = F({2, 1}, {10, 1});
  const Tensor b = F({1}, {0});
  expect_values(eval1(OpKind::Dense, {&x, &w, &b}, FT({2, 1, 1}), DenseAttrs{}), {2, 1, 1},
                {12, 34});
}

TEST(FusedActivation, ConvRelu) {
  // 1x1 conv with weight -1: y = -x, then Relu.
  const Tensor x = F({1, 1, 1, 3}, {1, -2, 3});
  const Tensor w = F({1, 1, 1, 1}, {-1});
  ConvAttrs a{{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1};
  a.activation.kind = FusedActivation::Kind::Relu;
  expect_values(eval1(OpKind::Conv, {&x, &w}, FT({1, 1, 1, 3}), a), {1, 1, 1, 3}, {0, 2, 0});
}

TEST(ChannelsLast, ConvMatchesChannelsFirstOnTransposedData) {
  std::vector<float> xv(2 * 3 * 4 * 5), wv(4 * 3 * 3 * 3);
  for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 7) % 11) - 5;
  for (std::size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 5) % 7) - 3;
  const Tensor x = F({2, 3, 4, 5}, xv);
  const Tensor w = F({4, 3, 3, 3}, wv);
  ConvAttrs a{{3, 3}, {1, 2}, {1, 1, 1, 1}, {1, 1}, 1};
  const Tensor want = eval1(OpKind::Conv, {&x, &w}, FT({2, 4, 4, 3}), a);
  a.channels_last = true;
  const Tensor x_last = kernels::move_channels(x, true, "test");
  ASSERT_EQ(x_last.shape(), (Shape{2, 4, 5, 3}));
  const Tensor got = eval1(OpKind::Conv, {&x_last, &w}, FT({2, 4, 3, 4}), a);
  const Tensor back = kernels::move_channels(got, false, "test");
  std::vector<double> wantv;
  for (int64_t i = 0; i < want.numel(); ++i) wantv.push_back(want.as_double(i));
  expect_values(back, {2, 4, 4, 3}, wantv);
}

TEST(ChannelsLast, BatchNormAndGlobalPoolByHand) {
  // [1, 2, 1, 2] in NHWC: pixels (0,0) = [1, 10], (0,1) = [3, 20].
  const Tensor x = F({1, 1, 2, 2}, {1, 10, 3, 20});
  const Tensor scale = F({2}, {2, 1}), bias = F({2}, {0, 1}), mean = F({2}, {1, 0}),
               var = F({2}, {1, 1});
  BatchNormAttrs bn;
  bn.epsilon = 0;
  bn.channels_last = true;
  // Channel 0: 2 * (x - 1); channel 1: x + 1.
  expect_values(
      eval1(OpKind::BatchNormalization, {&x, &scale, &bias, &mean, &var}, FT({1, 1, 2, 2}), bn),
      {1, 1, 2, 2}, {0, 11, 4, 21});
  expect_values(eval1(OpKind::GlobalAveragePool, {&x}, FT({1, 1, 1, 2}), GlobalPoolAttrs{true}),
                {1, 1, 1, 2}, {2, 15});
  expect_values(eval1(OpKind::GlobalMaxPool, {&x}, FT({1, 1, 1, 2}), GlobalPoolAttrs{true}),
                {1, 1, 1, 2}, {3, 20});
}

TEST(ChannelsLast, PoolsByHand) {
  // 1-D, NLC: L = 4, C = 2: channel 0 = [1, 5, 2, 0], channel 1 = [-1, -3, 4, 8].
  const Tensor x = F({1, 4, 2}, {1, -1, 5, -3, 2, 4, 0, 8});
  PoolAttrs p{{2}, {2}, {0, 0}, {1}};
  p.channels_last = true;
  expect_values(eval1(OpKind::MaxPool, {&x}, FT({1, 2, 2}), p), {1, 2, 2}, {5, -1, 2, 8});
  expect_values(eval1(OpKind::AveragePool, {&x}, FT({1, 2, 2}), p), {1, 2, 2}, {3, -2, 1, 6});
}

}  // namespace
}  // namespace kiln::ref::testing

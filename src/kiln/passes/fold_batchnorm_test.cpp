#include "kiln/passes/fold_batchnorm.h"

#include "kiln/passes/test_util.h"

namespace kiln::passes {
namespace {

using testing::Builder;
using testing::count_kind;

void run_pass(Graph& g) {
  FoldBatchNormPass().run(g);
}

ConvAttrs conv1x1() {
  return ConvAttrs{{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1};
}

std::vector<float> values(const Graph& g, ValueId v) {
  const auto d = g.constant(v)->data<float>();
  return {d.begin(), d.end()};
}

// BN with gamma 3, beta 0.5, mean 1, var 3, eps 1: s = 3 / sqrt(4) = 1.5.
ValueId one_channel_bn(Builder& b, ValueId x) {
  BatchNormAttrs a;
  a.epsilon = 1.0f;
  return b.node(OpKind::BatchNormalization,
                {x, b.constant({1}, {3}), b.constant({1}, {0.5f}), b.constant({1}, {1}),
                 b.constant({1}, {3})},
                a);
}

TEST(FoldBatchNorm, OneChannelConvByHand) {
  Builder b;
  const ValueId x = b.input({1, 1, 3, 3});
  const ValueId c =
      b.node(OpKind::Conv, {x, b.constant({1, 1, 1, 1}, {2}), b.constant({1}, {1})}, conv1x1());
  const ValueId y = one_channel_bn(b, c);
  b.output(y);
  testing::expect_pass_keeps_outputs(b.g, run_pass, "conv bn");
  ASSERT_TRUE(FoldBatchNormPass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  const Node& n = b.g.nodes()[0];
  EXPECT_EQ(n.kind, OpKind::Conv);
  EXPECT_EQ(n.outputs[0], y);
  // w' = 2 * 1.5 = 3; b' = (1 - 1) * 1.5 + 0.5 = 0.5.
  EXPECT_EQ(values(b.g, n.inputs[1]), (std::vector<float>{3}));
  EXPECT_EQ(values(b.g, n.inputs[2]), (std::vector<float>{0.5f}));
}

TEST(FoldBatchNorm, ConvWithoutBias) {
  Builder b;
  const ValueId x = b.input({1, 1, 3, 3});
  const ValueId c = b.node(OpKind::Conv, {x, b.constant({1, 1, 1, 1}, {2})}, conv1x1());
  b.output(one_channel_bn(b, c));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "conv no bias bn");
  ASSERT_TRUE(FoldBatchNormPass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  const Node& n = b.g.nodes()[0];
  ASSERT_EQ(n.inputs.size(), 3u);
  EXPECT_EQ(values(b.g, n.inputs[1]), (std::vector<float>{3}));
  // b' = (0 - 1) * 1.5 + 0.5 = -1.
  EXPECT_EQ(values(b.g, n.inputs[2]), (std::vector<float>{-1}));
}

TEST(FoldBatchNorm, ConvOutputWithTwoUsesDoesNotFold) {
  Builder b;
  const ValueId x = b.input({1, 1, 3, 3});
  const ValueId c = b.node(OpKind::Conv, {x, b.constant({1, 1, 1, 1}, {2})}, conv1x1());
  b.output(one_channel_bn(b, c));
  b.output(b.node(OpKind::Relu, {c}));
  EXPECT_FALSE(FoldBatchNormPass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::BatchNormalization), 1);
}

TEST(FoldBatchNorm, BatchNormAfterReluStays) {
  Builder b;
  const ValueId x = b.input({1, 1, 3, 3});
  const ValueId c = b.node(OpKind::Conv, {x, b.constant({1, 1, 1, 1}, {2})}, conv1x1());
  b.output(one_channel_bn(b, b.node(OpKind::Relu, {c})));
  EXPECT_FALSE(FoldBatchNormPass().run(b.g));
}

TEST(FoldBatchNorm, DenseColumnsByHand) {
  Builder b;
  const ValueId x = b.input({3, 2});
  // W [K=2, N=2] = [[1, 2], [3, 4]], bias [10, 20].
  const ValueId d =
      b.node(OpKind::Dense, {x, b.constant({2, 2}, {1, 2, 3, 4}), b.constant({2}, {10, 20})},
             DenseAttrs{});
  // eps 1; channel 0: gamma 2, var 3; channel 1: gamma 8, var 15.
  BatchNormAttrs a;
  a.epsilon = 1.0f;
  b.output(b.node(OpKind::BatchNormalization,
                  {d, b.constant({2}, {2, 8}), b.constant({2}, {1, -1}), b.constant({2}, {4, 5}),
                   b.constant({2}, {3, 15})},
                  a));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "dense bn");
  ASSERT_TRUE(FoldBatchNormPass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  const Node& n = b.g.nodes()[0];
  // s = [2 / 2, 8 / 4] = [1, 2]: column 1 doubles.
  EXPECT_EQ(values(b.g, n.inputs[1]), (std::vector<float>{1, 4, 3, 8}));
  // b' = [(10 - 4) * 1 + 1, (20 - 5) * 2 - 1] = [7, 29].
  EXPECT_EQ(values(b.g, n.inputs[2]), (std::vector<float>{7, 29}));
}

TEST(FoldBatchNorm, MultiChannelConvKeepsOutputs) {
  Builder b;
  const ValueId x = b.input({2, 2, 5, 5});
  std::vector<float> w(3 * 2 * 3 * 3);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
  const ValueId c =
      b.node(OpKind::Conv, {x, b.constant({3, 2, 3, 3}, w), b.constant({3}, {1, 2, 3})},
             ConvAttrs{{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1});
  b.output(b.node(OpKind::BatchNormalization,
                  {c, b.constant({3}, {0.5f, 2, -1}), b.constant({3}, {0.1f, 0.2f, 0.3f}),
                   b.constant({3}, {1, -1, 0.5f}), b.constant({3}, {0.2f, 2, 1})},
                  BatchNormAttrs{}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "conv bn 3 channels");
}

}  // namespace
}  // namespace kiln::passes

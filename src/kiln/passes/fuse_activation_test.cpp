#include "kiln/passes/fuse_activation.h"

#include <limits>

#include "kiln/passes/test_util.h"

namespace kiln::passes {
namespace {

using testing::Builder;
using testing::count_kind;

void run_pass(Graph& g) {
  FuseActivationPass().run(g);
}

ValueId conv(Builder& b, ValueId x) {
  return b.node(OpKind::Conv, {x, b.constant({2, 1, 1, 1}, {1, -2}), b.constant({2}, {0.1f, 0.2f})},
                ConvAttrs{{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1});
}

ValueId dense(Builder& b, ValueId x) {
  return b.node(OpKind::Dense,
                {x, b.constant({2, 2}, {1, -2, 3, 4}), b.constant({2}, {0.5f, -0.5f})},
                DenseAttrs{});
}

TEST(FuseActivation, ConvLeakyRelu) {
  Builder b;
  const ValueId x = b.input({1, 1, 3, 3});
  const ValueId y = b.node(OpKind::LeakyRelu, {conv(b, x)}, LeakyReluAttrs{0.25f});
  b.output(y);
  testing::expect_pass_keeps_outputs(b.g, run_pass, "conv leaky");
  ASSERT_TRUE(FuseActivationPass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  const auto& a = b.g.nodes()[0].attr<ConvAttrs>().activation;
  EXPECT_EQ(a.kind, FusedActivation::Kind::LeakyRelu);
  EXPECT_EQ(a.alpha, 0.25f);
  EXPECT_EQ(b.g.nodes()[0].outputs[0], y);
}

TEST(FuseActivation, DenseClipWithAndWithoutMax) {
  Builder b;
  const ValueId x = b.input({3, 2});
  b.output(b.node(OpKind::Clip, {dense(b, x), b.constant({}, {0}), b.constant({}, {1})}));
  b.output(b.node(OpKind::Clip, {dense(b, x), b.constant({}, {-1})}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "dense clip");
  ASSERT_TRUE(FuseActivationPass().run(b.g));
  ASSERT_EQ(count_kind(b.g, OpKind::Clip), 0);
  const auto& a0 = b.g.nodes()[0].attr<DenseAttrs>().activation;
  EXPECT_EQ(a0.kind, FusedActivation::Kind::Clip);
  EXPECT_EQ(a0.lo, 0.0f);
  EXPECT_EQ(a0.hi, 1.0f);
  const auto& a1 = b.g.nodes()[1].attr<DenseAttrs>().activation;
  EXPECT_EQ(a1.lo, -1.0f);
  EXPECT_EQ(a1.hi, std::numeric_limits<float>::infinity());
}

TEST(FuseActivation, OnlyTheFirstOfTwoRelus) {
  Builder b;
  const ValueId x = b.input({1, 1, 3, 3});
  b.output(b.node(OpKind::Relu, {b.node(OpKind::Relu, {conv(b, x)})}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "two relus");
  ASSERT_TRUE(FuseActivationPass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Relu), 1);
  EXPECT_EQ(b.g.nodes()[0].attr<ConvAttrs>().activation.kind, FusedActivation::Kind::Relu);
}

TEST(FuseActivation, SharedOutputOrOtherProducerStays) {
  Builder b;
  const ValueId x = b.input({1, 1, 3, 3});
  const ValueId c = conv(b, x);
  b.output(b.node(OpKind::Relu, {c}));
  b.output(c);
  b.output(b.node(OpKind::Relu, {b.node(OpKind::Add, {x, x})}));
  EXPECT_FALSE(FuseActivationPass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Relu), 2);
}

TEST(FuseActivation, RuntimeClipBoundStays) {
  Builder b;
  const ValueId x = b.input({3, 2});
  const ValueId lo = b.g.add_value("lo", TensorType{DType::Float32, {}});
  b.g.inputs.push_back(lo);
  b.output(b.node(OpKind::Clip, {dense(b, x), lo}));
  EXPECT_FALSE(FuseActivationPass().run(b.g));
}

}  // namespace
}  // namespace kiln::passes

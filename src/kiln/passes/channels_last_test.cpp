#include "kiln/passes/channels_last.h"

#include "kiln/passes/test_util.h"

namespace kiln::passes {
namespace {

using testing::Builder;
using testing::count_kind;
using testing::find_kind;

void run_pass(Graph& g) {
  ChannelsLastPass().run(g);
}

std::vector<float> ramp(std::size_t n, float scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = (static_cast<float>(i % 5) - 2.0f) * scale;
  return v;
}

ValueId conv(Builder& b, ValueId x, int64_t c_in, int64_t c_out, int64_t group = 1,
             int64_t spatial = 2) {
  Shape w = {c_out, c_in / group};
  ConvAttrs a;
  for (int64_t i = 0; i < spatial; ++i) {
    w.push_back(3);
    a.kernel_shape.push_back(3);
    a.strides.push_back(1);
    a.dilations.push_back(1);
  }
  a.pads.assign(static_cast<std::size_t>(2 * spatial), 1);
  a.group = group;
  const auto n = static_cast<std::size_t>(shape_numel(w));
  return b.node(OpKind::Conv,
                {x, b.constant(w, ramp(n, 0.1f)),
                 b.constant({c_out}, ramp(static_cast<std::size_t>(c_out), 0.05f))},
                a);
}

std::vector<int64_t> perm_of(const Node& n) {
  return n.attr<TransposeAttrs>().perm;
}

TEST(ChannelsLast, ConvReluPoolRegionGetsTransposesAtItsEdges) {
  Builder b;
  const ValueId x = b.input({1, 2, 6, 6});
  const ValueId r = b.node(OpKind::Relu, {conv(b, x, 2, 3)});
  PoolAttrs p{{2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}};
  const ValueId y = b.node(OpKind::MaxPool, {r}, p);
  b.output(y);
  testing::expect_pass_keeps_outputs(b.g, run_pass, "conv relu pool");
  ASSERT_TRUE(ChannelsLastPass().run(b.g));
  const auto& nodes = b.g.nodes();
  ASSERT_EQ(nodes.size(), 5u);
  EXPECT_EQ(nodes[0].kind, OpKind::Transpose);
  EXPECT_EQ(perm_of(nodes[0]), (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_TRUE(nodes[1].attr<ConvAttrs>().channels_last);
  EXPECT_EQ(b.g.value(nodes[1].outputs[0]).type.shape, (Shape{1, 6, 6, 3}));
  EXPECT_EQ(nodes[2].kind, OpKind::Relu);
  EXPECT_TRUE(nodes[3].attr<PoolAttrs>().channels_last);
  EXPECT_EQ(perm_of(nodes[4]), (std::vector<int64_t>{0, 3, 1, 2}));
  EXPECT_EQ(nodes[4].outputs[0], y);  // the graph output keeps its value and layout
  EXPECT_EQ(b.g.value(y).type.shape, (Shape{1, 3, 3, 3}));
  EXPECT_FALSE(ChannelsLastPass().run(b.g));  // already converted
}

TEST(ChannelsLast, OneDimensionalConvUsesPerm021) {
  Builder b;
  const ValueId x = b.input({2, 3, 7});
  b.output(
      b.node(OpKind::BatchNormalization,
             {conv(b, x, 3, 4, 1, 1), b.constant({4}, {1, 2, 3, 4}), b.constant({4}, {0, 1, 0, 1}),
              b.constant({4}, {0.5f, 0, 0, 1}), b.constant({4}, {1, 1, 2, 2})},
             BatchNormAttrs{}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "conv1d bn");
  ASSERT_TRUE(ChannelsLastPass().run(b.g));
  EXPECT_EQ(perm_of(b.g.nodes().front()), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(perm_of(b.g.nodes().back()), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_TRUE(find_kind(b.g, OpKind::BatchNormalization)->attr<BatchNormAttrs>().channels_last);
}

TEST(ChannelsLast, FlattenIntoDensePermutesWeightRowsByHand) {
  Builder b;
  const ValueId x = b.input({1, 2, 1, 2});
  // 1x1 identity conv on 2 channels so the region holds x itself.
  const ValueId c = b.node(OpKind::Conv, {x, b.constant({2, 2, 1, 1}, {1, 0, 0, 1})},
                           ConvAttrs{{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1});
  const ValueId f = b.node(OpKind::Flatten, {c}, FlattenAttrs{1});
  b.output(b.node(OpKind::Dense, {f, b.constant({4, 1}, {10, 20, 30, 40}), b.constant({1}, {0})},
                  DenseAttrs{}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "flatten dense");
  ASSERT_TRUE(ChannelsLastPass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Transpose), 1);  // only where the region is entered
  const Node* d = find_kind(b.g, OpKind::Dense);
  // NCHW rows are (c0,s0) (c0,s1) (c1,s0) (c1,s1); NHWC order is (s0,c0) (s0,c1)
  // (s1,c0) (s1,c1), i.e. old rows 0, 2, 1, 3.
  const auto w = b.g.constant(d->inputs[1])->data<float>();
  EXPECT_EQ(std::vector<float>(w.begin(), w.end()), (std::vector<float>{10, 30, 20, 40}));
  EXPECT_TRUE(b.g.value(find_kind(b.g, OpKind::Flatten)->inputs[0]).type.shape ==
              (Shape{1, 1, 2, 2}));
}

TEST(ChannelsLast, FlattenWithOtherReaderTransposesBack) {
  Builder b;
  const ValueId x = b.input({1, 2, 3, 3});
  const ValueId f = b.node(OpKind::Flatten, {conv(b, x, 2, 2)}, FlattenAttrs{1});
  b.output(b.node(OpKind::Dense, {f, b.constant({18, 2}, ramp(36, 0.1f)), b.constant({2}, {0, 1})},
                  DenseAttrs{}));
  b.output(f);
  testing::expect_pass_keeps_outputs(b.g, run_pass, "flatten two readers");
  ASSERT_TRUE(ChannelsLastPass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Transpose), 2);
}

TEST(ChannelsLast, DepthwiseAddConcatGlobalPoolJoin) {
  Builder b;
  const ValueId x = b.input({2, 3, 5, 5});
  const ValueId c1 = conv(b, x, 3, 3, 3);  // depthwise
  const ValueId c2 = conv(b, x, 3, 3);
  const ValueId s = b.node(OpKind::Add, {c1, c2});
  const ValueId cat = b.node(OpKind::Concat, {s, c1}, ConcatAttrs{1});
  PadAttrs pad;
  pad.pads = {0, 0, 1, 2, 0, 0, 2, 1};
  const ValueId p = b.node(OpKind::Pad, {b.node(OpKind::Sigmoid, {cat})}, pad);
  const ValueId g = b.node(OpKind::GlobalAveragePool, {p});
  b.output(b.node(OpKind::Flatten, {g}, FlattenAttrs{1}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "depthwise add concat pad gap");
  ASSERT_TRUE(ChannelsLastPass().run(b.g));
  EXPECT_EQ(find_kind(b.g, OpKind::Concat)->attr<ConcatAttrs>().axis, 3);
  const auto& pa = find_kind(b.g, OpKind::Pad)->attr<PadAttrs>();
  EXPECT_TRUE(pa.channels_last);
  EXPECT_EQ(pa.pads, (std::vector<int64_t>{0, 1, 2, 0, 0, 2, 1, 0}));
  EXPECT_TRUE(find_kind(b.g, OpKind::GlobalAveragePool)->attr<GlobalPoolAttrs>().channels_last);
  // In and back out (before the Flatten, whose reader is not a Dense).
  EXPECT_EQ(count_kind(b.g, OpKind::Transpose), 2);
}

TEST(ChannelsLast, MixedAddTransposesBack) {
  Builder b;
  const ValueId x = b.input({1, 2, 4, 4});
  b.output(b.node(OpKind::Add, {conv(b, x, 2, 2), x}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "mixed add");
  ASSERT_TRUE(ChannelsLastPass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Transpose), 2);
}

TEST(ChannelsLast, GraphWithoutSpatialOpsIsUnchanged) {
  Builder b;
  const ValueId x = b.input({1, 2, 4, 4});
  b.output(b.node(OpKind::Relu, {x}));
  EXPECT_FALSE(ChannelsLastPass().run(b.g));
  EXPECT_EQ(b.g.nodes().size(), 1u);
}

}  // namespace
}  // namespace kiln::passes

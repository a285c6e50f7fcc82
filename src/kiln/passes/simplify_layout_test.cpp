#include "kiln/passes/simplify_layout.h"

#include "kiln/passes/test_util.h"

namespace kiln::passes {
namespace {

using testing::Builder;
using testing::count_kind;

void run_pass(Graph& g) {
  SimplifyLayoutPass().run(g);
}

ValueId transpose(Builder& b, ValueId x, std::vector<int64_t> perm) {
  return b.node(OpKind::Transpose, {x}, TransposeAttrs{std::move(perm)});
}
ValueId reshape(Builder& b, ValueId x, Shape s) {
  return b.node(OpKind::Reshape, {x}, ReshapeAttrs{std::move(s)});
}

TEST(SimplifyLayout, InverseTransposePairCancels) {
  Builder b;
  const ValueId x = b.input({1, 2, 3, 4});
  const ValueId t = transpose(b, transpose(b, x, {0, 2, 3, 1}), {0, 3, 1, 2});
  b.output(b.node(OpKind::Relu, {t}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "pair");
  ASSERT_TRUE(SimplifyLayoutPass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(b.g.nodes()[0].inputs[0], x);
}

TEST(SimplifyLayout, PairEndingInGraphOutputRenamesTheProducer) {
  Builder b;
  const ValueId x = b.input({1, 2, 3});
  const ValueId r = b.node(OpKind::Relu, {x});
  const ValueId y = transpose(b, transpose(b, r, {0, 2, 1}), {0, 2, 1});
  b.output(y);
  ASSERT_TRUE(SimplifyLayoutPass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(b.g.nodes()[0].outputs[0], y);
}

TEST(SimplifyLayout, NonInversePairMerges) {
  Builder b;
  const ValueId x = b.input({2, 3, 4});
  // (1,0,2) then (0,2,1): y dim i = x dim first[perm[i]] = (1, 2, 0).
  b.output(transpose(b, transpose(b, x, {1, 0, 2}), {0, 2, 1}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "merge");
  ASSERT_TRUE(SimplifyLayoutPass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(b.g.nodes()[0].attr<TransposeAttrs>().perm, (std::vector<int64_t>{1, 2, 0}));
}

TEST(SimplifyLayout, SharedFirstTransposeIsKept) {
  Builder b;
  const ValueId x = b.input({2, 3, 4});
  const ValueId t = transpose(b, x, {1, 0, 2});
  b.output(transpose(b, t, {0, 2, 1}));
  b.output(t);
  EXPECT_FALSE(SimplifyLayoutPass().run(b.g));
}

TEST(SimplifyLayout, ReshapeChainsMergeOrVanish) {
  Builder b;
  const ValueId x = b.input({2, 3, 4});
  b.output(reshape(b, reshape(b, x, {6, 4}), {2, 12}));
  b.output(b.node(OpKind::Relu, {reshape(b, reshape(b, x, {24}), {2, 3, 4})}));
  const ValueId u = b.node(OpKind::Unsqueeze, {x}, AxesAttrs{{0}});
  b.output(b.node(OpKind::Relu, {b.node(OpKind::Squeeze, {u}, AxesAttrs{{0}})}));
  const ValueId m = b.input({5, 7});
  b.output(b.node(OpKind::Relu, {b.node(OpKind::Flatten, {m}, FlattenAttrs{1})}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "reshapes");
  ASSERT_TRUE(SimplifyLayoutPass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Reshape), 1);
  EXPECT_EQ(count_kind(b.g, OpKind::Squeeze) + count_kind(b.g, OpKind::Unsqueeze) +
                count_kind(b.g, OpKind::Flatten),
            0);
  EXPECT_EQ(b.g.nodes()[0].attr<ReshapeAttrs>().shape, (Shape{2, 12}));
  for (const Node& n : b.g.nodes())
    if (n.kind == OpKind::Relu) {
      EXPECT_TRUE(n.inputs[0] == x || n.inputs[0] == m);
    }
}

}  // namespace
}  // namespace kiln::passes

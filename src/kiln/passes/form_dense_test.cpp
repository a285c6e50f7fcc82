#include "kiln/passes/form_dense.h"

#include "kiln/passes/test_util.h"

namespace kiln::passes {
namespace {

using testing::Builder;
using testing::count_kind;
using testing::find_kind;

void run_pass(Graph& g) {
  FormDensePass().run(g);
}

std::vector<float> values(const Graph& g, ValueId v) {
  const auto d = g.constant(v)->data<float>();
  return {d.begin(), d.end()};
}

TEST(FormDense, GemmFoldsAlphaBetaAndTransB) {
  Builder b;
  const ValueId x = b.input({2, 3});
  // B^T is [N=2, K=3]; alpha 2 scales W, beta 0.5 scales C.
  const ValueId w = b.constant({2, 3}, {1, 2, 3, 4, 5, 6});
  const ValueId c = b.constant({2}, {10, 20});
  GemmAttrs a;
  a.alpha = 2;
  a.beta = 0.5f;
  a.trans_b = true;
  b.output(b.node(OpKind::Gemm, {x, w, c}, a));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "gemm");
  ASSERT_TRUE(FormDensePass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  const Node& d = b.g.nodes()[0];
  EXPECT_EQ(d.kind, OpKind::Dense);
  EXPECT_EQ(d.inputs[0], x);
  EXPECT_EQ(b.g.value(d.inputs[1]).type.shape, (Shape{3, 2}));
  EXPECT_EQ(values(b.g, d.inputs[1]), (std::vector<float>{2, 8, 4, 10, 6, 12}));
  EXPECT_EQ(values(b.g, d.inputs[2]), (std::vector<float>{5, 10}));
  EXPECT_EQ(d.attr<DenseAttrs>().activation.kind, FusedActivation::Kind::None);
}

TEST(FormDense, GemmWithoutCGetsZeroBiasAndTransAGetsTranspose) {
  Builder b;
  const ValueId x = b.input({3, 2});  // A^T
  GemmAttrs a;
  a.trans_a = true;
  b.output(b.node(OpKind::Gemm, {x, b.constant({3, 2}, {1, -2, 3, -4, 5, -6})}, a));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "gemm transA");
  ASSERT_TRUE(FormDensePass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Transpose), 1);
  const Node* d = find_kind(b.g, OpKind::Dense);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(values(b.g, d->inputs[2]), (std::vector<float>{0, 0}));
}

TEST(FormDense, GemmWithPerRowCStays) {
  Builder b;
  const ValueId x = b.input({2, 3});
  b.output(b.node(OpKind::Gemm, {x, b.constant({3, 1}, {1, 2, 3}), b.constant({2, 1}, {1, 2})},
                  GemmAttrs{}));
  EXPECT_FALSE(FormDensePass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Gemm), 1);
}

TEST(FormDense, GemmWithRuntimeBStays) {
  Builder b;
  const ValueId x = b.input({2, 3});
  const ValueId y = b.input({3, 2});
  b.output(b.node(OpKind::Gemm, {x, y}, GemmAttrs{}));
  EXPECT_FALSE(FormDensePass().run(b.g));
}

TEST(FormDense, MatMulAbsorbsFollowingBiasAdd) {
  Builder b;
  const ValueId x = b.input({2, 4, 3});
  const ValueId m = b.node(OpKind::MatMul, {x, b.constant({3, 2}, {1, 2, 3, 4, 5, 6})});
  const ValueId y = b.node(OpKind::Add, {b.constant({1, 2}, {7, 8}), m});
  b.output(y);
  testing::expect_pass_keeps_outputs(b.g, run_pass, "matmul add");
  ASSERT_TRUE(FormDensePass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  const Node& d = b.g.nodes()[0];
  EXPECT_EQ(d.kind, OpKind::Dense);
  EXPECT_EQ(d.outputs[0], y);
  EXPECT_EQ(values(b.g, d.inputs[1]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values(b.g, d.inputs[2]), (std::vector<float>{7, 8}));
  EXPECT_EQ(b.g.value(y).type.shape, (Shape{2, 4, 2}));
}

TEST(FormDense, MatMulWithTwoUsesKeepsTheAdd) {
  Builder b;
  const ValueId x = b.input({2, 3});
  const ValueId m = b.node(OpKind::MatMul, {x, b.constant({3, 2}, {1, 2, 3, 4, 5, 6})});
  b.output(b.node(OpKind::Add, {m, b.constant({2}, {7, 8})}));
  b.output(m);
  testing::expect_pass_keeps_outputs(b.g, run_pass, "matmul two uses");
  ASSERT_TRUE(FormDensePass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Dense), 1);
  EXPECT_EQ(count_kind(b.g, OpKind::Add), 1);
  EXPECT_EQ(values(b.g, find_kind(b.g, OpKind::Dense)->inputs[2]), (std::vector<float>{0, 0}));
}

TEST(FormDense, MatMulWithFullShapeAddKeepsTheAdd) {
  Builder b;
  const ValueId x = b.input({2, 3});
  const ValueId m = b.node(OpKind::MatMul, {x, b.constant({3, 2}, {1, 2, 3, 4, 5, 6})});
  b.output(b.node(OpKind::Add, {m, b.constant({2, 2}, {1, 2, 3, 4})}));
  testing::expect_pass_keeps_outputs(b.g, run_pass, "matmul per-row add");
  ASSERT_TRUE(FormDensePass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Add), 1);
}

}  // namespace
}  // namespace kiln::passes

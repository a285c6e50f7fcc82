#include "kiln/passes/remove_identity.h"

#include "kiln/passes/test_util.h"

namespace kiln::passes {
namespace {

using testing::Builder;
using testing::count_kind;

void run_pass(Graph& g) {
  RemoveIdentityPass().run(g);
}

TEST(RemoveIdentity, DropsIdentityAndDropoutChains) {
  Builder b;
  const ValueId x = b.input({2, 3});
  const ValueId r1 = b.node(OpKind::Relu, {x});
  const ValueId i1 = b.node(OpKind::Identity, {r1});
  const ValueId d1 = b.node(OpKind::Dropout, {i1});
  const ValueId r2 = b.node(OpKind::Relu, {d1});
  b.output(r2);
  testing::expect_pass_keeps_outputs(b.g, run_pass, "identity chain");
  EXPECT_TRUE(RemoveIdentityPass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 2u);
  EXPECT_EQ(b.g.nodes()[1].kind, OpKind::Relu);
  EXPECT_EQ(b.g.nodes()[1].inputs[0], r1);
  EXPECT_EQ(b.g.outputs[0], r2);
  EXPECT_FALSE(RemoveIdentityPass().run(b.g));
}

TEST(RemoveIdentity, GraphOutputKeepsItsValue) {
  Builder b;
  const ValueId x = b.input({4});
  const ValueId r = b.node(OpKind::Relu, {x});
  const ValueId y = b.node(OpKind::Identity, {r});
  b.output(y);
  EXPECT_TRUE(RemoveIdentityPass().run(b.g));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(b.g.nodes()[0].kind, OpKind::Relu);
  EXPECT_EQ(b.g.nodes()[0].outputs[0], y);  // the Relu now produces the output value
  b.g.verify();
}

TEST(RemoveIdentity, KeepsInputToOutputIdentity) {
  Builder b;
  const ValueId x = b.input({4});
  b.output(b.node(OpKind::Identity, {x}));
  EXPECT_FALSE(RemoveIdentityPass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Identity), 1);
}

TEST(RemoveIdentity, KeepsDropoutWhoseMaskIsUsed) {
  Builder b;
  const ValueId x = b.input({4});
  const ValueId r = b.node(OpKind::Relu, {x});
  const ValueId y = b.g.add_value("y", TensorType{DType::Float32, {4}});
  const ValueId mask = b.g.add_value("mask", TensorType{DType::Bool, {4}});
  b.g.add_node(OpKind::Dropout, "", {r}, {y, mask});
  b.output(y);
  b.output(mask);
  EXPECT_FALSE(RemoveIdentityPass().run(b.g));
  EXPECT_EQ(count_kind(b.g, OpKind::Dropout), 1);
}

}  // namespace
}  // namespace kiln::passes

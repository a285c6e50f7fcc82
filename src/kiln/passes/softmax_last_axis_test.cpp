#include "kiln/passes/softmax_last_axis.h"

#include <gtest/gtest.h>

#include "kiln/passes/test_util.h"

namespace kiln::passes {
namespace {

using testing::Builder;

TEST(SoftmaxLastAxis, InnerAxisGetsTransposesAroundALastAxisSoftmax) {
  Builder b;
  const ValueId x = b.input({1, 3, 2, 2});
  b.output(b.node(OpKind::Softmax, {x}, SoftmaxAttrs{1, false}));
  const Graph before = b.g;
  Graph g = b.g;
  SoftmaxLastAxisPass pass;
  ASSERT_TRUE(pass.run(g));
  ASSERT_EQ(g.nodes().size(), 3u);
  EXPECT_EQ(g.nodes()[0].kind, OpKind::Transpose);
  EXPECT_EQ(g.nodes()[0].attr<TransposeAttrs>().perm, (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(g.nodes()[1].kind, OpKind::Softmax);
  EXPECT_EQ(g.nodes()[1].attr<SoftmaxAttrs>().axis, 3);
  EXPECT_EQ(g.nodes()[2].attr<TransposeAttrs>().perm, (std::vector<int64_t>{0, 3, 1, 2}));
  testing::expect_pass_keeps_outputs(before, [](Graph& h) { SoftmaxLastAxisPass().run(h); },
                                     "softmax axis 1");
}

TEST(SoftmaxLastAxis, LastAxisAndCoerce2dAreLeftAlone) {
  Builder b;
  const ValueId x = b.input({2, 5});
  const ValueId y = b.node(OpKind::Softmax, {x}, SoftmaxAttrs{1, false});
  b.output(b.node(OpKind::Softmax, {y}, SoftmaxAttrs{0, true}));
  SoftmaxLastAxisPass pass;
  EXPECT_FALSE(pass.run(b.g));
  EXPECT_EQ(b.g.nodes().size(), 2u);
}

}  // namespace
}  // namespace kiln::passes

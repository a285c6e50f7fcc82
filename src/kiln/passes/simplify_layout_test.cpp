// simplify_layout as IR text in, IR text out.
#include "kiln/passes/simplify_layout.h"

#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

TEST(SimplifyLayout, InverseTransposePairCancels) {
  expect_passes("simplify_layout", R"(
input %x: float32[1x2x3x4]
%t1 = Transpose(%x) {perm=[0,2,3,1]} @tr1
%t2 = Transpose(%t1) {perm=[0,3,1,2]} @tr2
%y = Relu(%t2) @relu
output %y
)",
                R"(
input %x: float32[1x2x3x4]
%y: float32[1x2x3x4] = Relu(%x) @relu
output %y
)");
}

TEST(SimplifyLayout, PairEndingInGraphOutputRenamesTheProducer) {
  expect_passes("simplify_layout", R"(
input %x: float32[1x2x3]
%r = Relu(%x) @relu
%t1 = Transpose(%r) {perm=[0,2,1]} @tr1
%y = Transpose(%t1) {perm=[0,2,1]} @tr2
output %y
)",
                R"(
input %x: float32[1x2x3]
%y: float32[1x2x3] = Relu(%x) @relu
output %y
)");
}

TEST(SimplifyLayout, NonInversePairMerges) {
  // (1,0,2) then (0,2,1): y dim i = x dim first[perm[i]] = (1, 2, 0).
  expect_passes("simplify_layout", R"(
input %x: float32[2x3x4]
%t1 = Transpose(%x) {perm=[1,0,2]} @tr1
%y = Transpose(%t1) {perm=[0,2,1]} @tr2
output %y
)",
                R"(
input %x: float32[2x3x4]
%y: float32[3x4x2] = Transpose(%x) {perm=[1,2,0]} @tr2
output %y
)");
}

TEST(SimplifyLayout, SharedFirstTransposeIsKept) {
  expect_unchanged("simplify_layout", R"(
input %x: float32[2x3x4]
%t = Transpose(%x) {perm=[1,0,2]} @tr1
%y = Transpose(%t) {perm=[0,2,1]} @tr2
output %y
output %t
)");
}

TEST(SimplifyLayout, ReshapeChainsMergeOrVanish) {
  expect_passes("simplify_layout", R"(
input %x: float32[2x3x4]
input %m: float32[5x7]
%a1 = Reshape(%x) {shape=[6,4]} @a1_op
%a2 = Reshape(%a1) {shape=[2,12]} @a2_op
%b1 = Reshape(%x) {shape=[24]} @b1_op
%b2 = Reshape(%b1) {shape=[2,3,4]} @b2_op
%rb = Relu(%b2) @rb_op
%u = Unsqueeze(%x) {axes=[0]} @u_op
%s = Squeeze(%u) {axes=[0]} @s_op
%rs = Relu(%s) @rs_op
%f = Flatten(%m) @f_op
%rf = Relu(%f) @rf_op
output %a2
output %rb
output %rs
output %rf
)",
                R"(
input %x: float32[2x3x4]
input %m: float32[5x7]
%a2: float32[2x12] = Reshape(%x) {shape=[2,12]} @a2_op
%rb: float32[2x3x4] = Relu(%x) @rb_op
%rs: float32[2x3x4] = Relu(%x) @rs_op
%rf: float32[5x7] = Relu(%m) @rf_op
output %a2
output %rb
output %rs
output %rf
)");
}

TEST(SimplifyLayout, ALongTransposeChainCollapsesInOnePass) {
  // Each link can merge only once its predecessor has: the worklist revisits
  // the merged node instead of rescanning the graph.
  std::string in =
      "input %x: float32[2x3x4]\n%r = Relu(%x) @relu\n%t0 = Transpose(%r) {perm=[1,2,0]} @tr0\n";
  for (int i = 1; i < 60; ++i)
    in += "%t" + std::to_string(i) + " = Transpose(%t" + std::to_string(i - 1) +
          ") {perm=[1,2,0]} @tr" + std::to_string(i) + "\n";
  in += "output %t59\n";
  // 60 rotations by (1,2,0) are 20 full turns: the identity.
  expect_passes("simplify_layout", in, R"(
input %x: float32[2x3x4]
%t59: float32[2x3x4] = Relu(%x) @relu
output %t59
)");
}

TEST(SimplifyLayout, TransposeOfUnitAxesIsAReshape) {
  // [1, C, 1, 1] to channels-last moves only size-1 axes: the data order stays.
  expect_passes("simplify_layout", R"(
input %x: float32[1x4x1x1]
%t = Transpose(%x) {perm=[0,2,3,1]} @tr
%y = Relu(%t) @relu
output %y
)",
                R"(
input %x: float32[1x4x1x1]
%t: float32[1x1x1x4] = Reshape(%x) {shape=[1,1,1,4]} @tr
%y: float32[1x1x1x4] = Relu(%t) @relu
output %y
)");
  expect_unchanged("simplify_layout", R"(
input %x: float32[1x4x2x1]
%t = Transpose(%x) {perm=[0,2,3,1]} @tr
%y = Relu(%t) @relu
output %y
)");
}

}  // namespace
}  // namespace kiln::passes

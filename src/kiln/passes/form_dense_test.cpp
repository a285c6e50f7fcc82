// form_dense as IR text in, IR text out; folded weights and biases checked by hand.
#include "kiln/passes/form_dense.h"

#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

TEST(FormDense, GemmFoldsAlphaBetaAndTransB) {
  // B^T is [N=2, K=3]: W = alpha * B = 2 * [[1,4],[2,5],[3,6]]; bias = beta * C.
  expect_passes("form_dense", R"(
input %x: float32[2x3]
const %w: float32[2x3] = [1,2,3,4,5,6]
const %c: float32[2] = [10,20]
%y = Gemm(%x, %w, %c) {alpha=2 beta=0.5 trans_b=true} @fc
output %y
)",
                R"(
input %x: float32[2x3]
const %fc_w: float32[3x2] = [2,8,4,10,6,12]
const %fc_b: float32[2] = [5,10]
%y: float32[2x2] = Dense(%x, %fc_w, %fc_b) @fc
output %y
)");
}

TEST(FormDense, GemmWithoutCGetsZeroBiasAndTransAGetsTranspose) {
  expect_passes("form_dense", R"(
input %x: float32[3x2]
const %w: float32[3x2] = [1,-2,3,-4,5,-6]
%y = Gemm(%x, %w) {trans_a=true} @fc
output %y
)",
                R"(
input %x: float32[3x2]
const %fc_w: float32[3x2] = [1,-2,3,-4,5,-6]
const %fc_b: float32[2] = [0,0]
%fc_at: float32[2x3] = Transpose(%x) {perm=[1,0]} @Transpose
%y: float32[2x2] = Dense(%fc_at, %fc_w, %fc_b) @fc
output %y
)");
}

TEST(FormDense, GemmWithPerRowCStays) {
  expect_unchanged("form_dense", R"(
input %x: float32[2x3]
const %w: float32[3x1] = [1,2,3]
const %c: float32[2x1] = [1,2]
%y = Gemm(%x, %w, %c) @fc
output %y
)");
}

TEST(FormDense, GemmWithRuntimeBStays) {
  expect_unchanged("form_dense", R"(
input %x: float32[2x3]
input %w: float32[3x2]
%y = Gemm(%x, %w) @fc
output %y
)");
}

TEST(FormDense, MatMulAbsorbsFollowingBiasAdd) {
  expect_passes("form_dense", R"(
input %x: float32[2x4x3]
const %w: float32[3x2] = [1,2,3,4,5,6]
const %bias: float32[1x2] = [7,8]
%m = MatMul(%x, %w) @mm
%y = Add(%bias, %m) @add
output %y
)",
                R"(
input %x: float32[2x4x3]
const %mm_w: float32[3x2] = [1,2,3,4,5,6]
const %mm_b: float32[2] = [7,8]
%y: float32[2x4x2] = Dense(%x, %mm_w, %mm_b) @mm
output %y
)");
}

TEST(FormDense, MatMulWithTwoUsesKeepsTheAdd) {
  expect_passes("form_dense", R"(
input %x: float32[2x3]
const %w: float32[3x2] = [1,2,3,4,5,6]
const %bias: float32[2] = [7,8]
%m = MatMul(%x, %w) @mm
%y = Add(%m, %bias) @add
output %y
output %m
)",
                R"(
input %x: float32[2x3]
const %bias: float32[2] = [7,8]
const %mm_w: float32[3x2] = [1,2,3,4,5,6]
const %mm_b: float32[2] = [0,0]
%m: float32[2x2] = Dense(%x, %mm_w, %mm_b) @mm
%y: float32[2x2] = Add(%m, %bias) @add
output %y
output %m
)");
}

TEST(FormDense, MatMulWithPerRowAddKeepsTheAdd) {
  const testing::PassOutcome r = testing::run_passes("form_dense", R"(
input %x: float32[2x3]
const %w: float32[3x2] = [1,2,3,4,5,6]
const %rows: float32[2x2] = [1,2,3,4]
%m = MatMul(%x, %w) @mm
%y = Add(%m, %rows) @add
output %y
)");
  EXPECT_TRUE(r.changed);
  EXPECT_NE(r.text.find("= Add(%m, %rows)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("= Dense(%x, %mm_w, %mm_b)"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace kiln::passes

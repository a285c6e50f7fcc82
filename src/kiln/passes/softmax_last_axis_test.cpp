// softmax_last_axis as IR text in, IR text out.
#include "kiln/passes/softmax_last_axis.h"

#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

TEST(SoftmaxLastAxis, InnerAxisGetsTransposesAroundALastAxisSoftmax) {
  expect_passes("softmax_last_axis", R"(
input %x: float32[1x3x2x2]
%y = Softmax(%x) {axis=1} @sm "sm"
output %y
)",
                R"(
input %x: float32[1x3x2x2]
%sm_in: float32[1x2x2x3] = Transpose(%x) {perm=[0,2,3,1]} @sm_to_last "sm/to_last"
%sm_out: float32[1x2x2x3] = Softmax(%sm_in) {axis=3} @sm "sm"
%y: float32[1x3x2x2] = Transpose(%sm_out) {perm=[0,3,1,2]} @sm_from_last "sm/from_last"
output %y
)");
}

TEST(SoftmaxLastAxis, LogSoftmaxOverAnInnerAxisMovesToo) {
  expect_passes("softmax_last_axis", R"(
input %x: float32[1x3x4]
%y = LogSoftmax(%x) {axis=1} @lsm "lsm"
output %y
)",
                R"(
input %x: float32[1x3x4]
%lsm_in: float32[1x4x3] = Transpose(%x) {perm=[0,2,1]} @lsm_to_last "lsm/to_last"
%lsm_out: float32[1x4x3] = LogSoftmax(%lsm_in) {axis=2} @lsm "lsm"
%y: float32[1x3x4] = Transpose(%lsm_out) {perm=[0,2,1]} @lsm_from_last "lsm/from_last"
output %y
)");
}

TEST(SoftmaxLastAxis, LastAxisAndCoerce2dAreLeftAlone) {
  expect_unchanged("softmax_last_axis", R"(
input %x: float32[2x5]
%y = Softmax(%x) {axis=1} @last
%z = Softmax(%y) {coerce_2d=true} @old
output %z
)");
}

}  // namespace
}  // namespace kiln::passes

// gather_as_slice as IR text in, IR text out.
#include "kiln/passes/gather_as_slice.h"

#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

TEST(GatherAsSlice, ScalarIndexIsASliceThenAReshape) {
  expect_passes("gather_as_slice", R"(
input %x: float32[1x5x3]
const %i: int64[] = [-1]
%y = Gather(%x, %i) {axis=1} @g "g"
output %y
)",
                R"(
input %x: float32[1x5x3]
%y_slice: float32[1x1x3] = Slice(%x) {starts=[0,4,0] ends=[1,5,3] steps=[1,1,1]} @g "g"
%y: float32[1x3] = Reshape(%y_slice) {shape=[1,3]} @g_squeeze "g/squeeze"
output %y
)");
}

TEST(GatherAsSlice, OneElementIndexVectorKeepsTheAxis) {
  expect_passes("gather_as_slice", R"(
input %x: float32[1x4x6]
const %i: int64[1] = [2]
%y = Gather(%x, %i) {axis=2} @g "g"
output %y
)",
                R"(
input %x: float32[1x4x6]
%y: float32[1x4x1] = Slice(%x) {starts=[0,0,2] ends=[1,4,3] steps=[1,1,1]} @g "g"
output %y
)");
}

TEST(GatherAsSlice, SeveralOrComputedIndicesAreLeftAlone) {
  expect_unchanged("gather_as_slice", R"(
input %x: float32[1x5x3]
const %i: int64[2] = [0,3]
%y = Gather(%x, %i) {axis=1} @g "g"
output %y
)");
  expect_unchanged("gather_as_slice", R"(
input %x: float32[1x5x3]
input %i: int64[]
%y = Gather(%x, %i) {axis=1} @g "g"
output %y
)");
}

}  // namespace
}  // namespace kiln::passes

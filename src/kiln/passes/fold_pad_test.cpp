// fold_pad and global_pool as IR text in, IR text out (the reference
// interpreter runs each graph before and after: the same outputs).
#include "kiln/passes/fold_pad.h"

#include "kiln/passes/global_pool.h"
#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

TEST(FoldPad, APadOfNothingIsRemoved) {
  expect_passes("fold_pad", R"(
input %x: float32[1x2x4x4]
%p = Pad(%x) {pads=[0,0,0,0,0,0,0,0]} @pad
%y = Relu(%p) @relu
output %y
)",
                R"(
input %x: float32[1x2x4x4]
%y: float32[1x2x4x4] = Relu(%x) @relu
output %y
)");
}

TEST(FoldPad, ZerosBeforeAConvBecomeItsPadding) {
  expect_passes("fold_pad", R"(
input %x: float32[1x2x4x4]
const %w: float32[3x2x3x3] = [0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5]
%p = Pad(%x) {pads=[0,0,1,2,0,0,1,0]} @pad
%y = Conv(%p, %w) {kernel_shape=[3,3] strides=[1,1] pads=[0,0,0,1] dilations=[1,1]} @conv
output %y
)",
                R"(
input %x: float32[1x2x4x4]
const %w: float32[3x2x3x3] = [0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5,0.5,-0.25,0.125,1,-1,0.75,0.5,0.25,-0.5]
%y: float32[1x3x4x5] = Conv(%x, %w) {kernel_shape=[3,3] strides=[1,1] pads=[1,2,1,1] dilations=[1,1]} @conv
output %y
)");
}

TEST(FoldPad, ZerosBeforeAnAveragePoolAreCounted) {
  expect_passes("fold_pad", R"(
input %x: float32[1x2x4x4]
%p = Pad(%x) {pads=[0,0,1,1,0,0,1,1]} @pad
%y = AveragePool(%p) {kernel_shape=[2,2] strides=[2,2] pads=[0,0,0,0] dilations=[1,1]} @pool
output %y
)",
                R"(
input %x: float32[1x2x4x4]
%y: float32[1x2x3x3] = AveragePool(%x) {kernel_shape=[2,2] strides=[2,2] pads=[1,1,1,1] dilations=[1,1] count_include_pad=true} @pool
output %y
)");
}

TEST(FoldPad, KeepsPadsAMaxPoolOrAnotherValueWouldSee) {
  // A MaxPool pads with -inf; a Pad of ones is not zero padding; a Pad read
  // twice, or padding channels, is not the layer's to take.
  expect_unchanged("fold_pad", R"(
input %x: float32[1x2x4x4]
%p = Pad(%x) {pads=[0,0,1,1,0,0,1,1]} @pad
%y = MaxPool(%p) {kernel_shape=[2,2] strides=[2,2] pads=[0,0,0,0] dilations=[1,1]} @pool
output %y
)");
  expect_unchanged("fold_pad", R"(
input %x: float32[1x2x4x4]
%p = Pad(%x) {pads=[0,0,1,1,0,0,1,1] value=1} @pad
%y = AveragePool(%p) {kernel_shape=[2,2] strides=[2,2] pads=[0,0,0,0] dilations=[1,1]} @pool
output %y
)");
  expect_unchanged("fold_pad", R"(
input %x: float32[1x2x4x4]
%p = Pad(%x) {pads=[0,1,0,0,0,0,0,0]} @pad
%y = AveragePool(%p) {kernel_shape=[2,2] strides=[2,2] pads=[0,0,0,0] dilations=[1,1]} @pool
output %y
)");
  expect_unchanged("fold_pad", R"(
input %x: float32[1x2x4x4]
%p = Pad(%x) {pads=[0,0,1,1,0,0,1,1]} @pad
%y = AveragePool(%p) {kernel_shape=[2,2] strides=[2,2] pads=[0,0,0,0] dilations=[1,1]} @pool
%z = Relu(%p) @relu
output %y
output %z
)");
}

TEST(GlobalPool, APoolOverTheWholeMapIsTheGlobalPool) {
  expect_passes("global_pool", R"(
input %x: float32[1x4x8x8]
%y = AveragePool(%x) {kernel_shape=[8,8] strides=[8,8] pads=[0,0,0,0] dilations=[1,1]} @avg
%z = MaxPool(%x) {kernel_shape=[8,8] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @max
output %y
output %z
)",
                R"(
input %x: float32[1x4x8x8]
%y: float32[1x4x1x1] = GlobalAveragePool(%x) @avg
%z: float32[1x4x1x1] = GlobalMaxPool(%x) @max
output %y
output %z
)");
}

TEST(GlobalPool, KeepsWindowsShortOfTheMapOrPadded) {
  expect_unchanged("global_pool", R"(
input %x: float32[1x4x8x8]
%y = AveragePool(%x) {kernel_shape=[8,4] strides=[8,4] pads=[0,0,0,0] dilations=[1,1]} @avg
output %y
)");
  expect_unchanged("global_pool", R"(
input %x: float32[1x4x8x8]
%y = AveragePool(%x) {kernel_shape=[8,8] strides=[1,1] pads=[1,1,1,1] dilations=[1,1]} @avg
output %y
)");
}

}  // namespace
}  // namespace kiln::passes

// fuse_activation as IR text in, IR text out.
#include "kiln/passes/fuse_activation.h"

#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

constexpr const char* kConv = R"(
input %x: float32[1x1x3x3]
const %w: float32[2x1x1x1] = [1,-2]
const %b: float32[2] = [0.1,0.2]
%c: float32[1x2x3x3] = Conv(%x, %w, %b) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1]} @conv
)";

TEST(FuseActivation, ConvLeakyRelu) {
  expect_passes("fuse_activation", std::string(kConv) + R"(
%y = LeakyRelu(%c) {alpha=0.25} @leaky
output %y
)",
                R"(
input %x: float32[1x1x3x3]
const %w: float32[2x1x1x1] = [1,-2]
const %b: float32[2] = [0.1,0.2]
%y: float32[1x2x3x3] = Conv(%x, %w, %b) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] activation={kind=leaky_relu alpha=0.25}} @conv
output %y
)");
}

TEST(FuseActivation, DenseClipWithAndWithoutMax) {
  // A missing Clip bound is unbounded: hi = inf.
  expect_passes("fuse_activation", R"(
input %x: float32[3x2]
const %w: float32[2x2] = [1,-2,3,4]
const %b: float32[2] = [0.5,-0.5]
const %zero: float32[] = 0
const %one: float32[] = 1
const %minus: float32[] = -1
%d1 = Dense(%x, %w, %b) @fc1
%y1 = Clip(%d1, %zero, %one) @clip1
%d2 = Dense(%x, %w, %b) @fc2
%y2 = Clip(%d2, %minus) @clip2
output %y1
output %y2
)",
                R"(
input %x: float32[3x2]
const %w: float32[2x2] = [1,-2,3,4]
const %b: float32[2] = [0.5,-0.5]
%y1: float32[3x2] = Dense(%x, %w, %b) {activation={kind=clip hi=1}} @fc1
%y2: float32[3x2] = Dense(%x, %w, %b) {activation={kind=clip lo=-1 hi=inf}} @fc2
output %y1
output %y2
)");
}

TEST(FuseActivation, OnlyTheFirstOfTwoRelus) {
  expect_passes("fuse_activation", std::string(kConv) + R"(
%r1 = Relu(%c) @relu1
%r2 = Relu(%r1) @relu2
output %r2
)",
                R"(
input %x: float32[1x1x3x3]
const %w: float32[2x1x1x1] = [1,-2]
const %b: float32[2] = [0.1,0.2]
%r1: float32[1x2x3x3] = Conv(%x, %w, %b) {kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] dilations=[1,1] activation={kind=relu}} @conv
%r2: float32[1x2x3x3] = Relu(%r1) @relu2
output %r2
)");
}

TEST(FuseActivation, SharedOutputOrOtherProducerStays) {
  expect_unchanged("fuse_activation", std::string(kConv) + R"(
%r = Relu(%c) @r1
%s = Add(%x, %x) @add
%t = Relu(%s) @r2
output %r
output %c
output %t
)");
}

TEST(FuseActivation, RuntimeClipBoundStays) {
  expect_unchanged("fuse_activation", R"(
input %x: float32[3x2]
input %lo: float32[]
const %w: float32[2x2] = [1,-2,3,4]
const %b: float32[2] = [0.5,-0.5]
%d = Dense(%x, %w, %b) @fc
%y = Clip(%d, %lo) @clip
output %y
)");
}

}  // namespace
}  // namespace kiln::passes

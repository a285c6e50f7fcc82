// absorb_port_transposes as layer text in, layer text out; the emulator
// computes the same outputs, in the ONNX layout, before and after.
#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"

namespace kiln::hls {
namespace {

using testing::expect_layer_passes;
using testing::expect_layers_unchanged;
using testing::expect_same_emulation;
using testing::parse;
using testing::run_layer_passes;

// NCHW in, NCHW out around a channels-last layer: both Transposes go.
constexpr const char* kEdges = R"(
model "t" {}
%x: ap_fixed<16,6>[3x4x4] = Input() @x "x"
%xt: ap_fixed<16,6>[4x4x3] = Transpose(%x) {perm=[1,2,0]} @to_cl
%r: ap_fixed<16,6>[4x4x3] = Activation(%xt) {n=48 channels=3 act={kind=Relu}} @relu
%y: ap_fixed<16,6>[3x4x4] = Transpose(%r) {perm=[2,0,1]} @to_cf
input %x "x": [1x3x4x4] perm=[0,1,2]
output %y "y": [1x3x4x4] perm=[0,1,2]
)";

TEST(AbsorbPortTransposes, BothEdges) {
  // Input: tensor[d] = onnx[perm[d]] = [4, 4, 3] with perm (1, 2, 0). Output:
  // %r[q[d]] = %y[d] with q = (2, 0, 1), so perm[q[d]] = d: (1, 2, 0).
  expect_layer_passes("absorb_port_transposes", kEdges, R"(
model "t" {}
%x: ap_fixed<16,6>[4x4x3] = Input() @x "x"
%r: ap_fixed<16,6>[4x4x3] = Activation(%x) {n=48 channels=3 act={kind=Relu}} @relu
input %x "x": [1x3x4x4] perm=[1,2,0]
output %r "y": [1x3x4x4] perm=[1,2,0]
)");
  expect_same_emulation(parse(kEdges), run_layer_passes("absorb_port_transposes", kEdges).model);
}

TEST(AbsorbPortTransposes, InputReadTwiceStays) {
  expect_layers_unchanged("absorb_port_transposes", R"(
model "t" {}
%x: ap_fixed<16,6>[3x4x4] = Input() @x "x"
%xt: ap_fixed<16,6>[4x4x3] = Transpose(%x) {perm=[1,2,0]} @to_cl
%f: ap_fixed<16,6>[48] = Reshape(%x) @flat
input %x "x": [1x3x4x4] perm=[0,1,2]
output %xt "a": [1x4x4x3] perm=[0,1,2]
output %f "b": [1x48] perm=[0]
)");
}

TEST(AbsorbPortTransposes, OnlyLayoutChangesOfABatchedPort) {
  // Without a batch dimension the transpose is part of the computation.
  expect_layers_unchanged("absorb_port_transposes", R"(
model "t" {}
%x: ap_fixed<16,6>[3x4x4] = Input() @x "x"
%xt: ap_fixed<16,6>[4x4x3] = Transpose(%x) {perm=[1,2,0]} @to_cl
%r: ap_fixed<16,6>[4x4x3] = Activation(%xt) {n=48 channels=3 act={kind=Relu}} @relu
input %x "x": [3x4x4] perm=[0,1,2]
output %r "y": [4x4x3] perm=[0,1,2]
)");
  // Not to channels-last: (0, 2, 1) swaps the spatial axes.
  expect_layers_unchanged("absorb_port_transposes", R"(
model "t" {}
%x: ap_fixed<16,6>[3x4x5] = Input() @x "x"
%xt: ap_fixed<16,6>[3x5x4] = Transpose(%x) {perm=[0,2,1]} @swap
%r: ap_fixed<16,6>[3x5x4] = Activation(%xt) {n=60 channels=4 act={kind=Relu}} @relu
input %x "x": [1x3x4x5] perm=[0,1,2]
output %r "y": [1x3x5x4] perm=[0,1,2]
)");
}

TEST(AbsorbPortTransposes, OutputWhoseInputIsReadElsewhereStays) {
  expect_layers_unchanged("absorb_port_transposes", R"(
model "t" {}
%x: ap_fixed<16,6>[4x4x3] = Input() @x "x"
%r: ap_fixed<16,6>[4x4x3] = Activation(%x) {n=48 channels=3 act={kind=Relu}} @relu
%y: ap_fixed<16,6>[3x4x4] = Transpose(%r) {perm=[2,0,1]} @to_cf
%f: ap_fixed<16,6>[48] = Reshape(%r) @flat
input %x "x": [1x4x4x3] perm=[0,1,2]
output %y "y": [1x3x4x4] perm=[0,1,2]
output %f "f": [1x48] perm=[0]
)");
}

}  // namespace
}  // namespace kiln::hls

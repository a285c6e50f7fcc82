// insert_clones as layer text in, layer text out in both IO types; the
// emulator computes the same outputs before and after.
#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"

namespace kiln::hls {
namespace {

using testing::expect_layer_passes;
using testing::expect_layers_unchanged;
using testing::expect_same_emulation;
using testing::parse;
using testing::run_layer_passes;

// x feeds relu1 and add1; y = x + relu(x) is an output and feeds relu2.
std::string fanout(const std::string& io) {
  return R"(
model "t" {io_type=)" +
         io + R"(}
%x: ap_fixed<12,4>[2x4] = Input() @x_in "x"
%a: ap_fixed<12,4>[2x4] = Activation(%x) {n=8 channels=4 act={kind=Relu}} @relu1
%y: ap_fixed<12,4>[2x4] = Binary(%x, %a) {n=8 channels=4} @add1
%z: ap_fixed<12,4>[2x4] = Activation(%y) {n=8 channels=4 act={kind=Relu}} @relu2
input %x "x": [1x2x4] perm=[0,1]
output %y "y": [1x2x4] perm=[0,1]
output %z "z": [1x2x4] perm=[0,1]
)";
}

TEST(InsertClones, StreamsAreReadOnce) {
  expect_layer_passes("insert_clones", fanout("io_stream"), R"(
model "t" {io_type=io_stream}
%x: ap_fixed<12,4>[2x4] = Input() @x_in "x"
%x_cpy0: ap_fixed<12,4>[2x4], %x_cpy1: ap_fixed<12,4>[2x4] = Clone(%x) @x_clone
%a: ap_fixed<12,4>[2x4] = Activation(%x_cpy0) {n=8 channels=4 act={kind=Relu}} @relu1
%y_src: ap_fixed<12,4>[2x4] = Binary(%x_cpy1, %a) {n=8 channels=4} @add1
%y_cpy0: ap_fixed<12,4>[2x4], %y: ap_fixed<12,4>[2x4] = Clone(%y_src) @y_clone
%z: ap_fixed<12,4>[2x4] = Activation(%y_cpy0) {n=8 channels=4 act={kind=Relu}} @relu2
input %x "x": [1x2x4] perm=[0,1]
output %y "y": [1x2x4] perm=[0,1]
output %z "z": [1x2x4] perm=[0,1]
)");
  expect_same_emulation(parse(fanout("io_stream")),
                        run_layer_passes("insert_clones", fanout("io_stream")).model);
}

TEST(InsertClones, ParallelOutputPortsAreNotReadBack) {
  expect_layer_passes("insert_clones", fanout("io_parallel"), R"(
model "t" {}
%x: ap_fixed<12,4>[2x4] = Input() @x_in "x"
%a: ap_fixed<12,4>[2x4] = Activation(%x) {n=8 channels=4 act={kind=Relu}} @relu1
%y_src: ap_fixed<12,4>[2x4] = Binary(%x, %a) {n=8 channels=4} @add1
%y: ap_fixed<12,4>[2x4] = Clone(%y_src) @y_clone
%z: ap_fixed<12,4>[2x4] = Activation(%y_src) {n=8 channels=4 act={kind=Relu}} @relu2
input %x "x": [1x2x4] perm=[0,1]
output %y "y": [1x2x4] perm=[0,1]
output %z "z": [1x2x4] perm=[0,1]
)");
  expect_same_emulation(parse(fanout("io_parallel")),
                        run_layer_passes("insert_clones", fanout("io_parallel")).model);
}

TEST(InsertClones, FiveCopiesChainTwoWayClonesIntoAThreeWay) {
  // Four readers and the port: (src -> cpy0, link0), (link0 -> cpy1, link1),
  // (link1 -> cpy2, cpy3, port).
  const std::string in = R"(
model "t" {io_type=io_stream}
%x: ap_fixed<16,6>[4] = Input() @x_in "x"
%t: ap_fixed<16,6>[4] = Activation(%x) {n=4 channels=4 act={kind=Relu}} @relu
%a: ap_fixed<16,6>[4] = Binary(%t, %t) {n=4 channels=4} @add
%b: ap_fixed<16,6>[4] = Binary(%t, %t) {op=Mul n=4 channels=4} @mul
input %x "x": [1x4] perm=[0]
output %t "t": [1x4] perm=[0]
output %a "a": [1x4] perm=[0]
output %b "b": [1x4] perm=[0]
)";
  expect_layer_passes("insert_clones", in, R"(
model "t" {io_type=io_stream}
%x: ap_fixed<16,6>[4] = Input() @x_in "x"
%t_src: ap_fixed<16,6>[4] = Activation(%x) {n=4 channels=4 act={kind=Relu}} @relu
%t_cpy0: ap_fixed<16,6>[4], %t_link0: ap_fixed<16,6>[4] = Clone(%t_src) @t_clone
%t_cpy1: ap_fixed<16,6>[4], %t_link1: ap_fixed<16,6>[4] = Clone(%t_link0) @t_clone_2
%t_cpy2: ap_fixed<16,6>[4], %t_cpy3: ap_fixed<16,6>[4], %t: ap_fixed<16,6>[4] = Clone(%t_link1) @t_clone_3
%a: ap_fixed<16,6>[4] = Binary(%t_cpy0, %t_cpy1) {n=4 channels=4} @add
%b: ap_fixed<16,6>[4] = Binary(%t_cpy2, %t_cpy3) {op=Mul n=4 channels=4} @mul
input %x "x": [1x4] perm=[0]
output %t "t": [1x4] perm=[0]
output %a "a": [1x4] perm=[0]
output %b "b": [1x4] perm=[0]
)");
  expect_same_emulation(parse(in), run_layer_passes("insert_clones", in).model);
}

TEST(InsertClones, NoFanOutNoChange) {
  expect_layers_unchanged("insert_clones", R"(
model "t" {io_type=io_stream}
%x: ap_fixed<16,6>[4] = Input() @x_in "x"
%t: ap_fixed<16,6>[4] = Activation(%x) {n=4 channels=4 act={kind=Relu}} @relu
input %x "x": [1x4] perm=[0]
output %t "t": [1x4] perm=[0]
)");
}

}  // namespace
}  // namespace kiln::hls

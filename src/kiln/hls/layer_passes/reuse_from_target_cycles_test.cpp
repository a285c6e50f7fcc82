// reuse_from_target_cycles: the reuse factor TargetCycles picks (seed 002
// eq. 5), by hand.
#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"

namespace kiln::hls {
namespace {

using testing::run_layer_passes;

// Dense 3 -> 2 (valid RF 1, 2, 3, 6) and a 1-D conv of 4 output pixels with
// 3 * 2 = 6 inputs per output and 2 outputs (valid RF 1, 2, 3, 4, 6, 12).
constexpr const char* kModel = R"(
model "t" {io_type=io_stream}
%x: ap_fixed<16,6>[6x2] = Input() @x "x"
%c: ap_fixed<16,6>[4x2] = Conv(%x) {dims=1 in_w=6 c_in=2 out_w=4 c_out=2 kernel_w=3} @conv constants {float_weights=[1,2,3,4,5,6,7,8,9,10,11,12] float_bias=[0,0]}
%f: ap_fixed<16,6>[8] = Reshape(%c) @flat
%y: ap_fixed<16,6>[2] = Dense(%f) {n_in=8 n_out=2} @fc constants {float_weights=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] float_bias=[0,0]}
input %x "x": [1x6x2] perm=[0,1]
output %y "y": [1x2] perm=[0]
)";

TEST(ReuseFromTargetCycles, PicksTheLargestValidFactorInBudget) {
  // TargetCycles 30: conv (30 - 10) / 4 pixels = 5 -> 4; dense (30 - 10) / 1
  // = 20 -> 16 (divisors of 16: 1, 2, 4, 8, 16).
  const auto r = run_layer_passes("resolve_config,reuse_from_target_cycles", kModel,
                                  "Model:\n  TargetCycles: 30\n");
  EXPECT_EQ(r.model.layers[1].reuse_factor, 4);
  EXPECT_EQ(r.model.layers[1].target_cycles, 30);
  EXPECT_EQ(r.model.layers[3].reuse_factor, 16);
  EXPECT_EQ(r.model.layers[2].reuse_factor, 1);  // Reshape has no multipliers
  EXPECT_TRUE(r.changed);
  // A ReuseFactor set more specifically than TargetCycles wins.
  const auto s = run_layer_passes("resolve_config,reuse_from_target_cycles", kModel,
                                  "Model:\n  TargetCycles: 30\nLayerName:\n  fc:\n    "
                                  "ReuseFactor: 2\n");
  EXPECT_EQ(s.model.layers[3].reuse_factor, 2);
  EXPECT_EQ(s.model.layers[3].target_cycles, 0);
}

TEST(ReuseFromTargetCycles, TightBudgetsGiveOne) {
  const auto r = run_layer_passes("resolve_config,reuse_from_target_cycles", kModel,
                                  "Model:\n  TargetCycles: 11\n");
  EXPECT_EQ(r.model.layers[1].reuse_factor, 1);
  EXPECT_EQ(r.model.layers[3].reuse_factor, 1);
}

}  // namespace
}  // namespace kiln::hls

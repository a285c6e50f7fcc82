// reuse_from_target_cycles: the reuse factor TargetCycles picks, by hand:
// the largest valid one whose II (derived.h product_layer_ii, the estimator's
// II) meets the target.
#include <gtest/gtest.h>

#include "kiln/hls/derived.h"
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
  // TargetCycles 30, io_stream: the conv's II is 6 padded input pixels x RF
  // -> RF 5 would be 30 but is not valid -> 4; the dense reads its input (one
  // beat of 8) then takes RF cycles -> 1 + RF <= 30 -> 16 (divisors of 16:
  // 1, 2, 4, 8, 16).
  const auto r = run_layer_passes("resolve_config,reuse_from_target_cycles", kModel,
                                  "IOType: io_stream\nModel:\n  TargetCycles: 30\n");
  EXPECT_EQ(r.model.layers[1].reuse_factor, 4);
  EXPECT_EQ(r.model.layers[1].target_cycles, 30);
  EXPECT_EQ(product_layer_ii(r.model, r.model.layers[1], 4), 24);
  EXPECT_EQ(r.model.layers[3].reuse_factor, 16);
  EXPECT_EQ(product_layer_ii(r.model, r.model.layers[3], 16), 1 + 16);
  EXPECT_EQ(r.model.layers[2].reuse_factor, 1);  // Reshape has no multipliers
  EXPECT_TRUE(r.changed);
  // A ReuseFactor set more specifically than TargetCycles wins.
  const auto s =
      run_layer_passes("resolve_config,reuse_from_target_cycles", kModel,
                       "IOType: io_stream\nModel:\n  TargetCycles: 30\nLayerName:\n  fc:\n    "
                       "ReuseFactor: 2\n");
  EXPECT_EQ(s.model.layers[3].reuse_factor, 2);
  EXPECT_EQ(s.model.layers[3].target_cycles, 0);
}

TEST(ReuseFromTargetCycles, TightBudgetsGiveOne) {
  // 11 cycles: the conv needs 6 x 1 (RF 1; RF 2 would be 12), the dense 1 + 8.
  const auto r = run_layer_passes("resolve_config,reuse_from_target_cycles", kModel,
                                  "IOType: io_stream\nModel:\n  TargetCycles: 11\n");
  EXPECT_EQ(r.model.layers[1].reuse_factor, 1);
  EXPECT_EQ(r.model.layers[3].reuse_factor, 8);
  // 5 cycles: nothing fits; RF 1 (the estimate says the target is missed).
  const auto t = run_layer_passes("resolve_config,reuse_from_target_cycles", kModel,
                                  "IOType: io_stream\nModel:\n  TargetCycles: 5\n");
  EXPECT_EQ(t.model.layers[1].reuse_factor, 1);
  EXPECT_GT(product_layer_ii(t.model, t.model.layers[1], 1), 5);
}

// A stride-2 conv: output pixels (3) undercount the II, padded input pixels
// (8, pad 1 on each side of 6) are what the io_stream kernel iterates over;
// io_parallel iterates over output pixels.
constexpr const char* kStrided = R"(
model "t" {io_type=io_stream}
%x: ap_fixed<16,6>[6x1] = Input() @x "x"
%c: ap_fixed<16,6>[3x2] = Conv(%x) {dims=1 in_w=6 c_in=1 out_w=3 c_out=2 kernel_w=3 stride_w=2 pad_left=1 pad_right=1} @conv constants {float_weights=[1,2,3,4,5,6] float_bias=[0,0]}
input %x "x": [1x6x1] perm=[0,1]
output %c "y": [1x3x2] perm=[0,1]
)";

TEST(ReuseFromTargetCycles, StridedConvsCountPaddedInputPixels) {
  // Valid RFs of 3 * 1 * 2 = 6 products: 1, 2, 3, 6. Target 24: 8 x 3 = 24.
  const auto r = run_layer_passes("resolve_config,reuse_from_target_cycles", kStrided,
                                  "IOType: io_stream\nModel:\n  TargetCycles: 24\n");
  EXPECT_EQ(r.model.layers[1].reuse_factor, 3);
  EXPECT_EQ(product_layer_ii(r.model, r.model.layers[1], 3), 24);
  // io_parallel: 3 output pixels x 6 = 18 <= 24.
  const auto p = run_layer_passes("resolve_config,reuse_from_target_cycles", kStrided,
                                  "IOType: io_parallel\nModel:\n  TargetCycles: 24\n");
  EXPECT_EQ(p.model.layers[1].reuse_factor, 6);
}

}  // namespace
}  // namespace kiln::hls

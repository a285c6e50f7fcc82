// split_wide_concats as layer text in, layer text out; the emulator computes
// the same outputs before and after, in both IO types.
#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"

namespace kiln::hls {
namespace {

using testing::expect_layer_passes;
using testing::expect_layers_unchanged;
using testing::expect_same_emulation;
using testing::parse;
using testing::run_layer_passes;

// Six inputs of 2 pixels, concatenated along the channels (widths 1, 2, 1, 3,
// 1, 2 -> 10).
std::string six(const std::string& io) {
  return R"(
model "t" {io_type=)" +
         io + R"(}
%a: ap_fixed<12,4>[2x1] = Input() @a_in "a"
%b: ap_fixed<12,4>[2x2] = Input() @b_in "b"
%c: ap_fixed<12,4>[2x1] = Input() @c_in "c"
%d: ap_fixed<12,4>[2x3] = Input() @d_in "d"
%e: ap_fixed<12,4>[2x1] = Input() @e_in "e"
%f: ap_fixed<10,3>[2x2] = Input() @f_in "f"
%y: ap_fixed<8,3>[2x10] = Concat(%a, %b, %c, %d, %e, %f) {axis=1} @cat
input %a "a": [1x2x1] perm=[0,1]
input %b "b": [1x2x2] perm=[0,1]
input %c "c": [1x2x1] perm=[0,1]
input %d "d": [1x2x3] perm=[0,1]
input %e "e": [1x2x1] perm=[0,1]
input %f "f": [1x2x2] perm=[0,1]
output %y "y": [1x2x10] perm=[0,1]
)";
}

TEST(SplitWideConcats, ChainsConcatsOfAtMostFour) {
  expect_layer_passes("split_wide_concats", six("io_stream"), R"(
model "t" {io_type=io_stream}
%a: ap_fixed<12,4>[2x1] = Input() @a_in "a"
%b: ap_fixed<12,4>[2x2] = Input() @b_in "b"
%c: ap_fixed<12,4>[2x1] = Input() @c_in "c"
%d: ap_fixed<12,4>[2x3] = Input() @d_in "d"
%e: ap_fixed<12,4>[2x1] = Input() @e_in "e"
%f: ap_fixed<10,3>[2x2] = Input() @f_in "f"
%y_part: ap_fixed<8,3>[2x7] = Concat(%a, %b, %c, %d) {axis=1} @cat_part
%y: ap_fixed<8,3>[2x10] = Concat(%y_part, %e, %f) {axis=1} @cat
input %a "a": [1x2x1] perm=[0,1]
input %b "b": [1x2x2] perm=[0,1]
input %c "c": [1x2x1] perm=[0,1]
input %d "d": [1x2x3] perm=[0,1]
input %e "e": [1x2x1] perm=[0,1]
input %f "f": [1x2x2] perm=[0,1]
output %y "y": [1x2x10] perm=[0,1]
)");
}

TEST(SplitWideConcats, ComputesTheSame) {
  for (const std::string io : {"io_parallel", "io_stream"}) {
    const Model before = parse(six(io));
    const auto after = run_layer_passes("split_wide_concats,check_supported", six(io));
    EXPECT_EQ(after.model.layers.size(), before.layers.size() + 1) << io;
    expect_same_emulation(before, after.model);
  }
}

TEST(SplitWideConcats, LeavesFourOrFewer) {
  expect_layers_unchanged("split_wide_concats", R"(
model "t" {}
%a: ap_fixed<12,4>[2] = Input() @a_in "a"
%b: ap_fixed<12,4>[2] = Input() @b_in "b"
%y: ap_fixed<12,4>[4] = Concat(%a, %b) @cat
input %a "a": [1x2] perm=[0]
input %b "b": [1x2] perm=[0]
output %y "y": [1x4] perm=[0]
)");
}

}  // namespace
}  // namespace kiln::hls

// quantize: float constants become raw values of their formats, by hand.
#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"

namespace kiln::hls {
namespace {

using testing::expect_layer_passes;
using testing::expect_layers_unchanged;

TEST(Quantize, RawValuesWithEachFormatsModes) {
  // ap_fixed<8,3>: 5 fraction bits, raw = value * 32, truncated; 10 wraps to
  // 320 - 256 = 64. The bias saturates at <8,3,AP_TRN,AP_SAT>'s 127 (3.97).
  expect_layer_passes("quantize", R"(
model "t" {}
%x: ap_fixed<16,6>[3] = Input() @x "x"
%y: ap_fixed<16,6>[2] = Dense(%x) {n_in=3 n_out=2} @fc config {weight=ap_fixed<8,3> bias=ap_fixed<8,3,AP_TRN,AP_SAT>} constants {float_weights=[0.5,-1,0.25,10,-0.75,0.13] float_bias=[0.0625,5]}
input %x "x": [1x3] perm=[0]
output %y "y": [1x2] perm=[0]
)",
                      R"(
model "t" {}
%x: ap_fixed<16,6>[3] = Input() @x "x"
%y: ap_fixed<16,6>[2] = Dense(%x) {n_in=3 n_out=2} @fc config {weight=ap_fixed<8,3> bias=ap_fixed<8,3,AP_TRN,AP_SAT>} constants {weights=[16,-32,8,64,-24,4] bias=[2,127]}
input %x "x": [1x3] perm=[0]
output %y "y": [1x2] perm=[0]
)");
}

TEST(Quantize, QuantizedModelsStay) {
  expect_layers_unchanged("quantize", R"(
model "t" {}
%x: ap_fixed<16,6>[3] = Input() @x "x"
%y: ap_fixed<16,6>[2] = Dense(%x) {n_in=3 n_out=2} @fc constants {weights=[1,2,3,4,5,6] bias=[0,0]}
input %x "x": [1x3] perm=[0]
output %y "y": [1x2] perm=[0]
)");
}

}  // namespace
}  // namespace kiln::hls

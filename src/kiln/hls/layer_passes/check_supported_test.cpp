// check_supported: what the layer library cannot build is refused, naming
// the layer and what to change; what it can build passes untouched.
#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls {
namespace {

using kiln::testing::catch_error;
using testing::expect_layers_unchanged;
using testing::run_layer_passes;

std::string values(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(i % 7);
  return "[" + s + "]";
}

struct Refusal {
  std::string text;
  std::string where;
  std::string what;
};

TEST(CheckSupported, RefusesWhatTheLibraryCannotBuild) {
  const Refusal cases[] = {
      // Ceil-mode pooling left to the layer: the last window hangs off the edge.
      {R"(model "t" {}
%x: ap_fixed<16,6>[5x5x1] = Input() @x "x"
%p: ap_fixed<16,6>[3x3x1] = Pool(%x) {in_h=5 in_w=5 channels=1 out_h=3 out_w=3 kernel_h=2 kernel_w=2 stride_h=2 stride_w=2} @pool "/pool"
input %x "x": [1x5x5x1] perm=[0,1,2]
output %p "p": [1x3x3x1] perm=[0,1,2]
)",
       "layer '/pool'",
       "window geometry not supported (padded size 5, kernel 2, stride 2, output 3)"},
      {R"(model "t" {}
%x: ap_fixed<16,6>[2] = Input() @x "x"
%c: ap_fixed<16,6>[10] = Concat(%x, %x, %x, %x, %x) @cat
input %x "x": [1x2] perm=[0]
output %c "c": [1x10] perm=[0]
)",
       "layer 'cat'", "Concat of 5 inputs (at most 4)"},
      {R"(model "t" {io_type=io_stream}
%x: ap_fixed<16,6>[9x8x1] = Input() @x "x"
%c: ap_fixed<16,6>[1x1x1] = Conv(%x) {in_h=9 in_w=8 c_in=1 out_h=1 out_w=1 c_out=1 kernel_h=9 kernel_w=8} @conv config {conv_impl=Encoded} constants {weights=)" +
           values(72) + R"( bias=[0]}
input %x "x": [1x9x8x1] perm=[0,1,2]
output %c "c": [1x1x1x1] perm=[0,1,2]
)",
       "layer 'conv'", "encoded convolution needs kernel_h * kernel_w <= 64, this kernel is 9x8"},
      {R"(model "t" {}
%x: ap_fixed<16,6>[3] = Input() @x "x"
%y: ap_fixed<16,6>[2] = Dense(%x) {n_in=3 n_out=2 act={kind=Sigmoid}} @fc constants {weights=[1,2,3,4,5,6] bias=[0,0]}
input %x "x": [1x3] perm=[0]
output %y "y": [1x2] perm=[0]
)",
       "layer 'fc'", "Sigmoid cannot be fused into a dense or convolution layer"},
      {R"(model "t" {}
%x: ap_fixed<16,6>[3] = Input() @x "x"
%y: ap_fixed<16,6>[3] = Activation(%x) {n=3 channels=3 act={kind=Tanh}} @tanh config {tables={table_size=33554432}}
input %x "x": [1x3] perm=[0]
output %y "y": [1x3] perm=[0]
)",
       "layer 'tanh'", "table"},
      // All of ap_fixed<16,2>'s bits (2^1 down) lie below ap_fixed<14,17>'s
      // rounding bit (2^2, under its lowest, 2^3).
      {R"(model "t" {}
%x: ap_fixed<16,2>[3] = Input() @x "x"
%y: ap_fixed<14,17,AP_RND>[3] = Activation(%x) {n=3 channels=3 act={kind=Relu}} @relu
input %x "x": [1x3] perm=[0]
output %y "y": [1x3] perm=[0]
)",
       "layer 'relu'",
       "rounding the input ap_fixed<16,2> (integer bits 2) to the result type "
       "ap_fixed<14,17,AP_RND>, whose rounding bit is above all of its bits, makes Vitis's "
       "ap_fixed "
       "abort"},
  };
  for (const Refusal& c : cases) {
    const Error e = catch_error([&] { run_layer_passes("check_supported", c.text); });
    EXPECT_EQ(e.where(), c.where) << c.text;
    EXPECT_CONTAINS(e.what_happened(), c.what) << c.text;
    EXPECT_FALSE(e.hint().empty()) << c.text;
  }
}

TEST(CheckSupported, RoundingWithinReachIsFine) {
  // ap_fixed<16,3>'s top bit (2^2) is ap_fixed<14,17>'s rounding bit, which
  // Vitis's ap_fixed reads without aborting; truncation reads nothing.
  const std::pair<const char*, const char*> fine[] = {{"ap_fixed<16,3>", "ap_fixed<14,17,AP_RND>"},
                                                      {"ap_fixed<16,2>", "ap_fixed<14,17>"}};
  for (const auto& [in, out] : fine) {
    expect_layers_unchanged("check_supported", std::string("model \"t\" {}\n%x: ") + in +
                                                   "[3] = Input() @x \"x\"\n%y: " + out +
                                                   "[3] = Activation(%x) {n=3 channels=3 "
                                                   "act={kind=Relu}} @relu\n"
                                                   "input %x \"x\": [1x3] perm=[0]\n"
                                                   "output %y \"y\": [1x3] perm=[0]\n");
  }
}

TEST(CheckSupported, EncodedKernelsFitInIoParallel) {
  // io_parallel has no window FIFOs: the same 9x8 kernel is fine.
  expect_layers_unchanged("check_supported", R"(
model "t" {}
%x: ap_fixed<16,6>[9x8x1] = Input() @x "x"
%c: ap_fixed<16,6>[1x1x1] = Conv(%x) {in_h=9 in_w=8 c_in=1 out_h=1 out_w=1 c_out=1 kernel_h=9 kernel_w=8} @conv config {conv_impl=Encoded} constants {weights=)" +
                                                 values(72) + R"( bias=[0]}
input %x "x": [1x9x8x1] perm=[0,1,2]
output %c "c": [1x1x1x1] perm=[0,1,2]
)");
}

}  // namespace
}  // namespace kiln::hls

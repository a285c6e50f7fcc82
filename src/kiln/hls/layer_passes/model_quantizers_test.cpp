// model_quantizers as layer text in, layer text out, formats checked by hand.
#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"

namespace kiln::hls {
namespace {

using testing::expect_layer_passes;
using testing::run_layer_passes;

// x -> int8 quantizer of scale 2^-5 -> Dense 4 -> 2 (weights on 2^-6 and
// 2^-7, biases on 2^-12) -> uint8 quantizer with zero point 3 (a clamp) ->
// Reshape -> output.
constexpr const char* kQuantized = R"(
model "q" {io_type=io_parallel}
%x: ap_fixed<16,6>[4] = Input() @x "x"
%xq: ap_fixed<8,3,AP_RND_CONV,AP_SAT>[4] = Quantize(%x) {format=ap_fixed<8,3,AP_RND_CONV,AP_SAT> min_raw=-128 max_raw=127 scale=0.03125} @xq
%d: ap_fixed<16,6>[2] = Dense(%xq) {n_in=4 n_out=2} @d constants {float_weights=[0.5,-0.25,0.015625,0.0078125,-1,0.75,0.25,0.125] float_bias=[0.000244140625,-0.5]}
%dq: ap_fixed<9,5,AP_RND_CONV,AP_SAT>[2] = Quantize(%d) {format=ap_fixed<9,5,AP_RND_CONV,AP_SAT> min_raw=-3 max_raw=252 scale=0.0625} @dq
%y: ap_fixed<9,5,AP_RND_CONV,AP_SAT>[2] = Reshape(%dq) @flat
input %x "x": [1x4] perm=[0]
output %y "y": [1x2] perm=[0]
)";

TEST(ModelQuantizers, AbsorbsKeepsClampsAndMakesProductsExact) {
  // The input quantizer becomes the Input's format. The Dense: weights need
  // 7 fraction bits and 8 bits in all (-1 .. 0.75), the accumulator 5 + 7 =
  // 12 fraction bits (the biases' too) and 3 + 1 + log2(4 + 1) -> 3 more
  // integer bits: 19 bits, 7 integer; the clamping quantizer stays, after the
  // Dense rounds into its format. The Reshape keeps the quantized format.
  expect_layer_passes("model_quantizers", kQuantized, R"(
model "q" {}
%x: ap_fixed<8,3,AP_RND_CONV,AP_SAT>[4] = Input() @x "x"
%d: ap_fixed<9,5,AP_RND_CONV,AP_SAT>[2] = Dense(%x) {n_in=4 n_out=2} @d config {weight=ap_fixed<8,1> bias=ap_fixed<19,7> accum=ap_fixed<19,7>} constants {float_weights=[0.5,-0.25,0.015625,0.0078125,-1,0.75,0.25,0.125] float_bias=[0.000244140625,-0.5]}
%dq: ap_fixed<9,5,AP_RND_CONV,AP_SAT>[2] = Quantize(%d) {format=ap_fixed<9,5,AP_RND_CONV,AP_SAT> min_raw=-3 max_raw=252 scale=0.0625} @dq
%y: ap_fixed<9,5,AP_RND_CONV,AP_SAT>[2] = Reshape(%dq) @flat
input %x "x": [1x4] perm=[0]
output %y "y": [1x2] perm=[0]
)");
}

TEST(ModelQuantizers, WeightsOffAnyShortGridKeepTheConfigFormats) {
  std::string text = kQuantized;
  text.replace(text.find("0.0078125"), 9, "0.1");  // not exact in 16 bits
  const auto r = run_layer_passes("model_quantizers", text);
  // Weights, accumulator and biases keep the config's; the result still takes
  // the quantizer's format.
  EXPECT_NE(r.text.find("%d: ap_fixed<9,5,AP_RND_CONV,AP_SAT>[2] = Dense(%x)"), std::string::npos)
      << r.text;
  EXPECT_EQ(r.text.find("config {weight="), std::string::npos) << r.text;
}

TEST(ModelQuantizers, BipolarStaysAndItsDenseKeepsTheExactSum) {
  // A bipolar quantizer reads only the sign: it is not absorbed, and the
  // Dense before it writes its (exact) accumulator format, which can neither
  // round a small negative sum to zero nor wrap a large one.
  std::string text = kQuantized;
  text.replace(text.find("%dq: ap_fixed<9,5,AP_RND_CONV,AP_SAT>[2] = Quantize(%d) {format="),
               text.find("@dq") - text.find("%dq:"),
               "%dq: ap_int<2>[2] = Quantize(%d) {format=ap_int<2> min_raw=-1 max_raw=1 "
               "bipolar=true} ");
  const std::string y = "%y: ap_fixed<9,5,AP_RND_CONV,AP_SAT>";
  text.replace(text.find(y), y.size(), "%y: ap_int<2>");
  const auto r = run_layer_passes("model_quantizers", text);
  EXPECT_NE(r.text.find("%d: ap_fixed<19,7>[2] = Dense(%x)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("= Quantize(%d) {format=ap_int<2> min_raw=-1 max_raw=1 bipolar=true}"),
            std::string::npos)
      << r.text;
}

}  // namespace
}  // namespace kiln::hls

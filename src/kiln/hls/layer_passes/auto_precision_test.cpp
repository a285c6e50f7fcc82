// auto_precision: "Precision: auto" integer bits from the constants and the
// profile, computed by hand from the rule I = ceil(log2 max|v|) + 2.
#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls {
namespace {

using kiln::testing::catch_error;
using testing::run_layer_passes;

constexpr const char* kDense = R"(
model "t" {}
%x: ap_fixed<16,6>[3] = Input() @x "x"
%y: ap_fixed<16,6>[2] = Dense(%x) {n_in=3 n_out=2} @fc1 constants {float_weights=[0.5,-1,0.25,2,-0.75,0.125] float_bias=[0.0625,-3]}
input %x "x": [1x3] perm=[0]
output %y "y": [1x2] perm=[0]
)";

LayerProfile layer(const std::string& name, double result, double accum) {
  LayerProfile p;
  p.name = name;
  p.result.add(-result);
  if (accum > 0) p.accum.add(accum);
  return p;
}

TEST(AutoPrecision, FromConstantsAndProfile) {
  Profile profile;
  profile.samples = 1;
  profile.layers = {layer("x", 1.0, 0), layer("fc1", 5.3, 20)};
  const auto r = run_layer_passes("resolve_config,auto_precision", kDense,
                                  "Model:\n  Precision: auto\n", &profile);
  const Layer& x = r.model.layers[0];
  const Layer& fc = r.model.layers[1];
  // |x| <= 1: I = 0 + 2.
  EXPECT_EQ(x.precision.result.to_string(), "ap_fixed<16,2>");
  // Weights |w| <= 2 (a power of two: the guard bit covers it): I = 1 + 2.
  EXPECT_EQ(fc.precision.weight.to_string(), "ap_fixed<16,3>");
  // Bias |b| <= 3: I = 2 + 2.
  EXPECT_EQ(fc.precision.bias.to_string(), "ap_fixed<16,4>");
  // Result 5.3: I = 3 + 2; accumulator 20: I = 5 + 2 at the accumulator's 32 bits.
  EXPECT_EQ(fc.precision.result.to_string(), "ap_fixed<16,5>");
  EXPECT_EQ(fc.precision.accum.to_string(), "ap_fixed<32,7>");
  // The tensor carries the result type.
  EXPECT_EQ(r.model.tensors[1].type, fc.precision.result);
}

TEST(AutoPrecision, NeedsAProfileForResults) {
  const Error e = catch_error([] {
    run_layer_passes("resolve_config,auto_precision", kDense, "Model:\n  Precision: auto\n");
  });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_EQ(e.where(), "config.yaml: Precision.result of Input layer 'x'");
  EXPECT_EQ(e.what_happened(), "'auto' needs profile data for this layer");
}

}  // namespace
}  // namespace kiln::hls

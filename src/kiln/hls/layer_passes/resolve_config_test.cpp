// resolve_config as layer text in, layer text out, and the config mistakes
// it reports with the key that made them.
#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls {
namespace {

using kiln::testing::catch_error;
using testing::expect_layer_passes;
using testing::LayerPassOutcome;
using testing::run_layer_passes;

constexpr const char* kDense = R"(
model "t" {}
%x: ap_fixed<16,6>[3] = Input() @x "x"
%y: ap_fixed<16,6>[2] = Dense(%x) {n_in=3 n_out=2 act={kind=Relu}} @fc1 "/fc1/Gemm" constants {float_weights=[0.5,-1,0.25,2,-0.75,0.125] float_bias=[0.0625,-3]}
input %x "x": [1x3] perm=[0]
output %y "y": [1x2] perm=[0]
)";

TEST(ResolveConfig, PrecedenceReachesLayers) {
  // LayerName (by ONNX name) > LayerType > Model > defaults, field by field;
  // a model-wide reuse factor reaches only layers with multipliers.
  expect_layer_passes("resolve_config", kDense, R"(
model "t" {io_type=io_stream clock_period_ns=3.5}
%x: ap_fixed<16,6>[3] = Input() @x "x" config {weight=ap_fixed<10,4>}
%y: ap_fixed<18,8>[2] = Dense(%x) {n_in=3 n_out=2 act={kind=Relu}} @fc1 "/fc1/Gemm" config {weight=ap_fixed<10,4> bias=ap_fixed<12,5> reuse_factor=2 strategy=Resource} constants {float_weights=[0.5,-1,0.25,2,-0.75,0.125] float_bias=[0.0625,-3]}
input %x "x": [1x3] perm=[0]
output %y "y": [1x2] perm=[0]
)",
                      R"(
IOType: io_stream
ClockPeriod: 3.5
Model:
  ReuseFactor: 2
  Precision:
    weight: ap_fixed<10,4>
LayerType:
  Dense:
    Strategy: Resource
    Precision:
      result: ap_fixed<18,8>
LayerName:
  /fc1/Gemm:
    Precision:
      bias: ap_fixed<12,5>
)");
}

TEST(ResolveConfig, UnknownLayerNameSuggestsTheClosest) {
  const Error e = catch_error([] {
    run_layer_passes("resolve_config", kDense, "LayerName:\n  fc2:\n    ReuseFactor: 2\n");
  });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.where(), "config.yaml: LayerName.fc2");
  EXPECT_EQ(e.what_happened(), "no layer named 'fc2' in the model");
  EXPECT_EQ(e.hint(), "did you mean 'fc1'?");
}

TEST(ResolveConfig, InvalidReuseFactorListsTheValidOnes) {
  const Error e = catch_error([] {
    run_layer_passes("resolve_config", kDense, "LayerName:\n  fc1:\n    ReuseFactor: 4\n");
  });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_EQ(e.where(), "config.yaml: LayerName.fc1.ReuseFactor");
  EXPECT_EQ(e.what_happened(), "reuse factor 4 is not valid for Dense layer 'fc1'");
  EXPECT_EQ(e.hint(), "valid reuse factors for this layer: 1, 2, 3, 6");
}

constexpr const char* kPool = R"(
model "t" {io_type=io_stream}
%x: ap_fixed<16,6>[4x4x1] = Input() @x "x"
%p: ap_fixed<16,6>[2x2x1] = Pool(%x) {in_h=4 in_w=4 channels=1 out_h=2 out_w=2 kernel_h=2 kernel_w=2 stride_h=2 stride_w=2} @pool
input %x "x": [1x4x4x1] perm=[0,1,2]
output %p "p": [1x2x2x1] perm=[0,1,2]
)";

TEST(ResolveConfig, EncodedOnlyWhereAKindHasIt) {
  // Model-wide, it applies to the kinds that have it: the pool keeps its line buffer.
  const LayerPassOutcome r =
      run_layer_passes("resolve_config", kPool, "Model:\n  ConvImplementation: Encoded\n");
  EXPECT_EQ(r.model.layers[1].conv_impl, ConvImpl::LineBuffer);
  // Asked for by name, it is a mistake.
  const Error e = catch_error([] {
    run_layer_passes("resolve_config", kPool,
                     "LayerName:\n  pool:\n    ConvImplementation: Encoded\n");
  });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_EQ(e.where(), "config.yaml: LayerName.pool.ConvImplementation");
  EXPECT_EQ(e.what_happened(), "Encoded is not an implementation of Pool layer 'pool'");
}

}  // namespace
}  // namespace kiln::hls

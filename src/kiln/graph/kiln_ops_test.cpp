// kiln's own op forms made by the graph passes: Dense, fused activations and
// channels-last flags, in shape inference, layer stats and attribute text.
#include <gtest/gtest.h>

#include "kiln/graph/layer_stats.h"
#include "kiln/graph/shape_inference.h"

namespace kiln {
namespace {

constexpr DType F32 = DType::Float32;

class KilnOpsTest : public ::testing::Test {
 protected:
  ValueId in(Shape s) { return g.add_value("x", TensorType{F32, std::move(s)}); }
  ValueId weight(Shape s) { return g.add_constant("w", Tensor(F32, std::move(s))); }
  const Node& node(OpKind kind, std::vector<ValueId> inputs, Attrs attrs = {}) {
    return g.add_node(kind, "n", std::move(inputs), {g.add_value("y", TensorType{})},
                      std::move(attrs));
  }
  Shape out_shape(const Node& n) { return infer_node_types(g, n)[0].shape; }
  Graph g;
};

TEST_F(KilnOpsTest, DenseShapeAndStats) {
  const Node& n = node(OpKind::Dense, {in({2, 5, 3}), weight({3, 4}), weight({4})}, DenseAttrs{});
  EXPECT_EQ(out_shape(n), (Shape{2, 5, 4}));
  const LayerStats s = layer_stats(g, n);
  EXPECT_EQ(s.params, 12 + 4);
  EXPECT_EQ(s.macs, 2 * 5 * 4 * 3);  // 40 outputs, 3-long dots
}

TEST_F(KilnOpsTest, DenseRejectsMismatchedWeights) {
  const Node& n = node(OpKind::Dense, {in({2, 3}), weight({4, 4}), weight({4})}, DenseAttrs{});
  EXPECT_THROW(infer_node_types(g, n), Error);
  const Node& m = node(OpKind::Dense, {in({2, 3}), weight({3, 4}), weight({3})}, DenseAttrs{});
  EXPECT_THROW(infer_node_types(g, m), Error);
}

TEST_F(KilnOpsTest, ChannelsLastConvPoolBatchNorm) {
  ConvAttrs c{{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1};
  c.channels_last = true;
  // X [1, 9, 7, 3] (H 9, W 7, C 3): out H (9+2-3)/2+1 = 5, W (7+2-3)/2+1 = 4.
  const Node& n = node(OpKind::Conv, {in({1, 9, 7, 3}), weight({8, 3, 3, 3})}, c);
  EXPECT_EQ(out_shape(n), (Shape{1, 5, 4, 8}));
  // MACs do not depend on the layout: 160 outputs x 27.
  EXPECT_EQ(layer_stats(g, n).macs, 160 * 27);
  PoolAttrs p{{2}, {2}, {0, 0}, {1}};
  p.channels_last = true;
  EXPECT_EQ(out_shape(node(OpKind::MaxPool, {in({1, 10, 4})}, p)), (Shape{1, 5, 4}));
  EXPECT_EQ(out_shape(node(OpKind::GlobalAveragePool, {in({1, 6, 6, 5})}, GlobalPoolAttrs{true})),
            (Shape{1, 1, 1, 5}));
  BatchNormAttrs b;
  b.channels_last = true;
  EXPECT_EQ(
      out_shape(node(OpKind::BatchNormalization,
                     {in({1, 6, 6, 5}), weight({5}), weight({5}), weight({5}), weight({5})}, b)),
      (Shape{1, 6, 6, 5}));
  // Per-channel parameters must match the last axis now.
  const Node& bad = node(OpKind::BatchNormalization,
                         {in({1, 5, 6, 6}), weight({5}), weight({5}), weight({5}), weight({5})}, b);
  EXPECT_THROW(infer_node_types(g, bad), Error);
}

TEST(KilnOps, DenseIsNotAnOnnxOp) {
  EXPECT_EQ(op_name(OpKind::Dense), "Dense");
  EXPECT_FALSE(op_kind_from_onnx(OpDomain::Onnx, "Dense").has_value());
  EXPECT_EQ(op_kind_from_name("Dense"), OpKind::Dense);  // the IR text's spelling
  EXPECT_EQ(op_kind_from_onnx(OpDomain::Onnx, "MaxUnpool"), OpKind::MaxUnpool);
  EXPECT_TRUE(onnx_op_types(OpKind::Dense).empty());
}

TEST(KilnOps, DomainsOfKinds) {
  EXPECT_EQ(op_domain(OpKind::Quant), OpDomain::Qonnx);
  EXPECT_EQ(op_domain(OpKind::Trunc), OpDomain::Qonnx);
  EXPECT_EQ(op_domain(OpKind::Relu), OpDomain::Onnx);
  EXPECT_EQ(op_domain(OpKind::Dense), OpDomain::Kiln);
  // Op types are looked up in their own domain only.
  EXPECT_EQ(op_kind_from_onnx(OpDomain::Qonnx, "IntQuant"), OpKind::Quant);
  EXPECT_EQ(op_kind_from_onnx(OpDomain::Qonnx, "BipolarQuant"), OpKind::BipolarQuant);
  EXPECT_FALSE(op_kind_from_onnx(OpDomain::Onnx, "Quant").has_value());
  EXPECT_FALSE(op_kind_from_onnx(OpDomain::Qonnx, "Relu").has_value());
  EXPECT_EQ(op_domain_from_onnx(""), OpDomain::Onnx);
  EXPECT_EQ(op_domain_from_onnx("ai.onnx"), OpDomain::Onnx);
  EXPECT_EQ(op_domain_from_onnx("finn.custom_op.general"), OpDomain::Qonnx);
  EXPECT_FALSE(op_domain_from_onnx("com.microsoft").has_value());
  EXPECT_EQ(onnx_domain_name(OpDomain::Qonnx), "qonnx.custom_op.general");
}

TEST(KilnOps, QuantizerAttributeText) {
  EXPECT_EQ(attrs_to_string(IntQuantAttrs{4, false, true, RoundingMode::HalfDown}),
            "bitwidth=4 signed=false narrow=true rounding=half_down");
  EXPECT_EQ(attrs_to_string(TruncAttrs{1, 8, 4, true, false, RoundingMode::Floor}),
            "version=1 in_bitwidth=8 out_bitwidth=4");
  // Bit widths have no default, so they always show.
  EXPECT_EQ(attrs_to_string(IntQuantAttrs{8, true, false, RoundingMode::Round}), "bitwidth=8");
}

TEST(KilnOps, AttributeTextShowsActivationAndLayout) {
  ConvAttrs c{{1}, {1}, {0, 0}, {1}, 1};
  c.activation = FusedActivation{FusedActivation::Kind::LeakyRelu, 0.5f, 0, 0};
  c.channels_last = true;
  const std::string s = attrs_to_string(c);
  EXPECT_NE(s.find("activation={kind=leaky_relu alpha=0.5}"), std::string::npos) << s;
  EXPECT_NE(s.find("channels_last=true"), std::string::npos) << s;
  EXPECT_EQ(attrs_to_string(DenseAttrs{FusedActivation{FusedActivation::Kind::Relu, 0, 0, 0}}),
            "activation={kind=relu}");
  EXPECT_EQ(attrs_to_string(DenseAttrs{}), "");
  EXPECT_EQ(attrs_to_string(ConvAttrs{{1}, {1}, {0, 0}, {1}, 1}).find("channels_last"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln

#include "kiln/hls/build_model.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "kiln/graph/testing/graph_testing.h"
#include "kiln/hls/derived.h"
#include "kiln/onnx/import.h"
#include "kiln/passes/pipeline.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls {
namespace {

using kiln::testing::catch_error;

FixedType fx(int w, int i) {
  return FixedType{w, i};
}

std::filesystem::path zoo(const std::string& name) {
  return kiln::testing::zoo_model(name);
}

Graph passed_zoo(const std::string& name) {
  Graph g = onnx_import::import_model(zoo(name));
  passes::run_hls_pipeline(g);
  return g;
}

std::vector<std::string> kinds(const Model& m) {
  std::vector<std::string> v;
  for (const Layer& l : m.layers) v.emplace_back(layer_kind_name(l.kind()));
  return v;
}

const Layer& nth(const Model& m, LayerKind k, int i) {
  for (const Layer& l : m.layers)
    if (l.kind() == k && i-- == 0) return l;
  ADD_FAILURE() << "no such layer";
  return m.layers.front();
}

// ---- hand-built graphs ---------------------------------------------------

// x[1,3] -> Dense(W [3,2], b [2], relu) -> y[1,2]
Graph dense_graph(FusedActivation::Kind act = FusedActivation::Kind::Relu) {
  Graph g;
  g.name = "d";
  const ValueId x = g.add_value("x", {DType::Float32, {1, 3}});
  const ValueId w = g.add_constant(
      "w", Tensor::from_vector<float>({3, 2}, {0.5f, -1.0f, 0.25f, 2.0f, -0.75f, 0.125f}));
  const ValueId b = g.add_constant("b", Tensor::from_vector<float>({2}, {0.0625f, -3.0f}));
  const ValueId y = g.add_value("y", {DType::Float32, {1, 2}});
  DenseAttrs a;
  a.activation.kind = act;
  g.add_node(OpKind::Dense, "fc1", {x, w, b}, {y}, a);
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

TEST(BuildModel, DenseLayerWeightsAndDefaults) {
  const Model m = build_model(dense_graph(), Config{}, nullptr);
  ASSERT_EQ(kinds(m), (std::vector<std::string>{"Input", "Dense"}));
  const Layer& d = m.layers[1];
  EXPECT_EQ(d.name, "fc1");
  EXPECT_EQ(d.as<DenseParams>().n_in, 3);
  EXPECT_EQ(d.as<DenseParams>().n_out, 2);
  EXPECT_EQ(d.as<DenseParams>().act.kind, ActKind::Relu);
  EXPECT_EQ(d.precision.weight, fx(16, 6));
  EXPECT_EQ(d.precision.accum, fx(32, 12));
  // ap_fixed<16,6> has 10 fraction bits: raw = value * 1024.
  EXPECT_EQ(d.weights, (std::vector<int64_t>{512, -1024, 256, 2048, -768, 128}));
  EXPECT_EQ(d.bias, (std::vector<int64_t>{64, -3072}));
  EXPECT_EQ(d.reuse_factor, 1);
  EXPECT_EQ(m.tensors[d.output()].shape, (Shape{2}));
  EXPECT_EQ(m.tensors[m.inputs[0]].shape, (Shape{3}));
  EXPECT_EQ(m.input_ports[0].perm, (std::vector<int64_t>{0}));
  EXPECT_EQ(m.outputs, (std::vector<int>{d.output()}));
  EXPECT_EQ(m.tensors[d.output()].type, d.precision.result);
}

TEST(BuildModel, ReuseFactorOnLayerWithoutMultipliers) {
  Config c = parse_config("LayerType:\n  Input:\n    ReuseFactor: 2\n", "config.yaml");
  const Error e = catch_error([&] { build_model(dense_graph(), c, nullptr); });
  EXPECT_EQ(e.where(), "config.yaml: LayerType.Input.ReuseFactor");
  EXPECT_EQ(e.hint(), "valid reuse factors for this layer: 1");
}

TEST(BuildModel, UnknownLayerNameSuggestsClosest) {
  Config c = parse_config("LayerName:\n  fc2:\n    ReuseFactor: 2\n", "config.yaml");
  const Error e = catch_error([&] { build_model(dense_graph(), c, nullptr); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_EQ(e.where(), "config.yaml: LayerName.fc2 (line 2)");
  EXPECT_CONTAINS(e.what_happened(), "no layer named 'fc2'");
  EXPECT_EQ(e.hint(), "did you mean 'fc1'?");
}

TEST(BuildModel, AutoWeightFromConstantsAutoResultNeedsProfile) {
  Config c;
  apply_set(c, "Model.Precision.weight=auto");
  const Model m = build_model(dense_graph(), c, nullptr);
  // max |w| = 2: ceil(log2 2) + 1 + 1 = 3 integer bits, width 16 kept.
  EXPECT_EQ(m.layers[1].precision.weight, fx(16, 3));
  EXPECT_EQ(m.layers[1].weights[3], 2 * 8192);

  apply_set(c, "LayerName.fc1.Precision.result=auto");
  const Error e = catch_error([&] { build_model(dense_graph(), c, nullptr); });
  EXPECT_CONTAINS(e.what_happened(), "'auto' needs profile data");
}

TEST(BuildModel, AutoResultAndAccumFromProfile) {
  const Graph g = dense_graph();
  // x = (1, 2, 3): pre-activation (0.5+0.5-2.25+0.0625, -1+4+0.375-3) = (-1.1875, 0.375);
  // after relu (0, 0.375).
  const Profile p = profile_graph(g, {{Tensor::from_vector<float>({1, 3}, {1, 2, 3})}});
  Config c;
  apply_set(c, "Model.Precision.result=auto");
  apply_set(c, "Model.Precision.accum=auto");
  const Model m = build_model(g, c, &p);
  // result max 0.375: ceil(log2 .375) = -1 -> I = 1; accum max 1.1875: 1 -> I = 3.
  EXPECT_EQ(m.layers[1].precision.result, fx(16, 1));
  EXPECT_EQ(m.layers[1].precision.accum, fx(32, 3));
  // Input x max 3: ceil(log2 3) = 2 -> I = 4.
  EXPECT_EQ(m.layers[0].precision.result, fx(16, 4));
}

TEST(BuildModel, TargetCyclesPicksLargestValidReuse) {
  Config c;
  apply_set(c, "Model.TargetCycles=4");
  const Model m = build_model(dense_graph(), c, nullptr);
  // io_parallel Dense: II = RF <= 4; valid {1, 2, 3, 6} -> 3.
  EXPECT_EQ(m.layers[1].reuse_factor, 3);
  EXPECT_EQ(m.layers[1].target_cycles, 4);
  // A more specific ReuseFactor wins over a Model-level TargetCycles.
  apply_set(c, "LayerName.fc1.ReuseFactor=6");
  EXPECT_EQ(build_model(dense_graph(), c, nullptr).layers[1].reuse_factor, 6);
}

// x[1,2,3,3] NCHW -> Transpose(0,2,3,1) -> Conv(channels-last, 2->3, 2x2, pad 1 top/left)
// -> Transpose(0,3,1,2) -> y
Graph conv_graph() {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 2, 3, 3}});
  const ValueId xt = g.add_value("xt", {DType::Float32, {1, 3, 3, 2}});
  std::vector<float> w(3 * 2 * 2 * 2);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i) / 16.0f;
  const ValueId wv = g.add_constant("w", Tensor::from_vector<float>({3, 2, 2, 2}, w));
  const ValueId yt = g.add_value("yt", {DType::Float32, {1, 3, 3, 3}});
  const ValueId y = g.add_value("y", {DType::Float32, {1, 3, 3, 3}});
  g.add_node(OpKind::Transpose, "to_last", {x}, {xt}, TransposeAttrs{{0, 2, 3, 1}});
  ConvAttrs a;
  a.kernel_shape = {2, 2};
  a.strides = {1, 1};
  a.pads = {1, 1, 0, 0};
  a.dilations = {1, 1};
  a.channels_last = true;
  a.activation.kind = FusedActivation::Kind::LeakyRelu;
  a.activation.alpha = 0.25f;
  g.add_node(OpKind::Conv, "conv1", {xt, wv, kNoValue}, {yt}, a);
  g.add_node(OpKind::Transpose, "to_first", {yt}, {y}, TransposeAttrs{{0, 3, 1, 2}});
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

TEST(BuildModel, ConvWeightsRelaidAndTransposesAbsorbed) {
  const Model m = build_model(conv_graph(), Config{}, nullptr);
  ASSERT_EQ(kinds(m), (std::vector<std::string>{"Input", "Conv"}));
  EXPECT_EQ(m.tensors[m.inputs[0]].shape, (Shape{3, 3, 2}));
  EXPECT_EQ(m.input_ports[0].perm, (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(m.input_ports[0].onnx_shape, (Shape{1, 2, 3, 3}));
  const Layer& c = m.layers[1];
  const auto& p = c.as<ConvParams>();
  EXPECT_EQ(p.kernel_h, 2);
  EXPECT_EQ(p.pad_top, 1);
  EXPECT_EQ(p.pad_left, 1);
  EXPECT_EQ(p.pad_bottom, 0);
  EXPECT_EQ(p.c_in, 2);
  EXPECT_EQ(p.c_out, 3);
  EXPECT_EQ(p.act.kind, ActKind::LeakyRelu);
  EXPECT_EQ(p.act.alpha, 0.25);
  // ONNX index ((o*2 + i)*2 + r)*2 + c holds (that index)/16, i.e. raw = index * 64.
  // Kiln index ((r*2 + c)*2 + i)*3 + o.
  auto kiln_at = [&](int r, int col, int i, int o) {
    return c.weights[((r * 2 + col) * 2 + i) * 3 + o];
  };
  EXPECT_EQ(kiln_at(0, 0, 0, 0), 0);
  EXPECT_EQ(kiln_at(0, 1, 0, 0), 1 * 64);
  EXPECT_EQ(kiln_at(1, 0, 0, 0), 2 * 64);
  EXPECT_EQ(kiln_at(0, 0, 1, 0), 4 * 64);
  EXPECT_EQ(kiln_at(0, 0, 0, 1), 8 * 64);
  EXPECT_EQ(kiln_at(1, 1, 1, 2), 23 * 64);
  EXPECT_EQ(c.bias, (std::vector<int64_t>{0, 0, 0}));
  // The output port undoes the layout: tensor [H,W,C] = onnx_bf[1], [2], [0].
  EXPECT_EQ(m.outputs[0], c.output());
  EXPECT_EQ(m.output_ports[0].perm, (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(m.output_ports[0].onnx_shape, (Shape{1, 3, 3, 3}));
  // 2x2x2 inputs x 3 outputs = 24 products per pixel.
  EXPECT_EQ(valid_reuse_factors(c), (std::vector<int64_t>{1, 2, 3, 4, 6, 8, 12, 24}));
}

TEST(BuildModel, UnsupportedOpNamesNodeAndDocs) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 4}});
  const ValueId y = g.add_value("y", {DType::Float32, {1, 4}});
  g.add_node(OpKind::Floor, "floor_0", {x}, {y});
  g.inputs = {x};
  g.outputs = {y};
  const Error e = catch_error([&] { build_model(g, Config{}, nullptr); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(e.where(), "Floor 'floor_0'");
  EXPECT_CONTAINS(e.what_happened(), "op Floor has no HLS layer");
  EXPECT_CONTAINS(e.hint(), "docs/hls-layers.md");
  EXPECT_CONTAINS(e.hint(), "`kiln run` and `kiln test-onnx` run this model");
}

TEST(BuildModel, RefusalsNameTheNearestAlternative) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 4}});
  const ValueId y = g.add_value("y", {DType::Float32, {1, 4}});
  g.add_node(OpKind::Hardmax, "hm", {x}, {y}, SoftmaxAttrs{});
  g.inputs = {x};
  g.outputs = {y};
  const Error e = catch_error([&] { build_model(g, Config{}, nullptr); });
  EXPECT_CONTAINS(e.hint(), "for hardware, end the model at the logits and take the arg max");
}

// A QONNX Quant of the input becomes the Input's format: scale 2^-1, 4 bits
// signed, ties to even, saturating.
TEST(BuildModel, QonnxQuantOfTheInputIsItsFormat) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 4}});
  const ValueId s = g.add_constant("s", Tensor::scalar(0.5f));
  const ValueId z = g.add_constant("z", Tensor::scalar(0.0f));
  const ValueId y = g.add_value("y", {DType::Float32, {1, 4}});
  g.add_node(OpKind::Quant, "q", {x, s, z}, {y}, IntQuantAttrs{.bitwidth = 4});
  g.inputs = {x};
  g.outputs = {y};
  const Model m = build_model(g, Config{}, nullptr);
  ASSERT_EQ(m.layers.size(), 1u);
  EXPECT_EQ(m.tensors.at(0).type,
            (FixedType{4, 3, true, numeric::QuantMode::RndConv, numeric::OverflowMode::Sat}));
}

// A one-node graph x -> op(x, scale[, zero point[, out_scale if > 0]]) -> y.
Graph qonnx_graph(OpKind kind, Attrs attrs, float scale, float out_scale) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 4}});
  const ValueId y = g.add_value("y", {DType::Float32, {1, 4}});
  std::vector<ValueId> inputs = {x, g.add_constant("s", Tensor::scalar(scale))};
  if (kind == OpKind::Trunc) {
    inputs.push_back(g.add_constant("z", Tensor::scalar(0.0f)));
    if (out_scale > 0) inputs.push_back(g.add_constant("os", Tensor::scalar(out_scale)));
  }
  g.add_node(kind, "q", inputs, {y}, attrs);
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

TEST(BuildModel, QonnxBipolarQuantAndTruncAreQuantizeLayers) {
  // BipolarQuant of scale 0.5: raw -1 and +1 of ap_fixed<2,1>.
  const Model b =
      build_model(qonnx_graph(OpKind::BipolarQuant, NoAttrs{}, 0.5f, 0), Config{}, nullptr);
  ASSERT_EQ(b.layers.size(), 2u);
  const auto& bp = b.layers[1].as<QuantizeParams>();
  EXPECT_TRUE(bp.bipolar);
  EXPECT_EQ(bp.format, (FixedType{2, 1, true}));
  // Trunc (opset 2) of scale 0.5 to out_scale 2, 8 -> 4 bits: round to the
  // 2^-1 grid (ties to even, wide; absorbed: the Input rounds into it), then
  // floor to the 2^1 grid, saturating to 4 signed bits (-16 .. 14), which
  // stays a layer (two roundings are not one).
  const TruncAttrs trunc{.in_bitwidth = 8, .out_bitwidth = 4};
  const Model t = build_model(qonnx_graph(OpKind::Trunc, trunc, 0.5f, 2.0f), Config{}, nullptr);
  ASSERT_EQ(t.layers.size(), 2u);
  const FixedType& grid = t.layers[0].precision.result;
  EXPECT_EQ(grid.frac(), 1);
  EXPECT_EQ(grid.quant, numeric::QuantMode::RndConv);
  const auto& out = t.layers[1].as<QuantizeParams>();
  EXPECT_EQ(out.format.frac(), -1);
  EXPECT_EQ(out.format.quant, numeric::QuantMode::Trn);
  EXPECT_EQ(out.min_raw, -8);
  EXPECT_EQ(out.max_raw, 7);
}

TEST(BuildModel, QonnxQuantizersWithoutAnExactFormatAreRefused) {
  const Error bipolar = catch_error([] {
    build_model(qonnx_graph(OpKind::BipolarQuant, NoAttrs{}, 0.3f, 0), Config{}, nullptr);
  });
  EXPECT_EQ(bipolar.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(bipolar.what_happened(), "which is not a power of two");
  TruncAttrs v1{.in_bitwidth = 8, .out_bitwidth = 4};
  v1.version = 1;
  const Error trunc =
      catch_error([&] { build_model(qonnx_graph(OpKind::Trunc, v1, 0.5f, 0), Config{}, nullptr); });
  EXPECT_EQ(trunc.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(trunc.what_happened(), "a QONNX opset 1 Trunc");
  EXPECT_CONTAINS(trunc.hint(), "export with QONNX opset 2");
}

TEST(BuildModel, BinaryWithAConstantIsAScaleAndBias) {
  // x - k, k one value per channel: y = x * 1 + (-k), a BatchNorm layer.
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 4}});
  const ValueId k = g.add_constant("k", Tensor::from_vector<float>({1, 4}, {1, 2, 3, 4}));
  const ValueId y = g.add_value("y", {DType::Float32, {1, 4}});
  g.add_node(OpKind::Sub, "sub_0", {x, k}, {y});
  g.inputs = {x};
  g.outputs = {y};
  const Model m = build_model(g, Config{}, nullptr);
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(m.layers[1].kind(), LayerKind::BatchNorm);
  // Quantized to the default weight and bias types, ap_fixed<16,6>: exact here.
  EXPECT_EQ(m.layers[1].bias, (std::vector<int64_t>{-1024, -2048, -3072, -4096}));
  EXPECT_EQ(m.layers[1].weights, (std::vector<int64_t>{1024, 1024, 1024, 1024}));

  // A constant that varies along another axis is refused.
  Graph c;
  const ValueId cx = c.add_value("x", {DType::Float32, {1, 2, 2}});
  const ValueId ck = c.add_constant("k", Tensor::from_vector<float>({2, 1}, {1, 2}));
  const ValueId cy = c.add_value("y", {DType::Float32, {1, 2, 2}});
  c.add_node(OpKind::Mul, "mul_0", {cx, ck}, {cy});
  c.inputs = {cx};
  c.outputs = {cy};
  const Error e = catch_error([&] { build_model(c, Config{}, nullptr); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.what_happened(), "a constant must be one value or one per channel");
}

// x op gate on a channels-last [1, H, W, C] map, the gate first or second.
Model gated(OpKind op, const Shape& gate, bool gate_first) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 3, 4, 2}});
  const ValueId q = g.add_value("q", {DType::Float32, gate});
  const ValueId y = g.add_value("y", {DType::Float32, {1, 3, 4, 2}});
  g.add_node(op, "op_0", gate_first ? std::vector<ValueId>{q, x} : std::vector<ValueId>{x, q}, {y});
  g.inputs = {x, q};
  g.outputs = {y};
  return build_model(g, Config{}, nullptr);
}

TEST(BuildModel, BinaryBroadcastsAGatePerChannelOrPerPixel) {
  const Model se = gated(OpKind::Mul, {1, 1, 1, 2}, false);
  const auto& p = se.layers.back().as<BinaryParams>();
  EXPECT_EQ(p.op, BinaryOp::Mul);
  EXPECT_EQ(p.broadcast, BinaryBroadcast::PerChannel);
  EXPECT_EQ(p.n, 24);
  EXPECT_EQ(p.channels, 2);
  // The full-shaped operand is always the layer's first.
  const Model first = gated(OpKind::Mul, {1, 1, 1, 2}, true);
  EXPECT_EQ(first.tensors[static_cast<std::size_t>(first.layers.back().inputs[0])].name, "x");
  EXPECT_EQ(first.layers.back().as<BinaryParams>().op, BinaryOp::Mul);
  // gate - x keeps its order: ReverseSub; x - gate stays Sub.
  EXPECT_EQ(gated(OpKind::Sub, {1, 3, 4, 1}, true).layers.back().as<BinaryParams>().op,
            BinaryOp::ReverseSub);
  const Model sa = gated(OpKind::Sub, {1, 3, 4, 1}, false);
  EXPECT_EQ(sa.layers.back().as<BinaryParams>().op, BinaryOp::Sub);
  EXPECT_EQ(sa.layers.back().as<BinaryParams>().broadcast, BinaryBroadcast::PerPixel);
}

TEST(BuildModel, OtherBroadcastsAreUnsupported) {
  for (const Shape& gate : {Shape{1, 3, 1, 2}, Shape{1, 1, 4, 1}, Shape{3, 4, 2}}) {
    const Error e = catch_error([&] { gated(OpKind::Mul, gate, false); });
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_CONTAINS(e.what_happened(), "Mul with broadcasting ([1x3x4x2] and ");
    EXPECT_CONTAINS(e.what_happened(), "one value per channel or one value per pixel");
  }
  // Both operands broadcast: neither has the output's shape.
  Graph b;
  const ValueId p = b.add_value("p", {DType::Float32, {1, 3, 1, 2}});
  const ValueId q = b.add_value("q", {DType::Float32, {1, 1, 4, 2}});
  const ValueId r = b.add_value("r", {DType::Float32, {1, 3, 4, 2}});
  b.add_node(OpKind::Add, "add_0", {p, q}, {r});
  b.inputs = {p, q};
  b.outputs = {r};
  const Error eb = catch_error([&] { build_model(b, Config{}, nullptr); });
  EXPECT_CONTAINS(eb.what_happened(), "Add with broadcasting ([1x3x1x2] and [1x1x4x2]");
}

TEST(BuildModel, SoftmaxOverInnerAxisIsUnsupported) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 3, 4}});
  const ValueId y = g.add_value("y", {DType::Float32, {1, 3, 4}});
  g.add_node(OpKind::Softmax, "sm", {x}, {y}, SoftmaxAttrs{1, false});
  g.inputs = {x};
  g.outputs = {y};
  const Error e = catch_error([&] { build_model(g, Config{}, nullptr); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(e.where(), "Softmax 'sm'");
  EXPECT_CONTAINS(e.what_happened(), "Softmax over axis 1 of a tensor of shape [1x3x4]");
  // Over the last axis it is 3 rows of 4.
  kiln::testing::node_at(g, 0).attrs = SoftmaxAttrs{2, false};
  const Model m = build_model(g, Config{}, nullptr);
  EXPECT_EQ(m.layers[1].as<SoftmaxParams>().rows, 3);
  EXPECT_EQ(m.layers[1].as<SoftmaxParams>().length, 4);
}

// LogSoftmax is a Softmax layer with log=true, refused where Softmax is with
// its own name in the one-line message.
TEST(BuildModel, LogSoftmaxIsASoftmaxLayerWithLog) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 3, 4}});
  const ValueId y = g.add_value("y", {DType::Float32, {1, 3, 4}});
  g.add_node(OpKind::LogSoftmax, "lsm", {x}, {y}, SoftmaxAttrs{2, false});
  g.inputs = {x};
  g.outputs = {y};
  const Model m = build_model(g, Config{}, nullptr);
  ASSERT_EQ(m.layers[1].kind(), LayerKind::Softmax);
  const auto& p = m.layers[1].as<SoftmaxParams>();
  EXPECT_EQ(p.rows, 3);
  EXPECT_EQ(p.length, 4);
  EXPECT_TRUE(p.log);
  EXPECT_EQ(m.layers[1].precision.log_table, (FixedType{18, 8}));

  // Over an inner axis without the softmax_last_axis pass.
  kiln::testing::node_at(g, 0).attrs = SoftmaxAttrs{1, false};
  Error e = catch_error([&] { build_model(g, Config{}, nullptr); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(e.where(), "LogSoftmax 'lsm'");
  EXPECT_CONTAINS(e.what_happened(),
                  "LogSoftmax over axis 1 of a tensor of shape [1x3x4] (only over the last axis)");
  EXPECT_EQ(e.message().find('\n'), std::string::npos) << e.message();

  // Opset < 13 over axis 0: the rows would span the batch, which the pass
  // leaves alone (coerce_2d) and the layer cannot do.
  kiln::testing::node_at(g, 0).attrs = SoftmaxAttrs{0, true};
  passes::run_hls_pipeline(g);
  e = catch_error([&] { build_model(g, Config{}, nullptr); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.what_happened(), "LogSoftmax over axis 0 of a tensor of shape [1x3x4]");
  EXPECT_EQ(e.message().find('\n'), std::string::npos) << e.message();
}

// The softmax_last_axis pass moves a LogSoftmax over an inner axis to the
// last axis, as it does a Softmax.
TEST(BuildModel, LogSoftmaxOverAnInnerAxisGoesThroughTheLastAxis) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 3, 4}});
  const ValueId y = g.add_value("y", {DType::Float32, {1, 3, 4}});
  g.add_node(OpKind::LogSoftmax, "lsm", {x}, {y}, SoftmaxAttrs{1, false});
  g.inputs = {x};
  g.outputs = {y};
  passes::run_hls_pipeline(g);
  const Model m = build_model(g, Config{}, nullptr);
  int softmax = 0;
  for (const Layer& l : m.layers) {
    if (l.kind() != LayerKind::Softmax) continue;
    ++softmax;
    EXPECT_TRUE(l.as<SoftmaxParams>().log);
    EXPECT_EQ(l.as<SoftmaxParams>().length, 3);
  }
  EXPECT_EQ(softmax, 1);
}

TEST(BuildModel, BatchOtherThanOneIsUnsupported) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 2, 3, 3}});
  const ValueId y = g.add_value("y", {DType::Float32, {2, 1, 3, 3}});
  g.add_node(OpKind::Reshape, "rs", {x}, {y}, ReshapeAttrs{{2, 1, 3, 3}});
  g.inputs = {x};
  g.outputs = {y};
  const Error e = catch_error([&] { build_model(g, Config{}, nullptr); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_CONTAINS(e.what_happened(), "batch 1");
}

TEST(BuildModel, BatchNormScaleAndBias) {
  Graph g;
  const ValueId x = g.add_value("x", {DType::Float32, {1, 2}});
  const ValueId gamma = g.add_constant("g", Tensor::from_vector<float>({2}, {2.0f, 1.0f}));
  const ValueId beta = g.add_constant("b", Tensor::from_vector<float>({2}, {0.5f, -1.0f}));
  const ValueId mean = g.add_constant("m", Tensor::from_vector<float>({2}, {1.0f, 2.0f}));
  const ValueId var = g.add_constant("v", Tensor::from_vector<float>({2}, {4.0f, 0.25f}));
  const ValueId y = g.add_value("y", {DType::Float32, {1, 2}});
  BatchNormAttrs a;
  a.epsilon = 0.0f;
  g.add_node(OpKind::BatchNormalization, "bn", {x, gamma, beta, mean, var}, {y}, a);
  g.inputs = {x};
  g.outputs = {y};
  const Model m = build_model(g, Config{}, nullptr);
  // scale = (2/2, 1/0.5) = (1, 2); bias = (0.5 - 1*1, -1 - 2*2) = (-0.5, -5).
  EXPECT_EQ(m.layers[1].weights, (std::vector<int64_t>{1024, 2048}));
  EXPECT_EQ(m.layers[1].bias, (std::vector<int64_t>{-512, -5120}));
}

// ---- zoo models after the pass pipeline -------------------------------------

TEST(BuildModelZoo, Model8Layers) {
  const Model m = build_model(passed_zoo("model8"), Config{}, nullptr);
  EXPECT_EQ(kinds(m), (std::vector<std::string>{"Input", "Conv", "Pool", "Conv", "Conv", "Pool",
                                                "Reshape", "Dense"}));
  const auto& c1 = nth(m, LayerKind::Conv, 0).as<ConvParams>();
  EXPECT_EQ(c1.kernel_h, 5);
  EXPECT_EQ(c1.kernel_w, 5);
  EXPECT_EQ(c1.pad_top, 2);
  EXPECT_EQ(c1.pad_right, 2);
  EXPECT_EQ(c1.c_in, 3);
  EXPECT_EQ(c1.c_out, 8);
  EXPECT_EQ(c1.out_h, 16);
  EXPECT_EQ(c1.act.kind, ActKind::LeakyRelu);
  EXPECT_NEAR(c1.act.alpha, 0.3, 1e-6);
  EXPECT_EQ(m.tensors[m.inputs[0]].shape, (Shape{16, 16, 3}));
  EXPECT_EQ(m.input_ports[0].perm, (std::vector<int64_t>{1, 2, 0}));
  const auto& pool = nth(m, LayerKind::Pool, 0).as<PoolParams>();
  EXPECT_EQ(pool.kind, PoolKind::Max);
  EXPECT_EQ(pool.out_h, 8);
  EXPECT_EQ(pool.channels, 8);
  const auto& dense = nth(m, LayerKind::Dense, 0).as<DenseParams>();
  EXPECT_EQ(dense.n_in, 256);
  EXPECT_EQ(dense.n_out, 8);
  EXPECT_EQ(m.tensors[m.outputs[0]].shape, (Shape{8}));
}

TEST(BuildModelZoo, Model8TargetCycles) {
  Config c;
  apply_set(c, "Model.TargetCycles=10000");
  const Model m = build_model(passed_zoo("model8"), c, nullptr);
  // conv1: (10000-10)/256 px = 39, divisors of 5*5*3*8 = 600 -> 30;
  // conv2: /64 px = 156, divisors of 3*3*8*16 = 1152 -> 144;
  // conv3: 156, divisors of 3*3*16*16 = 2304 -> 144; dense: 9990, 256*8 = 2048 -> 2048.
  EXPECT_EQ(nth(m, LayerKind::Conv, 0).reuse_factor, 30);
  EXPECT_EQ(nth(m, LayerKind::Conv, 1).reuse_factor, 144);
  EXPECT_EQ(nth(m, LayerKind::Conv, 2).reuse_factor, 144);
  EXPECT_EQ(nth(m, LayerKind::Dense, 0).reuse_factor, 2048);
  EXPECT_EQ(nth(m, LayerKind::Dense, 0).target_cycles, 10000);
  EXPECT_EQ(nth(m, LayerKind::Pool, 0).reuse_factor, 1);
}

TEST(BuildModelZoo, DefaultConfigRoundTrips) {
  const Graph g = passed_zoo("model8");
  const Model base = build_model(g, Config{}, nullptr);
  for (Granularity gr : {Granularity::Model, Granularity::Type, Granularity::Name}) {
    const std::string text = default_config_yaml(base, gr);
    const Model back = build_model(g, parse_config(text, "default.yaml"), nullptr);
    ASSERT_EQ(back.layers.size(), base.layers.size());
    for (std::size_t i = 0; i < base.layers.size(); ++i) {
      const Layer& a = base.layers[i];
      const Layer& b = back.layers[i];
      EXPECT_EQ(a.precision.weight, b.precision.weight) << a.name;
      EXPECT_EQ(a.precision.bias, b.precision.bias) << a.name;
      EXPECT_EQ(a.precision.result, b.precision.result) << a.name;
      EXPECT_EQ(a.precision.accum, b.precision.accum) << a.name;
      EXPECT_EQ(a.precision.table, b.precision.table) << a.name;
      EXPECT_EQ(a.precision.inv_table, b.precision.inv_table) << a.name;
      EXPECT_EQ(a.reuse_factor, b.reuse_factor) << a.name;
      EXPECT_EQ(a.strategy, b.strategy) << a.name;
      EXPECT_EQ(a.conv_impl, b.conv_impl) << a.name;
      EXPECT_EQ(a.tables.table_size, b.tables.table_size) << a.name;
      EXPECT_EQ(a.weights, b.weights) << a.name;
    }
    EXPECT_EQ(back.part, base.part);
    EXPECT_EQ(back.io_type, base.io_type);
    EXPECT_EQ(back.clock_period_ns, base.clock_period_ns);
  }
  const std::string by_name = default_config_yaml(base, Granularity::Name);
  EXPECT_CONTAINS(by_name, "LayerName:\n");
  EXPECT_CONTAINS(by_name, "Part: xcvu9p-flga2104-2L-e\n");
  EXPECT_CONTAINS(by_name, "    weight: ap_fixed<16,6>\n");
  EXPECT_CONTAINS(by_name, "    accum: ap_fixed<32,12>\n");
  EXPECT_CONTAINS(by_name, "    inv_table: ap_ufixed<18,8>\n");
  EXPECT_CONTAINS(default_config_yaml(base, Granularity::Type), "LayerType:\n  Input:\n");
}

TEST(BuildModelZoo, ProfileModel8) {
  const Graph g = passed_zoo("model8");
  std::vector<std::vector<Tensor>> samples(2);
  for (int s = 0; s < 2; ++s) {
    std::vector<float> v(3 * 16 * 16);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>((i * (s + 3)) % 17) / 8.0f - 1.0f;
    samples[s].push_back(Tensor::from_vector<float>({1, 3, 16, 16}, v));
  }
  const Profile p = profile_graph(g, samples);
  EXPECT_EQ(p.samples, 2);
  const Model m = build_model(g, Config{}, &p);
  for (const Layer& l : m.layers) {
    const LayerProfile* lp = p.find(l.name);
    ASSERT_NE(lp, nullptr) << l.name;
    EXPECT_FALSE(lp->result.empty()) << l.name;
  }
  // Inputs are (k mod 17)/8 - 1: between -1 and 1.
  EXPECT_EQ(p.layers[0].result.min, -1.0);
  EXPECT_EQ(p.layers[0].result.max, 1.0);
  // The fused LeakyRelu shrinks negatives: the accumulator range covers the result range.
  const LayerProfile* c1 = p.find(nth(m, LayerKind::Conv, 0).name);
  EXPECT_LE(c1->accum.min, c1->result.min);
  EXPECT_LT(c1->accum.min, 0.0);
  EXPECT_EQ(c1->accum.max, c1->result.max);
  EXPECT_FALSE(c1->weight.empty());
}

TEST(BuildModelZoo, EveryZooModelLowersOrSaysWhy) {
  // Every small zoo model either lowers or fails with Unsupported naming a node.
  const char* names[] = {"addmm",     "batch_norm_2d", "braggnn1", "conv2d_a", "conv2d_b",
                         "conv_2d",   "dense_a",       "dense_b",  "lenet5",   "max_pool_2d",
                         "maxpool_a", "mlp",           "model32",  "model4",   "soft_max",
                         "softmax_a", "superwide",     "thxprlsg", "vecmul_a"};
  for (const char* name : names) {
    SCOPED_TRACE(name);
    try {
      const Model m = build_model(passed_zoo(name), Config{}, nullptr);
      EXPECT_GE(m.layers.size(), 2u);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.message();
      std::cout << name << ": " << e.message() << "\n";
    }
  }
}

}  // namespace
}  // namespace kiln::hls

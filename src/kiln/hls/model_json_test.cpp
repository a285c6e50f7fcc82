#include "kiln/hls/model_json.h"

#include <gtest/gtest.h>

#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls {
namespace {

using kiln::testing::catch_error;
using kiln::testing::TempDir;

// A model touching every field kind: enums, nested activation, vectors,
// precisions with non-default modes, ports.
Model sample_model() {
  Model m;
  m.name = "net";
  m.part = "xc7z020clg400-1";
  m.clock_period_ns = 3.3;
  m.io_type = IOType::Stream;
  m.backend = Backend::Bambu;
  FixedType t;
  t.width = 18;
  t.integer = -2;
  t.is_signed = false;
  t.quant = numeric::QuantMode::RndConv;
  t.overflow = numeric::OverflowMode::SatSym;
  m.tensors = {{"x", {8, 8, 3}, FixedType{}}, {"y", {6, 6, 4}, t}, {"z", {144}, t}};
  Layer in;
  in.name = "x_in";
  in.params = InputParams{};
  in.outputs = {0};
  Layer conv;
  conv.name = "conv1";
  conv.onnx_name = "/conv/Conv";
  ConvParams cp;
  cp.in_h = 8, cp.in_w = 8, cp.c_in = 3, cp.out_h = 6, cp.out_w = 6, cp.c_out = 4;
  cp.kernel_h = 3, cp.kernel_w = 3, cp.pad_right = 1, cp.groups = 1;
  cp.act = {ActKind::LeakyRelu, 0.125, -7.5};
  conv.params = cp;
  conv.inputs = {0};
  conv.outputs = {1};
  conv.precision.accum = t;
  conv.reuse_factor = 9;
  conv.strategy = Strategy::Resource;
  conv.conv_impl = ConvImpl::Encoded;
  conv.tables.table_size = 256;
  conv.tables.inv_table_range = 2;
  conv.weights = {1, -2, INT64_MAX, INT64_MIN};
  conv.bias = {5, -6, 7, -8};
  Layer tr;
  tr.name = "flat";
  tr.params = TransposeParams{{2, 0, 1}};
  tr.inputs = {1};
  tr.outputs = {2};
  m.layers = {in, conv, tr};
  m.inputs = {0};
  m.outputs = {2};
  m.input_ports = {{"input", {1, 3, 8, 8}, {2, 3, 1}}};
  m.output_ports = {{"out", {1, 144}, {1}}};
  return m;
}

TEST(ModelJson, RoundTripKeepsEveryField) {
  TempDir tmp;
  save_model_json(tmp / "m.json", sample_model(), {{"onnx", "a.onnx"}});
  const ModelFile f = load_model_json(tmp / "m.json");
  const Model& m = f.model;
  EXPECT_EQ(f.source["onnx"], "a.onnx");
  EXPECT_EQ(m.name, "net");
  EXPECT_EQ(m.part, "xc7z020clg400-1");
  EXPECT_EQ(m.clock_period_ns, 3.3);
  EXPECT_EQ(m.io_type, IOType::Stream);
  EXPECT_EQ(m.backend, Backend::Bambu);
  ASSERT_EQ(m.tensors.size(), 3u);
  EXPECT_EQ(m.tensors[1].shape, (std::vector<int64_t>{6, 6, 4}));
  EXPECT_EQ(m.tensors[1].type, sample_model().tensors[1].type);
  EXPECT_EQ(m.tensors[1].type.integer, -2);
  EXPECT_FALSE(m.tensors[1].type.is_signed);
  EXPECT_EQ(m.tensors[1].type.quant, numeric::QuantMode::RndConv);
  ASSERT_EQ(m.layers.size(), 3u);
  const Layer& c = m.layers[1];
  EXPECT_EQ(c.kind(), LayerKind::Conv);
  EXPECT_EQ(c.onnx_name, "/conv/Conv");
  const ConvParams& cp = c.as<ConvParams>();
  EXPECT_EQ(cp.pad_right, 1);
  EXPECT_EQ(cp.kernel_h, 3);
  EXPECT_EQ(cp.c_out, 4);
  EXPECT_EQ(cp.act.kind, ActKind::LeakyRelu);
  EXPECT_EQ(cp.act.alpha, 0.125);
  EXPECT_EQ(cp.act.beta, -7.5);
  EXPECT_EQ(c.precision.accum.overflow, numeric::OverflowMode::SatSym);
  EXPECT_EQ(c.reuse_factor, 9);
  EXPECT_EQ(c.strategy, Strategy::Resource);
  EXPECT_EQ(c.conv_impl, ConvImpl::Encoded);
  EXPECT_EQ(c.tables.table_size, 256);
  EXPECT_EQ(c.tables.inv_table_range, 2.0);
  EXPECT_EQ(c.weights, (std::vector<int64_t>{1, -2, INT64_MAX, INT64_MIN}));
  EXPECT_EQ(c.bias, (std::vector<int64_t>{5, -6, 7, -8}));
  EXPECT_EQ(m.layers[2].as<TransposeParams>().perm, (std::vector<int64_t>{2, 0, 1}));
  EXPECT_TRUE(std::holds_alternative<InputParams>(m.layers[0].params));
  EXPECT_EQ(m.outputs, (std::vector<int>{2}));
  ASSERT_EQ(m.input_ports.size(), 1u);
  EXPECT_EQ(m.input_ports[0].onnx_shape, (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(m.input_ports[0].perm, (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(m.output_ports[0].onnx_name, "out");
}

TEST(ModelJson, EveryParamsTypeRoundTrips) {
  Model m = sample_model();
  const std::vector<LayerParams> all = {
      InputParams{},
      DenseParams{3, 4, {ActKind::Clip, -1, 1}},
      ConvParams{},
      PoolParams{PoolKind::Average, 1, 1, 9, 2, 1, 4},
      ZeroPadParams{},
      BatchNormParams{12, 3},
      ActivationParams{8, 2, {ActKind::Selu, 1.5, 2.5}},
      SoftmaxParams{2, 5},
      BinaryParams{BinaryOp::Mul, 6, 3},
      ConcatParams{1},
      TransposeParams{{1, 0}},
      SliceParams{{0, 1}, {1, 2}},
      ResizeParams{ResizeKind::Linear, 1, 1, 2, 3, 1, 4, {0, 0}, {0, 0, 0, 1, 0, 1, 1, 1}},
      QuantizeParams{FixedType{9, 5}, -3, 252, 0.0625, true},
      MatMulParams{2, 3, 4, 5},
      RecurrentParams{CellKind::Lstm, 5, 3, 2, false},
      ReshapeParams{},
      CloneParams{}};
  ASSERT_EQ(all.size(), std::variant_size_v<LayerParams>);
  for (const LayerParams& p : all) {
    m.layers[1].params = p;
    const Model back = model_from_json(model_to_json(m));
    EXPECT_EQ(back.layers[1].params.index(), p.index());
    EXPECT_EQ(model_to_json(back), model_to_json(m));
  }
  m.layers[1].params = PoolParams{PoolKind::Average, 1, 1, 9, 2, 1, 4};
  const auto& pool = model_from_json(model_to_json(m)).layers[1].as<PoolParams>();
  EXPECT_EQ(pool.kind, PoolKind::Average);
  EXPECT_EQ(pool.in_w, 9);
  EXPECT_EQ(pool.out_w, 4);
}

TEST(ModelJson, MalformedFilesAreErrors) {
  TempDir tmp;
  EXPECT_EQ(catch_error([&] { load_model_json(tmp / "none.json"); }).kind(), ErrorKind::Io);
  kiln::testing::write_bytes(tmp / "bad.json", "{not json");
  EXPECT_EQ(catch_error([&] { load_model_json(tmp / "bad.json"); }).kind(),
            ErrorKind::InvalidModel);
  kiln::testing::write_bytes(tmp / "other.json", "{\"format\": \"x\"}");
  EXPECT_CONTAINS(catch_error([&] { load_model_json(tmp / "other.json"); }).message(),
                  "not a kiln model file");

  nlohmann::json j = model_to_json(sample_model());
  j["layers"][1]["kind"] = "Convolution";
  EXPECT_CONTAINS(catch_error([&] { model_from_json(j, "m.json"); }).message(),
                  "unknown enum value 'Convolution'");
  j = model_to_json(sample_model());
  j["layers"][2]["inputs"] = {7};
  EXPECT_CONTAINS(catch_error([&] { model_from_json(j, "m.json"); }).message(), "missing tensor 7");
  j = model_to_json(sample_model());
  j["tensors"][0]["type"].erase("width");
  EXPECT_EQ(catch_error([&] { model_from_json(j, "m.json"); }).kind(), ErrorKind::InvalidModel);
}

}  // namespace
}  // namespace kiln::hls

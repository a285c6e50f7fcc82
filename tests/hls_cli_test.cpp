// The HLS commands as a user meets them: exit codes, one-line errors for bad
// configs, atomic project output, and csim failing when the project is wrong.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kiln/support/testing/test_helpers.h"
#include "model_builder.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A bad config is exit 2, one line on stderr that names the key, and no project.
void expect_config_error(const std::vector<std::string>& extra, const std::string& expected) {
  TempDir tmp;
  std::vector<std::string> args = {"compile", zoo("model8"), "-o", (tmp.path() / "p").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult r = kiln(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_CONTAINS(r.err, expected);
  EXPECT_FALSE(fs::exists(tmp.path() / "p")) << "a failed compile left a directory";
}

TEST(HlsCli, InvalidReuseFactorListsValidOnes) {
  expect_config_error({"--set", "LayerName.n_0_Conv.ReuseFactor=7"}, "valid");
}

TEST(HlsCli, UnknownKeySuggestsSpelling) {
  expect_config_error({"--set", "Model.ReuseFacter=2"}, "ReuseFactor");
}

TEST(HlsCli, UnknownLayerNameSuggestsSpelling) {
  expect_config_error({"--set", "LayerName.n_0_Cnv.ReuseFactor=1"}, "n_0_Conv");
}

TEST(HlsCli, BadPrecisionSaysWhy) {
  expect_config_error({"--set", "Model.Precision.result=ap_fixed<99,6>"}, "Precision.result");
}

TEST(HlsCli, BadEnumListsValues) {
  expect_config_error({"--set", "IOType=io_serial"}, "io_stream");
}

TEST(HlsCli, BadConfigFileNamesFileAndKey) {
  TempDir tmp;
  const fs::path cfg = tmp.path() / "bad.yaml";
  write_bytes(cfg, "IOType: io_stream\nModel:\n  Strategy: Fastest\n");
  expect_config_error({"-c", cfg.string()}, "bad.yaml");
}

TEST(HlsCli, ConfigWritesCompleteYamlThatCompiles) {
  TempDir tmp;
  const ProcessResult c = kiln({"config", zoo("lenet5"), "--granularity", "name"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_CONTAINS(c.out, "ReuseFactor");
  EXPECT_CONTAINS(c.out, "LayerName");
  const fs::path cfg = tmp.path() / "lenet5.yaml";
  write_bytes(cfg, c.out);
  const ProcessResult r =
      kiln({"compile", zoo("lenet5"), "-c", cfg.string(), "-o", (tmp.path() / "p").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(tmp.path() / "p" / "report.json"));
}

TEST(HlsCli, CompileRefusesExistingDirectoryUnlessForced) {
  TempDir tmp;
  const std::string out = (tmp.path() / "p").string();
  ASSERT_EQ(kiln({"compile", zoo("dense_a"), "-o", out}).exit_code, 0);
  const ProcessResult again = kiln({"compile", zoo("dense_a"), "-o", out});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_EQ(kiln({"compile", zoo("dense_a"), "-o", out, "--force"}).exit_code, 0);
}

TEST(HlsCli, UnsupportedLayerIsExit3AndNamesTheNode) {
  // Conv -> Log: the interpreter runs it, the HLS layer library has no Log.
  ::onnx::ModelProto m = small_conv_model();
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.op_type() == "Relu") {
      n.set_op_type("Log");
      n.set_name("the_log");
    }
  TempDir tmp;
  save_model(m, tmp.path() / "log.onnx");
  const ProcessResult r =
      kiln({"compile", (tmp.path() / "log.onnx").string(), "-o", (tmp.path() / "p").string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_CONTAINS(r.err, "the_log");
  EXPECT_FALSE(fs::exists(tmp.path() / "p"));
}

// `m` compiles in io_parallel and io_stream, its C simulation is bit-exact with
// the emulator on 20 random samples, and within `max_abs_error` of the float
// model.
void expect_bit_exact_in_both_io_types(const ::onnx::ModelProto& m, double max_abs_error) {
  TempDir tmp;
  const fs::path model = tmp.path() / "model.onnx";
  save_model(m, model);
  for (const std::string io : {"io_parallel", "io_stream"}) {
    const fs::path prj = tmp.path() / io;
    const ProcessResult c =
        kiln({"compile", model.string(), "-o", prj.string(), "--set", "IOType=" + io});
    ASSERT_EQ(c.exit_code, 0) << io << ": " << c.err;
    const ProcessResult r = kiln({"csim", prj.string(), "--samples", "20", "--werror", "--json"});
    ASSERT_EQ(r.exit_code, 0) << io << ": " << r.out << r.err;
    const nlohmann::json j = stdout_json(r);
    EXPECT_EQ(j.value("bit_exact_samples", -1), 20) << io << ": " << r.out;
    EXPECT_LE(j["float_reference"].value("max_abs_error", 1.0), max_abs_error)
        << io << ": " << r.out;
  }
}

// Conv -> HardSwish -> HardSigmoid(0.3, 0.4) (MobileNetV3's activations),
// compiled in both IO types and C-simulated bit-exact with the emulator,
// close to the float model.
TEST(HlsCli, HardSwishAndHardSigmoidSimulateBitExact) {
  ::onnx::ModelProto m = small_conv_model();
  auto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node())
    if (n.op_type() == "Relu") {
      n.set_op_type("HardSwish");
      n.set_name("hswish");
      n.set_output(0, "h");
    }
  auto* hs = g->add_node();
  hs->set_op_type("HardSigmoid");
  hs->set_name("hsigmoid");
  hs->add_input("h");
  hs->add_output("y");
  for (const auto& [name, v] : {std::pair{"alpha", 0.3f}, std::pair{"beta", 0.4f}}) {
    auto* a = hs->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  expect_bit_exact_in_both_io_types(m, 0.01);
}

// Conv -> Concat of six copies along the channels: a chain of concatenations
// of at most four in the project.
TEST(HlsCli, ConcatOfSixSimulatesBitExact) {
  ::onnx::ModelProto m = small_conv_model();
  auto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node())
    if (n.op_type() == "Relu") n.set_output(0, "r");
  auto* cat = g->add_node();
  cat->set_op_type("Concat");
  cat->set_name("cat6");
  for (int i = 0; i < 6; ++i) cat->add_input("r");
  cat->add_output("y");
  auto* axis = cat->add_attribute();
  axis->set_name("axis");
  axis->set_type(::onnx::AttributeProto::INT);
  axis->set_i(1);
  g->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(12);
  expect_bit_exact_in_both_io_types(m, 0.01);
}

// A model written with opset 21 and IR version 10 (what current exporters
// write) compiles and simulates like its opset-13 twin.
TEST(HlsCli, Opset21ModelSimulatesBitExact) {
  ::onnx::ModelProto m = small_conv_model();
  m.set_ir_version(10);
  m.mutable_opset_import(0)->set_version(21);
  expect_bit_exact_in_both_io_types(m, 0.01);
}

// Conv [1,2,4,4] -> a ceil_mode pool of 3x3, stride 2 -> [1,2,2,2]: the last
// window runs past the end, which the HLS pools take as padding they never
// read.
::onnx::ModelProto ceil_pool_model(const std::string& op, int count_include_pad, int pad) {
  ::onnx::ModelProto m = small_conv_model();
  auto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node())
    if (n.op_type() == "Relu") n.set_output(0, "r");
  auto* pool = g->add_node();
  pool->set_op_type(op);
  pool->set_name("pool");
  pool->add_input("r");
  pool->add_output("y");
  auto ints = [&](const char* name, std::vector<int64_t> v) {
    auto* a = pool->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  };
  auto one = [&](const char* name, int64_t v) {
    auto* a = pool->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  };
  ints("kernel_shape", {3, 3});
  ints("strides", {2, 2});
  ints("pads", {pad, pad, pad, pad});
  one("ceil_mode", 1);
  if (op == "AveragePool") one("count_include_pad", count_include_pad);
  const int64_t out = (4 + 2 * pad - 3 + 1) / 2 + 1;  // ceil((in + pads - k) / s) + 1
  auto* shape = g->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(2)->set_dim_value(out);
  shape->mutable_dim(3)->set_dim_value(out);
  return m;
}

TEST(HlsCli, CeilModePoolsSimulateBitExact) {
  expect_bit_exact_in_both_io_types(ceil_pool_model("MaxPool", 0, 0), 0.01);
  expect_bit_exact_in_both_io_types(ceil_pool_model("AveragePool", 0, 0), 0.01);
  // count_include_pad with a window past the declared padding divides by a
  // count the library does not form: refused, not miscomputed.
  for (int pad : {0, 1}) {
    TempDir tmp;
    save_model(ceil_pool_model("AveragePool", 1, pad), tmp.path() / "m.onnx");
    const ProcessResult r =
        kiln({"compile", (tmp.path() / "m.onnx").string(), "-o", (tmp.path() / "p").string()});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_CONTAINS(r.err, "count_include_pad=1 whose ceil_mode window runs past the padding");
  }
}

// Conv -> Relu -> Mul by a per-channel constant [1,2,1,1] -> Add 0.25 ->
// 1 - x: constants of one value or one per channel become scale-and-bias
// layers, inside the channels-last region.
TEST(HlsCli, ConstantOperandsSimulateBitExact) {
  ::onnx::ModelProto m = small_conv_model();
  auto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node())
    if (n.op_type() == "Relu") n.set_output(0, "r");
  auto constant = [&](const std::string& name, const std::vector<int64_t>& dims,
                      const std::vector<float>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
  };
  constant("scale", {1, 2, 1, 1}, {0.5f, -1.25f});
  constant("quarter", {}, {0.25f});
  constant("one", {1}, {1.0f});
  auto node = [&](const char* op, const std::string& a, const std::string& b,
                  const std::string& out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out + "_node");
    n->add_input(a);
    n->add_input(b);
    n->add_output(out);
  };
  node("Mul", "r", "scale", "s");
  node("Add", "s", "quarter", "t");
  node("Sub", "one", "t", "y");
  expect_bit_exact_in_both_io_types(m, 0.01);
}

// Adds a node of `op` reading `inputs` and writing `out` to m's graph.
::onnx::NodeProto* add_node(::onnx::ModelProto& m, const std::string& op,
                            const std::vector<std::string>& inputs, const std::string& out) {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(out + "_node");
  for (const std::string& in : inputs) n->add_input(in);
  n->add_output(out);
  return n;
}

// A Linear squeeze-and-excitation, gate first: y = reshape(sigmoid(Gemm(flatten(
// gap(r)))), [1, 2, 1, 1]) * r. The gate is computed outside the channels-last
// region and joins it through a Transpose; a per-channel Binary in the project.
TEST(HlsCli, LinearSqueezeExcitationSimulatesBitExact) {
  ::onnx::ModelProto m = small_conv_model();
  auto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node())
    if (n.op_type() == "Relu") n.set_output(0, "r");
  add_float_initializer(g, "fc_w", {2, 2}, -0.75f);
  add_float_initializer(g, "fc_b", {2}, 0.25f);
  auto* shape = g->add_initializer();
  shape->set_name("gate_shape");
  shape->set_data_type(::onnx::TensorProto::INT64);
  shape->add_dims(4);
  for (int64_t d : {1, 2, 1, 1}) shape->add_int64_data(d);
  add_node(m, "GlobalAveragePool", {"r"}, "p");
  add_node(m, "Flatten", {"p"}, "f");
  add_node(m, "Gemm", {"f", "fc_w", "fc_b"}, "e");
  add_node(m, "Sigmoid", {"e"}, "s");
  add_node(m, "Reshape", {"s", "gate_shape"}, "gate");
  add_node(m, "Mul", {"gate", "r"}, "y");
  expect_bit_exact_in_both_io_types(m, 0.01);
  TempDir tmp;
  save_model(m, tmp.path() / "se.onnx");
  const ProcessResult l = kiln({"layers", (tmp.path() / "se.onnx").string()});
  ASSERT_EQ(l.exit_code, 0) << l.err;
  EXPECT_CONTAINS(l.out, "broadcast=PerChannel");
}

// A gate broadcast along one spatial axis only ([1, 2, 1, 4] against
// [1, 2, 4, 4]) has no layer: exit 3, one line naming the node and the forms.
TEST(HlsCli, OtherBroadcastIsExit3AndNamesTheForms) {
  ::onnx::ModelProto m = small_conv_model();
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.op_type() == "Relu") n.set_output(0, "r");
  auto* pool = add_node(m, "AveragePool", {"r"}, "rows");
  auto* k = pool->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(::onnx::AttributeProto::INTS);
  k->add_ints(4);
  k->add_ints(1);
  add_node(m, "Mul", {"r", "rows"}, "y");
  TempDir tmp;
  save_model(m, tmp.path() / "m.onnx");
  const ProcessResult r =
      kiln({"compile", (tmp.path() / "m.onnx").string(), "-o", (tmp.path() / "p").string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_CONTAINS(r.err, "y_node");
  EXPECT_CONTAINS(r.err, "one value per channel or one value per pixel");
  EXPECT_FALSE(fs::exists(tmp.path() / "p"));
}

// Conv [1,2,4,4] -> Split into two channels -> a nearest 2x upsampling
// (asymmetric, floor: UpSampling2D) of one, a linear resize to 6 x 3
// (half_pixel: upsampling rows, downsampling columns) of the other.
TEST(HlsCli, SplitAndResizeSimulateBitExact) {
  ::onnx::ModelProto m = small_conv_model();
  auto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node())
    if (n.op_type() == "Relu") n.set_output(0, "r");
  g->clear_output();
  add_value_info(g->add_output(), "ya", {1, 1, 8, 8});
  add_value_info(g->add_output(), "yb", {1, 1, 6, 3});
  auto ints = [&](const std::string& name, const std::vector<int64_t>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
  };
  ints("halves", {1, 1});
  ints("sizes", {1, 1, 6, 3});
  auto* scales = g->add_initializer();
  scales->set_name("scales");
  scales->set_data_type(::onnx::TensorProto::FLOAT);
  scales->add_dims(4);
  for (float v : {1.0f, 1.0f, 2.0f, 2.0f}) scales->add_float_data(v);
  auto node = [&](const char* op, std::vector<std::string> in, std::vector<std::string> out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out[0] + "_node");
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
  };
  auto str_attr = [](::onnx::NodeProto* n, const char* name, const char* v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
  };
  auto* split = node("Split", {"r", "halves"}, {"left", "right"});
  auto* axis = split->add_attribute();
  axis->set_name("axis");
  axis->set_type(::onnx::AttributeProto::INT);
  axis->set_i(1);
  auto* up = node("Resize", {"left", "", "scales"}, {"ya"});
  str_attr(up, "mode", "nearest");
  str_attr(up, "coordinate_transformation_mode", "asymmetric");
  str_attr(up, "nearest_mode", "floor");
  auto* lin = node("Resize", {"right", "", "", "sizes"}, {"yb"});
  str_attr(lin, "mode", "linear");
  expect_bit_exact_in_both_io_types(m, 0.01);
}

// x -> QuantizeLinear -> DequantizeLinear -> Relu, with the quantizer's scale
// and integer output chosen by the caller.
::onnx::ModelProto qdq_model(float scale, bool integer_output) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("qdq");
  add_value_info(g->add_input(), "x", {1, 6});
  add_value_info(g->add_output(), "y", {1, 6});
  auto* s = g->add_initializer();
  s->set_name("s");
  s->set_data_type(::onnx::TensorProto::FLOAT);
  s->add_float_data(scale);
  auto* z = g->add_initializer();
  z->set_name("z");
  z->set_data_type(::onnx::TensorProto::INT8);
  z->add_int32_data(0);
  const std::vector<std::array<const char*, 5>> nodes = {{"QuantizeLinear", "x", "s", "z", "q"},
                                                         {"DequantizeLinear", "q", "s", "z", "d"},
                                                         {"Relu", "d", "", "", "y"}};
  for (const auto& [op, a, b, c, out] : nodes) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(std::string(out) + "_node");
    for (const char* in : {a, b, c})
      if (*in) n->add_input(in);
    n->add_output(out);
  }
  if (integer_output) {
    g->mutable_output(0)->set_name("q");
    g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
        ::onnx::TensorProto::INT8);
  }
  return m;
}

// A power-of-two scale maps exactly; another compiles with a warning that
// names the scale; an integer model output is refused.
TEST(HlsCli, QuantizersMapToFormatsOrSayWhyNot) {
  expect_bit_exact_in_both_io_types(qdq_model(0.125f, false), 0.0);
  TempDir tmp;
  save_model(qdq_model(0.1f, false), tmp.path() / "inexact.onnx");
  const ProcessResult c =
      kiln({"compile", (tmp.path() / "inexact.onnx").string(), "-o", (tmp.path() / "p").string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_CONTAINS(c.out + c.err, "quantizer scale 0.1");
  EXPECT_CONTAINS(c.out + c.err, "not a power of two");
  save_model(qdq_model(0.125f, true), tmp.path() / "int.onnx");
  const ProcessResult r =
      kiln({"compile", (tmp.path() / "int.onnx").string(), "-o", (tmp.path() / "q").string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_CONTAINS(r.err, "an integer model output");
}

// x[1,5,8] -> MatMul W[8,3] -> Add b[3] -> Relu: PyTorch's Linear over a
// sequence, a Dense over 5 rows (a 1-wide 1-D convolution in the project).
TEST(HlsCli, DenseOverRowsSimulatesBitExact) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("rows");
  add_value_info(g->add_input(), "x", {1, 5, 8});
  add_value_info(g->add_output(), "y", {1, 5, 3});
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(8);
  w->add_dims(3);
  for (int i = 0; i < 24; ++i) w->add_float_data(static_cast<float>((i * 7) % 11) / 11.0f - 0.45f);
  auto* b = g->add_initializer();
  b->set_name("b");
  b->set_data_type(::onnx::TensorProto::FLOAT);
  b->add_dims(3);
  for (float v : {0.1f, -0.2f, 0.3f}) b->add_float_data(v);
  const std::vector<std::array<const char*, 4>> nodes = {
      {"MatMul", "x", "W", "m"}, {"Add", "m", "b", "a"}, {"Relu", "a", "", "y"}};
  for (const auto& [op, in0, in1, out] : nodes) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->add_input(in0);
    if (*in1) n->add_input(in1);
    n->add_output(out);
  }
  expect_bit_exact_in_both_io_types(m, 0.01);
}

TEST(HlsCli, CsimFailsWhenTheProjectDisagreesWithTheEmulator) {
  TempDir tmp;
  const fs::path prj = tmp.path() / "p";
  ASSERT_EQ(kiln({"compile", zoo("dense_a"), "-o", prj.string()}).exit_code, 0);
  ASSERT_EQ(kiln({"csim", prj.string(), "--samples", "3"}).exit_code, 0);
  // Flip one weight in the generated header: csim must notice.
  fs::path header;
  for (const auto& e : fs::directory_iterator(prj / "firmware" / "weights"))
    if (e.path().string().ends_with("_w.h")) header = e.path();
  ASSERT_FALSE(header.empty());
  std::stringstream ss;
  ss << std::ifstream(header).rdbuf();
  std::string text = ss.str();
  const auto brace = text.find("= {");
  ASSERT_NE(brace, std::string::npos);
  const auto first = text.find_first_of("-0123456789", brace);
  const auto end = text.find(',', first);
  text.replace(first, end - first, "3.5");
  write_bytes(header, text);
  const ProcessResult r = kiln({"csim", prj.string(), "--samples", "3", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_LT(j.value("bit_exact_samples", 99), 3);
}

TEST(HlsCli, CsimOnAMissingProjectIsExit2) {
  const ProcessResult r = kiln({"csim", "/nonexistent/kiln/project"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
}

TEST(HlsCli, ReportPrintsEstimates) {
  TempDir tmp;
  const fs::path prj = tmp.path() / "p";
  ASSERT_EQ(
      kiln({"compile", zoo("model8"), "-o", prj.string(), "--set", "IOType=io_stream"}).exit_code,
      0);
  const ProcessResult r = kiln({"report", prj.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* col : {"II", "latency", "DSP", "BRAM18", "LUT", "FF"})
    EXPECT_CONTAINS(r.out, col);
  const ProcessResult j = kiln({"report", prj.string(), "--json"});
  ASSERT_EQ(j.exit_code, 0);
  const nlohmann::json e = nlohmann::json::parse(j.out);
  EXPECT_TRUE(e.contains("layers")) << j.out;
}

TEST(HlsCli, ProfileSuggestsTypesThatHoldTheRanges) {
  const ProcessResult r = kiln({"profile", zoo("lenet5"), "--samples", "20", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.value("samples", 0), 20);
  int checked = 0;
  for (const auto& l : j["layers"]) {
    if (!l.contains("suggested") || l["result"].is_null() || l["suggested"]["result"].is_null())
      continue;
    // ap_fixed<W,I> holds [-2^(I-1), 2^(I-1)): the suggestion must cover the range seen.
    const std::string t = l["suggested"]["result"];
    const auto comma = t.find(',');
    const int integer = std::stoi(t.substr(comma + 1));
    const double bound = std::ldexp(1.0, integer - 1);
    EXPECT_LT(l["result"]["max"].get<double>(), bound) << l.dump();
    EXPECT_GE(l["result"]["min"].get<double>(), -bound) << l.dump();
    ++checked;
  }
  EXPECT_GT(checked, 3);
}

}  // namespace
}  // namespace kiln::testing

namespace kiln::testing {
namespace {

TEST(HlsCli, CsimRunsAGivenInputAndChecksItsSize) {
  TempDir tmp;
  const fs::path prj = tmp.path() / "p";
  ASSERT_EQ(kiln({"compile", zoo("lenet5"), "-o", prj.string()}).exit_code, 0);
  const std::string good =
      (fs::path(source_dir()) / "models/zoo/lenet5/test_data_set_0/input_0.pb").string();
  const ProcessResult r = kiln({"csim", prj.string(), "--input", "input=" + good, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).value("samples", 0), 1) << r.out;
  // dense_a's input has 8 values, lenet5 takes 784.
  const std::string wrong =
      (fs::path(source_dir()) / "models/zoo/dense_a/test_data_set_0/input_0.pb").string();
  const ProcessResult bad = kiln({"csim", prj.string(), "--input", "input=" + wrong});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_CONTAINS(bad.err, "784");
}

}  // namespace
}  // namespace kiln::testing

namespace kiln::testing {
namespace {

// Precision: auto profiled on the model's own test data (randn inputs, wider
// than the uniform [-1, 1) default) leaves no overflow on that data.
TEST(HlsCli, AutoPrecisionFromProfileDataHoldsThatData) {
  TempDir tmp;
  const fs::path prj = tmp.path() / "p";
  const std::string dir = (fs::path(source_dir()) / "models/zoo/lenet5").string();
  const ProcessResult c = kiln({"compile", zoo("lenet5"), "-o", prj.string(), "--set",
                                "Model.Precision=auto", "--profile-data", dir});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  // It says what it profiled.
  EXPECT_CONTAINS(c.out, "profile of the 2 data set(s) in " + dir);
  EXPECT_EQ(c.out.find("warning"), std::string::npos) << c.out;
  const ProcessResult r = kiln(
      {"csim", prj.string(), "--input", "input=" + dir + "/test_data_set_0/input_0.pb", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const auto& l : j["overflow"]) {
    EXPECT_EQ(l.value("wrapped", -1), 0) << l.dump();
    EXPECT_EQ(l.value("saturated", -1), 0) << l.dump();
  }
  EXPECT_EQ(j["float_reference"].value("top1_agree", 0), 1) << r.out;
}

// A profile of one sample compiles, with a warning that its ranges are thin.
TEST(HlsCli, ProfileOfOneSampleWarns) {
  TempDir tmp;
  const fs::path one = tmp.path() / "one";
  fs::create_directories(one);
  fs::copy(fs::path(source_dir()) / "models/zoo/lenet5/test_data_set_0", one / "test_data_set_0");
  const ProcessResult c = kiln({"compile", zoo("lenet5"), "-o", (tmp.path() / "p").string(),
                                "--set", "Model.Precision=auto", "--profile-data", one.string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_CONTAINS(c.out, "profile of the 1 data set(s) in " + one.string());
  EXPECT_CONTAINS(c.out, "warning: the profile saw one sample");
}

// A TargetCycles no reuse factor meets compiles, and says so.
TEST(HlsCli, UnmetTargetCyclesWarns) {
  TempDir tmp;
  const ProcessResult c = kiln({"compile", zoo("lenet5"), "-o", (tmp.path() / "p").string(),
                                "--set", "IOType=io_stream", "--set", "Model.TargetCycles=100"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_CONTAINS(c.out, "TargetCycles 100 not met");
  EXPECT_CONTAINS(c.out, "even at reuse factor 1");
}

}  // namespace
}  // namespace kiln::testing

namespace kiln::testing {
namespace {

// Users type relative paths: `kiln compile ... -o out/x && kiln csim out/x`.
TEST(HlsCli, CsimAcceptsARelativeProjectPath) {
  const fs::path rel = "kiln_rel_project_" + std::to_string(::getpid());
  fs::remove_all(rel);
  ASSERT_EQ(kiln({"compile", zoo("dense_a"), "-o", rel.string()}).exit_code, 0);
  const ProcessResult r = kiln({"csim", rel.string(), "--samples", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "2/2 samples bit-exact");
  fs::remove_all(rel);
}

}  // namespace
}  // namespace kiln::testing

namespace kiln::testing {
namespace {

// Progress on stderr (support/progress.h): only when stderr is a terminal,
// which it is not here, unless KILN_PROGRESS=1 forces it; never with --json.
TEST(HlsCli, CsimShowsProgressOnlyWhereAPersonReads) {
  TempDir tmp;
  const std::string prj = (tmp.path() / "p").string();
  ASSERT_EQ(kiln({"compile", zoo("dense_a"), "-o", prj}).exit_code, 0);
  ProcessResult r = kiln({"csim", prj, "--samples", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  r = run_process({"/usr/bin/env", "KILN_PROGRESS=1", kiln_binary(), "csim", prj, "--samples", "2"},
                  300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.err, "\rcsim ");
  EXPECT_CONTAINS(r.err, "emulating the samples");
  EXPECT_CONTAINS(r.err, "running the testbench");
  r = run_process(
      {"/usr/bin/env", "KILN_PROGRESS=1", kiln_binary(), "csim", prj, "--samples", "2", "--json"},
      300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// `kiln profile --plot`: a PNG drawn by matplotlib; a file it may not write
// is refused before the profile runs, with the CLI's exit codes.
TEST(HlsCli, ProfilePlotWritesAPictureAndRefusesWhatItCannotWrite) {
  TempDir tmp;
  const std::string png = (tmp.path() / "p.png").string();
  ProcessResult r = kiln({"profile", zoo("dense_a"), "--samples", "5", "--plot", png});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(png, std::ios::binary);
  std::array<char, 4> magic{};
  in.read(magic.data(), 4);
  EXPECT_EQ(std::string(magic.data() + 1, 3), "PNG");
  EXPECT_GT(fs::file_size(png), 5000u);
  r = kiln({"profile", zoo("dense_a"), "--plot", png});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_CONTAINS(r.err, "pass --force");
  EXPECT_EQ(kiln({"profile", zoo("dense_a"), "--plot", png, "--force"}).exit_code, 0);
  r = kiln({"profile", zoo("dense_a"), "--plot", (tmp.path() / "p.bmp").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_CONTAINS(r.err, ".png, .svg or .pdf");
  r = kiln({"profile", zoo("dense_a"), "--plot", (tmp.path() / "no" / "p.svg").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_CONTAINS(r.err, "does not exist");
  EXPECT_FALSE(fs::exists(tmp.path() / "no"));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp.path())) ++files;
  EXPECT_EQ(files, 1u) << "no partial or data files left behind";
}

// `kiln report --html`: one file, no network, and its profile on the data the
// project was profiled with when that is still there.
TEST(HlsCli, HtmlReportProfilesOnTheProjectsOwnData) {
  TempDir tmp;
  const std::string prj = (tmp.path() / "p").string();
  const std::string data = (fs::path(source_dir()) / "models" / "zoo" / "dense_a").string();
  ProcessResult r = kiln({"compile", zoo("dense_a"), "-o", prj, "--profile-data", data, "--set",
                          "Model.Precision=auto"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path html = tmp.path() / "r.html";
  r = kiln({"report", prj, "--html", html.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(html);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_CONTAINS(text, "on the data sets in " + data);
  EXPECT_CONTAINS(text, "<svg");
  EXPECT_EQ(text.find("<script src"), std::string::npos);
  EXPECT_EQ(text.find("<link"), std::string::npos);
  // Without the data, random inputs, and it says so.
  ASSERT_EQ(kiln({"compile", zoo("dense_a"), "-o", prj, "--force"}).exit_code, 0);
  ASSERT_EQ(kiln({"report", prj, "--html", html.string(), "--force"}).exit_code, 0);
  std::ifstream again(html);
  const std::string text2((std::istreambuf_iterator<char>(again)),
                          std::istreambuf_iterator<char>());
  EXPECT_CONTAINS(text2, "on 100 random inputs");
}

}  // namespace
}  // namespace kiln::testing

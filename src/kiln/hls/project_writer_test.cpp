// The project writer and C simulation, end to end on hand-built models: the
// written project compiles with -Werror and C-simulates bit-exact with the
// emulator; a perturbed project is caught; a failed write leaves nothing.
#include "kiln/hls/project_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "kiln/hls/csim.h"
#include "kiln/hls/derived.h"
#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/hls/library_headers.h"
#include "kiln/hls/model_json.h"
#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/hls/verify.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/process.h"

namespace kiln::hls {
namespace {

namespace fs = std::filesystem;
using kiln::testing::catch_error;
using kiln::testing::TempDir;
using numeric::OverflowMode;
using numeric::QuantMode;

FixedType fx(int w, int i, QuantMode q = QuantMode::Trn, OverflowMode o = OverflowMode::Wrap) {
  FixedType t;
  t.width = w;
  t.integer = i;
  t.quant = q;
  t.overflow = o;
  return t;
}

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

Layer input_layer(const std::string& name, int tensor, const FixedType& t) {
  Layer l;
  l.name = l.onnx_name = name;
  l.params = InputParams{};
  l.outputs = {tensor};
  l.precision.result = t;
  return l;
}

// Ports named after their tensors, with a batch dimension and no permutation.
void add_ports(Model& m) {
  auto port = [&](int t) {
    const TensorInfo& ti = m.tensors[static_cast<std::size_t>(t)];
    Model::Port p{ti.name, {1}, {}};
    for (std::size_t d = 0; d < ti.shape.size(); ++d) {
      p.onnx_shape.push_back(ti.shape[d]);
      p.perm.push_back(static_cast<int64_t>(d));
    }
    return p;
  };
  for (int t : m.inputs) m.input_ports.push_back(port(t));
  for (int t : m.outputs) m.output_ports.push_back(port(t));
}

// x[4] -> dense(4 -> 3, relu) -> y[3]. Weights w[i][j] = (i - j) / 4 in
// ap_fixed<8,3> (raw (i - j) * 8), bias j / 8 (raw j * 4).
Model dense_model(IOType io = IOType::Parallel) {
  Model m;
  m.name = "tiny_dense";
  m.io_type = io;
  const FixedType data = fx(16, 6, QuantMode::Rnd, OverflowMode::Sat);
  m.tensors = {{"x", {4}, data}, {"y", {3}, data}};
  m.layers.push_back(input_layer("x_input", 0, data));
  Layer d;
  d.name = d.onnx_name = "fc";
  d.params = DenseParams{4, 3, {ActKind::Relu, 0, 0}};
  d.inputs = {0};
  d.outputs = {1};
  d.precision.weight = fx(8, 3);
  d.precision.bias = fx(8, 3);
  d.precision.result = data;
  d.precision.accum = fx(24, 10);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) d.weights.push_back((i - j) * 8);
  d.bias = {0, 4, 8};
  m.layers.push_back(d);
  m.inputs = {0};
  m.outputs = {1};
  add_ports(m);
  return m;
}

// x[2,4] -> a = relu(x); y = x + a; z = relu(y); outputs y and z. In io_stream x
// is read twice (a clone) and y is both a port and read (a clone to the port);
// in io_parallel y is copied to its port. insert_clones plans the copies.
Model fanout_model(IOType io) {
  Model m;
  m.name = "fanout";
  m.io_type = io;
  const FixedType data = fx(12, 4, QuantMode::Rnd, OverflowMode::Sat);
  m.tensors = {{"x", {2, 4}, data}, {"a", {2, 4}, data}, {"y", {2, 4}, data}, {"z", {2, 4}, data}};
  m.layers.push_back(input_layer("x_input", 0, data));
  auto act = [&](const std::string& name, int in, int out) {
    Layer l;
    l.name = l.onnx_name = name;
    l.params = ActivationParams{8, 4, {ActKind::Relu, 0, 0}};
    l.inputs = {in};
    l.outputs = {out};
    l.precision.result = data;
    return l;
  };
  m.layers.push_back(act("relu1", 0, 1));
  Layer add;
  add.name = add.onnx_name = "add1";
  add.params = BinaryParams{BinaryOp::Add, 8, 4};
  add.inputs = {0, 1};
  add.outputs = {2};
  add.precision.result = data;
  m.layers.push_back(add);
  m.layers.push_back(act("relu2", 2, 3));
  m.inputs = {0};
  m.outputs = {2, 3};
  add_ports(m);
  make_insert_clones({})->run(m);
  verify_model(m, "insert_clones");
  return m;
}

CsimOptions strict(int samples = 20) {
  CsimOptions o;
  o.samples = samples;
  o.seed = 7;
  o.input_min = -4;
  o.input_max = 4;
  o.extra_cflags = {"-Werror"};
  return o;
}

TEST(ProjectWriter, WritesTheDocumentedFiles) {
  TempDir tmp;
  const fs::path dir = tmp / "prj";
  write_project(dense_model(), {}, dir);
  for (const char* f :
       {"firmware/tiny_dense.cpp", "firmware/tiny_dense.h", "firmware/defines.h",
        "firmware/parameters.h", "firmware/weights/fc_w.h", "firmware/kiln/kiln_common.h",
        "firmware/kiln/kiln_fixed.h", "firmware/kiln/stream_utils.h", "tb/tiny_dense_test.cpp",
        "tb_data/inputs.txt", "tb_data/expected_raw.txt", "build_prj.tcl", "bambu/bambu.sh",
        "Makefile", "report.json", "kiln_model.json", "README.md"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  // Every embedded header is copied byte for byte.
  for (const EmbeddedFile& h : library_headers())
    EXPECT_EQ(read(dir / "firmware/kiln" / std::string(h.name)), std::string(h.text)) << h.name;
  // Both spellings of each type.
  const std::string defines = read(dir / "firmware/defines.h");
  EXPECT_CONTAINS(defines, "typedef ap_fixed<16, 6, AP_RND, AP_SAT> x_t;");
  EXPECT_CONTAINS(defines, "typedef kiln::fixed<16, 6, kiln::RND, kiln::SAT> x_t;");
  EXPECT_CONTAINS(defines, "fc_weight_t;");
  // Weight w[1][0] = 1/4, w[0][1] = -1/4: exact literals.
  const std::string w = read(dir / "firmware/weights/fc_w.h");
  EXPECT_CONTAINS(w, "0, -0.25, -0.5, 0.25,");
  const std::string tcl = read(dir / "build_prj.tcl");
  EXPECT_CONTAINS(tcl, "set_top tiny_dense");
  EXPECT_CONTAINS(tcl, "-DKILN_VITIS");
  EXPECT_CONTAINS(tcl, "run_csim 1 run_csynth 1 run_cosim 0 run_export 0");
  const nlohmann::json report = nlohmann::json::parse(read(dir / "report.json"));
  EXPECT_EQ(report["io_type"], "io_parallel");
  EXPECT_EQ(report["layers"][1]["precision"]["weight"], "ap_fixed<8,3>");
  EXPECT_TRUE(report["estimate"].is_null());
  // The model file reads back.
  const ModelFile mf = load_model_json(dir / kModelJsonFile);
  EXPECT_EQ(mf.model.layers[1].weights, dense_model().layers[1].weights);
}

TEST(ProjectWriter, EstimateAndSourceAreEmbedded) {
  TempDir tmp;
  ProjectOptions o;
  o.estimate = {{"total", {{"dsp", 12}}}};
  o.source = {{"onnx", "m.onnx"}};
  write_project(dense_model(), o, tmp / "prj");
  const nlohmann::json report = nlohmann::json::parse(read(tmp / "prj/report.json"));
  EXPECT_EQ(report["estimate"]["total"]["dsp"], 12);
  EXPECT_EQ(load_model_json(tmp / "prj" / kModelJsonFile).source["onnx"], "m.onnx");
}

TEST(ProjectWriter, FailureBeforeCommitLeavesNothing) {
  TempDir tmp;
  ProjectOptions o;
  bool staged_files = false;
  o.before_commit = [&](const fs::path& staging) {
    staged_files = fs::exists(staging / "firmware/tiny_dense.cpp");
    throw_error(ErrorKind::Io, "disk", "injected failure");
  };
  const Error e = catch_error([&] { write_project(dense_model(), o, tmp / "prj"); });
  EXPECT_CONTAINS(e.message(), "injected failure");
  EXPECT_TRUE(staged_files);  // the hook ran on a full project
  EXPECT_FALSE(fs::exists(tmp / "prj"));
  EXPECT_TRUE(fs::is_empty(tmp.path()));  // no staging directory either
}

TEST(ProjectWriter, EmitterErrorLeavesNothing) {
  TempDir tmp;
  Model m = dense_model();
  m.layers[1].weights.pop_back();  // the dense emitter refuses a wrong weight count
  EXPECT_THROW(write_project(m, {}, tmp / "prj"), Error);
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(ProjectWriter, RefusesANonEmptyTargetUnlessReplacing) {
  TempDir tmp;
  fs::create_directories(tmp / "prj");
  kiln::testing::write_bytes(tmp / "prj/keep.txt", "x");
  EXPECT_THROW(write_project(dense_model(), {}, tmp / "prj"), Error);
  EXPECT_TRUE(fs::exists(tmp / "prj/keep.txt"));
  ProjectOptions o;
  o.replace_existing = true;
  write_project(dense_model(), o, tmp / "prj");
  EXPECT_FALSE(fs::exists(tmp / "prj/keep.txt"));
  EXPECT_TRUE(fs::exists(tmp / "prj/Makefile"));
}

TEST(Csim, DenseParallelIsBitExact) {
  TempDir tmp;
  write_project(dense_model(), {}, tmp / "prj");
  const CsimResult r = run_csim(tmp / "prj", dense_model(), strict());
  EXPECT_EQ(r.samples, 20);
  EXPECT_EQ(r.bit_exact_samples, 20);
  EXPECT_TRUE(r.bit_exact());
  EXPECT_FALSE(r.first_mismatch.has_value());
  EXPECT_TRUE(r.rebuilt);
  // The cached binary is reused.
  const CsimResult again = run_csim(tmp / "prj", dense_model(), strict(3));
  EXPECT_FALSE(again.rebuilt);
  EXPECT_TRUE(again.bit_exact());
}

// Hand-computed: x = (1, 0.5, -0.25, 2): y_j = relu(b_j + sum_i x_i (i - j) / 4)
// with b = (0, 0.125, 0.25): y0 = 0 + (0 + 0.125 + 0.125 + 1.5) = 1.5;
// y1 = 0.125 + (-0.25 + 0 - 0.0625 + 1) = 0.8125; y2 = 0.25 + (-0.5 - 0.125 + 0
// + 0.5) = 0.125.
TEST(Csim, GivenInputsAndHandComputedOutputs) {
  TempDir tmp;
  write_project(dense_model(), {}, tmp / "prj");
  CsimOptions o = strict();
  o.inputs = {{{1, 0.5, -0.25, 2}}};
  // A "float model" that returns the exact values: zero error, top-1 agrees.
  o.float_reference = [](const Sample&) {
    return std::vector<std::vector<double>>{{1.5, 0.8125, 0.125}};
  };
  const CsimResult r = run_csim(tmp / "prj", dense_model(), o);
  ASSERT_TRUE(r.bit_exact());
  EXPECT_TRUE(r.has_reference);
  EXPECT_EQ(r.max_abs_error, 0.0);
  EXPECT_EQ(r.top1_agree, 1);
  // The testbench's results file holds raw values (F = 10) and values.
  const std::string results = read(tmp / "prj" / kResultsFile);
  EXPECT_EQ(results, "1536 832 128 | 1.5 0.8125 0.125\n");
  // A reference far off in y1 (relative to max |ref| = 2.5), argmax moved.
  o.float_reference = [](const Sample&) {
    return std::vector<std::vector<double>>{{1.5, 2.5, 0.125}};
  };
  const CsimResult off = run_csim(tmp / "prj", dense_model(), o);
  EXPECT_DOUBLE_EQ(off.max_abs_error, 2.5 - 0.8125);
  EXPECT_DOUBLE_EQ(off.max_rel_error, (2.5 - 0.8125) / 2.5);
  EXPECT_EQ(off.top1_agree, 0);
}

TEST(Csim, DetectsAPerturbedWeight) {
  TempDir tmp;
  const fs::path dir = tmp / "prj";
  write_project(dense_model(), {}, dir);
  // w[3][0] = 0.75 becomes 0.625: output 0 changes whenever x3 contributes.
  const fs::path wh = dir / "firmware/weights/fc_w.h";
  std::string w = read(wh);
  const std::size_t pos = w.find("0.75,");
  ASSERT_NE(pos, std::string::npos) << w;
  w.replace(pos, 4, "0.625");
  kiln::testing::write_bytes(wh, w);
  CsimOptions o = strict();
  o.inputs = {{{0, 0, 0, 0}}, {{0, 0, 0, 1}}};
  const CsimResult r = run_csim(dir, dense_model(), o);
  EXPECT_TRUE(r.rebuilt);  // the edit is newer than the binary
  EXPECT_FALSE(r.bit_exact());
  EXPECT_EQ(r.bit_exact_samples, 1);
  ASSERT_TRUE(r.first_mismatch.has_value());
  EXPECT_EQ(r.first_mismatch->sample, 1);
  EXPECT_EQ(r.first_mismatch->output, 0);
  EXPECT_EQ(r.first_mismatch->index, 0);
  EXPECT_EQ(r.first_mismatch->emulator_raw, 768);  // 0.75 * 1024
  EXPECT_EQ(r.first_mismatch->csim_raw, 640);      // 0.625 * 1024
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["bit_exact"], false);
  EXPECT_EQ(j["first_mismatch"]["csim_raw"], 640);
}

TEST(Csim, DetectsAPerturbedEmulatorModel) {
  TempDir tmp;
  write_project(dense_model(), {}, tmp / "prj");
  Model changed = dense_model();
  changed.layers[1].bias[2] += 1;  // the emulator now disagrees with the project
  CsimOptions o = strict(5);
  o.input_min = 0;  // keep every output positive so relu passes the change
  o.input_max = 0.01;
  const CsimResult r = run_csim(tmp / "prj", changed, o);
  EXPECT_EQ(r.bit_exact_samples, 0);
  ASSERT_TRUE(r.first_mismatch.has_value());
  EXPECT_EQ(r.first_mismatch->index, 2);
  EXPECT_EQ(r.first_mismatch->emulator_raw - r.first_mismatch->csim_raw, 1 << (10 - 5));
}

TEST(Csim, LargeWeightsLoadFromBinaryFiles) {
  TempDir tmp;
  const fs::path dir = tmp / "prj";
  ProjectOptions po;
  po.weights_header_max = 4;  // the 12 weights go to a .bin; the 3 biases stay a header
  write_project(dense_model(), po, dir);
  ASSERT_TRUE(fs::exists(dir / "firmware/weights/fc_w.bin"));
  EXPECT_FALSE(fs::exists(dir / "firmware/weights/fc_b.bin"));
  const std::string bin = read(dir / "firmware/weights/fc_w.bin");
  ASSERT_EQ(bin.size(), 12u * 8u);
  // Element 3 is w[1][0] = 0.25 = 0x3FD0000000000000, little-endian.
  const std::string quarter("\x00\x00\x00\x00\x00\x00\xd0\x3f", 8);
  EXPECT_EQ(bin.substr(3 * 8, 8), quarter);
  EXPECT_TRUE(run_csim(dir, dense_model(), strict()).bit_exact());
  // The loader is really used: a corrupted .bin changes the results.
  std::string bad = bin;
  bad.replace(3 * 8, 8, std::string("\x00\x00\x00\x00\x00\x00\xe0\x3f", 8));  // 0.5
  kiln::testing::write_bytes(dir / "firmware/weights/fc_w.bin", bad);
  CsimOptions o = strict();
  o.inputs = {{{1, 0, 0, 0}}};
  o.inputs[0][0] = {0, 1, 0, 0};
  const CsimResult r = run_csim(dir, dense_model(), o);
  EXPECT_FALSE(r.bit_exact());
  // A truncated .bin is an error of the testbench, reported.
  kiln::testing::write_bytes(dir / "firmware/weights/fc_w.bin", bin.substr(0, 40));
  const Error e = catch_error([&] { run_csim(dir, dense_model(), strict(2)); });
  EXPECT_CONTAINS(e.message(), "expected 12 values");
}

TEST(Csim, FanOutInBothIoTypes) {
  for (IOType io : {IOType::Parallel, IOType::Stream}) {
    TempDir tmp;
    write_project(fanout_model(io), {}, tmp / "prj");
    const std::string top = read(tmp / "prj/firmware/fanout.cpp");
    if (io == IOType::Stream) {
      EXPECT_CONTAINS(top, "kiln::clone<2>(x, x_cpy0, x_cpy1);");
      EXPECT_CONTAINS(top, "kiln::clone<2>(y_src, y_cpy0, y);");
      EXPECT_CONTAINS(top, "HLS STREAM variable=a depth=2");
      EXPECT_CONTAINS(top, "HLS DATAFLOW");
    } else {
      EXPECT_CONTAINS(top, "y[i] = y_src[i];");
      EXPECT_CONTAINS(top, "HLS PIPELINE");
    }
    const CsimResult r = run_csim(tmp / "prj", fanout_model(io), strict());
    EXPECT_TRUE(r.bit_exact()) << (io == IOType::Stream ? "io_stream" : "io_parallel");
    EXPECT_EQ(r.overflow.size(), fanout_model(io).layers.size());
  }
}

// Squeeze-and-excitation in miniature: y = x * mean(x) per channel, the map
// [6, 5, 3] read by a global pool and by the Mul. The Mul reads the gate
// before the map, so the map's copy waits whole in its FIFO (6 * 5 pixels)
// while the pool reads the other copy: a shallower FIFO would stall the clone
// and deadlock the dataflow.
Model gate_model(IOType io) {
  Model m = testing::parse(R"(
model "se" {io_type=io_parallel}
%x: ap_fixed<12,4,AP_RND,AP_SAT>[6x5x3] = Input() @x "x"
%g: ap_fixed<12,4,AP_RND,AP_SAT>[1x1x3] = Pool(%x) {kind=Average in_h=6 in_w=5 channels=3 out_h=1 out_w=1 kernel_h=6 kernel_w=5 stride_h=6 stride_w=5} @gap config {accum=ap_fixed<24,10>}
%y: ap_fixed<12,4,AP_RND,AP_SAT>[6x5x3] = Binary(%x, %g) {op=Mul n=90 channels=3 broadcast=PerChannel} @scale
input %x "x": [1x6x5x3] perm=[0,1,2]
output %y "y": [1x6x5x3] perm=[0,1,2]
)");
  m.io_type = io;
  make_insert_clones({})->run(m);
  verify_model(m, "insert_clones");
  return m;
}

TEST(Csim, PerChannelGateAndItsMapFifo) {
  for (IOType io : {IOType::Parallel, IOType::Stream}) {
    TempDir tmp;
    const Model m = gate_model(io);
    write_project(m, {}, tmp / "prj");
    if (io == IOType::Stream) {
      const std::string top = read(tmp / "prj/firmware/se.cpp");
      const Layer& mul = m.layers.back();
      const std::string& map = m.tensors[static_cast<std::size_t>(mul.inputs[0])].name;
      EXPECT_CONTAINS(top, "HLS STREAM variable=" + map + " depth=30)");
      EXPECT_EQ(stream_fifo_depth(m.tensors[static_cast<std::size_t>(mul.inputs[0])]), 30);
    }
    const CsimResult r = run_csim(tmp / "prj", m, strict());
    EXPECT_TRUE(r.bit_exact()) << (io == IOType::Stream ? "io_stream" : "io_parallel");
  }
}

// The Makefile and the testbench's own check against tb_data/expected_raw.txt.
TEST(Csim, MakeCsimChecksItself) {
  if (!tools::find_program("make")) GTEST_SKIP() << "make not installed";
  TempDir tmp;
  write_project(fanout_model(IOType::Stream), {}, tmp / "prj");
  tools::ProcessOptions po;
  po.cwd = tmp / "prj";
  po.timeout_seconds = 600;
  const tools::ProcessResult r = tools::run_process("make", {"csim"}, po);
  ASSERT_TRUE(r.ok()) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "8 samples, 0 differ");
  // A wrong expectation makes the testbench fail.
  std::string exp = read(tmp / "prj" / kExpectedFile);
  exp[0] = exp[0] == '1' ? '2' : '1';
  kiln::testing::write_bytes(tmp / "prj" / kExpectedFile, exp);
  const tools::ProcessResult bad = tools::run_process("make", {"csim"}, po);
  EXPECT_FALSE(bad.ok());
  EXPECT_CONTAINS(bad.out, "1 differ");
}

TEST(CsimFiles, InputLinesAreExactDecimal) {
  EXPECT_EQ(format_input_line({{0.1, -1}, {0.5}}), "0.10000000000000001 -1 0.5");
}

TEST(CsimFiles, ParseResults) {
  const auto rows = parse_results("1 -2 3 | 0.1 0.2 0.3\n\n4 5 6 |\n", 3, "r.txt");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(rows[1], (std::vector<int64_t>{4, 5, 6}));
  EXPECT_CONTAINS(catch_error([] { parse_results("1 2 |\n", 3, "r.txt"); }).message(),
                  "r.txt:1: expected 3 raw values, got 2");
  EXPECT_CONTAINS(catch_error([] { parse_results("1 x 3 |\n", 3, "r.txt"); }).message(),
                  "not an integer");
  EXPECT_CONTAINS(catch_error([] { parse_results("1 2 3\n", 3, "r.txt"); }).message(), "no '|'");
}

TEST(CsimFiles, RandomSamplesAreReproducibleAndInRange) {
  const Model m = dense_model();
  const auto a = random_samples(m, 50, 3, -1, 1);
  const auto b = random_samples(m, 50, 3, -1, 1);
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 50u);
  double lo = 1, hi = -1;
  for (const Sample& s : a) {
    ASSERT_EQ(s.size(), 1u);
    ASSERT_EQ(s[0].size(), 4u);
    for (double x : s[0]) lo = std::min(lo, x), hi = std::max(hi, x);
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.8);  // 200 uniform draws spread out
  EXPECT_GT(hi, 0.8);
  EXPECT_NE(random_samples(m, 1, 4, -1, 1)[0], a[0]);
}

TEST(Csim, BadInputsAreInvalidModel) {
  TempDir tmp;
  write_project(dense_model(), {}, tmp / "prj");
  CsimOptions o;
  o.inputs = {{{1, 2, 3}}};
  const Error e = catch_error([&] { run_csim(tmp / "prj", dense_model(), o); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.message(), "expected 4");
  const Error missing = catch_error([&] { run_csim(tmp / "nothing", dense_model(), {}); });
  EXPECT_EQ(missing.kind(), ErrorKind::InvalidModel);
}

}  // namespace
}  // namespace kiln::hls

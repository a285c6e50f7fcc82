// The models users bring that the seed zoo does not hold (models/coverage/,
// scripts/gen_coverage.py): each matches PyTorch's outputs in the golden
// interpreter, and compiles in io_parallel, io_stream and io_stream with
// encoded convolutions into projects whose C simulation is bit-exact with
// kiln's emulator; the quantized ones equal their own quantized outputs.
// Models the HLS backend has no layer for yet (kNoHlsLayerYet) match
// PyTorch and are refused by compile instead.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

fs::path coverage_dir() {
  return source_dir() / "models" / "coverage";
}

std::vector<std::string> coverage_models() {
  return model_names(coverage_dir());
}

// Quantized models whose quantizers have power-of-two scales: the project
// computes exactly what the quantized model computes.
bool exact_against_model(const std::string& name) {
  static const char* const kExact[] = {"qdq_mlp", "qdq_cnn"};
  return std::find(std::begin(kExact), std::end(kExact), name) != std::end(kExact);
}

// Coverage models with a form the HLS layers do not have yet: compile must
// refuse them with exit 3 and one line saying what. Once the layer lands
// compile succeeds, this check fails, and the model's row goes.
struct NoHlsLayerYet {
  std::string_view model;
  std::string_view message;  // part of the refusal
  std::string_view reason;
};
constexpr NoHlsLayerYet kNoHlsLayerYet[] = {
    {"bilstm2_tagger", "LSTM '/lstm/LSTM': bidirectional direction",
     "the recurrent HLS layer runs one forward direction"},
};

const NoHlsLayerYet* no_hls_layer_yet(const std::string& model) {
  for (const NoHlsLayerYet& row : kNoHlsLayerYet)
    if (row.model == model) return &row;
  return nullptr;
}

class Coverage : public ::testing::TestWithParam<std::string> {};

TEST_P(Coverage, MatchesPyTorchAndSimulatesBitExact) {
  const fs::path dir = coverage_dir() / GetParam();
  const ProcessResult golden = run_process({kiln_binary(), "test-onnx", dir.string()}, 120.0);
  EXPECT_EQ(golden.exit_code, 0) << golden.out << golden.err;
  if (const NoHlsLayerYet* row = no_hls_layer_yet(GetParam())) {
    TempDir tmp;
    const ProcessResult c = run_process({kiln_binary(), "compile", (dir / "model.onnx").string(),
                                         "-o", (tmp.path() / "p").string()},
                                        300.0);
    EXPECT_EQ(c.exit_code, 3) << row->reason << ": " << c.out << c.err;
    EXPECT_NE(c.err.find(row->message), std::string::npos) << c.err;
    EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
    return;
  }
  TempDir tmp;
  const std::vector<std::vector<std::string>> variants = {
      {"--set", "IOType=io_parallel"},
      {"--set", "IOType=io_stream"},
      {"--set", "IOType=io_stream", "--set", "Model.ConvImplementation=Encoded"}};
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const fs::path prj = tmp.path() / std::to_string(v);
    std::vector<std::string> compile = {kiln_binary(), "compile", (dir / "model.onnx").string(),
                                        "-o", prj.string()};
    compile.insert(compile.end(), variants[v].begin(), variants[v].end());
    const ProcessResult c = run_process(compile, 300.0);
    ASSERT_EQ(c.exit_code, 0) << variants[v][1] << ": " << c.err;
    const ProcessResult s = run_process(
        {kiln_binary(), "csim", prj.string(), "--samples", "5", "--werror", "--json"}, 600.0);
    ASSERT_EQ(s.exit_code, 0) << variants[v][1] << ": " << s.out << s.err;
    const nlohmann::json j = stdout_json(s);
    EXPECT_EQ(j.value("bit_exact_samples", -1), 5) << variants[v][1] << ": " << s.out;
    // Default precisions: within 0.05 of the float model, absolutely or
    // relative to the output's range (the U-Net's outputs reach ~2).
    const nlohmann::json& f = j["float_reference"];
    EXPECT_TRUE(f.value("max_abs_error", 1.0) < 0.05 || f.value("max_rel_error", 1.0) < 0.05)
        << s.out;
    if (exact_against_model(GetParam())) {
      EXPECT_EQ(f.value("max_abs_error", 1.0), 0.0) << s.out;
    }
  }
}

// PyTorch exports nn.GRU in ONNX's linear_before_reset=1 form: the tagger
// checks that form against PyTorch, the conformance models the other.
TEST(CoverageRecurrent, PyTorchGruIsLinearBeforeReset) {
  const ProcessResult ir = run_process(
      {kiln_binary(), "ir", (coverage_dir() / "gru_tagger" / "model.onnx").string()}, 60.0);
  ASSERT_EQ(ir.exit_code, 0) << ir.err;
  const auto gru = ir.out.find("= GRU(");
  ASSERT_NE(gru, std::string::npos) << ir.out;
  const std::string line = ir.out.substr(gru, ir.out.find('\n', gru) - gru);
  EXPECT_NE(line.find("linear_before_reset=true"), std::string::npos) << line;
}

TEST(CoverageTable, NamesExistingModels) {
  const std::vector<std::string> models = coverage_models();
  for (const NoHlsLayerYet& row : kNoHlsLayerYet)
    EXPECT_NE(std::find(models.begin(), models.end(), row.model), models.end()) << row.model;
}

INSTANTIATE_TEST_SUITE_P(Models, Coverage, ::testing::ValuesIn(coverage_models()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kiln::testing

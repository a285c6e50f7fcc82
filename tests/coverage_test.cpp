// The models users bring that the seed zoo does not hold (models/coverage/,
// scripts/gen_coverage.py): each matches PyTorch's outputs in the golden
// interpreter, and compiles in io_parallel, io_stream and io_stream with
// encoded convolutions into projects whose C simulation is bit-exact with
// kiln's emulator.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

fs::path coverage_dir() {
  return source_dir() / "models" / "coverage";
}

class Coverage : public ::testing::TestWithParam<std::string> {};

TEST_P(Coverage, MatchesPyTorchAndSimulatesBitExact) {
  const fs::path dir = coverage_dir() / GetParam();
  const ProcessResult golden = run_process({kiln_binary(), "test-onnx", dir.string()}, 120.0);
  EXPECT_EQ(golden.exit_code, 0) << golden.out << golden.err;
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
    EXPECT_LT(j["float_reference"].value("max_abs_error", 1.0), 0.05) << s.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, Coverage, ::testing::ValuesIn(model_names(coverage_dir())),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kiln::testing

// QONNX models (models/qonnx/, scripts/gen_qonnx.py): Quant, BipolarQuant and
// Trunc with the MatMul/Gemm/Conv layers around them. The golden interpreter
// matches the script's numpy implementation of QONNX's operator semantics, and
// the HLS flow refuses them for now: exit 3, one line naming the quantizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

fs::path qonnx_dir() {
  return source_dir() / "models" / "qonnx";
}

int lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

class Qonnx : public ::testing::TestWithParam<std::string> {};

TEST_P(Qonnx, MatchesTheNumpyReference) {
  const fs::path dir = qonnx_dir() / GetParam();
  const ProcessResult r = run_process({kiln_binary(), "test-onnx", dir.string()}, 120.0);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_P(Qonnx, CompileRefusesTheQuantizerForNow) {
  const fs::path dir = qonnx_dir() / GetParam();
  TempDir tmp;
  const fs::path prj = tmp.path() / "prj";
  const ProcessResult r = run_process(
      {kiln_binary(), "compile", (dir / "model.onnx").string(), "-o", prj.string()}, 120.0);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  // The first node is the input's Quant.
  EXPECT_CONTAINS(r.err, "op Quant has no HLS layer");
  EXPECT_CONTAINS(r.err, "set the precisions in the config");
  EXPECT_FALSE(fs::exists(prj));
}

INSTANTIATE_TEST_SUITE_P(Models, Qonnx, ::testing::ValuesIn(model_names(qonnx_dir())),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kiln::testing

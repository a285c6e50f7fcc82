// QONNX models (models/qonnx/, scripts/gen_qonnx.py): Quant, BipolarQuant and
// Trunc with the MatMul/Gemm/Conv layers around them. The golden interpreter
// matches the script's numpy implementation of QONNX's operator semantics. The
// HLS flow maps Quant, BipolarQuant and opset-2 Trunc (power-of-two scales)
// to exact formats: those models C-simulate to exactly their own outputs in
// both IO types; an opset-1 Trunc is refused (exit 3, one line naming it).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

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

// Models with a quantizer the HLS flow has no exact layer for, and the
// refusal's words: opset 1's Trunc keeps the input scale (a division).
struct Refused {
  std::string_view model;
  std::string_view message;
  std::string_view hint;
};
constexpr Refused kRefused[] = {{"mlp4", "a QONNX opset 1 Trunc", "export with QONNX opset 2"}};

const Refused* refused(const std::string& model) {
  for (const Refused& r : kRefused)
    if (r.model == model) return &r;
  return nullptr;
}

TEST_P(Qonnx, CompilesToItsOwnOutputsOrIsRefused) {
  const fs::path dir = qonnx_dir() / GetParam();
  TempDir tmp;
  if (const Refused* why = refused(GetParam())) {
    const fs::path prj = tmp.path() / "prj";
    const ProcessResult r = run_process(
        {kiln_binary(), "compile", (dir / "model.onnx").string(), "-o", prj.string()}, 120.0);
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_CONTAINS(r.err, std::string(why->message));
    EXPECT_CONTAINS(r.err, std::string(why->hint));
    EXPECT_FALSE(fs::exists(prj));
    return;
  }
  for (const std::string io : {"io_parallel", "io_stream"}) {
    const fs::path prj = tmp.path() / io;
    const ProcessResult c = run_process({kiln_binary(), "compile", (dir / "model.onnx").string(),
                                         "-o", prj.string(), "--set", "IOType=" + io},
                                        300.0);
    ASSERT_EQ(c.exit_code, 0) << io << ": " << c.err;
    const ProcessResult s = run_process(
        {kiln_binary(), "csim", prj.string(), "--samples", "20", "--werror", "--json"}, 600.0);
    ASSERT_EQ(s.exit_code, 0) << io << ": " << s.out << s.err;
    const nlohmann::json j = stdout_json(s);
    EXPECT_EQ(j.value("bit_exact_samples", -1), 20) << io << ": " << s.out;
    EXPECT_EQ(j["float_reference"].value("max_abs_error", 1.0), 0.0) << io << ": " << s.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, Qonnx, ::testing::ValuesIn(model_names(qonnx_dir())),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kiln::testing

// The Loop IR interpreter against the emulator: every zoo and coverage model
// lowered and run on random inputs must give the emulator's raw outputs and
// the same quantization events per layer.
#include "kiln/loop/interpret.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

#include "kiln/hls/build_model.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/prepare.h"
#include "kiln/loop/loop_text.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/sink_nests.h"
#include "kiln/loop/testing/emulator_match.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::loop {
namespace {

namespace fs = std::filesystem;

// Lowers `m`, checks the text round trip, and compares two random samples.
// Programs above this many operations (superwide) run in the
// large tier: `ctest -L large` sets KILN_LARGE=1.
constexpr int64_t kDefaultTierOps = 500'000'000;

void expect_matches_emulator(const hls::Model& m, const std::string& label) {
  const Program p = lower_model(m);
  int64_t ops = 0;
  for (const Kernel& k : p.kernels) ops += dynamic_ops(k);
  if (ops > kDefaultTierOps && std::getenv("KILN_LARGE") == nullptr)
    GTEST_SKIP() << label << ": " << ops << " operations; runs in the large tier (ctest -L large)";
  const std::string text = print_program(p);
  EXPECT_EQ(print_program(parse_program(text, label + ".loop")), text) << label;
  testing::expect_interpreter_matches(m, p, label);
}

hls::Model model_of(const fs::path& onnx) {
  const hls::PreparedGraph g = hls::prepare_graph(onnx, {});
  return hls::build_model(g.passed, hls::Config{}, nullptr);
}

class ZooModel : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooModel, InterpreterMatchesEmulator) {
  const fs::path dir = kiln::testing::source_dir() / "models";
  const std::string name = GetParam();
  const fs::path onnx = dir / name / "model.onnx";
  hls::Model m;
  try {
    m = model_of(onnx);
  } catch (const Error& e) {
    GTEST_SKIP() << "not an HLS model: " << e.message();
  }
  try {
    expect_matches_emulator(m, name);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unsupported) throw;
    GTEST_SKIP() << e.message();
  }
}

// Lowers zoo/coverage model `name`, rewrites every kernel with `rewrite`
// (which says whether it changed it), and compares the result with the
// emulator: the text round trip and one sample. Skips models that are not
// HLS models or have no lowering, when nothing changed (`what` says what
// was looked for), and programs for the large tier.
void expect_rewritten_matches_emulator(
    const std::string& name, const std::string& what,
    const std::function<bool(Program&, const hls::Model&, int)>& rewrite) {
  const fs::path onnx = kiln::testing::source_dir() / "models" / name / "model.onnx";
  hls::Model m;
  try {
    m = model_of(onnx);
  } catch (const Error& e) {
    GTEST_SKIP() << "not an HLS model: " << e.message();
  }
  Program p;
  try {
    p = lower_model(m);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unsupported) throw;
    GTEST_SKIP() << e.message();
  }
  int64_t ops = 0;
  int changed = 0;
  for (std::size_t k = 0; k < p.kernels.size(); ++k) {
    ops += dynamic_ops(p.kernels[k]);
    changed += rewrite(p, m, static_cast<int>(k)) ? 1 : 0;
  }
  if (changed == 0) GTEST_SKIP() << "no " << what;
  if (ops > kDefaultTierOps && std::getenv("KILN_LARGE") == nullptr)
    GTEST_SKIP() << ops << " operations; runs in the large tier (ctest -L large)";
  const std::string text = print_program(p);
  EXPECT_EQ(print_program(parse_program(text, name + ".loop")), text);
  testing::expect_interpreter_matches(m, p, name, 1, 1, false);
}

// The same with every stride-1 convolution in its line-buffered form
// (lower_line_buffer.cpp): one iteration per padded input pixel, a window of
// registers, the rows above in line buffers.
TEST_P(ZooModel, LineBufferedConvolutionsMatchEmulator) {
  expect_rewritten_matches_emulator(GetParam(), "convolution of stride 1",
                                    [](Program& p, const hls::Model& m, int k) {
                                      if (!can_line_buffer(p, m, k)) return false;
                                      line_buffer(p, m, k);
                                      return true;
                                    });
}

// The same with every kernel's nests made perfect (sink_nests.h): the
// statements around each pixel's loops under first- and last-iteration
// guards, the padding tests and the loads moved inward.
TEST_P(ZooModel, SunkNestsMatchEmulator) {
  expect_rewritten_matches_emulator(
      GetParam(), "nest to sink",
      [](Program& p, const hls::Model&, int k) { return sink_nests(p, k) > 0; });
}

INSTANTIATE_TEST_SUITE_P(Models, ZooModel,
                         ::testing::ValuesIn(kiln::testing::zoo_and_coverage_models()),
                         kiln::testing::ModelParamName());

}  // namespace
}  // namespace kiln::loop

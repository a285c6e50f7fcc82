// The Loop IR interpreter against the emulator: every zoo and coverage model
// lowered and run on random inputs must give the emulator's raw outputs and
// the same quantization events per layer.
#include "kiln/loop/interpret.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "kiln/hls/build_model.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/prepare.h"
#include "kiln/loop/loop_text.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::loop {
namespace {

namespace fs = std::filesystem;

// Random inputs over about twice each input type's range, so saturation and
// wrap-around show up.
std::vector<std::vector<double>> random_inputs(const hls::Model& m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<double>> in;
  for (int t : m.inputs) {
    const hls::TensorInfo& info = m.tensors.at(static_cast<std::size_t>(t));
    const double span = std::max(std::abs(info.type.max_value()), std::abs(info.type.min_value()));
    std::uniform_real_distribution<double> d(-span, span);
    std::vector<double> v(static_cast<std::size_t>(info.numel()));
    for (double& x : v) x = d(rng) * (rng() % 4 == 0 ? 2.0 : 0.5);
    in.push_back(std::move(v));
  }
  return in;
}

// The quantized inputs, as the Input layers make them.
std::vector<std::vector<int64_t>> raw_inputs(const hls::Model& m,
                                             const std::vector<std::vector<double>>& in) {
  std::vector<std::vector<int64_t>> raw;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const FixedType& t = m.tensors.at(static_cast<std::size_t>(m.inputs[k])).type;
    std::vector<int64_t> r;
    for (double v : in[k]) r.push_back(numeric::quantize(v, t));
    raw.push_back(std::move(r));
  }
  return raw;
}

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
  for (uint32_t seed = 1; seed <= 2; ++seed) {
    const auto in = random_inputs(m, seed);
    const hls::EmulationResult e = hls::emulate(m, in);
    const InterpretResult r = interpret(p, raw_inputs(m, in));
    ASSERT_EQ(r.outputs.size(), e.outputs.size()) << label;
    for (std::size_t o = 0; o < e.outputs.size(); ++o) {
      ASSERT_EQ(r.outputs[o].raw.size(), e.outputs[o].raw.size()) << label;
      for (std::size_t i = 0; i < e.outputs[o].raw.size(); ++i)
        ASSERT_EQ(r.outputs[o].raw[i], e.outputs[o].raw[i])
            << label << " seed " << seed << " output " << o << " element " << i;
    }
    // Kernels are named after their layers; each layer's events must agree.
    for (std::size_t k = 0; k < p.kernels.size(); ++k)
      for (std::size_t li = 0; li < m.layers.size(); ++li)
        if (m.layers[li].name == p.kernels[k].name) {
          EXPECT_EQ(r.per_kernel[k].wrapped, e.per_layer[li].wrapped)
              << label << " " << m.layers[li].name;
          EXPECT_EQ(r.per_kernel[k].saturated, e.per_layer[li].saturated)
              << label << " " << m.layers[li].name;
        }
  }
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

std::vector<std::string> models() {
  std::vector<std::string> names;
  for (const char* sub : {"zoo", "coverage"})
    for (const std::string& n :
         kiln::testing::model_names(kiln::testing::source_dir() / "models" / sub))
      names.push_back(std::string(sub) + "/" + n);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Models, ZooModel, ::testing::ValuesIn(models()), [](const auto& info) {
  std::string s = info.param;
  for (char& c : s)
    if (c == '/') c = '_';
  return s;
});

}  // namespace
}  // namespace kiln::loop

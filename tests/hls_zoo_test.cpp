// The HLS flow on the seed model zoo, through the CLI as a user runs it:
// every small model compiles in both IO types (convolutional models in
// io_stream with both convolution implementations), its C simulation is
// bit-exact with kiln's emulator. Top-1 agreement under profiled precisions is
// in hls_top1_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "kiln/onnx/import.h"
#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string model;
  std::string io;    // io_parallel | io_stream
  std::string impl;  // LineBuffer | Encoded
  std::string label() const {
    std::string s = model + "_" + io;
    if (io == "io_stream") s += "_" + impl;
    return s;
  }
};

// gtest prints parameters; a readable one names the failing case.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.label();
}

// Whether the model has a convolution (the one layer with an encoded
// implementation), read from the model itself.
bool has_conv(const std::string& model) {
  const Graph g = onnx_import::import_model(zoo_model(model));
  return std::any_of(g.nodes().begin(), g.nodes().end(),
                     [](const Node& n) { return n.kind == OpKind::Conv; });
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string& m : zoo_models()) {
    out.push_back({m, "io_parallel", "LineBuffer"});
    out.push_back({m, "io_stream", "LineBuffer"});
    if (has_conv(m)) out.push_back({m, "io_stream", "Encoded"});
  }
  return out;
}

fs::path model_path(const std::string& m) {
  return zoo_model(m);
}

class HlsZoo : public ::testing::TestWithParam<Case> {};

TEST_P(HlsZoo, CompilesAndSimulatesBitExact) {
  const Case& c = GetParam();
  TempDir tmp;
  const fs::path prj = tmp.path() / c.label();
  const ProcessResult comp =
      run_process({kiln_binary(), "compile", model_path(c.model).string(), "-o", prj.string(),
                   "--set", "IOType=" + c.io, "--set", "Model.ConvImplementation=" + c.impl},
                  300.0);
  ASSERT_EQ(comp.exit_code, 0) << comp.out << comp.err;
  ASSERT_TRUE(fs::exists(prj / "report.json"));

  // Two samples per project keep the 64 projects inside the suite's budget.
  const ProcessResult sim = run_process(
      {kiln_binary(), "csim", prj.string(), "--samples", "2", "--werror", "--json"}, 600.0);
  EXPECT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  const nlohmann::json j = stdout_json(sim);
  EXPECT_EQ(j.value("samples", -1), 2) << sim.out;
  EXPECT_EQ(j.value("bit_exact_samples", -1), 2) << sim.out;
}

INSTANTIATE_TEST_SUITE_P(Zoo, HlsZoo, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.label(); });

}  // namespace
}  // namespace kiln::testing
const int samples = 2;

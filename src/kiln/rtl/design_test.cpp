// Designs of the small zoo models: Verilator lint clean, and bit-exact with
// the emulator in simulation (Icarus here; kiln rtlsim runs both).
#include "kiln/rtl/design.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "kiln/hls/build_model.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/prepare.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {
namespace {

namespace fs = std::filesystem;

hls::Model zoo_model(const std::string& name) {
  const fs::path onnx = kiln::testing::source_dir() / "models" / "zoo" / name / "model.onnx";
  const hls::PreparedGraph g = hls::prepare_graph(onnx, {});
  hls::Model m = hls::build_model(g.passed, hls::Config{}, nullptr);
  m.name = name;
  return m;
}

std::vector<fs::path> write_files(const Design& d, const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& [name, text] : d.files) {
    std::ofstream(dir / name) << text;
    files.push_back(dir / name);
  }
  return files;
}

std::string hex_of(int64_t raw, int width) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
  std::ostringstream s;
  s << std::hex << (static_cast<uint64_t>(raw) & mask);
  return s.str();
}

// Simulates `samples` random samples and checks every output against the emulator.
void expect_bit_exact(const hls::Model& m, const Design& d, tools::Simulator sim, int samples) {
  kiln::testing::TempDir dir;
  std::vector<fs::path> files = write_files(d, dir.path());
  std::ofstream(dir / "tb.sv") << testbench_verilog(d, samples);
  files.push_back(dir / "tb.sv");
  std::mt19937 rng(11);
  std::vector<std::vector<int64_t>> expected;  // per sample, all outputs' elements
  std::vector<std::ofstream> in_files;
  for (const Port& p : d.inputs) in_files.emplace_back(dir / ("in_" + p.name + ".hex"));
  for (int s = 0; s < samples; ++s) {
    std::vector<std::vector<double>> in;
    for (int t : m.inputs) {
      const hls::TensorInfo& info = m.tensors.at(static_cast<std::size_t>(t));
      const double span =
          std::max(std::abs(info.type.max_value()), std::abs(info.type.min_value()));
      std::uniform_real_distribution<double> u(-span, span);
      std::vector<double> v(static_cast<std::size_t>(info.numel()));
      for (double& x : v) x = u(rng) * 0.6;
      in.push_back(std::move(v));
    }
    for (std::size_t k = 0; k < in.size(); ++k) {
      const numeric::FixedType& t = m.tensors.at(static_cast<std::size_t>(m.inputs[k])).type;
      for (double v : in[k])
        in_files[k] << hex_of(numeric::quantize(v, t), d.inputs[k].type.width) << "\n";
    }
    const hls::EmulationResult e = hls::emulate(m, in);
    std::vector<int64_t> all;
    for (const hls::FixedTensor& t : e.outputs) all.insert(all.end(), t.raw.begin(), t.raw.end());
    expected.push_back(std::move(all));
  }
  for (auto& f : in_files) f.close();
  std::ofstream(dir / "samples.hex") << std::hex << samples << "\n";
  const tools::SimResult r = tools::simulate(sim, files, "tb", dir.path());
  ASSERT_TRUE(r.ok) << r.error << "\n" << r.build_log << r.err;
  std::istringstream lines(r.out);
  std::string tag;
  int outs = 0;
  std::string line;
  std::vector<int> out_offset;  // element offset of each output in `expected`
  int off = 0;
  for (const Port& p : d.outputs) {
    out_offset.push_back(off);
    off += static_cast<int>(p.numel);
  }
  bool done = false;
  while (std::getline(lines, line)) {
    std::istringstream l(line);
    l >> tag;
    if (tag == "DONE") done = true;
    if (tag == "OUT") ++outs;
    if (tag != "Y") continue;
    int s, o;
    int64_t e;
    std::string h;
    l >> s >> o >> e >> h;
    const Port& p = d.outputs.at(static_cast<std::size_t>(o));
    const int64_t want =
        expected.at(static_cast<std::size_t>(s)).at(static_cast<std::size_t>(out_offset[o] + e));
    ASSERT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << line;
    ASSERT_EQ(std::stoull(h, nullptr, 16), std::stoull(hex_of(want, p.type.width), nullptr, 16))
        << m.name << ": sample " << s << " output " << o << " element " << e;
  }
  EXPECT_TRUE(done) << r.out.substr(0, 2000);
  EXPECT_EQ(outs, samples);
}

class ZooDesign : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooDesign, LintsCleanAndSimulatesBitExactInIcarus) {
  const hls::Model m = zoo_model(GetParam());
  const Design d = build_design(m, {});
  kiln::testing::TempDir dir;
  const auto files = write_files(d, dir.path());
  const tools::LintResult lint = tools::lint_verilog(files, d.top);
  ASSERT_TRUE(lint.ok) << lint.error << "\n" << lint.log.substr(0, 3000);
  expect_bit_exact(m, d, tools::Simulator::Icarus, 3);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooDesign,
                         ::testing::Values("vecmul_a", "vecmul_b", "dense_a", "softmax_a",
                                           "softmax_b", "conv2d_a", "maxpool_a", "maxpool_b",
                                           "thxprlsg", "batch_norm_2d"));
// dense_b (4,096 multiplies) and conv2d_b (34,596) take minutes in the
// simulators: the slow tier runs them through kiln rtlsim (tests/).

}  // namespace
}  // namespace kiln::rtl

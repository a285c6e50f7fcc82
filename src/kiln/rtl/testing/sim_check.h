// Test helpers (include only from *_test.cpp): a design written out, simulated
// on random samples and every output compared with the emulator's.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/hls/build_model.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/prepare.h"
#include "kiln/rtl/design.h"
#include "kiln/rtl/netlist_sim.h"
#include "kiln/rtl/testbench.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl::testing {

namespace fs = std::filesystem;

// A zoo model (models/zoo/<name>) with kiln's default config.
inline hls::Model zoo_model(const std::string& name) {
  const fs::path onnx = kiln::testing::source_dir() / "models" / "zoo" / name / "model.onnx";
  const hls::PreparedGraph g = hls::prepare_graph(onnx, {});
  hls::Model m = hls::build_model(g.passed, hls::Config{}, nullptr);
  m.name = name;
  return m;
}

inline std::vector<fs::path> write_files(const Design& d, const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& [name, text] : d.files) {
    std::ofstream(dir / name) << text;
    files.push_back(dir / name);
  }
  return files;
}

inline std::string hex_of(int64_t raw, int width) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
  std::ostringstream s;
  s << std::hex << (static_cast<uint64_t>(raw) & mask);
  return s.str();
}

// Simulates `samples` random samples (in Verilator, Icarus or kiln's netlist
// interpreter) and checks every output against the emulator, and every
// sample's latency and interval against the design's.
inline void expect_bit_exact(const hls::Model& m, const Design& d, tools::Simulator sim,
                             int samples, double scale = 0.6, uint32_t seed = 11) {
  kiln::testing::TempDir dir;
  std::mt19937 rng(seed);
  std::vector<std::vector<int64_t>> expected;  // per sample, all outputs' elements
  std::vector<std::vector<std::vector<int64_t>>> raw;  // [sample][input][element]
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
      for (double& x : v) x = u(rng) * scale;
      in.push_back(std::move(v));
    }
    raw.emplace_back();
    for (std::size_t k = 0; k < in.size(); ++k) {
      const numeric::FixedType& t = m.tensors.at(static_cast<std::size_t>(m.inputs[k])).type;
      raw.back().emplace_back();
      for (double v : in[k]) {
        raw.back().back().push_back(numeric::quantize(v, t));
        in_files[k] << hex_of(raw.back().back().back(), d.inputs[k].type.width) << "\n";
      }
    }
    const hls::EmulationResult e = hls::emulate(m, in);
    std::vector<int64_t> all;
    for (const hls::FixedTensor& t : e.outputs) all.insert(all.end(), t.raw.begin(), t.raw.end());
    expected.push_back(std::move(all));
  }
  for (auto& f : in_files) f.close();
  std::string out;
  if (sim == tools::Simulator::Kiln) {
    out = simulate_netlist(d.netlist, d.inputs, d.outputs, raw, d.interval_cycles,
                           d.latency_cycles, 600)
              .out;
  } else {
    std::vector<fs::path> files = write_files(d, dir.path());
    std::ofstream(dir / "tb.sv") << testbench_verilog(d, samples);
    files.push_back(dir / "tb.sv");
    std::ofstream(dir / "samples.hex") << std::hex << samples << "\n";
    const tools::SimResult r = tools::simulate(sim, files, "tb", dir.path());
    ASSERT_TRUE(r.ok) << r.error << "\n" << r.build_log << r.err;
    out = r.out;
  }
  std::istringstream lines(out);
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
  std::map<int, int> in_cycle, out_cycle;  // sample -> cycle
  while (std::getline(lines, line)) {
    std::istringstream l(line);
    l >> tag;
    if (tag == "DONE") done = true;
    if (tag == "IN" || tag == "OUT") {
      int s, cycle;
      l >> s >> cycle;
      (tag == "IN" ? in_cycle : out_cycle)[s] = cycle;
      if (tag == "OUT") {
        ++outs;
        EXPECT_EQ(cycle - in_cycle[s], d.latency_cycles) << "sample " << s << ": latency";
      }
      if (tag == "IN" && in_cycle.count(s - 1)) {
        EXPECT_GE(cycle - in_cycle[s - 1], d.interval_cycles) << "sample " << s << ": interval";
      }
    }
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
  EXPECT_TRUE(done) << out.substr(0, 2000);
  EXPECT_EQ(outs, samples);
}

}  // namespace kiln::rtl::testing

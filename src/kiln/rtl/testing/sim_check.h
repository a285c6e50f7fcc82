// Test helpers (include only from *_test.cpp): a design written out, simulated
// on random samples and every output compared with the emulator's.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/hls/build_model.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/prepare.h"
#include "kiln/rtl/dir/netlist_sim.h"
#include "kiln/rtl/dir/testbench.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/rtl/testing/random_designs.h"
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

// The raw outputs (each port's elements in order, all ports concatenated,
// sign-extended by each port's type) kiln's netlist interpreter gives for
// `stimulus[sample][input][element]`, one vector per sample.
inline std::vector<std::vector<int64_t>> netlist_outputs(const Design& d,
                                                         const Stimulus& stimulus) {
  const std::string out = simulate_netlist(d.netlist, d.inputs, d.outputs, stimulus,
                                           d.interval_cycles, d.latency_cycles, 600)
                              .out;
  std::vector<int> offset;
  int total = 0;
  for (const Port& p : d.outputs) {
    offset.push_back(total);
    total += static_cast<int>(p.numel);
  }
  std::vector<std::vector<int64_t>> got(stimulus.size(), std::vector<int64_t>(total, 0));
  std::istringstream lines(out);
  std::string line, tag;
  while (std::getline(lines, line)) {
    std::istringstream l(line);
    l >> tag;
    if (tag != "Y") continue;
    int s = 0, o = 0;
    int64_t e = 0;
    std::string h;
    l >> s >> o >> e >> h;
    const loop::ScalarType& t = d.outputs.at(static_cast<std::size_t>(o)).type;
    uint64_t bits = std::stoull(h, nullptr, 16);
    if (t.is_signed && t.width < 64 && (bits >> (t.width - 1)) & 1) bits |= ~uint64_t{0} << t.width;
    got.at(static_cast<std::size_t>(s)).at(static_cast<std::size_t>(offset[o] + e)) =
        static_cast<int64_t>(bits);
  }
  return got;
}

// The emulator's raw outputs for the same stimulus (inputs of at most 53 bits:
// their doubles are exact).
inline std::vector<std::vector<int64_t>> emulator_outputs(const hls::Model& m,
                                                          const Stimulus& stimulus) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& sample : stimulus) {
    std::vector<std::vector<double>> in;
    for (std::size_t k = 0; k < sample.size(); ++k) {
      const numeric::FixedType& t = m.tensors.at(static_cast<std::size_t>(m.inputs[k])).type;
      in.emplace_back();
      for (int64_t raw : sample[k]) in.back().push_back(numeric::to_double(raw, t));
    }
    const hls::EmulationResult e = hls::emulate(m, in);
    out.emplace_back();
    for (const hls::FixedTensor& t : e.outputs)
      out.back().insert(out.back().end(), t.raw.begin(), t.raw.end());
  }
  return out;
}

// Simulates the samples of `raw` (in Verilator, Icarus or kiln's netlist
// interpreter) and checks every output against the emulator, and every
// sample's latency and interval against the design's.
inline void expect_bit_exact(const hls::Model& m, const Design& d, tools::Simulator sim,
                             const Stimulus& raw) {
  const int samples = static_cast<int>(raw.size());
  const std::vector<std::vector<int64_t>> expected = emulator_outputs(m, raw);
  std::optional<kiln::testing::TempDir> dir_;  // the outside simulators' files
  if (sim != tools::Simulator::Kiln) {
    const fs::path dir = dir_.emplace().path();
    std::vector<std::ofstream> in_files;
    for (const Port& p : d.inputs) in_files.emplace_back(dir / ("in_" + p.name + ".hex"));
    for (const auto& sample : raw)
      for (std::size_t k = 0; k < sample.size(); ++k)
        for (int64_t v : sample[k]) in_files[k] << hex_of(v, d.inputs[k].type.width) << "\n";
  }
  std::string out;
  if (sim == tools::Simulator::Kiln) {
    out = simulate_netlist(d.netlist, d.inputs, d.outputs, raw, d.interval_cycles, d.latency_cycles,
                           600)
              .out;
  } else {
    const fs::path dir = dir_->path();
    std::vector<fs::path> files = write_files(d, dir);
    std::ofstream(dir / "tb.sv") << testbench_verilog(d, samples);
    files.push_back(dir / "tb.sv");
    std::ofstream(dir / "samples.hex") << std::hex << samples << "\n";
    const tools::SimResult r = tools::simulate(sim, files, "tb", dir);
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

// The same on `samples` random samples (random_stimulus).
inline void expect_bit_exact(const hls::Model& m, const Design& d, tools::Simulator sim,
                             int samples, double scale = 0.6, uint32_t seed = 11) {
  expect_bit_exact(m, d, sim, random_stimulus(m, samples, scale, seed));
}

}  // namespace kiln::rtl::testing

#include "kiln/rtl/dir/rtlsim.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "kiln/hls/emulate/emulator.h"
#include "kiln/numeric/fixed.h"
#include "kiln/rtl/dir/design_dir.h"
#include "kiln/rtl/dir/netlist_sim.h"
#include "kiln/support/error.h"
#include "kiln/support/progress.h"

namespace kiln::rtl {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad_line(int line_no, const std::string& line, const std::string& what) {
  throw_error(ErrorKind::Internal, "testbench output line " + std::to_string(line_no),
              what + " in '" + line.substr(0, 80) + "'",
              "the testbench (tb.sv) and kiln disagree on the protocol; rewrite the design with "
              "`kiln rtl ... --force`");
}

std::optional<int64_t> to_int(const std::string& s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw_error(ErrorKind::Io, p.string(), "cannot write file", "check its permissions");
}

std::string hex_of(int64_t raw, int width) {
  uint64_t v = static_cast<uint64_t>(raw);
  if (width < 64) v &= (uint64_t{1} << width) - 1;
  return fmt::format("{:x}", v);
}

}  // namespace

// ---- parsing --------------------------------------------------------------------

std::optional<int64_t> raw_of_hex(std::string_view hex, const loop::ScalarType& type) {
  if (hex.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : hex) {
    const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                              : -1;
    if (d < 0) return std::nullopt;           // x, z, or not a number
    v = (v << 4) | static_cast<uint64_t>(d);  // digits above the port's width shift out
  }
  if (type.width < 64) {
    const uint64_t mask = (uint64_t{1} << type.width) - 1;
    v &= mask;
    if (type.is_signed && (v >> (type.width - 1)) != 0) v |= ~mask;
  }
  return static_cast<int64_t>(v);
}

SimTrace parse_sim_output(const std::string& text, const std::vector<Port>& outputs, int samples) {
  SimTrace t;
  t.samples.resize(static_cast<std::size_t>(samples));
  t.y.resize(static_cast<std::size_t>(samples));
  for (auto& per_sample : t.y) {
    per_sample.resize(outputs.size());
    for (std::size_t o = 0; o < outputs.size(); ++o)
      per_sample[o].resize(static_cast<std::size_t>(outputs[o].numel));
  }
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.empty()) continue;
    const std::string& key = w[0];
    if (key == "DONE" || key == "TIMEOUT") {
      if (w.size() != 1) bad_line(line_no, line, "extra words after " + key);
      (key == "DONE" ? t.done : t.timeout) = true;
      continue;
    }
    if (key == "TOO_MANY")
      bad_line(line_no, line, "the testbench holds fewer samples than it was given");
    if (key != "IN" && key != "OUT" && key != "Y") continue;  // the simulator's own lines
    const std::size_t expected_words = key == "Y" ? 5 : 3;
    if (w.size() != expected_words)
      bad_line(line_no, line,
               key + " needs " + std::to_string(expected_words - 1) + " fields, got " +
                   std::to_string(w.size() - 1));
    const std::optional<int64_t> sample = to_int(w[1]);
    if (!sample || *sample < 0 || *sample >= samples)
      bad_line(line_no, line, "sample '" + w[1] + "' is not in 0.." + std::to_string(samples - 1));
    const auto s = static_cast<std::size_t>(*sample);
    if (key == "IN" || key == "OUT") {
      const std::optional<int64_t> cycle = to_int(w[2]);
      if (!cycle || *cycle < 0) bad_line(line_no, line, "cycle '" + w[2] + "' is not a count");
      std::optional<int64_t>& slot = key == "IN" ? t.samples[s].in_cycle : t.samples[s].out_cycle;
      if (slot) bad_line(line_no, line, key + " of sample " + w[1] + " printed twice");
      slot = *cycle;
      continue;
    }
    // Y <sample> <output> <element> <hex>: the output by position or port name.
    std::optional<int64_t> o = to_int(w[2]);
    if (!o)
      for (std::size_t i = 0; i < outputs.size(); ++i)
        if (outputs[i].name == w[2]) o = static_cast<int64_t>(i);
    if (!o || *o < 0 || *o >= static_cast<int64_t>(outputs.size()))
      bad_line(line_no, line, "no output '" + w[2] + "'");
    const Port& port = outputs[static_cast<std::size_t>(*o)];
    const std::optional<int64_t> e = to_int(w[3]);
    if (!e || *e < 0 || *e >= port.numel)
      bad_line(line_no, line,
               "element '" + w[3] + "' of output " + port.name + " is not in 0.." +
                   std::to_string(port.numel - 1));
    std::string& slot = t.y[s][static_cast<std::size_t>(*o)][static_cast<std::size_t>(*e)];
    if (!slot.empty()) bad_line(line_no, line, "value printed twice");
    slot = w[4];
  }
  return t;
}

// ---- the verdict ----------------------------------------------------------------

std::string RtlMismatch::text() const {
  std::string rtl;
  if (rtl_hex.empty())
    rtl = "rtl printed no value";
  else if (!rtl_raw)
    rtl = "rtl value '" + rtl_hex + "' is undefined (x/z)";
  else
    rtl = fmt::format("rtl raw {} (hex {})", *rtl_raw, rtl_hex);
  return fmt::format("sample {}, output {}, element {}: {}, emulator raw {}", sample, output,
                     element, rtl, emulator_raw);
}

std::vector<std::vector<std::vector<double>>> output_values(const SimTrace& trace,
                                                            const std::vector<Port>& outputs) {
  std::vector<std::vector<std::vector<double>>> values(trace.y.size());
  for (std::size_t s = 0; s < trace.y.size(); ++s)
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const auto n = static_cast<std::size_t>(outputs[o].numel);
      std::vector<double> v(n, std::numeric_limits<double>::quiet_NaN());
      const std::vector<std::string>* printed = o < trace.y[s].size() ? &trace.y[s][o] : nullptr;
      for (std::size_t e = 0; printed && e < std::min(n, printed->size()); ++e)
        if (const std::optional<int64_t> raw = raw_of_hex((*printed)[e], outputs[o].type))
          v[e] = std::ldexp(static_cast<double>(*raw), -outputs[o].type.frac);
      values[s].push_back(std::move(v));
    }
  return values;
}

SimVerdict judge(const SimTrace& trace, const std::vector<Port>& outputs,
                 const std::vector<std::vector<std::vector<int64_t>>>& expected) {
  KILN_ASSERT(expected.size() == trace.samples.size() && trace.y.size() == expected.size(),
              "judge: the trace and the expected values differ in samples");
  SimVerdict v;
  v.samples = static_cast<int>(expected.size());
  int with_outputs = 0;
  for (std::size_t s = 0; s < expected.size(); ++s) {
    KILN_ASSERT(expected[s].size() == outputs.size(), "judge: outputs per sample");
    with_outputs += trace.samples[s].out_cycle.has_value();
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      KILN_ASSERT(static_cast<int64_t>(expected[s][o].size()) == outputs[o].numel,
                  "judge: elements of output " + outputs[o].name);
      for (std::size_t e = 0; e < expected[s][o].size(); ++e) {
        ++v.values;
        const std::string& hex = trace.y[s][o][e];
        const std::optional<int64_t> raw = raw_of_hex(hex, outputs[o].type);
        if (raw && *raw == expected[s][o][e]) continue;
        ++v.mismatched_values;
        if (v.mismatches.size() < kMaxReportedMismatches)
          v.mismatches.push_back({static_cast<int>(s), outputs[o].name, static_cast<int64_t>(e),
                                  hex, raw, expected[s][o][e]});
      }
    }
  }
  if (trace.timeout)
    v.failure = fmt::format("the testbench timed out (TIMEOUT) with {} of {} samples' outputs",
                            with_outputs, v.samples);
  else if (!trace.done)
    v.failure = "the simulation ended without the testbench's DONE";
  v.bit_exact = v.samples > 0 && v.mismatched_values == 0 && v.failure.empty();

  for (const SimSampleTiming& s : trace.samples)
    if (s.in_cycle && s.out_cycle) {
      const int64_t l = *s.out_cycle - *s.in_cycle;
      v.latency_cycles = std::max(v.latency_cycles.value_or(l), l);
      v.latency_min = std::min(v.latency_min.value_or(l), l);
    }
  for (std::size_t s = 1; s < trace.samples.size(); ++s)
    if (trace.samples[s - 1].in_cycle && trace.samples[s].in_cycle) {
      const int64_t i = *trace.samples[s].in_cycle - *trace.samples[s - 1].in_cycle;
      v.interval_cycles = std::max(v.interval_cycles.value_or(i), i);
      v.interval_min = std::min(v.interval_min.value_or(i), i);
    }
  return v;
}

// ---- the run --------------------------------------------------------------------

namespace {

// The verdict on a run's trace, and its timing against the schedule's.
RtlsimResult finish(RtlsimResult r, const SimTrace& trace,
                    const std::vector<std::vector<std::vector<int64_t>>>& expected,
                    const DesignDir& d) {
  r.verdict = judge(trace, d.outputs, expected);
  r.outputs = output_values(trace, d.outputs);
  if (r.repeated && r.outputs.size() > 1) r.outputs.resize(1);
  const SimVerdict& v = r.verdict;
  r.latency_agrees =
      v.latency_cycles && v.latency_uniform() && *v.latency_cycles == d.latency_cycles;
  // One sample has no interval to measure: nothing to disagree with.
  r.interval_agrees = !v.interval_cycles || *v.interval_cycles == d.interval_cycles;
  return r;
}

}  // namespace

RtlsimResult run_rtlsim(const fs::path& dir, const RtlsimOptions& options) {
  const DesignDir d = load_design_dir(dir);
  const hls::Model& m = d.model;
  std::vector<hls::Sample> samples = options.inputs;
  if (samples.empty()) {
    if (options.samples < 1) throw_error(ErrorKind::Usage, "--samples", "must be at least 1", "");
    if (options.samples > d.testbench_capacity)
      throw_error(ErrorKind::Usage, "--samples " + std::to_string(options.samples),
                  "more samples than the design's testbench holds (" +
                      std::to_string(d.testbench_capacity) + ")",
                  "simulate at most " + std::to_string(d.testbench_capacity) +
                      " per run; vary --seed for more");
    samples = hls::random_samples(m, options.samples, options.seed, -1.0, 1.0);
  }
  // One sample has no interval: it runs twice, back to back.
  const bool repeated = samples.size() == 1 && d.testbench_capacity >= 2;
  if (repeated) samples.push_back(samples.front());
  const fs::path tb = dir / kTestbenchFile;
  if (!fs::is_regular_file(tb))
    throw_error(ErrorKind::InvalidModel, tb.string(), "the design has no testbench",
                "rewrite the design with `kiln rtl MODEL -o DIR --force`");

  // The stimulus: each input quantized to its Input layer's result type, as
  // the emulator does; the expected outputs: the emulator's raw values.
  const std::size_t n = samples.size();
  std::vector<std::string> stimulus(d.inputs.size());
  // The same as raw values: [sample][input][element].
  std::vector<std::vector<std::vector<int64_t>>> raw(n);
  std::vector<std::vector<std::vector<int64_t>>> expected(n);
  for (std::size_t s = 0; s < n; ++s) {
    const hls::Sample& sample = samples[s];
    if (sample.size() != m.inputs.size())
      throw_error(ErrorKind::InvalidModel, "sample " + std::to_string(s),
                  std::to_string(sample.size()) + " inputs given, the model has " +
                      std::to_string(m.inputs.size()));
    raw[s].resize(d.inputs.size());
    for (std::size_t k = 0; k < d.inputs.size(); ++k) {
      const hls::TensorInfo& t = m.tensors.at(static_cast<std::size_t>(m.inputs[k]));
      const Port& port = d.inputs[k];
      if (static_cast<int64_t>(sample[k].size()) != t.numel() || port.numel != t.numel())
        throw_error(ErrorKind::InvalidModel, "input " + port.name,
                    std::to_string(sample[k].size()) + " values given, it has " +
                        std::to_string(port.numel));
      for (std::size_t i = 0; i < sample[k].size(); ++i) {
        if (std::isnan(sample[k][i]))
          throw_error(ErrorKind::InvalidModel, "input " + port.name,
                      "value " + std::to_string(i) + " is NaN");
        const int64_t q = numeric::quantize(sample[k][i], t.type);
        raw[s][k].push_back(q);
        stimulus[k] += hex_of(q, port.type.width) + "\n";
      }
    }
    const hls::EmulationResult e = hls::emulate(m, sample);
    for (std::size_t o = 0; o < d.outputs.size(); ++o) {
      KILN_ASSERT(static_cast<int64_t>(e.outputs.at(o).raw.size()) == d.outputs[o].numel,
                  "output " + d.outputs[o].name + ": the port and the model differ in size");
      expected[s].push_back(e.outputs[o].raw);
    }
  }

  RtlsimResult r;
  r.repeated = repeated;
  r.model = m.name;
  r.simulator = options.simulator;
  r.schedule_latency = d.latency_cycles;
  r.schedule_interval = d.interval_cycles;
  r.work_dir = fs::absolute(dir) / "sim" / tools::to_string(options.simulator);
  std::error_code ec;
  fs::create_directories(r.work_dir, ec);
  if (ec)
    throw_error(ErrorKind::Io, r.work_dir.string(), "cannot create the simulation directory",
                "check the design directory's permissions");
  write_text(r.work_dir / "samples.hex", fmt::format("{:x}\n", n));
  for (std::size_t k = 0; k < d.inputs.size(); ++k)
    write_text(r.work_dir / ("in_" + d.inputs[k].name + ".hex"), stimulus[k]);

  if (options.simulator == tools::Simulator::Kiln) {
    // kiln's own interpreter on the design's netlist: no build, no files.
    Progress progress("rtlsim " + d.model.name);
    progress.phase(fmt::format("simulating {} sample(s) in kiln's netlist interpreter", n));
    const auto t0 = std::chrono::steady_clock::now();
    const netlist::Design design = load_netlist(dir);
    const double load =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const NetlistSimRun sim = simulate_netlist(design, d.inputs, d.outputs, raw, d.interval_cycles,
                                               d.latency_cycles, options.timeout_seconds);
    r.build_seconds = load + sim.build_seconds;
    r.run_seconds = sim.run_seconds;
    write_text(r.work_dir / "sim.log", sim.out);
    if (sim.timed_out)
      throw_error(ErrorKind::Unsupported, r.work_dir.string(),
                  fmt::format("the netlist interpreter ran over {:.0f} s", options.timeout_seconds),
                  "raise --timeout or try --simulator verilator");
    return finish(r, parse_sim_output(sim.out, d.outputs, static_cast<int>(n)), expected, d);
  }
  const bool verilator = options.simulator == tools::Simulator::Verilator;
  const tools::ToolInfo tool = verilator ? tools::find_verilator() : tools::find_iverilog();
  if (!tool.found())
    throw_error(ErrorKind::Unsupported,
                std::string("kiln rtlsim --simulator ") + tools::to_string(options.simulator),
                std::string(verilator ? "verilator" : "iverilog (with vvp)") + " not found on PATH",
                std::string("install the Debian package ") +
                    (verilator ? "verilator" : "iverilog") + " (scripts/install-deps.sh)");
  std::vector<fs::path> files;
  for (const std::string& f : d.files) files.push_back(fs::absolute(dir / f));
  files.push_back(fs::absolute(tb));
  tools::SimOptions so;
  so.timeout_seconds = options.timeout_seconds;
  Progress progress("rtlsim " + d.model.name);
  progress.phase(fmt::format("building and simulating {} sample(s) with {}", samples.size(),
                             tools::to_string(options.simulator)));
  const tools::SimResult sim =
      tools::simulate(options.simulator, files, kTestbenchTop, r.work_dir, so);
  r.build_seconds = sim.build_seconds;
  r.run_seconds = sim.run_seconds;
  write_text(r.work_dir / "sim.log", sim.build_log + sim.out + sim.err);
  if (sim.timed_out)
    throw_error(ErrorKind::Unsupported, r.work_dir.string(), sim.error,
                fmt::format("the design is too large to simulate in {:.0f} s: raise --timeout or "
                            "try the other --simulator",
                            options.timeout_seconds));
  if (!sim.ok)
    throw_error(ErrorKind::Internal, r.work_dir.string(), sim.error,
                "the log is in " + (r.work_dir / "sim.log").string() +
                    "; please report this with the model");
  return finish(r, parse_sim_output(sim.out, d.outputs, static_cast<int>(n)), expected, d);
}

}  // namespace kiln::rtl

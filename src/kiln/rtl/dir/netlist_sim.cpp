#include "kiln/rtl/dir/netlist_sim.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "kiln/netlist/interpret.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

netlist::Bits packed(const std::vector<int64_t>& raw, int width) {
  netlist::Bits b(static_cast<int>(raw.size()) * width);
  for (std::size_t i = 0; i < raw.size(); ++i)
    for (int j = 0; j < width; ++j)
      b.set_bit(static_cast<int>(i) * width + j, ((static_cast<uint64_t>(raw[i]) >> j) & 1) != 0);
  return b;
}

// Bits [lsb, lsb + width) of b as minimal lowercase hex (tb.sv's %h, which
// raw_of_hex reads whatever its padding).
std::string hex_field(const netlist::Bits& b, int lsb, int width) {
  netlist::Bits f(width);
  for (int j = 0; j < width; ++j) f.set_bit(j, b.bit(lsb + j));
  return f.hex();
}

}  // namespace

NetlistSimRun simulate_netlist(const netlist::Design& design, const std::vector<Port>& inputs,
                               const std::vector<Port>& outputs,
                               const std::vector<std::vector<std::vector<int64_t>>>& stimulus,
                               int interval, int latency, double timeout_seconds) {
  NetlistSimRun run;
  const auto t0 = std::chrono::steady_clock::now();
  netlist::Interpreter sim(design);
  auto port = [&](const std::string& name) {
    const int p = sim.port(name);
    KILN_ASSERT(p >= 0, "the top has no port " + name);
    return p;
  };
  const int rst = port("rst"), in_valid = port("in_valid"), in_ready = port("in_ready"),
            out_valid = port("out_valid");
  std::vector<int> in_ports, out_ports;
  for (const Port& p : inputs) in_ports.push_back(port(p.name));
  for (const Port& p : outputs) out_ports.push_back(port(p.name));
  // Each sample's input vectors, assembled once: per beat (design.h Port),
  // per input; an input with fewer beats than another holds its first.
  const auto n = static_cast<int64_t>(stimulus.size());
  int64_t beats = 1;
  for (const Port& p : inputs) beats = std::max(beats, p.beats());
  std::vector<std::vector<std::vector<netlist::Bits>>> vectors(stimulus.size());
  for (std::size_t s = 0; s < stimulus.size(); ++s)
    for (int64_t j = 0; j < beats; ++j) {
      vectors[s].emplace_back();
      for (std::size_t k = 0; k < inputs.size(); ++k) {
        const std::vector<int64_t>& x = stimulus[s][k];
        const int64_t lanes = inputs[k].lanes_per_beat();
        const int64_t first = (j < inputs[k].beats() ? j : 0) * lanes;
        vectors[s].back().push_back(
            packed(std::vector<int64_t>(x.begin() + first, x.begin() + first + lanes),
                   inputs[k].type.width));
      }
    }
  run.build_seconds = seconds_since(t0);

  const auto t1 = std::chrono::steady_clock::now();
  const int64_t limit = n * (interval + 1) + latency + 100;  // tb.sv's TIMEOUT
  int64_t sent = 0, got = 0, beat = 0;  // beat: of the sample sent last, 0 between samples
  std::string& out = run.out;
  for (int64_t cycle = 0;; ++cycle) {
    // Reset for the first two edges; a sample offered whenever one is left,
    // its later beats in the cycles after the design takes it.
    const bool reset = cycle < 2;
    const bool valid = !reset && (sent < n || beat != 0);
    sim.set_input(rst, reset ? 1 : 0);
    sim.set_input(in_valid, valid ? 1 : 0);
    const int64_t sample = beat != 0 ? sent - 1 : (sent < n ? sent : 0);
    const std::vector<netlist::Bits>& v =
        vectors[static_cast<std::size_t>(sample)][static_cast<std::size_t>(beat)];
    for (std::size_t k = 0; k < in_ports.size(); ++k) sim.set_input(in_ports[k], v[k]);
    sim.settle();
    if (beat != 0) {
      beat = beat + 1 == beats ? 0 : beat + 1;
    } else if (valid && sim.output_word(in_ready) != 0) {
      out += fmt::format("IN {} {}\n", sent, cycle);
      ++sent;
      if (beats > 1) beat = 1;
    }
    if (sim.output_word(out_valid) != 0) {
      out += fmt::format("OUT {} {}\n", got, cycle);
      for (std::size_t k = 0; k < out_ports.size(); ++k) {
        const netlist::Bits y = sim.output(out_ports[k]);
        const int w = outputs[k].type.width;
        for (int64_t i = 0; i < outputs[k].numel; ++i)
          out +=
              fmt::format("Y {} {} {} {}\n", got, k, i, hex_field(y, static_cast<int>(i) * w, w));
      }
      if (++got == n) {
        out += "DONE\n";
        break;
      }
    }
    if (cycle > limit) {
      out += "TIMEOUT\n";
      break;
    }
    if ((cycle & 1023) == 0 && seconds_since(t1) > timeout_seconds) {
      run.timed_out = true;
      break;
    }
    sim.clock();
  }
  run.run_seconds = seconds_since(t1);
  return run;
}

}  // namespace kiln::rtl

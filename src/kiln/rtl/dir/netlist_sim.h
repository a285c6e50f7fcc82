// `kiln rtlsim --simulator kiln`: the design's netlist run by kiln's own
// interpreter (netlist/interpret.h) under the testbench's protocol
// (testbench.h): reset for two cycles, a sample driven whenever the top is
// ready, IN/OUT/Y lines printed as tb.sv prints them, DONE or TIMEOUT, so
// that rtlsim judges its output as it judges Verilator's and Icarus's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/netlist/netlist.h"
#include "kiln/rtl/lower/design.h"

namespace kiln::rtl {

struct NetlistSimRun {
  std::string out;  // the protocol's lines
  double build_seconds = 0, run_seconds = 0;
  bool timed_out = false;  // over `timeout_seconds` of wall time
};

// `stimulus[sample][input][element]`: the raw values each input port takes
// for each sample (the top's ports in `inputs` order). `interval` and
// `latency` bound the run as tb.sv's TIMEOUT does. The design must verify.
NetlistSimRun simulate_netlist(const netlist::Design& design, const std::vector<Port>& inputs,
                               const std::vector<Port>& outputs,
                               const std::vector<std::vector<std::vector<int64_t>>>& stimulus,
                               int interval, int latency, double timeout_seconds);

}  // namespace kiln::rtl

// The top module of a design as a netlist (private to rtl/): the stages as
// instances connected as the design's timing says (each started when what it
// reads is valid, values that skip stages delayed, channel banks by name),
// the valid chain that says when a sample's results are out, and the input
// spacing (a new sample every interval).
#pragma once

#include <vector>

#include "kiln/netlist/netlist.h"
#include "kiln/rtl/analysis/timing.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/rtl/stage/stage.h"

namespace kiln::rtl {

// The shortest register chain Yosys's xilinx_srl turns into a shift register
// (its -minlen default).
inline constexpr int kShiftRegisterMinDepth = 3;

// The most register bits the top's delay lines may take (RtlOptions).
inline constexpr int64_t kMaxTopDelayBits = int64_t{1} << 22;

// Sets the design's latency and the delay lines' cost (Design::top_report).
// Throws kiln::Error(Unsupported) naming the tensor that needs the most when
// the delay lines would take more than `max_delay_bits`, before building them.
netlist::Module top_module(Design& design, const loop::Program& program,
                           const std::vector<BuiltStage>& stages, const DesignTiming& timing,
                           int64_t max_delay_bits = kMaxTopDelayBits);

}  // namespace kiln::rtl

// The top module of a design as a netlist (private to rtl/): the stages as
// instances connected as the design's timing says (each started when what it
// reads is valid, values that skip stages delayed, channel banks by name),
// the valid chain that says when a sample's results are out, and the input
// spacing (a new sample every interval).
#pragma once

#include <vector>

#include "kiln/netlist/netlist.h"
#include "kiln/rtl/design.h"
#include "kiln/rtl/stage.h"
#include "kiln/rtl/timing.h"

namespace kiln::rtl {

// The shortest register chain Yosys's xilinx_srl turns into a shift register
// (its -minlen default).
inline constexpr int kShiftRegisterMinDepth = 3;

// Sets the design's latency and the delay lines' cost (Design::top_report).
netlist::Module top_module(Design& design, const loop::Program& program,
                           const std::vector<BuiltStage>& stages, const DesignTiming& timing);

}  // namespace kiln::rtl

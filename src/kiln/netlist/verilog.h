// The Verilog of a netlist design: one file per module, <module>.v, clean
// under `verilator --lint-only -Wall` and read by Icarus and Yosys.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kiln/netlist/netlist.h"

namespace kiln::netlist {

// (file name, text) per module, in the design's order. A module with
// registers, registered reads, memory writes or instances of such modules
// gets `input clk` as its first port.
std::vector<std::pair<std::string, std::string>> print_verilog(const Design& design);

}  // namespace kiln::netlist

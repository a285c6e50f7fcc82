// The Verilog of a netlist design: one file per module, <module>.v, clean
// under `verilator --lint-only -Wall` and read by Icarus and Yosys.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kiln/netlist/netlist.h"

namespace kiln::netlist {

struct VerilogOptions {
  // Compact: a value that only rewires bits (a concatenation, slice,
  // extension, shift by a constant) or is a constant has no name, its readers
  // read the runs of bits it is made of; a value one expression reads once
  // and in full is printed inside that expression. The module's names then
  // follow its shared values (a shared adder tree's sums), not its nodes.
  // False: one wire per value, named as in the netlist.
  bool compact = true;
};

// (file name, text) per module, in the design's order. A module with
// registers, registered reads, memory writes or instances of such modules
// gets `input clk` as its first port.
std::vector<std::pair<std::string, std::string>> print_verilog(const Design& design,
                                                               const VerilogOptions& options = {});

}  // namespace kiln::netlist

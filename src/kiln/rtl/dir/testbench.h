// The self-checking testbench of a design (tb.sv): the one Verilog text kiln
// writes by hand rather than from a netlist, since it is a simulator's
// program (it reads files, prints, stops), not hardware.
#pragma once

#include <string>

#include "kiln/rtl/lower/design.h"

namespace kiln::rtl {

// The testbench (module `tb`, file tb.sv) for up to `max_samples` samples.
// It reads, from the simulation's working directory, samples.hex (the sample
// count, one hex number) and in_<port>.hex per input (the raw values of every
// sample's elements, one per line, sample after sample), and drives a sample
// whenever the top is ready. It prints, one per line:
//   IN <sample> <cycle>            a sample accepted
//   OUT <sample> <cycle>           its results valid
//   Y <sample> <output> <element> <hex raw value>
//   DONE | TIMEOUT
// The netlist interpreter's rtlsim (rtlsim.h) drives the same protocol.
std::string testbench_verilog(const Design& design, int max_samples);

}  // namespace kiln::rtl

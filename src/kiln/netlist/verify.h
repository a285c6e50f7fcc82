// The netlist's invariants, checked independently of whoever built it.
#pragma once

#include "kiln/netlist/netlist.h"

namespace kiln::netlist {

// Throws kiln::Error(Internal) at "module M, value %v" (or the port, memory,
// instance) naming the first broken rule:
//  - widths: every value at least 1 bit; every operation's operands and
//    result as its row in ops.h says (slices inside their operand, keys of
//    the selector's width, a table's entries of its width, ...);
//  - references: every operand, driver and connection names a value of the
//    module; every table, memory, port and instance index is in range;
//  - one driver per wire: value and instance names unique and Verilog
//    identifiers (not a keyword, not `clk`); each output port driven exactly
//    once; each register driven (its d set); each input port of an
//    instance connected exactly once, to a value of the port's width, and
//    every instance output a port of the instantiated module of that width;
//  - hierarchy: the top and every instantiated module exist, modules come
//    before the modules that instantiate them (so there is no recursion);
//  - no combinational loop: no cycle through combinational operations,
//    latency-0 memory reads and the combinational input-to-output paths of
//    instances (registers and registered reads break cycles);
//  - memory ports: each read and write port of a memory used at most once,
//    at most as many as the memory declares, within what its kind and
//    storage give (a ROM has no write port and an initial content of at most
//    its depth; block RAM: registered reads and at most two ports in all;
//    distributed RAM: at most one write port), addresses wide enough for
//    the depth.
void verify(const Design& design);
void verify(const Module& module, const Design& design);

}  // namespace kiln::netlist

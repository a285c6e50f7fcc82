// What one dataflow-graph node costs in hardware, from the operator library
// (sched/operator_library.h): the unrolled stages and the pipelined loop
// bodies price their nodes the same way.
#pragma once

#include <cstdint>

#include "kiln/dfg/graph.h"
#include "kiln/sched/operator_library.h"

namespace kiln::rtl {

// An exact or modular sum or difference: an adder in hardware.
inline bool is_adder(dfg::NodeOp op) {
  return op == dfg::NodeOp::Add || op == dfg::NodeOp::Sub || op == dfg::NodeOp::AddMod ||
         op == dfg::NodeOp::SubMod;
}

// A product of two variables (a DSP multiplier), not one by a constant.
bool is_var_mul(const dfg::Graph& g, uint32_t n);
// The canonical signed digits of product-by-constant n's constant (its
// shift-and-add terms; one adder fewer than them).
int constant_digits(const dfg::Graph& g, uint32_t n);

// A product by a constant goes on a DSP slice, where the plan puts them there
// (LayerPlan::constants_on_dsps), when its constant has at least this many
// signed digits: fewer are one adder in LUTs, or none.
inline constexpr int kMinDigitsOnDsp = 3;
bool constant_on_dsp(const dfg::Graph& g, uint32_t n, bool constants_on_dsps);

// The low bits of sum or difference `n` that come from one operand as they
// are, the other's aligned bits being zero there (a + (b << s): the low s
// bits are a's): no carry chain over them. A difference passes only the
// minuend's.
int adder_pass_bits(const dfg::Graph& g, uint32_t n);

// What a Quantize does in hardware: rounding (bits dropped, a mode that
// rounds) and a range check (a saturating mode).
struct QuantizeWork {
  int drop = 0;  // fraction bits dropped (< 0: added)
  bool rounds = false;
  bool saturates = false;
};
QuantizeWork quantize_work(const dfg::Graph& g, uint32_t n);

// The bits a table index needs (at least 1).
int index_bits(int64_t size);

sched::OperatorCost sum(sched::OperatorCost a, const sched::OperatorCost& b);

// Node `n` in LUTs, carry chains and DSPs; Input, Const and Shl are free.
// A lookup's table is in LUTs (see block_rom_cost). Products of two
// variables are DSP multipliers, or LUTs with `fabric_multipliers` (a
// MultiplierLimit of 0); products by constants shifts and adds, or DSP
// multipliers with `constants_on_dsps` (constant_on_dsp).
sched::OperatorCost node_cost(const dfg::Graph& g, uint32_t n, fpga::Family family,
                              bool fabric_multipliers = false, bool constants_on_dsps = false);

// The LUTs of lookup `n`'s index clamp (part of its cost either way).
double lookup_clamp_luts(const dfg::Graph& g, uint32_t n, fpga::Family family);

// Lookup `n` with its table in block RAM and the index's clamp in LUTs.
sched::OperatorCost block_rom_cost(const dfg::Graph& g, uint32_t n, fpga::Family family);

}  // namespace kiln::rtl

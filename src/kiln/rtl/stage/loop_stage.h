// A layer with a kept loop (issue 10) as a netlist module with the interface
// of a one-sample-at-a-time stage (clk, rst, start, packed element ports):
//
//   cycle 0            start;
//   c(e) <= first - 1  element e it reads from other layers is latched into
//                      its buffer register: when the design delivers it (its
//                      producer has it), at the latest the cycle before the
//                      element's first read (StageOptions::time_inputs);
//   1 .. 1 + Lb        the statements before the loop (an unrolled stage);
//   L0 + k*II + t      operation t of iteration k of the loop's body, modulo
//                      scheduled (rtl/analysis/loop_schedule.h), a new iteration every
//                      II cycles, its index counted per pipeline stage;
//   A0 .. A0 + La      the statements after the loop (an unrolled stage);
//   latency            every element it writes is in its register.
//
// An element it hands on is valid from the cycle after its last write until
// the next sample's first write to it: the next layer may start before this
// one ends (dataflow), reading it from the register.
//
// Buffers the layer writes are registers (one vector per buffer) that the
// body reads and writes at addresses that move with the iteration; weights
// the body reads are ROMs, one per bank of the buffer's partition, read
// through the bank's two ports (the ports the schedule counted), so Yosys
// maps the large ones to block RAM. Before, body and after are modules of
// their own (stage.h), each with its own multiplier units.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/dfg/unroll.h"
#include "kiln/rtl/analysis/loop_schedule.h"
#include "kiln/rtl/stage/stage.h"

namespace kiln::rtl {

// The element each body read and write reaches in every iteration: -1 past
// the buffer's ends (a read that padding guards, its value never used) and
// in the iterations whose conditions it does not happen in (a predicated
// write, a read whose value is not used). It depends on the graph alone, so
// the Pricer keeps it with the loop's memories (layer_stage.h).
struct LoopElements {
  std::vector<std::vector<int64_t>> reads, writes;  // LoopBody::reads, writes order
};
LoopElements loop_elements(const dfg::LoopBody& body, const loop::Program& program);

// `pipelined`: iterations overlap at the schedule's II; otherwise one
// iteration at a time (the II raised to the iteration's depth). `elements`:
// loop_elements(split.body, program), made here when null. Throws
// kiln::Error(Unsupported) naming the loop for accesses the hardware cannot
// make yet (a weight read that the loop moves across banks).
BuiltStage build_loop_stage(const dfg::SplitKernel& split, const loop::Program& program,
                            const LoopSchedule& schedule, bool pipelined,
                            const StageOptions& options, const std::string& module_name,
                            const LoopElements* elements = nullptr);

}  // namespace kiln::rtl

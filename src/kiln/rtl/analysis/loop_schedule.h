// The modulo scheduling problem of a pipelined loop (issue 10): one
// iteration's graph (dfg::split_at_loop) with its memory ports as limited
// resources and its state and memory recurrences as dependences across
// iterations, solved by sched::schedule_modulo and checked by sched::verify.
//
// Operations are the graph's nodes except constants and state (registers);
// each port read and port write is an operation of its memory's type:
// - weights (Const buffers) are ROMs, one per bank: one buffer, or one part of
//   it under its Buffer.<name> partition; a bank has `ports_per_bank` ports
//   per cycle (block RAM and LUTRAM: two). A weight read whose partitioned
//   index the loop moves across banks takes a port of the buffer's shared
//   "any bank" type (an approximation; the Verilog refuses it);
// - buffers the layers write are registers in hardware, read through a
//   multiplexer each: no port limit; a local the body alone reads and writes
//   at moving elements may be a memory (memories.h), whose banks take one
//   write and one read each per cycle;
// - Storage=Registers or a complete partition: registers read in the cycle.
// Reads take one cycle (a registered read) except from registers; everything
// else takes the operator library's latency.
//
// Recurrences: a state element's register is loaded by an operation of
// latency 1 whose value feeds the element's readers one iteration later
// (distance 1), and its readers in an iteration come no later than that load
// (an order, sched::Dependence::order: in the load's own cycle the register
// still holds the old value, so a window of registers shifts at II 1). A
// port write and a port read of one buffer whose elements move alike (a*v +
// c_w, a*v + c_r) meet (c_w - c_r) / a iterations apart; when that is not a
// whole number they never meet. In a flattened nest, elements that move with
// the inner variable only come back every inner trip (a line buffer's
// columns, row after row), and the distances count that. Accesses moving
// differently are ordered conservatively (distance 1).
//
// With a clock (`clock_ns`), latency-0 operations chain within it as in the
// unrolled stages (sched::ProblemClass::Modulo with a clock).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kiln/dfg/unroll.h"
#include "kiln/fpga/family.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/sched/bounds.h"
#include "kiln/sched/problem.h"

namespace kiln::rtl {

struct LoopScheduleOptions {
  fpga::Family family = fpga::Family::UltraScalePlus;
  std::optional<int> multiplier_limit;  // DSP multipliers (products of two variables)
  bool constants_on_dsps = false;       // products by constants too (StageOptions)
  int ports_per_bank = 2;
  std::optional<int> ii;  // the II asked for (a Pipeline directive)
  double clock_ns = 0;    // operations chain within it; 0: no clock (free chaining)
  // Buffers the body reads and writes in memories (memories.h): each bank
  // one write and one registered read per cycle.
  std::set<int> memories;
};

struct LoopProblem {
  sched::Problem problem;
  std::vector<int> op_of_node;  // the graph node's operation, -1 if none
  std::vector<int> read_ops;    // LoopBody::reads order
  std::vector<int> write_ops;   // LoopBody::writes order
  // Per graph output, the operation that stores it: a port write, or the
  // load of a state element's register (latency 1).
  std::vector<int> output_ops;
};

// Throws kiln::Error(InvalidModel) for a multiplier limit of 0 with
// products to do.
LoopProblem loop_problem(const dfg::LoopBody& body, const loop::Program& program,
                         const LoopScheduleOptions& options);

struct LoopSchedule {
  LoopProblem lp;
  std::set<int> memories;    // as scheduled (LoopScheduleOptions::memories)
  sched::Solution solution;  // verified
  sched::ModuloBounds bounds;
  std::string why;     // sched::describe_ii: why the II is what it is
  int64_t cycles = 0;  // (trip - 1) x II + the iteration's depth
};

LoopSchedule schedule_loop(const dfg::LoopBody& body, const loop::Program& program,
                           const LoopScheduleOptions& options);

// What pipelining each top-level loop of a layer would give, for
// `kiln rtl --list-loops`: the loop's Unroll, Pipeline and Flatten directives, the
// layer's MultiplierLimit and the buffers' partitions as configured.
struct PipelineEstimate {
  std::string loop;  // "<kernel>/<var>"
  int64_t unroll = 1;
  int64_t iterations = 0;
  int ii = 0;          // 0 when refused
  int depth = 0;       // one iteration's schedule length
  int64_t cycles = 0;  // the loop alone: (iterations - 1) x II + depth
  std::string why;     // why the II is what it is, or why the loop cannot be kept
};

// Loops whose one iteration holds more than `max_body_ops` operations are
// reported as too large rather than scheduled.
inline constexpr int64_t kMaxPipelinedBodyOps = 20'000;
std::vector<PipelineEstimate> estimate_pipelines(const loop::Program& program,
                                                 const RtlOptions& options, fpga::Family family,
                                                 double clock_ns);

}  // namespace kiln::rtl

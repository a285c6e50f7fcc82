// The modulo scheduling problem of a pipelined loop (issue 10): one
// iteration's graph (dfg::split_at_loop) with its memory ports as limited
// resources and its state and memory recurrences as dependences across
// iterations, solved by sched::schedule_modulo and checked by sched::verify.
//
// Operations are the graph's nodes except constants and state (registers);
// each port read and port write is an operation of its memory bank's type.
// A bank is one buffer's memory, or one part of a partitioned buffer (the
// Buffer.<name> directives); it has `ports_per_bank` ports per cycle (block
// RAM and LUTRAM: two) unless its storage is registers. An access whose
// partitioned index moves with the loop in a way that does not fix its bank
// takes a port of the buffer's shared "any bank" type: an approximation until
// banks get their own address muxes. Reads take one cycle (a registered block
// RAM read); everything else takes the operator library's latency.
//
// Recurrences: a state element's value at an iteration's end feeds its
// readers one iteration later (distance 1), and its readers in an iteration
// precede that iteration's writer (distance 0: the register holds the old
// value until then). A port write and a port read of
// one buffer whose elements move alike (a*v + c_w, a*v + c_r) meet
// (c_w - c_r) / a iterations apart; when that is not a whole number they
// never meet; accesses moving differently are ordered conservatively
// (distance 1).
//
// Not yet: chaining within the clock (the modulo class chains latency-0
// operations freely), so the II is exact in resources and recurrences and
// the depth is a lower bound.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kiln/dfg/unroll.h"
#include "kiln/rtl/design.h"
#include "kiln/sched/bounds.h"
#include "kiln/sched/problem.h"
#include "kiln/tools/fpga_family.h"

namespace kiln::rtl {

struct LoopScheduleOptions {
  tools::FpgaFamily family = tools::FpgaFamily::UltraScalePlus;
  std::optional<int> multiplier_limit;  // DSP multipliers (products of two variables)
  int ports_per_bank = 2;
  std::optional<int> ii;  // the II asked for (a Pipeline directive)
};

struct LoopProblem {
  sched::Problem problem;
  std::vector<int> op_of_node;  // the graph node's operation, -1 if none
  std::vector<int> read_ops;    // LoopBody::reads order
  std::vector<int> write_ops;   // LoopBody::writes order
};

// Throws kiln::Error(InvalidModel) for a multiplier limit of 0 with
// products to do.
LoopProblem loop_problem(const dfg::LoopBody& body, const loop::Program& program,
                         const LoopScheduleOptions& options);

struct LoopSchedule {
  LoopProblem lp;
  sched::Solution solution;  // verified
  sched::ModuloBounds bounds;
  std::string why;     // sched::describe_ii: why the II is what it is
  int64_t cycles = 0;  // (trip - 1) x II + the iteration's depth
};

LoopSchedule schedule_loop(const dfg::LoopBody& body, const loop::Program& program,
                           const LoopScheduleOptions& options);

// What pipelining each top-level loop of a layer would give, for
// `kiln rtl --list-loops`: the loop's Unroll and Pipeline directives, the
// layer's MultiplierLimit and the buffers' partitions as configured.
struct PipelineEstimate {
  std::string loop;  // "<kernel>/<var>"
  int64_t unroll = 1;
  int64_t iterations = 0;
  int ii = 0;          // 0 when refused
  int depth = 0;       // one iteration's schedule length (a lower bound: no clock yet)
  int64_t cycles = 0;  // the loop alone: (iterations - 1) x II + depth
  std::string why;     // why the II is what it is, or why the loop cannot be kept
};

// Loops whose one iteration holds more than `max_body_ops` operations are
// reported as too large rather than scheduled.
inline constexpr int64_t kMaxPipelinedBodyOps = 20'000;
std::vector<PipelineEstimate> estimate_pipelines(const loop::Program& program,
                                                 const RtlOptions& options,
                                                 tools::FpgaFamily family);

}  // namespace kiln::rtl

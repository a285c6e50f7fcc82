// TargetCycles in kiln rtl (issue 10): a layer with an interval target
// (TargetCycles, or the II its ReuseFactor gives in kiln compile) and no Loop
// directive of its own is built the way that meets the target with the
// fewest resources kiln can find. The plans tried: fully unrolled, and each
// top-level loop kept and pipelined, unrolled by each factor of its trip
// count from the smallest up (the first that meets the target is the
// cheapest of that loop: more copies only cost more), flattened with the loop
// inside it when a perfect nest (that loop unrolled likewise), with the weights it
// reads in two-port ROM banks or in registers. Each plan is built (scheduled,
// bound, priced by the operator library) and its interval compared with the
// target; the cost is the share of the device it takes (LUT + FF + DSP +
// BRAM18 fractions), so one DSP weighs what 1/6,840 of a VU9P's DSPs do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kiln/fpga/devices.h"
#include "kiln/rtl/layer_plan.h"

namespace kiln::rtl {

struct PlanChoice {
  LayerPlan plan;
  int interval = 0;  // cycles between samples the layer takes
  int latency = 0;   // cycles from its start to its results
  double cost = 0;   // share of the device
  int tried = 0;     // plans built
  // Its products run on DSP multipliers (none by constants as shifts and adds).
  bool on_multipliers = false;
  std::string text;  // describe(): the plan in words
  std::string why;   // for the report
};

// The plans the search tries for kernel `kernel` that kiln can build, each
// built and measured: fully unrolled, and each top-level loop kept and
// pipelined, unrolled by each factor of its trip count from the smallest up
// to the first whose interval meets `target` and `more_factors` past it, and
// flattened when it is a perfect nest, its inner loop unrolled by the factors
// of its trip count the same way, with weights in banks or registers. With
// `line_buffered` (`program` with the kernel in its line-buffered form), the
// streaming form's pixel loop too, flattened and unrolled the same way.
std::vector<PlanChoice> layer_plans(const loop::Program& program, int kernel,
                                    const IntervalTarget& target, int more_factors,
                                    const RtlOptions& options, const StageOptions& stage,
                                    const dfg::UnrollOptions& unroll, const fpga::Device& device,
                                    const loop::Program* line_buffered = nullptr);

// The cheapest of `plans` whose interval meets `target`, its `why` filled in.
// Throws kiln::Error(InvalidModel) naming the layer when none does, with the
// closest plan and its interval.
PlanChoice cheapest_meeting(const loop::Program& program, int kernel, const IntervalTarget& target,
                            const std::vector<PlanChoice>& plans, const fpga::Device& device);

// layer_plans() then cheapest_meeting().
PlanChoice choose_plan(const loop::Program& program, int kernel, const IntervalTarget& target,
                       const RtlOptions& options, const StageOptions& stage,
                       const dfg::UnrollOptions& unroll, const fpga::Device& device,
                       const loop::Program* line_buffered = nullptr);

// A layer folded onto its multipliers (RtlOptions::fold): of the plans
// layer_plans() builds with no interval to meet, those whose products run on
// the layer's MultiplierLimit DSPs; the fastest, or the cheapest whose
// interval is within 5% of it. nullopt when no plan does (the layer is then
// built as it would be without: fully unrolled).
inline constexpr double kFoldSlack = 0.05;
std::optional<PlanChoice> fold_plan(const loop::Program& program, int kernel,
                                    const RtlOptions& options, const StageOptions& stage,
                                    const dfg::UnrollOptions& unroll, const fpga::Device& device);

// LatencyCycles (docs/config.md): one plan per layer from `layers` (the plans
// each may take), their latencies adding up to at most `latency_cycles`.
// Dataflow only shortens the design's latency below that sum, so the sum
// bounds it. Greedy: each layer's cheapest plan, then, while over, the
// upgrade saving the most cycles per share of the device added. Returns the
// index picked per layer, or empty when even the fastest plans are over.
std::vector<int> meet_latency(const std::vector<std::vector<PlanChoice>>& layers,
                              int64_t latency_cycles);

// Checks a pick independently: one valid plan per layer, within the sum.
bool verify_latency(const std::vector<std::vector<PlanChoice>>& layers,
                    const std::vector<int>& pick, int64_t latency_cycles);

// Weights (Const buffers) kernel `kernel` loads put in registers, except those
// the config's Buffer block names.
void keep_weights_in_registers(loop::Program& program, int kernel, const RtlOptions& options);

}  // namespace kiln::rtl

#include "kiln/rtl/layer_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "kiln/rtl/loop_schedule.h"
#include "kiln/rtl/loop_stage.h"
#include "kiln/rtl/memories.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

std::string describe(const loop::Program& program, int kernel, const LayerPlan& plan) {
  if (plan.loop < 0) return "fully unrolled";
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  std::string s = fmt::format("{}loop {}/{}", plan.line_buffered ? "line-buffered, " : "", k.name,
                              k.loops[static_cast<std::size_t>(plan.loop)].name);
  const int inner = plan.flatten ? dfg::perfect_inner_loop(k, plan.loop) : -1;
  if (inner >= 0) {
    s += fmt::format(" flattened with {}", k.loops[static_cast<std::size_t>(inner)].name);
    if (plan.unroll > 1) s += fmt::format(" unrolled by {}", plan.unroll);
  } else if (plan.unroll > 1) {
    s += fmt::format(" unrolled by {}", plan.unroll);
  }
  s += plan.pipelined ? ", pipelined" : ", not pipelined";
  if (plan.weights_in_registers) s += ", weights in registers";
  return s;
}

LayerPlan configured_plan(const loop::Program& program, int kernel, const RtlOptions& options) {
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  // The inner loops of flattened nests: their Unroll directive copies the
  // flattened body (neighbouring pixels), it does not keep them.
  std::vector<int> inner_of_flattened;
  for (std::size_t l = 0; l < k.loops.size(); ++l)
    if (k.loops[l].directives.flatten)
      inner_of_flattened.push_back(dfg::perfect_inner_loop(k, static_cast<int>(l)));
  LayerPlan plan;
  for (std::size_t l = 0; l < k.loops.size(); ++l) {
    const loop::Loop& lp = k.loops[l];
    const auto it = options.loops.find(k.name + "/" + lp.name);
    if (it == options.loops.end()) continue;
    if (std::find(inner_of_flattened.begin(), inner_of_flattened.end(), static_cast<int>(l)) !=
        inner_of_flattened.end())
      continue;
    const hls::LoopConfig& c = it->second;
    // Kept: pipelined, flattened, or unrolled by a factor short of the trip count.
    const bool keep = (c.pipeline_ii && *c.pipeline_ii > 0) || lp.directives.flatten ||
                      (c.unroll && *c.unroll != 0 && *c.unroll != lp.trip);
    if (!keep) continue;
    if (plan.loop >= 0)
      throw_error(ErrorKind::Unsupported, c.where,
                  fmt::format("layer '{}' keeps loop {} already; kiln rtl keeps one loop per "
                              "layer so far",
                              k.onnx_name, k.loops[static_cast<std::size_t>(plan.loop)].name),
                  "pipeline or partially unroll one top-level loop of the layer");
    plan.loop = static_cast<int>(l);
    plan.flatten = lp.directives.flatten;
    // The copies per iteration: the flattened inner loop's Unroll, or the
    // kept loop's own.
    const loop::Loop& copied =
        plan.flatten ? k.loops[static_cast<std::size_t>(dfg::perfect_inner_loop(k, plan.loop))]
                     : lp;
    plan.unroll = copied.directives.unroll == 0 ? copied.trip : copied.directives.unroll;
    plan.pipelined = lp.directives.pipeline_ii && *lp.directives.pipeline_ii > 0;
    if (plan.pipelined) plan.ii = lp.directives.pipeline_ii;
  }
  return plan;
}

BuiltStage build_layer_stage(const loop::Program& program, int kernel, const LayerPlan& plan,
                             const StageOptions& options, const dfg::UnrollOptions& unroll,
                             const std::string& module) {
  if (plan.loop < 0)
    return build_stage(dfg::unroll_kernel(program, kernel, unroll), program, options, module);
  const dfg::SplitKernel sk =
      dfg::split_at_loop(program, kernel, plan.loop, plan.unroll, plan.flatten);
  // The loop's memories may partition its locals (a copy of the program).
  loop::Program own = program;
  LoopScheduleOptions lo;
  lo.family = options.family;
  lo.multiplier_limit = options.multiplier_limit;
  lo.ii = plan.ii;
  lo.clock_ns = options.clock_ns;
  lo.memories = plan_memories(sk, own);
  const LoopSchedule ls = schedule_loop(sk.body, own, lo);
  return build_loop_stage(sk, own, ls, plan.pipelined, options, module);
}

}  // namespace kiln::rtl

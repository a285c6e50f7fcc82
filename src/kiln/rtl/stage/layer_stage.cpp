#include "kiln/rtl/stage/layer_stage.h"

#include "kiln/rtl/analysis/loop_schedule.h"
#include "kiln/rtl/analysis/memories.h"
#include "kiln/rtl/plan/stage_cache.h"
#include "kiln/rtl/stage/loop_stage.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

LayerGraph layer_graph(const loop::Program& program, int kernel, const LayerPlan& plan,
                       const dfg::UnrollOptions& unroll) {
  LayerGraph g;
  if (plan.loop < 0)
    g.unrolled = dfg::unroll_kernel(program, kernel, unroll);
  else
    g.split = dfg::split_at_loop(program, kernel, plan.loop, plan.unroll, plan.flatten);
  return g;
}

SharedSums share_layer_sums(LayerGraph& graph, const ShareOptions& options) {
  SharedSums all;
  const auto share = [&](dfg::Graph& g) { all += share_constant_sums(g, options); };
  if (graph.unrolled) share(graph.unrolled->graph);
  if (graph.split) {
    share(graph.split->before);
    share(graph.split->body.graph);
    share(graph.split->after);
  }
  return all;
}

LoopMemories loop_memories(const loop::Program& program, const dfg::SplitKernel& split) {
  LoopMemories m{program, {}, {}};
  m.memories = plan_memories(split, m.program);
  m.elements = loop_elements(split.body, m.program);
  return m;
}

BuiltStage build_layer_stage(const loop::Program& program, const LayerPlan& plan,
                             const LayerGraph& graph, const StageOptions& layer_options,
                             const std::string& module, const LoopMemories* memories) {
  StageOptions options = layer_options;
  options.constants_on_dsps = plan.constants_on_dsps;
  if (plan.multipliers) options.multiplier_limit = plan.multipliers;
  if (plan.loop < 0) {
    KILN_ASSERT(graph.unrolled.has_value(), "an unrolled plan without its graph");
    return build_stage(StageGraph::of(*graph.unrolled), program, options, module);
  }
  KILN_ASSERT(graph.split.has_value(), "a loop plan without its split");
  const dfg::SplitKernel& sk = *graph.split;
  // A cache keys on the memories (and their program): the caller's, which
  // live as long as it.
  KILN_ASSERT(!options.cache || memories, "a stage cache without the caller's loop memories");
  // The loop's memories may partition its locals (a copy of the program:
  // its weights are shared, not copied).
  std::optional<LoopMemories> own;
  if (!memories) memories = &own.emplace(loop_memories(program, sk));
  LoopScheduleOptions lo;
  lo.family = options.family;
  lo.multiplier_limit = options.multiplier_limit;
  lo.constants_on_dsps = options.constants_on_dsps;
  lo.ii = plan.pipeline_ii;
  lo.clock_ns = options.clock_ns;
  lo.memories = memories->memories;
  if (!options.cache || options.emit) {
    const LoopSchedule ls = schedule_loop(sk.body, memories->program, lo);
    return build_loop_stage(sk, memories->program, ls, plan.pipeline_ii.has_value(), options,
                            module, &memories->elements);
  }
  // The schedule depends on the body, its memories and these options only.
  const StageCache::ScheduleKey key{&sk.body,
                                    memories,
                                    lo.multiplier_limit.value_or(-1),
                                    static_cast<int>(lo.family),
                                    lo.ii.value_or(0),
                                    lo.clock_ns,
                                    lo.ports_per_bank,
                                    lo.constants_on_dsps};
  auto it = options.cache->schedules.find(key);
  if (it == options.cache->schedules.end())
    it = options.cache->schedules.emplace(key, schedule_loop(sk.body, memories->program, lo)).first;
  return build_loop_stage(sk, memories->program, it->second, plan.pipeline_ii.has_value(), options,
                          module, &memories->elements);
}

}  // namespace kiln::rtl

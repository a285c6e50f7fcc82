#include "kiln/rtl/design_plan.h"

#include <fmt/format.h>

#include <limits>
#include <map>

#include "kiln/loop/lower_layers.h"
#include "kiln/rtl/target_cycles.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

std::optional<int> multiplier_limit_of(const RtlOptions& o, const loop::Kernel& k) {
  for (const auto& [name, limit] : o.multiplier_limits)
    if (name == k.name) return limit;
  return std::nullopt;
}

namespace {

const IntervalTarget* target_of(const RtlOptions& o, const loop::Kernel& k) {
  for (const IntervalTarget& t : o.interval_targets)
    if (t.layer == k.name) return &t;
  return nullptr;
}

// Whether the config's Loop block names a loop of `k` (its plan is the user's).
bool configures_loops(const RtlOptions& o, const loop::Kernel& k) {
  for (const loop::Loop& l : k.loops)
    if (o.loops.count(k.name + "/" + l.name)) return true;
  return false;
}

// LatencyCycles: every layer's plans (the searched ones meeting their interval
// target; the others, their one plan, built to learn its latency), and the
// pick whose latencies add up to at most the bound (target_cycles.h).
// `program` with kernel `k` in its line-buffered form, for the search to try
// too: a convolution of stride 1 whose form the config leaves open.
std::optional<loop::Program> line_buffered_variant(const loop::Program& program,
                                                   const hls::Model& model,
                                                   const RtlOptions& options, int k) {
  const loop::Kernel& kernel = program.kernels[static_cast<std::size_t>(k)];
  if (options.line_buffer.count(kernel.name) || !loop::can_line_buffer(program, model, k))
    return std::nullopt;
  loop::Program v = program;
  loop::line_buffer(v, model, k);
  return v;
}

std::vector<std::optional<PlanChoice>> plans_for_latency(const loop::Program& program,
                                                         const hls::Model& model,
                                                         const RtlOptions& options, StageOptions so,
                                                         const dfg::UnrollOptions& uo,
                                                         const fpga::Device& device) {
  const int64_t bound = *options.latency_cycles;
  so.time_inputs = nullptr;  // no producers yet: each layer alone
  std::vector<std::vector<PlanChoice>> layers;
  std::vector<const IntervalTarget*> targets;
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const loop::Kernel& kernel = program.kernels[k];
    so.multiplier_limit = multiplier_limit_of(options, kernel);
    const IntervalTarget* target = target_of(options, kernel);
    if (target && configures_loops(options, kernel)) target = nullptr;
    targets.push_back(target);
    if (target) {
      std::vector<PlanChoice> meeting;
      const std::optional<loop::Program> lb =
          line_buffered_variant(program, model, options, static_cast<int>(k));
      const std::vector<PlanChoice> all = layer_plans(program, static_cast<int>(k), *target, 3,
                                                      options, so, uo, device, lb ? &*lb : nullptr);
      for (const PlanChoice& c : all)
        if (c.interval <= target->cycles) meeting.push_back(c);
      if (meeting.empty()) cheapest_meeting(program, static_cast<int>(k), *target, all, device);
      layers.push_back(std::move(meeting));
      continue;
    }
    // A layer folded onto its multipliers keeps that plan (built again below).
    if (options.fold.count(kernel.name) && !configures_loops(options, kernel))
      if (std::optional<PlanChoice> c =
              fold_plan(program, static_cast<int>(k), options, so, uo, device)) {
        layers.push_back({std::move(*c)});
        continue;
      }
    const LayerPlan plan = configured_plan(program, static_cast<int>(k), options);
    const BuiltStage b = build_layer_stage(program, static_cast<int>(k), plan, so, uo, "latency");
    PlanChoice only;
    only.plan = plan;
    only.interval = b.report.interval_cycles;
    only.latency = b.report.latency_cycles;
    only.tried = 1;
    only.text = describe(program, static_cast<int>(k), plan);
    layers.push_back({only});
  }
  const std::vector<int> pick = meet_latency(layers, bound);
  if (pick.empty()) {
    int64_t fastest = 0;
    for (const auto& plans : layers) {
      int best = std::numeric_limits<int>::max();
      for (const PlanChoice& c : plans) best = std::min(best, c.latency);
      fastest += best;
    }
    throw_error(ErrorKind::InvalidModel, "LatencyCycles",
                fmt::format("cannot meet {}: the fastest plans kiln tried for each layer add up "
                            "to {} cycles",
                            bound, fastest),
                "raise LatencyCycles, lower TargetCycles so that faster plans qualify, or set "
                "the slow layers' Loop directives yourself");
  }
  KILN_ASSERT(verify_latency(layers, pick, bound), "a latency pick over its bound");
  std::vector<std::optional<PlanChoice>> chosen(program.kernels.size());
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    if (!targets[k]) continue;
    PlanChoice c = layers[k][static_cast<std::size_t>(pick[k])];
    c.why = fmt::format(
        "{}, LatencyCycles {}: {}, {} cycles per sample, {} of latency, "
        "{:.2f}% of {} ({} plans tried)",
        targets[k]->source, bound, c.text, c.interval, c.latency, 100 * c.cost, device.name,
        c.tried);
    chosen[k] = std::move(c);
  }
  return chosen;
}

}  // namespace

std::vector<LayerChoice> plan_layers(loop::Program& program, const hls::Model& model,
                                     const RtlOptions& options, const StageOptions& stage,
                                     const dfg::UnrollOptions& uo, const fpga::Device& device) {
  StageOptions so = stage;
  so.time_inputs = nullptr;  // no producers: each layer alone
  std::vector<std::optional<PlanChoice>> for_latency(program.kernels.size());
  if (options.latency_cycles)
    for_latency = plans_for_latency(program, model, options, so, uo, device);
  std::vector<LayerChoice> plans;
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const loop::Kernel& kernel = program.kernels[k];
    so.multiplier_limit = multiplier_limit_of(options, kernel);
    LayerChoice choice{configured_plan(program, static_cast<int>(k), options), ""};
    const bool searched = !configures_loops(options, kernel);
    std::optional<PlanChoice> c;
    if (const IntervalTarget* target = target_of(options, kernel); target && searched) {
      c = for_latency[k];
      if (!c) {
        const std::optional<loop::Program> lb =
            line_buffered_variant(program, model, options, static_cast<int>(k));
        c = choose_plan(program, static_cast<int>(k), *target, options, so, uo, device,
                        lb ? &*lb : nullptr);
      }
    } else if (options.fold.count(kernel.name) && searched) {
      c = fold_plan(program, static_cast<int>(k), options, so, uo, device);
    }
    if (c) {
      choice = {c->plan, c->why};
      // (Replaces program.kernels[k]: `kernel` is not used below.)
      if (choice.plan.line_buffered) loop::line_buffer(program, model, static_cast<int>(k));
      if (choice.plan.weights_in_registers)
        keep_weights_in_registers(program, static_cast<int>(k), options);
    }
    plans.push_back(std::move(choice));
  }
  return plans;
}

std::vector<Channel> plan_channels(const loop::Program& program,
                                   const std::vector<LayerChoice>& plans) {
  // Who writes and who reads each storage buffer.
  std::map<int, std::vector<int>> writers, readers;
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const loop::Kernel& kernel = program.kernels[k];
    for (int b : kernel.writes) writers[program.storage_of(b)].push_back(static_cast<int>(k));
    for (int b : kernel.reads) readers[program.storage_of(b)].push_back(static_cast<int>(k));
  }
  std::map<int, dfg::SplitKernel> splits;
  auto split = [&](int k) -> const dfg::SplitKernel& {
    auto it = splits.find(k);
    if (it != splits.end()) return it->second;
    const LayerPlan& p = plans[static_cast<std::size_t>(k)].plan;
    return splits.emplace(k, dfg::split_at_loop(program, k, p.loop, p.unroll, p.flatten))
        .first->second;
  };
  std::vector<Channel> out;
  for (const auto& [b, w] : writers) {
    const auto r = readers.find(b);
    if (w.size() != 1 || r == readers.end() || r->second.size() != 1) continue;
    const int producer = w[0], consumer = r->second[0];
    if (producer == consumer || plans[static_cast<std::size_t>(producer)].plan.loop < 0 ||
        plans[static_cast<std::size_t>(consumer)].plan.loop < 0)
      continue;
    if (std::optional<Channel> c =
            plan_channel(program, b, producer, split(producer), consumer, split(consumer))) {
      verify_channel(program, *c, split(producer), split(consumer));
      out.push_back(std::move(*c));
    }
  }
  return out;
}

}  // namespace kiln::rtl

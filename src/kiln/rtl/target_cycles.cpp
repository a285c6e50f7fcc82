#include "kiln/rtl/target_cycles.h"

#include <fmt/format.h>

#include <limits>
#include <set>

#include "kiln/loop/directives.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {

void weights_loaded(const std::vector<loop::Stmt>& stmts, const loop::Kernel& k,
                    const loop::Program& p, std::set<int>& out) {
  for (const loop::Stmt& s : stmts) {
    if (s.kind == loop::StmtKind::Let) {
      const loop::Value& v = k.values[static_cast<std::size_t>(s.value)];
      if (v.op == loop::Op::Load &&
          p.buffers[static_cast<std::size_t>(p.storage_of(v.buffer))].role ==
              loop::BufferRole::Const)
        out.insert(v.buffer);
    }
    weights_loaded(s.body, k, p, out);
  }
}

double share(const StageReport& r, const fpga::Device& d) {
  return fpga::share(r, d.capacity);
}

}  // namespace

void keep_weights_in_registers(loop::Program& program, int kernel, const RtlOptions& options) {
  std::set<int> weights;
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  weights_loaded(k.body, k, program, weights);
  for (int b : weights) {
    loop::Buffer& buf = program.buffers[static_cast<std::size_t>(b)];
    if (options.buffers.count(buf.name)) continue;  // the config decides
    buf.directives.storage = loop::Storage::Registers;
  }
}

std::vector<PlanChoice> layer_plans(const loop::Program& program, int kernel,
                                    const IntervalTarget& target, int more_factors,
                                    const RtlOptions& options, const StageOptions& stage,
                                    const dfg::UnrollOptions& unroll, const fpga::Device& device,
                                    const loop::Program* line_buffered) {
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  std::vector<PlanChoice> built;
  loop::Program in_registers = program;
  keep_weights_in_registers(in_registers, kernel, options);
  // Builds `plan`; true if it meets the target.
  auto consider = [&](const LayerPlan& plan) {
    try {
      const loop::Program& p = plan.line_buffered          ? *line_buffered
                               : plan.weights_in_registers ? in_registers
                                                           : program;
      const BuiltStage b = build_layer_stage(p, kernel, plan, stage, unroll, "candidate");
      built.push_back({plan, b.report.interval_cycles, b.report.latency_cycles,
                       share(b.report, device), 0,
                       b.report.multipliers > 0 && b.report.const_multipliers == 0,
                       describe(p, kernel, plan), ""});
      return b.report.interval_cycles <= target.cycles;
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Internal) throw;
      return false;  // a plan kiln cannot build (too large, an access it refuses)
    }
  };
  consider({});
  for (const loop::Stmt& st : dfg::top_level(k)) {
    if (st.kind != loop::StmtKind::For) continue;
    const int l = st.loop;
    const int64_t trip = k.loops[static_cast<std::size_t>(l)].trip;
    if (trip < 2) continue;
    for (const bool registers : {false, true}) {
      // The first factor that meets the target is the cheapest of this loop
      // (more copies only cost more); `more_factors` after it are faster.
      int past = -1;
      for (const int64_t u : loop::unroll_factors(trip)) {
        if (u >= trip || past >= more_factors) break;
        if (consider({l, u, true, 1, registers}) || past >= 0) ++past;
      }
      // A perfect nest flattened: one iteration per pair of the two loops'
      // values, so the body is the inner loop's (a convolution's pixel), or
      // that many neighbouring ones when the inner loop is unrolled.
      if (const int inner = dfg::perfect_inner_loop(k, l); inner >= 0) {
        past = -1;
        for (const int64_t u :
             loop::unroll_factors(k.loops[static_cast<std::size_t>(inner)].trip)) {
          if (u >= k.loops[static_cast<std::size_t>(inner)].trip || past >= more_factors) break;
          if (consider({l, u, true, 1, registers, true}) || past >= 0) ++past;
        }
      }
    }
  }
  // The streaming form: its pixel loop flattened, that many input columns per
  // iteration (its weights are constants of the body).
  if (line_buffered) {
    const loop::Kernel& lk = line_buffered->kernels[static_cast<std::size_t>(kernel)];
    for (const loop::Stmt& st : dfg::top_level(lk)) {
      if (st.kind != loop::StmtKind::For) continue;
      const int inner = dfg::perfect_inner_loop(lk, st.loop);
      if (inner < 0) continue;
      const int64_t trip = lk.loops[static_cast<std::size_t>(inner)].trip;
      int past = -1;
      for (const int64_t u : loop::unroll_factors(trip)) {
        if (u >= trip || past >= more_factors) break;
        LayerPlan plan{st.loop, u, true, 1, false, true};
        plan.line_buffered = true;
        if (consider(plan) || past >= 0) ++past;
      }
    }
  }
  for (PlanChoice& c : built) c.tried = static_cast<int>(built.size());
  return built;
}

PlanChoice choose_plan(const loop::Program& program, int kernel, const IntervalTarget& target,
                       const RtlOptions& options, const StageOptions& stage,
                       const dfg::UnrollOptions& unroll, const fpga::Device& device,
                       const loop::Program* line_buffered) {
  const std::vector<PlanChoice> plans =
      layer_plans(program, kernel, target, 0, options, stage, unroll, device, line_buffered);
  return cheapest_meeting(program, kernel, target, plans, device);
}

PlanChoice cheapest_meeting(const loop::Program& program, int kernel, const IntervalTarget& target,
                            const std::vector<PlanChoice>& plans, const fpga::Device& device) {
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  const PlanChoice* best = nullptr;
  const PlanChoice* closest = nullptr;
  for (const PlanChoice& c : plans) {
    if (!closest || c.interval < closest->interval) closest = &c;
    if (c.interval <= target.cycles && (!best || c.cost < best->cost)) best = &c;
  }
  const int tried = static_cast<int>(plans.size());
  if (!best)
    throw_error(
        ErrorKind::InvalidModel, "layer '" + k.onnx_name + "'",
        !closest
            ? fmt::format("no way to build it met {} ({} plans tried)", target.source, tried)
            : fmt::format("cannot meet {}: the closest of {} plans, {}, takes {} cycles per sample",
                          target.source, tried, closest->text, closest->interval),
        "raise its TargetCycles (or ReuseFactor), or set its Loop directives yourself (kiln rtl "
        "--list-loops shows what each loop would give)");
  PlanChoice c = *best;
  c.why = fmt::format("{}: {}, {} cycles per sample, {:.2f}% of {} ({} plans tried)", target.source,
                      c.text, c.interval, 100 * c.cost, device.name, tried);
  return c;
}

std::optional<PlanChoice> fold_plan(const loop::Program& program, int kernel,
                                    const RtlOptions& options, const StageOptions& stage,
                                    const dfg::UnrollOptions& unroll, const fpga::Device& device) {
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  // No interval to meet: every factor is built.
  const IntervalTarget none{k.name, 0, "MultiplierLimit"};
  const std::vector<PlanChoice> plans =
      layer_plans(program, kernel, none, 0, options, stage, unroll, device);
  const PlanChoice* fastest = nullptr;
  for (const PlanChoice& c : plans)
    if (c.on_multipliers && (!fastest || c.interval < fastest->interval)) fastest = &c;
  if (!fastest) return std::nullopt;
  const PlanChoice* best = fastest;
  for (const PlanChoice& c : plans)
    if (c.on_multipliers && c.interval <= (1 + kFoldSlack) * fastest->interval &&
        c.cost < best->cost)
      best = &c;
  PlanChoice c = *best;
  int units = 0;
  for (const auto& [name, limit] : options.multiplier_limits)
    if (name == k.name) units = limit;
  const std::string which = best == fastest
                                ? "the fastest such plan"
                                : fmt::format(
                                      "the fastest such plan takes {}; this one is within {:.0f}% "
                                      "and cheaper",
                                      fastest->interval, 100 * kFoldSlack);
  c.why = fmt::format(
      "MultiplierLimit {}: folded onto its multipliers: {}, {} cycles per sample ({}), {:.2f}% "
      "of {} ({} plans tried)",
      units, c.text, c.interval, which, 100 * c.cost, device.name, static_cast<int>(plans.size()));
  return c;
}

std::vector<int> meet_latency(const std::vector<std::vector<PlanChoice>>& layers,
                              int64_t latency_cycles) {
  std::vector<int> pick(layers.size(), 0);
  int64_t total = 0;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    KILN_ASSERT(!layers[l].empty(), "a layer without a plan");
    for (std::size_t i = 1; i < layers[l].size(); ++i) {
      const PlanChoice &c = layers[l][i], &p = layers[l][static_cast<std::size_t>(pick[l])];
      if (c.cost < p.cost || (c.cost == p.cost && c.latency < p.latency))
        pick[l] = static_cast<int>(i);
    }
    total += layers[l][static_cast<std::size_t>(pick[l])].latency;
  }
  // Upgrade, while over, the layer whose faster plan saves the most cycles
  // per share of the device it adds (a faster plan that costs no more first).
  while (total > latency_cycles) {
    double best_ratio = -1;
    std::size_t best_l = 0;
    int best_i = -1;
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const PlanChoice& now = layers[l][static_cast<std::size_t>(pick[l])];
      for (std::size_t i = 0; i < layers[l].size(); ++i) {
        const PlanChoice& c = layers[l][i];
        if (c.latency >= now.latency) continue;
        const double added = c.cost - now.cost;
        const double ratio = added <= 0 ? std::numeric_limits<double>::infinity()
                                        : static_cast<double>(now.latency - c.latency) / added;
        if (ratio > best_ratio) {
          best_ratio = ratio;
          best_l = l;
          best_i = static_cast<int>(i);
        }
      }
    }
    if (best_i < 0) return {};  // every layer at its fastest plan
    total += layers[best_l][static_cast<std::size_t>(best_i)].latency -
             layers[best_l][static_cast<std::size_t>(pick[best_l])].latency;
    pick[best_l] = best_i;
  }
  return pick;
}

bool verify_latency(const std::vector<std::vector<PlanChoice>>& layers,
                    const std::vector<int>& pick, int64_t latency_cycles) {
  if (pick.size() != layers.size()) return false;
  int64_t total = 0;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    if (pick[l] < 0 || static_cast<std::size_t>(pick[l]) >= layers[l].size()) return false;
    total += layers[l][static_cast<std::size_t>(pick[l])].latency;
  }
  return total <= latency_cycles;
}

}  // namespace kiln::rtl

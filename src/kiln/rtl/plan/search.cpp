#include "kiln/rtl/plan/search.h"

#include <fmt/format.h>

#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "kiln/loop/directives.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/rtl/analysis/timing.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

double common_flip_flops(const std::vector<PlanChoice>& plans) {
  if (plans.empty()) return 0;
  double floor = std::numeric_limits<double>::infinity();
  for (const PlanChoice& p : plans) floor = std::min(floor, p.resources.ff);
  return floor;
}

std::vector<std::vector<PlanChoice>> over_common_flip_flops(
    std::vector<std::vector<PlanChoice>> layers, const fpga::Device& device) {
  for (std::vector<PlanChoice>& plans : layers) {
    const double floor = common_flip_flops(plans);
    for (PlanChoice& p : plans) {
      p.resources.ff -= floor;
      if (device.capacity.ff > 0) p.cost -= floor / device.capacity.ff;
    }
  }
  return layers;
}

namespace {

// ", 42 over 16x the parallelism it needs not priced, 3 with more
// iterations than the target not priced" (what layer_plans left out).
std::string not_priced(const PlanChoice& c, std::string_view needs) {
  std::string s;
  if (c.skipped)
    s +=
        fmt::format(", {} over {}x the parallelism {} not priced", c.skipped, kOverParallel, needs);
  if (c.slow) s += fmt::format(", {} with more iterations than the target not priced", c.slow);
  return s;
}

const IntervalTarget* target_of(const RtlOptions& o, const loop::Kernel& k) {
  for (const IntervalTarget& t : o.interval_targets)
    if (t.layer == k.name) return &t;
  return nullptr;
}

// Whether the config's Loop block names a loop of the layer: its plan is then
// the user's, never searched.
bool searched(const RtlOptions& o, const loop::Kernel& k) {
  return !o.configured_layers.count(k.name);
}

// The plan the config gives kernel `kernel`: its Loop blocks and, where set,
// its ConstantProducts.
LayerPlan configured(const Pricer& pricer, int kernel) {
  LayerPlan plan = configured_plan(pricer.program(), kernel);
  plan.constants_on_dsps = pricer.configured_constants(kernel).value_or(false);
  plan.least_depth = pricer.configured_least_depth(kernel).value_or(false);
  return plan;
}

PlanChoice choice_of(const loop::Kernel& kernel, const LayerPlan& plan, const PlanPrice& price) {
  PlanChoice c;
  c.plan = plan;
  c.interval = price.interval;
  c.latency = price.latency;
  c.cost = price.share;
  c.on_multipliers = price.on_multipliers;
  c.text = describe(kernel, plan);
  c.resources = price.stage.report;
  return c;
}

// The plans of one layer in the order the search walks them. `consider`
// looks at one and says whether it meets the target: the first factor of a
// loop that does is the cheapest of that loop's shape (more copies only cost
// more), and only `more_factors` after it are walked.
class Candidates {
 public:
  Candidates(Pricer& pricer, int kernel, int more_factors,
             std::function<bool(const LayerPlan&)> consider)
      : pricer_(pricer),
        kernel_(kernel),
        more_(more_factors),
        consider_(std::move(consider)),
        base_(pricer.program_for(kernel, {}).kernels[static_cast<std::size_t>(kernel)]),
        has_weights_(!weights_of(pricer.program(), kernel).empty()) {}

  void run() {
    consider({});
    walk_loops(base_, false);
    // The streaming form: its pixel loop flattened, that many input columns
    // per iteration (its weights are constants of the body).
    if (pricer_.may_line_buffer(kernel_)) {
      LayerPlan form;
      form.line_buffered = true;
      walk_loops(pricer_.program_for(kernel_, form).kernels[static_cast<std::size_t>(kernel_)],
                 true);
    }
  }

 private:
  // A plan with its products by constants and its adder depth where the config sets them.
  bool consider(const LayerPlan& plan) {
    LayerPlan p = plan;
    if (const std::optional<bool> dsps = pricer_.configured_constants(kernel_))
      p.constants_on_dsps = *dsps;
    if (const std::optional<bool> least = pricer_.configured_least_depth(kernel_))
      p.least_depth = *least;
    return consider_(p);
  }

  // Each factor of `trip` from the smallest up: the first that meets the
  // target is the cheapest of this shape (more copies only cost more);
  // `more_` after it are faster.
  // A plan `worth` refuses is not considered (Banked where nothing banks).
  void factors(int64_t trip, const std::function<LayerPlan(int64_t)>& plan_of,
               const std::function<bool(const LayerPlan&)>& worth) {
    // A loop of one iteration (a convolution's group loop) copies nothing:
    // its one plan keeps the nest to that depth.
    if (trip < 2) {
      if (const LayerPlan p = plan_of(1); worth(p)) consider(p);
      return;
    }
    int past = -1;
    for (const int64_t u : loop::unroll_factors(trip)) {
      if (u >= trip || past >= more_) break;
      const LayerPlan p = plan_of(u);
      if (!worth(p)) continue;
      if (consider(p) || past >= 0) ++past;
    }
  }

  void walk_loops(const loop::Kernel& k, bool line_buffered) {
    for (const loop::Stmt& st : dfg::top_level(k)) {
      if (st.kind != loop::StmtKind::For) continue;
      const int l = st.loop;
      const int64_t trip = k.loops[static_cast<std::size_t>(l)].trip;
      const std::vector<int> nest = dfg::perfect_nest(k, l);
      // The line-buffered form is only worth its pixel loop, flattened.
      if (line_buffered && nest.empty()) continue;
      if (!line_buffered && trip < 2) continue;
      for (const WeightPlace weights :
           {WeightPlace::Rom, WeightPlace::Banked, WeightPlace::Registers}) {
        // Nothing to place: the line-buffered form's weights are constants of
        // its body, and some layers read none.
        if (weights != WeightPlace::Rom && (line_buffered || !has_weights_)) continue;
        auto plan = [&](int64_t u, int flatten) {
          LayerPlan p;
          p.line_buffered = line_buffered;
          p.loop = l;
          p.unroll = u;
          p.pipeline_ii = 1;
          p.weights = weights;
          p.flatten = flatten;
          return p;
        };
        // Banked only where some weight has a dimension to bank by (with the
        // innermost kept loop unrolled, the one it indexes may be).
        auto worth = [&](const LayerPlan& p) {
          if (p.weights != WeightPlace::Banked) return true;
          const loop::Program& program = pricer_.program_for(kernel_, {});
          for (int b : weights_of(program, kernel_))
            if (banked_partition(program, kernel_, p, b)) return true;
          return false;
        };
        if (!line_buffered)
          factors(
              trip, [&](int64_t u) { return plan(u, 0); }, worth);
        // A perfect nest flattened to each depth: one iteration per value of
        // the kept loops, the body the innermost kept loop's (a
        // convolution's pixel; a window position of it; one input channel
        // of it), or that many of them when that loop is unrolled.
        for (std::size_t d = 0; d < nest.size(); ++d)
          factors(
              k.loops[static_cast<std::size_t>(nest[d])].trip,
              [&](int64_t u) { return plan(u, static_cast<int>(d) + 1); }, worth);
      }
    }
  }

  Pricer& pricer_;
  const int kernel_;
  const int more_;
  const std::function<bool(const LayerPlan&)> consider_;
  const loop::Kernel& base_;
  const bool has_weights_;
};

// LatencyCycles: every layer's plans (the searched ones meeting their
// interval target; the others their one plan), each priced alone.
struct LatencyCandidates {
  std::vector<std::vector<PlanChoice>> layers;
  std::vector<const IntervalTarget*> targets;  // null: the layer is not searched
};

LatencyCandidates latency_candidates(Pricer& pricer, const RtlOptions& options,
                                     const StageOptions& stage) {
  const loop::Program& program = pricer.program();
  const int64_t bound = *options.latency_cycles;
  LatencyCandidates out;
  std::vector<int64_t> ops;  // each layer's operations per sample
  for (const loop::Kernel& kernel : program.kernels) ops.push_back(loop::dynamic_ops(kernel));
  const int64_t model_ops = std::accumulate(ops.begin(), ops.end(), int64_t{0});
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const loop::Kernel& kernel = program.kernels[k];
    StageOptions so = stage;
    so.multiplier_limit = multiplier_limit_of(options, kernel);
    const PlanContext alone = [&so](const LayerPlan&) { return so; };
    const IntervalTarget* target = searched(options, kernel) ? target_of(options, kernel) : nullptr;
    out.targets.push_back(target);
    if (target) {
      std::vector<PlanChoice> meeting;
      std::string refused;
      const std::vector<PlanChoice> all =
          layer_plans(pricer, static_cast<int>(k), *target, 3, alone, Prune::OverParallel,
                      latency_share_cycles(bound, ops[k], model_ops), &refused);
      for (const PlanChoice& c : all)
        if (c.interval <= target->cycles) meeting.push_back(c);
      if (meeting.empty()) cheapest_meeting(kernel, *target, all, pricer.device(), refused);
      // A layer that reads a skip connection keeps a loop where it can.
      if (reads_a_skip(program, static_cast<int>(k)) &&
          std::any_of(meeting.begin(), meeting.end(),
                      [](const PlanChoice& c) { return c.plan.loop >= 0; }))
        std::erase_if(meeting, [](const PlanChoice& c) { return c.plan.loop < 0; });
      pricer.forget(static_cast<int>(k), {});
      out.layers.push_back(std::move(meeting));
      continue;
    }
    // A layer folded onto its multipliers keeps that plan.
    if (options.fold.count(kernel.name) && searched(options, kernel))
      if (std::optional<PlanChoice> c = fold_plan(pricer, static_cast<int>(k), options, alone)) {
        out.layers.push_back({std::move(*c)});
        continue;
      }
    const LayerPlan plan = configured(pricer, static_cast<int>(k));
    PlanPrice p = pricer.price(static_cast<int>(k), plan, so);
    if (!p.feasible)
      throw_error(ErrorKind::Unsupported, "layer '" + kernel.onnx_name + "'", p.reason);
    PlanChoice only = choice_of(kernel, plan, p);
    only.tried = 1;
    out.layers.push_back({only});
  }
  return out;
}

// The pick whose latencies add up to at most `budget` (the bound, or more
// where the layers overlap), balanced for the part; empty when even the
// fastest plans add up to more.
std::vector<int> pick_for_latency(const LatencyCandidates& c, int64_t budget,
                                  const fpga::Device& device) {
  const std::vector<std::vector<PlanChoice>> layers = over_common_flip_flops(c.layers, device);
  std::vector<int> pick = meet_latency(layers, budget);
  if (pick.empty()) return pick;
  pick = balance_for_part(layers, pick, budget, device.capacity);
  KILN_ASSERT(verify_latency(layers, pick, budget), "a latency pick over its budget");
  return pick;
}

// The picked plans with the search's reasons; `how(k)` says how layer k's
// was picked (" (the layers overlap: ...)").
std::vector<std::optional<PlanChoice>> chosen_for_latency(
    const LatencyCandidates& c, const std::vector<int>& pick, int64_t bound,
    const std::function<std::string(std::size_t)>& how, const fpga::Device& device) {
  std::vector<std::optional<PlanChoice>> chosen(c.layers.size());
  for (std::size_t k = 0; k < c.layers.size(); ++k) {
    if (!c.targets[k]) continue;
    PlanChoice p = c.layers[k][static_cast<std::size_t>(pick[k])];
    p.why = fmt::format(
        "{}, LatencyCycles {}{}: {}, {} cycles per sample, {} of latency, "
        "{:.2f}% of {} ({} plans tried{})",
        c.targets[k]->source, bound, how(k), p.text, p.interval, p.latency, 100 * p.cost,
        device.name, p.tried, not_priced(p, "its share of the bound needs"));
    chosen[k] = std::move(p);
  }
  return chosen;
}

// A pick for a budget on the latencies' sum.
std::vector<std::optional<PlanChoice>> chosen_for_latency(const LatencyCandidates& c,
                                                          const std::vector<int>& pick,
                                                          int64_t bound, int64_t budget,
                                                          const fpga::Device& device) {
  const std::string overlap =
      budget > bound
          ? fmt::format(" (the layers overlap: their latencies may add up to {})", budget)
          : "";
  return chosen_for_latency(
      c, pick, bound, [&](std::size_t) { return overlap; }, device);
}

[[noreturn]] void latency_unmet(const LatencyCandidates& c, int64_t bound) {
  int64_t fastest = 0;
  for (const auto& plans : c.layers) {
    int best = std::numeric_limits<int>::max();
    for (const PlanChoice& p : plans) best = std::min(best, p.latency);
    fastest += best;
  }
  throw_error(ErrorKind::InvalidModel, "LatencyCycles",
              fmt::format("cannot meet {}: the fastest plans kiln tried for each layer add up "
                          "to {} cycles",
                          bound, fastest),
              "raise LatencyCycles, lower TargetCycles so that faster plans qualify, or set "
              "the slow layers' Loop directives yourself");
}

// Who writes and who reads each storage buffer, by kernel.
struct Users {
  std::map<int, std::vector<int>> writers, readers;
  explicit Users(const loop::Program& program) {
    for (std::size_t k = 0; k < program.kernels.size(); ++k) {
      const loop::Kernel& kernel = program.kernels[k];
      for (int b : kernel.writes) writers[program.storage_of(b)].push_back(static_cast<int>(k));
      for (int b : kernel.reads) readers[program.storage_of(b)].push_back(static_cast<int>(k));
    }
  }
  // The one other kernel that writes `b`, which `k` reads, or -1.
  int only_producer(int b, int k) const {
    const auto w = writers.find(b);
    const auto r = readers.find(b);
    if (w == writers.end() || w->second.size() != 1 || r == readers.end() ||
        std::find(r->second.begin(), r->second.end(), k) == r->second.end() || w->second[0] == k)
      return -1;
    return w->second[0];
  }
};

}  // namespace

bool reads_a_skip(const loop::Program& program, int k) {
  const Users users(program);
  for (int read : program.kernels[static_cast<std::size_t>(k)].reads) {
    const auto w = users.writers.find(program.storage_of(read));
    if (w != users.writers.end() &&
        std::any_of(w->second.begin(), w->second.end(), [&](int j) { return j + 1 < k; }))
      return true;
  }
  return false;
}

bool moves_data(const loop::Kernel& kernel) {
  return std::all_of(kernel.values.begin(), kernel.values.end(), [](const loop::Value& v) {
    return v.op == loop::Op::Load || v.op == loop::Op::Const || v.op == loop::Op::Quantize ||
           v.op == loop::Op::Select;
  });
}

std::optional<int> multiplier_limit_of(const RtlOptions& o, const loop::Kernel& k) {
  for (const auto& [name, limit] : o.multiplier_limits)
    if (name == k.name) return limit;
  return std::nullopt;
}

int64_t latency_share_cycles(int64_t bound, int64_t layer_ops, int64_t model_ops) {
  if (model_ops <= 0) return std::max<int64_t>(1, bound);
  return std::max<int64_t>(
      1, static_cast<int64_t>(static_cast<double>(bound) * static_cast<double>(layer_ops) /
                              static_cast<double>(model_ops)));
}

bool over_parallel(int64_t layer_ops, int64_t unrolled_ops, int64_t target_cycles) {
  if (target_cycles < 1) return false;
  const int64_t needed = (layer_ops + target_cycles - 1) / target_cycles;
  return unrolled_ops > std::max(kAlwaysPriced, kOverParallel * needed);
}

std::vector<PlanChoice> layer_plans(Pricer& pricer, int kernel, const IntervalTarget& target,
                                    int more_factors, const PlanContext& context, Prune prune,
                                    int64_t prune_cycles, std::string* refused) {
  if (prune_cycles <= 0) prune_cycles = target.cycles;
  std::vector<PlanChoice> priced;
  int tried = 0, skipped = 0, slow = 0;
  std::map<bool, int64_t> ops;                      // the layer's operations per sample, per form
  std::vector<std::pair<int64_t, LayerPlan>> over;  // skipped as over-parallel: (ops, plan)
  // Prices `plan` and its variants into `priced`; whether one meets the target.
  int stage_refused = 0;  // plans whose stage could not be built (a schedule, a clock)
  const auto price = [&](const LayerPlan& plan) {
    pricer.trim();  // between plans: no graph held
    ++tried;
    // The variants below differ in where products go, not in the plan's form:
    // the same options (and channels) price them.
    const StageOptions options = context(plan);
    PlanPrice p = pricer.price(kernel, plan, options);
    if (!p.feasible) {  // a plan kiln cannot build (too large, an access it refuses)
      stage_refused += !p.graph_refused;
      if (refused && refused->empty())
        *refused =
            plan_text(pricer.program_for(kernel, plan).kernels[static_cast<std::size_t>(kernel)],
                      plan) +
            ": " + p.reason;
      return false;
    }
    bool meets = p.interval <= target.cycles;
    const loop::Kernel& k =
        pricer.program_for(kernel, plan).kernels[static_cast<std::size_t>(kernel)];
    // Its products by constants on DSP slices too, where the config leaves
    // that open and some would move (a small part's LUTs or its DSPs may be
    // what runs out: the pick weighs both).
    // (Shared sums took its products by constants apart: sharing rebuilt something.)
    const SharedSums* shared = pricer.shared_sums(kernel, plan);
    const bool variant = !plan.constants_on_dsps &&
                         (p.stage.report.const_multipliers > 0 || (shared && shared->roots > 0)) &&
                         !pricer.configured_constants(kernel);
    const double dsp = p.stage.report.dsp;
    // Few products of two variables on fewer DSPs too (one, or none: LUTs),
    // where the config sets no MultiplierLimit: on a small part the DSPs a
    // Softmax takes for its ten products may be what runs out.
    std::vector<int> fewer;
    if (const int64_t units = p.stage.report.multiplier_units;
        !plan.multipliers && units > 0 && units <= kFewMultipliers && !options.multiplier_limit) {
      if (units > 1) fewer.push_back(1);
      fewer.push_back(0);
    }
    const int latency = p.latency, interval = p.interval;
    priced.push_back(choice_of(k, plan, p));
    if (variant) {
      LayerPlan on_dsps = plan;
      on_dsps.constants_on_dsps = true;
      ++tried;
      PlanPrice d = pricer.price(kernel, on_dsps, options);
      if (d.feasible && d.stage.report.dsp > dsp) {
        meets = meets || d.interval <= target.cycles;
        priced.push_back(choice_of(k, on_dsps, d));
      }
    }
    // Its sums of products by constants at the least adder depth too, where
    // the lean build is deeper and the config leaves it open: fewer levels
    // of adders may take a cycle or more off, for some adders.
    if (!plan.constants_on_dsps && !plan.least_depth && !pricer.configured_least_depth(kernel)) {
      if (shared && shared->deeper > 0) {
        LayerPlan shallow = plan;
        shallow.least_depth = true;
        ++tried;
        PlanPrice d = pricer.price(kernel, shallow, options);
        if (d.feasible && (d.latency < latency || d.interval < interval)) {
          meets = meets || d.interval <= target.cycles;
          priced.push_back(choice_of(k, shallow, d));
        }
      }
    }
    for (const int n : fewer) {
      LayerPlan on_fewer = plan;
      on_fewer.multipliers = n;
      ++tried;
      PlanPrice f = pricer.price(kernel, on_fewer, options);
      if (f.feasible && f.stage.report.dsp < dsp) priced.push_back(choice_of(k, on_fewer, f));
    }
    return meets;
  };
  Candidates(pricer, kernel, more_factors, [&](const LayerPlan& plan) {
    const loop::Kernel& form =
        pricer.program_for(kernel, plan).kernels[static_cast<std::size_t>(kernel)];
    if (!ops.count(plan.line_buffered)) ops[plan.line_buffered] = loop::dynamic_ops(form);
    const int64_t unrolled = plan_unrolled_ops(form, plan);
    if (prune == Prune::OverParallel &&
        over_parallel(ops[plan.line_buffered], unrolled, prune_cycles)) {
      ++skipped;
      over.emplace_back(unrolled, plan);
      return false;
    }
    if (prune == Prune::OverParallel && target.cycles > 0 &&
        plan_iterations(form, plan) > target.cycles) {
      ++slow;
      return false;
    }
    return price(plan);
  }).run();
  // When no plan priced meets the target because the finer plans' graphs
  // cannot be made or they are too slow, those skipped as too parallel after
  // all, the least parallel first, until one meets it: a GRU's time loop is
  // 5,830 operations an iteration for a target of 2,000 cycles, and its
  // flattened plans read the state at fixed and at moving elements, which
  // kiln refuses. Not when a plan's stage could not be built (an operator
  // too slow for the clock fails the coarser plans too: model8 on a 7 ns
  // Series 7 is refused in seconds, not minutes).
  const auto meets = [&](const PlanChoice& c) { return c.interval <= target.cycles; };
  if (!over.empty() && stage_refused == 0 && std::none_of(priced.begin(), priced.end(), meets)) {
    std::stable_sort(over.begin(), over.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // Up to a budget of unrolled operations: each is a larger graph to
    // build and schedule.
    constexpr int64_t kFallbackOps = int64_t{1} << 18;
    int64_t spent = 0;
    for (const auto& [unrolled, plan] : over) {
      if (spent > 0 && spent + unrolled > kFallbackOps) break;
      spent += unrolled;
      --skipped;
      if (price(plan)) break;
    }
  }
  for (PlanChoice& c : priced) {
    c.tried = tried;
    c.skipped = skipped;
    c.slow = slow;
  }
  return priced;
}

std::vector<LayerPlan> candidate_plans(Pricer& pricer, int kernel) {
  std::vector<LayerPlan> plans;
  Candidates(pricer, kernel, 0, [&](const LayerPlan& plan) {
    plans.push_back(plan);
    return false;  // never met: every factor is walked
  }).run();
  return plans;
}

PlanChoice cheapest_meeting(const loop::Kernel& k, const IntervalTarget& target,
                            const std::vector<PlanChoice>& plans, const fpga::Device& device,
                            const std::string& refused) {
  const PlanChoice* best = nullptr;
  const PlanChoice* closest = nullptr;
  for (const PlanChoice& c : plans) {
    if (!closest || c.interval < closest->interval) closest = &c;
    if (c.interval <= target.cycles && (!best || c.cost < best->cost)) best = &c;
  }
  const int tried = plans.empty() ? 0 : plans.front().tried;
  if (!best)
    throw_error(
        ErrorKind::InvalidModel, "layer '" + k.onnx_name + "'",
        !closest && !refused.empty()
            ? fmt::format("none of the plans tried for {} can be built; the first: {}",
                          target.source, refused)
        : !closest
            ? fmt::format("no way to build it met {} ({} plans tried)", target.source, tried)
            : fmt::format("cannot meet {}: the closest of {} plans, {}, takes {} cycles per sample",
                          target.source, tried, closest->text, closest->interval),
        "raise its TargetCycles (or ReuseFactor), or set its Loop directives yourself (kiln rtl "
        "--list-loops shows what each loop would give)");
  PlanChoice c = *best;
  c.why =
      fmt::format("{}: {}, {} cycles per sample, {:.2f}% of {} ({} plans tried{})", target.source,
                  c.text, c.interval, 100 * c.cost, device.name, tried, not_priced(c, "it needs"));
  return c;
}

std::optional<PlanChoice> fold_plan(Pricer& pricer, int kernel, const RtlOptions& options,
                                    const PlanContext& context) {
  const loop::Kernel& k = pricer.program_for(kernel, {}).kernels[static_cast<std::size_t>(kernel)];
  // No interval to meet: every factor is priced.
  const IntervalTarget none{k.name, 0, "MultiplierLimit"};
  const std::vector<PlanChoice> plans = layer_plans(pricer, kernel, none, 0, context);
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
  const int units = multiplier_limit_of(options, k).value_or(0);
  const std::string which = best == fastest
                                ? "the fastest such plan"
                                : fmt::format(
                                      "the fastest such plan takes {}; this one is within {:.0f}% "
                                      "and cheaper",
                                      fastest->interval, 100 * kFoldSlack);
  c.why = fmt::format(
      "MultiplierLimit {}: folded onto its multipliers: {}, {} cycles per sample ({}), {:.2f}% "
      "of {} ({} plans tried)",
      units, c.text, c.interval, which, 100 * c.cost, pricer.device().name, c.tried);
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

namespace {

// The design's most used resource as a share of the part, then its summed share.
std::pair<double, double> fit_score(const fpga::Resources& used, const fpga::Resources& capacity) {
  double most = 0;
  for (const fpga::ResourceField& f : fpga::kResourceFields) {
    const double have = capacity.*f.member, need = used.*f.member;
    if (have > 0) most = std::max(most, need / have);
  }
  return {most, fpga::share(used, capacity)};
}

}  // namespace

namespace {

// Layer l's plan i in place of its pick: whether the swap keeps the pick valid.
using SwapAllowed = std::function<bool(std::size_t l, std::size_t i, const std::vector<int>& pick)>;

// While some allowed swap lowers the design's most used resource as a share
// of `capacity` (then the summed share), makes the best one. The design
// takes `of_pick` (by default its plans' resources summed); a swap changes
// that by the difference between the two plans'.
std::vector<int> balance(const std::vector<std::vector<PlanChoice>>& layers, std::vector<int> pick,
                         const fpga::Resources& capacity, const SwapAllowed& allowed,
                         std::optional<fpga::Resources> of_pick = std::nullopt) {
  fpga::Resources total;
  for (std::size_t l = 0; l < layers.size(); ++l)
    total += layers[l][static_cast<std::size_t>(pick[l])].resources;
  if (of_pick) total = *of_pick;
  // Each swap lowers the score, so this ends; the bound only guards against
  // rounding making a cycle of equal scores.
  for (int step = 0; step < 10000; ++step) {
    const std::pair<double, double> now = fit_score(total, capacity);
    std::pair<double, double> best = now;
    std::size_t best_l = 0;
    int best_i = -1;
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const PlanChoice& cur = layers[l][static_cast<std::size_t>(pick[l])];
      for (std::size_t i = 0; i < layers[l].size(); ++i) {
        const PlanChoice& c = layers[l][i];
        if (static_cast<int>(i) == pick[l] || !allowed(l, i, pick)) continue;
        const std::pair<double, double> score =
            fit_score(total + c.resources + cur.resources * -1.0, capacity);
        const bool lower = score.first < best.first - 1e-12 || (score.first <= best.first + 1e-12 &&
                                                                score.second < best.second - 1e-12);
        if (lower) {
          best = score;
          best_l = l;
          best_i = static_cast<int>(i);
        }
      }
    }
    if (best_i < 0) break;
    const PlanChoice& cur = layers[best_l][static_cast<std::size_t>(pick[best_l])];
    const PlanChoice& c = layers[best_l][static_cast<std::size_t>(best_i)];
    total = total + c.resources + cur.resources * -1.0;
    pick[best_l] = best_i;
  }
  return pick;
}

}  // namespace

std::vector<int> balance_for_part(const std::vector<std::vector<PlanChoice>>& layers,
                                  std::vector<int> pick, int64_t latency_cycles,
                                  const fpga::Resources& capacity) {
  if (!verify_latency(layers, pick, latency_cycles)) return pick;
  return balance(layers, std::move(pick), capacity,
                 [&](std::size_t l, std::size_t i, const std::vector<int>& now) {
                   int64_t latency = 0;
                   for (std::size_t m = 0; m < layers.size(); ++m)
                     latency += layers[m][m == l ? i : static_cast<std::size_t>(now[m])].latency;
                   return latency <= latency_cycles;
                 });
}

namespace {

// The pace layer `k` of a paced pick keeps to.
int64_t pace_of(std::size_t k, int64_t pace, std::size_t tail) {
  return k >= tail ? pace / 2 : pace;
}

// Whether layer l's plan i keeps to its pace in a paced pick: within it, or
// the layer's fastest when none of its plans is.
bool keeps_pace(const std::vector<PlanChoice>& plans, std::size_t i, int64_t within) {
  if (plans[i].interval <= within) return true;
  for (const PlanChoice& c : plans)
    if (c.interval < plans[i].interval || c.interval <= within) return false;
  return true;
}

}  // namespace

std::vector<int> paced_pick(const std::vector<std::vector<PlanChoice>>& layers, int64_t pace,
                            std::size_t tail) {
  std::vector<int> pick;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    KILN_ASSERT(!layers[l].empty(), "a layer without a plan");
    const int64_t within = pace_of(l, pace, tail);
    int best = -1, fastest = 0;
    for (std::size_t i = 0; i < layers[l].size(); ++i) {
      const PlanChoice& c = layers[l][i];
      if (c.interval < layers[l][static_cast<std::size_t>(fastest)].interval)
        fastest = static_cast<int>(i);
      if (c.interval > within) continue;
      const PlanChoice* b = best < 0 ? nullptr : &layers[l][static_cast<std::size_t>(best)];
      if (!b || c.cost < b->cost || (c.cost == b->cost && c.latency < b->latency))
        best = static_cast<int>(i);
    }
    pick.push_back(best >= 0 ? best : fastest);
  }
  return pick;
}

std::vector<int> balance_paced(const std::vector<std::vector<PlanChoice>>& layers,
                               std::vector<int> pick, int64_t pace, std::size_t tail,
                               const fpga::Resources& placed, const fpga::Resources& capacity) {
  return balance(
      layers, std::move(pick), capacity,
      [&](std::size_t l, std::size_t i, const std::vector<int>&) {
        return keeps_pace(layers[l], i, pace_of(l, pace, tail));
      },
      placed);
}

bool verify_paced(const std::vector<std::vector<PlanChoice>>& layers, const std::vector<int>& pick,
                  int64_t pace, std::size_t tail) {
  if (pick.size() != layers.size()) return false;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    if (pick[l] < 0 || static_cast<std::size_t>(pick[l]) >= layers[l].size()) return false;
    const int interval = layers[l][static_cast<std::size_t>(pick[l])].interval;
    if (interval <= pace_of(l, pace, tail)) continue;
    for (const PlanChoice& c : layers[l])
      if (c.interval < interval) return false;  // not the fastest, yet over its pace
  }
  return true;
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

namespace {

// A searched layer's pipelined loop that runs faster than the layers it reads
// from must start late, so as never to read an element before it is
// written, and then hands its result on in a burst at their end: the layers
// after it wait for it (ResNet-8's Adds between convolutions serialized its
// three stacks). Stretched to their pace (an II that spreads its iterations
// over the slowest producer's latency, rounded down or up), it reads as they
// write, and the layers after it start with their first writes. Of the
// stretched plans that end no later (but for a few cycles) and cost no
// more, the one that starts first is taken.
void stretch_to_producers(Pricer& pricer, int kernel, const Users& users,
                          const std::vector<int>& duration, const DesignTiming& timing,
                          const PlanContext& in_design, LayerChoice& choice, PlanPrice& chosen) {
  const LayerPlan plan = choice.plan;
  if (plan.loop < 0 || !plan.pipeline_ii || !chosen.feasible) return;
  const loop::Program& program = pricer.program();
  int64_t pace = 0;
  for (int read : program.kernels[static_cast<std::size_t>(kernel)].reads)
    if (const int p = users.only_producer(program.storage_of(read), kernel); p >= 0)
      pace = std::max<int64_t>(pace, duration[static_cast<std::size_t>(p)]);
  const loop::Kernel& form =
      pricer.program_for(kernel, plan).kernels[static_cast<std::size_t>(kernel)];
  const int64_t iterations = plan_iterations(form, plan);
  if (iterations < 1 || chosen.interval + pace / 16 >= pace) return;  // already at its pace
  const auto start = [&](const PlanPrice& x) {
    return int64_t{timing.start_of(x.stage.inputs, x.stage.channel_inputs)};
  };
  const int64_t latest = start(chosen) + chosen.latency + std::max<int64_t>(16, pace / 16);
  bool stretched_any = false;
  for (const int64_t ii :
       std::set<int64_t>{pace / iterations, (pace + iterations - 1) / iterations}) {
    if (ii <= *plan.pipeline_ii || ii > (1 << 20)) continue;
    LayerPlan slower = plan;
    slower.pipeline_ii = static_cast<int>(ii);
    PlanPrice stretched = pricer.price(kernel, slower, in_design(slower));
    if (!stretched.feasible || start(stretched) + stretched.latency > latest ||
        stretched.share > chosen.share * 1.001 || start(stretched) >= start(chosen))
      continue;
    stretched_any = true;
    choice.plan = slower;
    chosen = std::move(stretched);
  }
  if (stretched_any)
    choice.why += fmt::format("; stretched to II {} to read at its producers' pace",
                              *choice.plan.pipeline_ii);
}

// The model's inputs in a design's timing, each streamed as `streamed` says.
void add_model_inputs(DesignTiming& timing, const loop::Program& program,
                      const std::map<int, int64_t>& streamed) {
  for (int b : program.inputs) {
    const int storage = program.storage_of(b);
    const auto s = streamed.find(storage);
    timing.add_input(storage, program.buffers[static_cast<std::size_t>(storage)].numel(),
                     s == streamed.end() ? 0 : s->second);
  }
}

// The model's outputs as DesignTiming::latest takes them.
std::vector<std::pair<int, int64_t>> model_outputs(const loop::Program& program) {
  std::vector<std::pair<int, int64_t>> outputs;
  for (int b : program.outputs)
    outputs.emplace_back(program.storage_of(b),
                         program.buffers[static_cast<std::size_t>(program.storage_of(b))].numel());
  return outputs;
}

using Placed = PlacedDesign;

// Each layer's plan (`for_latency`'s where it has one, else searched here)
// where the layers before it put it. `forget`: drop the graphs of the plans
// not chosen as each layer is placed (the searches place once; an explorer
// placing many designs keeps them).
Placed place_layers(Pricer& pricer, const RtlOptions& options, const StageOptions& stage,
                    const std::vector<std::optional<PlanChoice>>& for_latency, bool forget = true) {
  const loop::Program& program = pricer.program();
  Placed placed;
  const Pricer::Hold hold(pricer);  // chosen_graph's pointers stay valid

  // Layers in order, each where the chosen ones before it put it.
  const Users users(program);
  const std::map<int, int64_t> streamed = streamed_inputs(program, options);
  DesignTiming timing;
  add_model_inputs(timing, program, streamed);
  std::vector<const LayerGraph*> chosen_graph(program.kernels.size(), nullptr);
  std::vector<int> duration(program.kernels.size(), 0);  // each placed stage's latency
  std::deque<Channel> channels;                          // StageOptions point into it
  std::vector<LayerChoice> plans;
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const int kernel = static_cast<int>(k);
    const loop::Kernel& kk = program.kernels[k];
    StageOptions so = stage;
    so.multiplier_limit = multiplier_limit_of(options, kk);
    timing.prepare(so);
    // A candidate reads through channels from the layers chosen before it,
    // where the two plans allow one.
    const PlanContext in_design = [&](const LayerPlan& plan) {
      StageOptions o = so;
      if (plan.loop < 0) return o;
      const LayerGraph* g = pricer.graph_for(kernel, plan, nullptr);
      if (!g) return o;
      for (int read : kk.reads) {
        const int b = program.storage_of(read);
        if (const auto s = streamed.find(b); s != streamed.end()) {
          // A streamed model input: its beats through the top's channel.
          const loop::Program& pp = pricer.program_for(kernel, plan);
          if (std::optional<Channel> c = plan_input_channel(pp, b, s->second, kernel, *g->split)) {
            verify_input_channel(pp, *c, *g->split);
            channels.push_back(std::move(*c));
            o.channels.push_back(&channels.back());
          }
          continue;
        }
        const int p = users.only_producer(b, kernel);
        if (p < 0 || !chosen_graph[static_cast<std::size_t>(p)] ||
            !chosen_graph[static_cast<std::size_t>(p)]->split)
          continue;
        const dfg::SplitKernel& produced = *chosen_graph[static_cast<std::size_t>(p)]->split;
        const loop::Program& pp = pricer.program_for(kernel, plan);
        if (std::optional<Channel> c = plan_channel(pp, b, p, produced, kernel, *g->split)) {
          verify_channel(pp, *c, produced, *g->split);
          channels.push_back(std::move(*c));
          o.channels.push_back(&channels.back());
        }
      }
      return o;
    };
    LayerChoice choice{configured(pricer, kernel), ""};
    std::optional<PlanChoice> c = for_latency[k];
    if (const IntervalTarget* target = target_of(options, kk);
        !c && target && searched(options, kk)) {
      std::string refused;
      std::vector<PlanChoice> tried =
          layer_plans(pricer, kernel, *target, 0, in_design, Prune::OverParallel, 0, &refused);
      // A layer that reads a skip connection keeps a loop where one meets
      // the target, so that the skipped tensor can wait in a channel's
      // memory rather than in the top's delay registers (a U-Net's
      // concatenation of an encoder's map after the upsampling).
      // So does a layer that only moves data (a Transpose, a Pad, a copy)
      // after a producer that keeps one: fully unrolled, its results are
      // valid for one cycle, and a consumer that keeps a loop reads them
      // through the top's delay lines (BraggNN's attention block: 176
      // Kbit), which pricing the layer alone does not see.
      const bool after_a_loop = std::any_of(kk.reads.begin(), kk.reads.end(), [&](int read) {
        const int p = users.only_producer(program.storage_of(read), kernel);
        return p >= 0 && static_cast<std::size_t>(p) < plans.size() &&
               plans[static_cast<std::size_t>(p)].plan.loop >= 0;
      });
      if ((reads_a_skip(pricer.program(), kernel) || (after_a_loop && moves_data(kk))) &&
          std::any_of(tried.begin(), tried.end(), [&](const PlanChoice& p) {
            return p.plan.loop >= 0 && p.interval <= target->cycles;
          }))
        std::erase_if(tried, [](const PlanChoice& p) { return p.plan.loop < 0; });
      c = cheapest_meeting(kk, *target, tried, pricer.device(), refused);
    } else if (!c && options.fold.count(kk.name) && searched(options, kk)) {
      c = fold_plan(pricer, kernel, options, in_design);
    }
    if (c) choice = {c->plan, c->why};
    // The chosen plan where the design puts it, for the layers after it.
    PlanPrice chosen = pricer.price(kernel, choice.plan, in_design(choice.plan));
    if (!chosen.feasible)
      throw_error(ErrorKind::Unsupported, "layer '" + kk.onnx_name + "'", chosen.reason,
                  "set its Loop directives (kiln rtl --list-loops shows what each loop would "
                  "give), or a TargetCycles for kiln to search its plans");
    if (c) stretch_to_producers(pricer, kernel, users, duration, timing, in_design, choice, chosen);
    duration[k] = chosen.stage.report.latency_cycles;
    timing.commit(chosen.stage);
    placed.resources += chosen.stage.report;
    if (forget) pricer.forget(kernel, {choice.plan});
    chosen_graph[k] = pricer.graph_for(kernel, choice.plan, nullptr);
    plans.push_back(std::move(choice));
  }
  placed.latency = timing.latest(model_outputs(program));
  placed.interval = timing.interval();
  placed.plans = std::move(plans);
  return placed;
}

// Paced designs (search.h paced_pick), placed: for each pace from the bound
// down, the design with no tail and, when that is over the bound, the
// shortest tail that brings it within (bisected over where the tail starts).
// A placed design over the part is placed once more with the plans that keep
// to its paces and fit the part better, judged from what the design placed
// takes (balance_paced). The first pace whose design fits the part ends the
// search; otherwise the design within the bound that fits best, if any.
std::optional<Placed> paced_design(Pricer& pricer, const RtlOptions& options,
                                   const StageOptions& stage, const LatencyCandidates& c,
                                   int64_t bound,
                                   const std::function<fpga::Resources(fpga::Resources)>& floors) {
  const fpga::Device& device = pricer.device();
  const std::vector<std::vector<PlanChoice>> layers = over_common_flip_flops(c.layers, device);
  const std::size_t n = layers.size();
  // Below the slowest of the layers' fastest intervals, every pace picks alike.
  int64_t floor_pace = 1;
  for (const std::vector<PlanChoice>& plans : layers) {
    int fastest = std::numeric_limits<int>::max();
    for (const PlanChoice& p : plans) fastest = std::min(fastest, p.interval);
    floor_pace = std::max<int64_t>(floor_pace, fastest);
  }
  const auto score = [&](const Placed& p) {
    return fit_score(floors(p.resources), device.capacity);
  };
  std::optional<Placed> best;
  std::map<std::vector<int>, std::pair<int, fpga::Resources>> placed;  // latency, resources
  int placements = 0;
  // Places `pick` (paced at `pace`, its tail from `tail` on) once.
  const auto place_pick = [&](const std::vector<int>& pick, int64_t pace, std::size_t tail) {
    KILN_ASSERT(verify_paced(layers, pick, pace, tail), "a paced pick off its paces");
    if (const auto seen = placed.find(pick); seen != placed.end()) return seen->second;
    ++placements;
    const auto how = [&](std::size_t k) {
      return k >= tail
                 ? fmt::format(" (paced at {} cycles per sample, {} after the slowest layers)",
                               pace, pace_of(k, pace, tail))
                 : fmt::format(" (paced at {} cycles per sample)", pace);
    };
    Placed p =
        place_layers(pricer, options, stage, chosen_for_latency(c, pick, bound, how, device));
    const std::pair<int, fpga::Resources> result{p.latency, p.resources};
    placed[pick] = result;
    if (p.latency <= bound && (!best || score(p) < score(*best))) best = std::move(p);
    return result;
  };
  // The latency of the paced design for `pace` and `tail`, repaired for the part.
  const auto place = [&](int64_t pace, std::size_t tail) {
    const std::vector<int> pick = paced_pick(layers, pace, tail);
    auto [latency, resources] = place_pick(pick, pace, tail);
    if (fit_score(floors(resources), device.capacity).first > 1 && placements < kPacedPlacements) {
      const std::vector<int> repaired =
          balance_paced(layers, pick, pace, tail, floors(resources), device.capacity);
      if (repaired != pick) latency = std::min(latency, place_pick(repaired, pace, tail).first);
    }
    return latency;
  };
  for (double pace = static_cast<double>(bound);
       pace >= static_cast<double>(floor_pace) && placements < kPacedPlacements;
       pace /= std::sqrt(2.0)) {
    const auto at = static_cast<int64_t>(pace);
    if (place(at, n) > bound) {
      // Bisect the tail's start: `hi` over the bound, `lo` within (or -1).
      int64_t lo = -1, hi = static_cast<int64_t>(n);
      while (hi - lo > 1 && placements < kPacedPlacements) {
        const int64_t mid = lo < 0 ? hi / 2 : (lo + hi) / 2;
        if (place(at, static_cast<std::size_t>(mid)) <= bound)
          lo = mid;
        else
          hi = mid;
        if (lo < 0 && mid == 0) break;  // even a tail of every layer is over
      }
    }
    if (best && score(*best).first <= 1) break;
  }
  return best;
}

}  // namespace

std::string design_plans_yaml(Pricer& pricer, const hls::Model& model,
                              const std::vector<LayerChoice>& plans, bool streamed,
                              const std::string& comment) {
  const loop::Program& program = pricer.program();
  std::vector<PlanConfig> configs;
  std::vector<std::string> layers;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const int kernel = static_cast<int>(k);
    const bool both_forms =
        program.kernels[k].line_buffered || loop::can_line_buffer(program, model, kernel);
    configs.push_back(
        plan_config(pricer.program_for(kernel, plans[k].plan), kernel, plans[k].plan, both_forms));
    layers.push_back(program.kernels[k].name);
  }
  std::string text = plans_yaml(configs, layers, comment);
  // The inputs' form too, which kiln chooses when the config does not say.
  text += fmt::format("# The inputs: {}.\nIOType: {}\n",
                      streamed ? "streamed, a pixel a beat" : "one word a sample",
                      streamed ? "io_stream" : "io_parallel");
  return text;
}

PlacedDesign place_design(Pricer& pricer, const RtlOptions& options, const StageOptions& stage,
                          const std::vector<LayerPlan>& plans) {
  const loop::Program& program = pricer.program();
  KILN_ASSERT(plans.size() == program.kernels.size(), "place_design: a plan per layer");
  std::vector<std::optional<PlanChoice>> fixed(plans.size());
  for (std::size_t k = 0; k < plans.size(); ++k) {
    PlanChoice c;
    c.plan = plans[k];
    c.text = describe(program.kernels[k], plans[k]);
    c.why = "explored: " + c.text;
    fixed[k] = std::move(c);
  }
  PlacedDesign placed = place_layers(pricer, options, stage, fixed, false);
  // Priced again as build_design builds the stages: each with the channels
  // between the placed plans at both its ends (a producer whose tensor goes
  // through channels keeps no registers for it, which placing, before its
  // consumers were chosen, could not know).
  const std::map<int, int64_t> streamed = streamed_inputs(program, options);
  const std::vector<Channel> channels = plan_channels(pricer, placed.plans, streamed);
  DesignTiming timing;
  add_model_inputs(timing, program, streamed);
  fpga::Resources resources;
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const int kernel = static_cast<int>(k);
    StageOptions sk = stage;
    sk.multiplier_limit = multiplier_limit_of(options, program.kernels[k]);
    for (const Channel& c : channels)
      if (c.producer == kernel || c.consumer == kernel) sk.channels.push_back(&c);
    timing.prepare(sk);
    PlanPrice p = pricer.price(kernel, placed.plans[k].plan, sk);
    if (!p.feasible)
      throw_error(ErrorKind::Unsupported, "layer '" + program.kernels[k].onnx_name + "'", p.reason);
    timing.commit(p.stage);
    resources += p.stage.report;
  }
  placed.latency = timing.latest(model_outputs(program));
  placed.interval = timing.interval();
  placed.resources = resources;
  return placed;
}

std::vector<LayerChoice> plan_layers(Pricer& pricer, const RtlOptions& options,
                                     const StageOptions& stage) {
  const loop::Program& program = pricer.program();
  if (!options.latency_cycles)
    return place_layers(pricer, options, stage,
                        std::vector<std::optional<PlanChoice>>(program.kernels.size()))
        .plans;
  StageOptions alone = stage;
  alone.time_inputs = nullptr;  // no producers: each layer alone
  const LatencyCandidates c = latency_candidates(pricer, options, alone);
  const int64_t bound = *options.latency_cycles;
  const fpga::Device& device = pricer.device();
  std::vector<int> pick = pick_for_latency(c, bound, device);
  if (pick.empty()) latency_unmet(c, bound);
  Placed best =
      place_layers(pricer, options, stage, chosen_for_latency(c, pick, bound, bound, device));
  if (best.latency > bound) return best.plans;  // what the sum gives, as asked
  // The layers overlap where they hand tensors on: the design's latency is
  // below their latencies' sum. Let the sum grow while the design's stays
  // within the bound, each budget scaled by the room the last one left
  // (then halving the step once over), and keep the design that fits the
  // part best.
  int64_t slowest = 0;
  for (const auto& plans : c.layers) {
    int most = 0;
    for (const PlanChoice& p : plans) most = std::max(most, p.latency);
    slowest += most;
  }
  double floors = 0;
  for (const std::vector<PlanChoice>& plans : c.layers) floors += common_flip_flops(plans);
  const auto over_floors = [&](fpga::Resources r) {
    r.ff = std::max(0.0, r.ff - floors);
    return r;
  };
  int64_t fits = bound, over = 0;
  int at = best.latency;
  for (int step = 0; step < kLatencyBudgetSteps; ++step) {
    int64_t budget =
        over
            ? (fits + over) / 2
            : std::min(slowest, static_cast<int64_t>(static_cast<double>(fits) *
                                                     static_cast<double>(bound) / std::max(1, at)));
    if (budget <= fits || (over && over - fits <= fits / 50)) break;
    const std::vector<int> next = pick_for_latency(c, budget, device);
    if (next == pick) {
      fits = budget;  // the same design: nothing to price
      continue;
    }
    Placed p =
        place_layers(pricer, options, stage, chosen_for_latency(c, next, bound, budget, device));
    if (p.latency > bound) {
      over = budget;
      continue;
    }
    fits = budget;
    at = p.latency;
    pick = next;
    if (fit_score(over_floors(p.resources), device.capacity) <
        fit_score(over_floors(best.resources), device.capacity))
      best = std::move(p);
  }
  if (fit_score(over_floors(best.resources), device.capacity).first > 1)
    if (std::optional<Placed> paced = paced_design(pricer, options, stage, c, bound, over_floors))
      if (fit_score(over_floors(paced->resources), device.capacity) <
          fit_score(over_floors(best.resources), device.capacity))
        best = std::move(*paced);
  return best.plans;
}

std::vector<Channel> plan_channels(Pricer& pricer, const std::vector<LayerChoice>& plans,
                                   const std::map<int, int64_t>& streamed,
                                   std::vector<Handoff>* handoffs) {
  const loop::Program& program = pricer.program();
  const Users users(program);
  std::vector<Channel> out;
  // A streamed model input: a channel from the top to each reader that takes
  // one; the top registers the beats for the others.
  for (const auto& [b, lanes] : streamed) {
    const auto r = users.readers.find(b);
    if (r == users.readers.end()) continue;
    std::set<int> readers(r->second.begin(), r->second.end());
    for (int consumer : readers) {
      const LayerPlan& cp = plans[static_cast<std::size_t>(consumer)].plan;
      std::string why;
      if (cp.loop < 0) {
        why = "the consumer keeps no loop";
      } else {
        const LayerGraph* consumed = pricer.graph_for(consumer, cp, nullptr);
        KILN_ASSERT(consumed, "a chosen plan without its graph");
        const loop::Program& prog = pricer.program_for(consumer, cp);
        if (std::optional<Channel> c =
                plan_input_channel(prog, b, lanes, consumer, *consumed->split, &why)) {
          verify_input_channel(prog, *c, *consumed->split);
          out.push_back(std::move(*c));
        }
      }
      if (handoffs) {
        const loop::Buffer& buffer = program.buffers[static_cast<std::size_t>(b)];
        handoffs->push_back({buffer.name, "input",
                             program.kernels[static_cast<std::size_t>(consumer)].name, why.empty(),
                             why, why.empty() ? 0 : buffer.numel() * buffer.type.width});
      }
    }
  }
  for (const auto& [b, w] : users.writers) {
    const auto r = users.readers.find(b);
    if (r == users.readers.end()) continue;
    const auto note = [&](int consumer, const std::string& why) {
      if (!handoffs) return;
      Handoff h;
      h.tensor = program.buffers[static_cast<std::size_t>(b)].name;
      h.producer = program.kernels[static_cast<std::size_t>(w[0])].name;
      h.consumer = program.kernels[static_cast<std::size_t>(consumer)].name;
      h.channel = why.empty();
      h.why = why;
      const loop::Buffer& buffer = program.buffers[static_cast<std::size_t>(b)];
      if (!h.channel) h.register_bits = buffer.numel() * buffer.type.width;
      handoffs->push_back(std::move(h));
    };
    if (w.size() != 1) {
      for (int consumer : r->second) note(consumer, "more than one layer writes it");
      continue;
    }
    // A channel to every reader or to none: the producer keeps no registers
    // for a tensor its channels carry.
    const int producer = w[0];
    const LayerPlan& pp = plans[static_cast<std::size_t>(producer)].plan;
    std::vector<Channel> found;
    std::vector<int> readers;
    for (int consumer : r->second)
      if (std::find(readers.begin(), readers.end(), consumer) == readers.end())
        readers.push_back(consumer);
    std::map<int, std::string> why;  // by reader: why it takes no channel
    int refused = -1;                // the first reader that takes none
    for (int consumer : readers) {
      if (consumer == producer) continue;
      const LayerPlan& cp = plans[static_cast<std::size_t>(consumer)].plan;
      std::string& reason = why[consumer];
      if (std::find(readers.begin(), readers.end(), producer) != readers.end()) {
        reason = "its producer reads it back";
      } else if (pp.loop < 0 || cp.loop < 0) {
        reason = pp.loop < 0 ? "the producer keeps no loop" : "the consumer keeps no loop";
      } else {
        const LayerGraph* produced = pricer.graph_for(producer, pp, nullptr);
        const LayerGraph* consumed = pricer.graph_for(consumer, cp, nullptr);
        KILN_ASSERT(produced && consumed, "a chosen plan without its graph");
        const loop::Program& prog = pricer.program_for(consumer, cp);
        if (std::optional<Channel> c = plan_channel(prog, b, producer, *produced->split, consumer,
                                                    *consumed->split, &reason)) {
          verify_channel(prog, *c, *produced->split, *consumed->split);
          found.push_back(std::move(*c));
        }
      }
      if (!reason.empty() && refused < 0) refused = consumer;
    }
    for (int consumer : readers) {
      if (consumer == producer) continue;
      std::string reason = why[consumer];
      if (reason.empty() && refused >= 0)
        reason = fmt::format("another reader ({}) cannot take a channel: {}",
                             program.kernels[static_cast<std::size_t>(refused)].name, why[refused]);
      note(consumer, reason);
    }
    if (refused < 0)
      for (Channel& c : found) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kiln::rtl

#include "kiln/dse/deepflexihls.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "kiln/dse/placed_point.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/rtl/plan/search.h"
#include "kiln/support/error.h"

namespace kiln::dse {

namespace {

constexpr int64_t kFailed = std::numeric_limits<int64_t>::max() / 4;
// The most operations an "HLS run" unrolls: past it the tool gives up (the
// seed's first failure case, a circuit too large to schedule).
constexpr int64_t kMostUnrolled = rtl::kAlwaysPriced * 64;

int64_t trip(const loop::Kernel& k, const std::vector<int>& loops, std::size_t i) {
  return k.loops[static_cast<std::size_t>(loops[i])].trip;
}

}  // namespace

std::vector<int> partition_loops(const loop::Kernel& kernel) {
  const loop::Stmt* top = nullptr;
  int64_t most = -1;
  for (const loop::Stmt& s : kernel.body)
    if (s.kind == loop::StmtKind::For) {
      const int64_t ops = loop::dynamic_ops(kernel, {s});
      if (ops > most) {
        most = ops;
        top = &s;
      }
    }
  std::vector<int> out;
  for (const loop::Stmt* s = top; s;) {
    out.push_back(s->loop);
    s = s->body.size() == 1 && s->body[0].kind == loop::StmtKind::For ? &s->body[0] : nullptr;
  }
  return out;
}

DirectiveSet no_directives(const loop::Kernel&, const std::vector<int>& loops) {
  return {std::vector<bool>(loops.size(), false), std::vector<int64_t>(loops.size(), 1)};
}

DirectiveSet simplify(const loop::Kernel& kernel, const std::vector<int>& loops, DirectiveSet ds) {
  bool inside_pipeline = false;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    const int64_t n = trip(kernel, loops, i);
    if (inside_pipeline || n == 1) {  // unrolled by the pipeline, or nothing to do
      ds.pipeline[i] = false;
      ds.unroll[i] = 1;
      continue;
    }
    if (ds.unroll[i] == n) ds.pipeline[i] = false;  // fully unrolled: nothing to pipeline
    inside_pipeline = ds.pipeline[i];
  }
  return ds;
}

std::vector<DirectiveSet> neighbours(const loop::Kernel& kernel, const std::vector<int>& loops,
                                     const DirectiveSet& ds) {
  std::vector<DirectiveSet> out;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    if (!ds.pipeline[i]) {
      DirectiveSet n = ds;
      n.pipeline[i] = true;
      out.push_back(std::move(n));
    }
    if (ds.unroll[i] == 1) {
      const int64_t t = trip(kernel, loops, i);
      for (int64_t d = 2; d <= t; ++d)
        if (t % d == 0) {
          DirectiveSet n = ds;
          n.unroll[i] = d;
          out.push_back(std::move(n));
        }
    }
  }
  return out;
}

std::optional<rtl::LayerPlan> plan_of(const loop::Kernel& kernel, const std::vector<int>& loops,
                                      const DirectiveSet& ds) {
  rtl::LayerPlan plan;
  if (loops.empty()) return plan;  // no loop: fully unrolled
  int kept = -1;
  for (std::size_t i = 0; i < loops.size() && kept < 0; ++i)
    if (ds.pipeline[i]) kept = static_cast<int>(i);
  const bool pipelined = kept >= 0;
  if (!pipelined)
    for (std::size_t i = loops.size(); i-- > 0 && kept < 0;)
      if (ds.unroll[i] < trip(kernel, loops, i)) kept = static_cast<int>(i);
  if (kept < 0) return plan;  // every loop fully unrolled
  for (int j = 0; j < kept; ++j)
    if (ds.unroll[static_cast<std::size_t>(j)] != 1) return std::nullopt;
  plan.loop = loops[0];
  plan.flatten = kept;
  plan.unroll = ds.unroll[static_cast<std::size_t>(kept)];
  if (pipelined) plan.pipeline_ii = 1;
  return plan;
}

std::string directive_text(const loop::Kernel& kernel, const std::vector<int>& loops,
                           const DirectiveSet& ds) {
  std::string s;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    if (!ds.pipeline[i] && ds.unroll[i] == 1) continue;
    if (!s.empty()) s += " ";
    s += kernel.loops[static_cast<std::size_t>(loops[i])].name + ":";
    if (ds.pipeline[i]) s += "pipeline";
    if (ds.pipeline[i] && ds.unroll[i] != 1) s += ",";
    if (ds.unroll[i] != 1) s += fmt::format("unroll={}", ds.unroll[i]);
  }
  return s.empty() ? "-" : s;
}

std::vector<std::pair<int, int>> largest_adjacent_runs(const std::vector<int>& chosen) {
  std::vector<std::pair<int, int>> out;
  for (std::size_t i = 0; i < chosen.size();) {
    std::size_t j = i + 1;
    while (j < chosen.size() && chosen[j] == chosen[j - 1] + 1) ++j;
    out.emplace_back(chosen[i], static_cast<int>(j - i));
    i = j;
  }
  return out;
}

namespace {

struct LayerRun {
  bool feasible = false;
  int64_t latency = 0, interval = 0;
  fpga::Resources resources;
};

// The objectives' difference b - a, per field.
struct Effect {
  double latency = 0, interval = 0;
  fpga::Resources resources;
};

Objectives shifted(const Objectives& base, const Effect& e) {
  Objectives o = base;
  o.latency = std::max<int64_t>(1, base.latency + std::llround(e.latency));
  o.interval = std::max<int64_t>(1, base.interval + std::llround(e.interval));
  o.lut = std::max(0.0, base.lut + e.resources.lut);
  o.ff = std::max(0.0, base.ff + e.resources.ff);
  o.dsp = std::max(0.0, base.dsp + e.resources.dsp);
  o.bram18 = std::max(0.0, base.bram18 + e.resources.bram18);
  return o;
}

}  // namespace

DeepFlexiResult deepflexihls(rtl::Pricer& pricer, const hls::Model& model,
                             const rtl::RtlOptions& options, const rtl::StageOptions& stage,
                             Goal goal, const fpga::Resources& limit, int64_t max_cycles,
                             const Progress& progress) {
  const auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  const loop::Program& program = pricer.program();
  const std::size_t n = program.kernels.size();
  DeepFlexiResult result;
  DeepFlexiStats& st = result.stats;

  std::vector<std::vector<int>> loops(n);
  std::vector<rtl::LayerPlan> base(n);
  for (std::size_t k = 0; k < n; ++k) {
    loops[k] = partition_loops(program.kernels[k]);
    const std::optional<rtl::LayerPlan> p =
        plan_of(program.kernels[k], loops[k], no_directives(program.kernels[k], loops[k]));
    KILN_ASSERT(p.has_value(), "a nest without directives is always a plan");
    base[k] = *p;
  }
  // A layer's plan priced alone, once (the weights banked where the plan
  // unrolls reads of them: the seed's array partitioning, set by hand).
  std::map<std::pair<std::size_t, std::string>, LayerRun> priced;
  const auto run_layer = [&](std::size_t k, rtl::LayerPlan plan) {
    const loop::Kernel& kernel = program.kernels[k];
    if (plan.loop >= 0 && !rtl::weights_of(program, static_cast<int>(k)).empty())
      plan.weights = rtl::WeightPlace::Banked;
    const std::string key = rtl::plan_text(kernel, plan);
    const auto seen = priced.find({k, key});
    if (seen != priced.end()) return seen->second;
    LayerRun r;
    if (rtl::plan_unrolled_ops(kernel, plan) <= kMostUnrolled) {
      rtl::StageOptions alone = stage;
      alone.multiplier_limit = rtl::multiplier_limit_of(options, kernel);
      const rtl::PlanPrice p = pricer.price(static_cast<int>(k), plan, alone);
      r.feasible = p.feasible;
      r.latency = p.latency;
      r.interval = p.interval;
      r.resources = p.stage.report;
    }
    priced[{k, key}] = r;
    return r;
  };
  std::vector<LayerRun> base_runs(n);
  int64_t base_latency = 0;
  for (std::size_t k = 0; k < n; ++k) {
    base_runs[k] = run_layer(k, base[k]);
    if (!base_runs[k].feasible) {
      // Every loop kept and not pipelined cannot be built for this layer (a
      // Softmax's nests): it starts fully unrolled, as kiln rtl builds a
      // layer without a plan.
      base[k] = rtl::LayerPlan{};
      base_runs[k] = run_layer(k, base[k]);
    }
    if (!base_runs[k].feasible)
      throw_error(ErrorKind::Unsupported, "layer '" + program.kernels[k].onnx_name + "'",
                  "seed 003's strategy starts from every loop kept and not pipelined, or "
                  "fully unrolled, neither of which kiln can build for this layer",
                  "use kiln's strategy (leave --strategy out)");
    base_latency += base_runs[k].latency;
  }
  say(fmt::format("deepflexihls: the design without directives: {} cycles (layers in turn)",
                  base_latency));

  // Stage 1, Algorithm 1, one partition at a time.
  std::vector<DirectiveSet> pds(n);
  std::vector<rtl::LayerPlan> best(n);
  for (std::size_t k = 0; k < n; ++k) {
    const loop::Kernel& kernel = program.kernels[k];
    std::map<DirectiveSet, int64_t> latency_of;  // the seed's cache, by simplified set
    DirectiveSet ds = no_directives(kernel, loops[k]);
    int64_t min_latency = base_latency;
    int64_t pml = 0;
    DirectiveSet at;
    do {
      pml = min_latency;
      at = ds;
      int64_t round_best = kFailed;
      DirectiveSet round_ds;
      for (const DirectiveSet& nb : neighbours(kernel, loops[k], at)) {
        ++st.neighbours;
        const DirectiveSet sds = simplify(kernel, loops[k], nb);
        int64_t latency = kFailed;
        if (const auto c = latency_of.find(sds); c != latency_of.end()) {
          ++st.simplified;
          latency = c->second;
        } else {
          ++st.runs;
          const std::optional<rtl::LayerPlan> plan = plan_of(kernel, loops[k], sds);
          const LayerRun r = plan ? run_layer(k, *plan) : LayerRun{};
          if (r.feasible)
            latency = base_latency - base_runs[k].latency + r.latency;
          else
            ++st.failed;
          latency_of[sds] = latency;
        }
        if (latency < round_best) {
          round_best = latency;
          round_ds = nb;
        }
      }
      min_latency = round_best;
      ds = round_ds;
    } while (!(pml < min_latency));
    pds[k] = simplify(kernel, loops[k], at);
    best[k] = *plan_of(kernel, loops[k], pds[k]);
    st.cds.push_back(kernel.name + " " + directive_text(kernel, loops[k], pds[k]));
    say(fmt::format("deepflexihls stage 1: {} ({}): {} cycles", kernel.name,
                    directive_text(kernel, loops[k], pds[k]), pml));
  }

  // Stage 2: the selected aggregate directive sets placed as whole designs.
  std::vector<int> active;  // partitions whose directives change anything
  for (std::size_t k = 0; k < n; ++k)
    if (!(best[k] == base[k])) active.push_back(static_cast<int>(k));
  const auto plans_with = [&](const std::vector<int>& chosen) {
    std::vector<rtl::LayerPlan> plans = base;
    for (int k : chosen) plans[static_cast<std::size_t>(k)] = best[static_cast<std::size_t>(k)];
    for (std::size_t k = 0; k < n; ++k)
      if (plans[k].loop >= 0 && !rtl::weights_of(program, static_cast<int>(k)).empty())
        plans[k].weights = rtl::WeightPlace::Banked;
    return plans;
  };
  const auto place = [&](const std::vector<int>& chosen) -> std::optional<ExplorePoint> {
    try {
      const std::vector<rtl::LayerPlan> plans = plans_with(chosen);
      const rtl::PlacedDesign d = rtl::place_design(pricer, options, stage, plans);
      return placed_point(pricer, model, program, options, d,
                          fmt::format("kiln explore (seed 003's strategy) point for {}: {} "
                                      "cycles of latency, an interval of {}",
                                      model.name, d.latency, d.interval));
    } catch (const Error& e) {
      say(std::string("deepflexihls: a design could not be placed: ") + e.what());
      return std::nullopt;
    }
  };
  const std::optional<ExplorePoint> base_point = place({});
  ++st.selected_runs;
  if (!base_point)
    throw_error(ErrorKind::Unsupported, "model " + model.name,
                "seed 003's strategy cannot place the design without directives",
                "use kiln's strategy (leave --strategy out)");
  const Objectives b = base_point->placed;
  std::map<std::pair<int, int>, Effect> effect;  // (first, size) of a run of `active`
  const auto effect_of = [&](int first, int size) {
    const auto key = std::make_pair(first, size);
    if (const auto e = effect.find(key); e != effect.end()) return e->second;
    std::vector<int> chosen;
    for (int i = 0; i < size; ++i) chosen.push_back(first + i);
    ++st.selected_runs;
    Effect e;
    if (const std::optional<ExplorePoint> p = place(chosen)) {
      e.latency = static_cast<double>(p->placed.latency - b.latency);
      e.interval = static_cast<double>(p->placed.interval - b.interval);
      e.resources.lut = p->placed.lut - b.lut;
      e.resources.ff = p->placed.ff - b.ff;
      e.resources.dsp = p->placed.dsp - b.dsp;
      e.resources.bram18 = p->placed.bram18 - b.bram18;
    }
    effect[key] = e;
    return e;
  };
  // Every APL of the active partitions, then every subset estimated from its
  // LAPL (at most 2^20 subsets).
  const std::size_t m = std::min<std::size_t>(active.size(), 20);
  std::vector<std::vector<int>> subsets;
  std::vector<Objectives> estimates;
  for (uint64_t mask = 0; mask < (uint64_t{1} << m); ++mask) {
    std::vector<int> chosen;
    for (std::size_t i = 0; i < m; ++i)
      if (mask >> i & 1) chosen.push_back(active[i]);
    Effect total;
    for (const auto& [first, size] : largest_adjacent_runs(chosen)) {
      const Effect e = effect_of(first, size);
      total.latency += e.latency;
      total.interval += e.interval;
      total.resources += e.resources;
    }
    ++st.estimated;
    subsets.push_back(std::move(chosen));
    estimates.push_back(shifted(b, total));
  }
  say(fmt::format("deepflexihls stage 2: {} selected designs placed, {} aggregate sets estimated",
                  st.selected_runs, st.estimated));
  // The estimated frontier within the limits, placed.
  std::vector<Objectives> within;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < estimates.size(); ++i) {
    const Objectives& o = estimates[i];
    if (o.cycles(goal) <= max_cycles && o.lut <= limit.lut && o.ff <= limit.ff &&
        o.dsp <= limit.dsp && o.bram18 <= limit.bram18) {
      within.push_back(o);
      index.push_back(i);
    }
  }
  double cycles_error = 0, lut_error = 0;
  for (std::size_t f : frontier(within, goal)) {
    const std::size_t i = index[f];
    std::optional<ExplorePoint> p = place(subsets[i]);
    if (!p) continue;
    p->estimate = estimates[i];
    cycles_error +=
        std::abs(static_cast<double>(p->estimate.cycles(goal) - p->placed.cycles(goal))) /
        static_cast<double>(std::max<int64_t>(1, p->placed.cycles(goal)));
    lut_error += std::abs(p->estimate.lut - p->placed.lut) / std::max(1.0, p->placed.lut);
    result.placed.push_back(std::move(*p));
  }
  if (!result.placed.empty()) {
    st.cycles_error = cycles_error / static_cast<double>(result.placed.size());
    st.lut_error = lut_error / static_cast<double>(result.placed.size());
  }
  return result;
}

}  // namespace kiln::dse

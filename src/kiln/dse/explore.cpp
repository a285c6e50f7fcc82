#include "kiln/dse/explore.h"
#include "kiln/dse/placed_point.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

#include "kiln/dse/deepflexihls.h"
#include "kiln/fpga/devices.h"
#include "kiln/loop/loop_ir.h"
#include "kiln/rtl/analysis/timing.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/rtl/plan/price.h"
#include "kiln/rtl/plan/search.h"
#include "kiln/support/error.h"

namespace kiln::dse {

namespace {

// The most cycles of a layer plan priced when no --max-latency says.
constexpr int64_t kSlowest = int64_t{1} << 22;
constexpr double kComposeSlack = 1.5;
// The most designs --strategy exhaustive places.
constexpr int64_t kMostExhaustive = 200000;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool within(const fpga::Resources& r, const fpga::Resources& limit) {
  return r.lut <= limit.lut && r.ff <= limit.ff && r.dsp <= limit.dsp && r.bram18 <= limit.bram18;
}

// A partial design: the candidates picked for the layers so far.
struct Partial {
  int64_t cycles = 0;
  double cost = 0;
  fpga::Resources resources;
  std::vector<int> pick;
};

using CostOf = std::function<double(const fpga::Resources&)>;
// A partial design's cycles with one more layer's candidate.
using CyclesOf = std::function<int64_t(int64_t, const LayerCandidate&)>;

// The designs on the frontier of (cycles, cost(resources)) composed layer by
// layer (explore.h).
std::vector<std::vector<int>> compose_for(const std::vector<std::vector<LayerCandidate>>& layers,
                                          const CyclesOf& add, const CostOf& cost,
                                          const fpga::Resources& limit, int64_t max_cycles,
                                          int64_t* composed, bool streamed) {
  std::vector<Partial> front{Partial{}};
  for (const std::vector<LayerCandidate>& candidates : layers) {
    std::vector<Partial> next;
    next.reserve(front.size() * candidates.size());
    for (const Partial& p : front)
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        const LayerCandidate& c = candidates[i];
        Partial q;
        q.cycles = add(p.cycles, c);
        q.resources = p.resources;
        q.resources += streamed ? c.streamed : c.resources;
        if (composed) ++*composed;
        // Cycles and resources only grow with more layers.
        if (q.cycles > max_cycles || !within(q.resources, limit)) continue;
        q.cost = cost(q.resources);
        q.pick = p.pick;
        q.pick.push_back(static_cast<int>(i));
        next.push_back(std::move(q));
      }
    std::sort(next.begin(), next.end(), [](const Partial& a, const Partial& b) {
      return a.cycles != b.cycles ? a.cycles < b.cycles : a.cost < b.cost;
    });
    front.clear();
    for (Partial& q : next)
      if (front.empty() || q.cost < front.back().cost) front.push_back(std::move(q));
  }
  std::vector<std::vector<int>> out;
  for (Partial& p : front) out.push_back(std::move(p.pick));
  return out;
}

// Up to `n` of `points` (sorted by cycles) spread over the cycles on a log
// scale: the range cut into n - 1 spans, from each the point of fewest LUTs
// (then of least device share), and the fastest point.
std::vector<std::size_t> spread(const std::vector<Objectives>& points, Goal goal, int n,
                                const fpga::Resources& capacity) {
  std::vector<std::size_t> out;
  if (points.empty()) return out;
  if (static_cast<int>(points.size()) <= n) {
    out.resize(points.size());
    std::iota(out.begin(), out.end(), 0);
    return out;
  }
  const auto log_cycles = [&](std::size_t i) {
    return std::log(std::max<double>(1, static_cast<double>(points[i].cycles(goal))));
  };
  const double lo = log_cycles(0), hi = log_cycles(points.size() - 1);
  const int spans = std::max(1, n - 1);
  std::vector<std::optional<std::size_t>> best(static_cast<std::size_t>(spans));
  const auto cheaper = [&](std::size_t a, std::size_t b) {
    const auto share = [&](std::size_t i) {
      fpga::Resources r;
      r.lut = points[i].lut;
      r.ff = points[i].ff;
      r.dsp = points[i].dsp;
      r.bram18 = points[i].bram18;
      return fpga::share(r, capacity);
    };
    return points[a].lut != points[b].lut ? points[a].lut < points[b].lut : share(a) < share(b);
  };
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double at = hi > lo ? (log_cycles(i) - lo) / (hi - lo) : 0;
    auto& b = best[std::min<std::size_t>(static_cast<std::size_t>(spans - 1),
                                         static_cast<std::size_t>(at * spans))];
    if (!b || cheaper(i, *b)) b = i;
  }
  std::set<std::size_t> chosen{0};
  for (const auto& b : best)
    if (b) chosen.insert(*b);
  return {chosen.begin(), chosen.end()};
}

// Whether a placed point is within the limits: the goal's cycles, the four
// resources and, where the part's table has it, LUT RAM within its SLICEMs.
bool fits(const ExplorePoint& p, Goal goal, const fpga::Resources& limit, int64_t max_cycles) {
  const Objectives& o = p.placed;
  return o.cycles(goal) <= max_cycles && o.lut <= limit.lut && o.ff <= limit.ff &&
         o.dsp <= limit.dsp && o.bram18 <= limit.bram18 &&
         (limit.lutram <= 0 || p.resources.lutram <= limit.lutram);
}

// The placed points within the limits, cut to their frontier (checked).
void keep_frontier(ExploreResult& result, std::vector<ExplorePoint> placed, Goal goal,
                   const fpga::Resources& limit, int64_t max_cycles) {
  std::erase_if(placed, [&](const ExplorePoint& p) { return !fits(p, goal, limit, max_cycles); });
  if (placed.empty())
    throw_error(ErrorKind::InvalidModel, "kiln explore",
                "none of the designs placed is within the limits",
                "raise --max or --max-latency, or choose a larger --part");
  std::vector<Objectives> all;
  for (const ExplorePoint& p : placed) all.push_back(p.placed);
  std::vector<Objectives> front;
  for (std::size_t i : frontier(all, goal)) {
    result.frontier.push_back(std::move(placed[i]));
    front.push_back(result.frontier.back().placed);
  }
  std::string why;
  KILN_ASSERT(verify_frontier(front, all, goal, &why), "explore's frontier: " + why);
}

}  // namespace

ExploreResult unite_variants(std::vector<ExploreResult> parts,
                             const std::vector<PrecisionVariant>& variants,
                             const AccuracyGoal& goal, Goal objective) {
  KILN_ASSERT(!parts.empty() && parts.size() == variants.size(), "one exploration per variant");
  std::vector<ExplorePoint> all_points;
  ExploreResult out;
  for (std::size_t v = 0; v < parts.size(); ++v) {
    ExploreResult& part = parts[v];
    const double loss = accuracy_loss(variants[v].accuracy, goal);
    for (ExplorePoint& p : part.frontier) {
      p.variant = static_cast<int>(v);
      p.placed.loss = p.estimate.loss = loss;
      all_points.push_back(std::move(p));
    }
    out.plans_priced += part.plans_priced;
    out.points_priced += part.points_priced;
    out.points_placed += part.points_placed;
    out.seconds += part.seconds;
  }
  ExploreResult& first = parts[0];
  out.strategy = first.strategy;
  out.deepflexihls = first.deepflexihls;
  out.part = first.part;
  out.layers = first.layers;
  out.candidates = first.candidates;
  out.capacity = first.capacity;
  out.variants = variants;
  out.accuracy_goal = goal;
  std::vector<Objectives> all;
  for (const ExplorePoint& p : all_points) all.push_back(p.placed);
  std::vector<Objectives> front;
  for (std::size_t i : frontier(all, objective)) {
    out.frontier.push_back(std::move(all_points[i]));
    front.push_back(out.frontier.back().placed);
  }
  std::string why;
  KILN_ASSERT(verify_frontier(front, all, objective, &why), "the variants' frontier: " + why);
  return out;
}

Objectives estimate_of(const std::vector<std::vector<LayerCandidate>>& layers,
                       const std::vector<int>& pick, bool streamed) {
  Objectives o;
  fpga::Resources r;
  for (std::size_t k = 0; k < layers.size(); ++k) {
    const LayerCandidate& c = layers[k][static_cast<std::size_t>(pick[k])];
    o.latency += c.latency;
    o.interval = std::max<int64_t>(o.interval, c.interval);
    r += streamed ? c.streamed : c.resources;
  }
  return Objectives::of(o.latency, o.interval, r);
}

std::vector<std::vector<int>> compose(const std::vector<std::vector<LayerCandidate>>& layers,
                                      Goal goal, const fpga::Resources& capacity,
                                      const fpga::Resources& limit, int64_t max_cycles,
                                      int64_t* composed, bool streamed) {
  const std::vector<CostOf> costs = {
      [](const fpga::Resources& r) { return r.lut; },
      [](const fpga::Resources& r) { return r.ff; },
      [](const fpga::Resources& r) { return r.dsp; },
      [](const fpga::Resources& r) { return r.bram18; },
      [&](const fpga::Resources& r) { return fpga::share(r, capacity); },
  };
  // Latency: the layers' latencies summed (layers in turn: the design's
  // latency is at most that), and their fills summed (each layer's latency
  // less its interval: layers that stream into each other overlap all but
  // that), the frontiers of both united; placing then tells.
  std::vector<CyclesOf> models;
  if (goal == Goal::Latency) {
    models.push_back([](int64_t p, const LayerCandidate& c) { return p + c.latency; });
    models.push_back([](int64_t p, const LayerCandidate& c) {
      return p + std::max<int64_t>(1, int64_t{c.latency} - c.interval + 1);
    });
  } else {
    models.push_back(
        [](int64_t p, const LayerCandidate& c) { return std::max<int64_t>(p, c.interval); });
  }
  std::set<std::vector<int>> all;
  for (const CyclesOf& add : models)
    for (const CostOf& cost : costs)
      for (std::vector<int>& pick :
           compose_for(layers, add, cost, limit, max_cycles, composed, streamed))
        all.insert(std::move(pick));
  return {all.begin(), all.end()};
}

ExploreResult explore(const hls::Model& model, const rtl::RtlOptions& options,
                      const ExploreOptions& eo, const Progress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  ExploreResult result;
  const loop::Program program = rtl::design_program(model, options);
  if (program.kernels.empty())
    throw_error(ErrorKind::Unsupported, "model " + model.name, "has no layers to build",
                "kiln explore needs at least one computing layer");
  const fpga::Device device = fpga::device_of_part(model.part);
  result.part = device.name;
  result.capacity = device.capacity;
  rtl::StageOptions so;
  so.clock_ns = model.clock_period_ns;
  so.family = device.family;
  so.scheduler = options.scheduler;
  dfg::UnrollOptions uo;
  if (options.max_ops > 0) uo.max_ops = options.max_ops;
  std::set<std::string> forms;
  for (const auto& [layer, lb] : options.line_buffer) forms.insert(layer);
  const int jobs =
      options.scheduler == rtl::Scheduler::Sdc
          ? 1
          : std::max(1, std::min<int>(eo.jobs, static_cast<int>(program.kernels.size())));
  const auto make_pricer = [&] {
    auto p = std::make_unique<rtl::Pricer>(program, model, uo, device, options.configured_buffers,
                                           forms, options.constants_on_dsps, options.least_depth);
    p->set_graph_budget(eo.graph_cache_bytes / static_cast<std::size_t>(jobs));
    return p;
  };
  // One pricer per thread; the first also serves seed 003's strategy.
  std::vector<std::unique_ptr<rtl::Pricer>> pricers;
  for (int j = 0; j < jobs; ++j) pricers.push_back(make_pricer());
  rtl::Pricer& pricer = *pricers.front();

  fpga::Resources limit = device.capacity;
  if (eo.max_lut) limit.lut = *eo.max_lut;
  if (eo.max_ff) limit.ff = *eo.max_ff;
  if (eo.max_dsp) limit.dsp = *eo.max_dsp;
  if (eo.max_bram18) limit.bram18 = *eo.max_bram18;
  const int64_t max_cycles = eo.max_cycles.value_or(std::numeric_limits<int64_t>::max() / 4);

  result.strategy = eo.strategy;
  if (eo.strategy == Strategy::DeepFlexiHls) {
    DeepFlexiResult d =
        deepflexihls(pricer, model, options, so, eo.goal, limit, max_cycles, progress);
    result.deepflexihls = d.stats;
    result.points_placed = d.stats.selected_runs + static_cast<int64_t>(d.placed.size());
    result.points_priced = d.stats.estimated;
    result.plans_priced = d.stats.runs;
    for (std::size_t k = 0; k < program.kernels.size(); ++k)
      result.layers.push_back(program.kernels[k].name);
    result.candidates.resize(program.kernels.size());
    keep_frontier(result, std::move(d.placed), eo.goal, limit, max_cycles);
    result.seconds = seconds_since(t0);
    return result;
  }

  // Every layer's plans, priced alone, cut to the layer's own frontier.
  std::vector<int64_t> ops;
  for (const loop::Kernel& k : program.kernels) ops.push_back(loop::dynamic_ops(k));
  const int64_t model_ops = std::accumulate(ops.begin(), ops.end(), int64_t{0});
  const int64_t fastest =
      eo.fastest_cycles > 0 ? eo.fastest_cycles : std::max<int64_t>(32, model_ops / 4096);
  // One layer's plans priced alone, cut to the layer's own frontier.
  const auto price_layer = [&](rtl::Pricer& pricer, int kk, int64_t& tried_out) {
    const std::size_t k = static_cast<std::size_t>(kk);
    const loop::Kernel& kernel = program.kernels[k];
    rtl::StageOptions alone = so;
    alone.multiplier_limit = rtl::multiplier_limit_of(options, kernel);
    std::vector<rtl::PlanChoice> plans;
    if (options.configured_layers.count(kernel.name)) {
      // The config's plan for the layer: the user's, never explored.
      rtl::LayerPlan plan = rtl::configured_plan(program, kk);
      plan.constants_on_dsps = pricer.configured_constants(kk).value_or(false);
      plan.least_depth = pricer.configured_least_depth(kk).value_or(false);
      rtl::PlanPrice p = pricer.price(kk, plan, alone);
      if (!p.feasible)
        throw_error(ErrorKind::Unsupported, "layer '" + kernel.onnx_name + "'", p.reason,
                    "change its Loop directives, or remove them for kiln explore to choose");
      rtl::PlanChoice c;
      c.plan = plan;
      c.interval = p.interval;
      c.latency = p.latency;
      c.resources = p.stage.report;
      plans.push_back(std::move(c));
    } else {
      // Every plan up to the slowest design wanted: a loop plan of more
      // iterations than that is not priced (Prune::OverParallel's `slow`).
      const rtl::IntervalTarget target{kernel.name, std::min<int64_t>(max_cycles, kSlowest),
                                       "kiln explore"};
      std::string refused;
      plans = rtl::layer_plans(
          pricer, kk, target, std::numeric_limits<int>::max() / 2,
          [&alone](const rtl::LayerPlan&) { return alone; }, rtl::Prune::OverParallel,
          rtl::latency_share_cycles(fastest, ops[k], model_ops), &refused);
      if (plans.empty())
        throw_error(ErrorKind::Unsupported, "layer '" + kernel.onnx_name + "'",
                    "no plan kiln can build" + (refused.empty() ? "" : ": " + refused),
                    "set its Loop directives (kiln rtl --list-loops)");
    }
    // A plan that keeps a loop priced again with its inputs arriving through
    // channels, a pixel a beat, as a producer that keeps a loop hands them
    // on in a design: its resources are those (no register copy of the
    // input, read through multiplexers), its cycles the ones priced alone.
    std::vector<fpga::Resources> streamed;
    for (const rtl::PlanChoice& c : plans) streamed.push_back(c.resources);
    if (eo.inputs_through_channels)
      for (std::size_t i = 0; i < plans.size(); ++i) {
        const rtl::PlanChoice& c = plans[i];
        if (c.plan.loop < 0) continue;
        pricer.trim();  // between plans: no graph held
        const rtl::LayerGraph* g = pricer.graph_for(kk, c.plan, nullptr);
        if (!g || !g->split) continue;
        const loop::Program& form = pricer.program_for(kk, c.plan);
        rtl::DesignTiming timing;
        std::deque<rtl::Channel> channels;
        for (int read : kernel.reads) {
          const int b = program.storage_of(read);
          const loop::Buffer& buffer = program.buffers[static_cast<std::size_t>(b)];
          if (buffer.role == loop::BufferRole::Const || buffer.role == loop::BufferRole::Local)
            continue;
          const int64_t lanes = buffer.shape.empty() ? 1 : buffer.shape.back();
          timing.add_input(b, buffer.numel(), lanes);
          if (std::optional<rtl::Channel> ch =
                  rtl::plan_input_channel(form, b, lanes, kk, *g->split)) {
            rtl::verify_input_channel(form, *ch, *g->split);
            channels.push_back(std::move(*ch));
          }
        }
        if (channels.empty()) continue;
        rtl::StageOptions o = alone;
        timing.prepare(o);
        for (const rtl::Channel& ch : channels) o.channels.push_back(&ch);
        const rtl::PlanPrice p = pricer.price(kk, c.plan, o);
        if (p.feasible) streamed[i] = p.stage.report;
      }
    // Priced alone, every plan holds the layer's input and output in
    // registers, which the design's channels mostly hold instead: the
    // composition weighs each plan's flip-flops over the fewest its layer's
    // plans have (rtl::over_common_flip_flops, as LatencyCycles does);
    // placing gives the real count.
    tried_out = plans.empty() ? 0 : plans.front().tried;
    plans = std::move(rtl::over_common_flip_flops({std::move(plans)}, device).front());
    {
      double floor = std::numeric_limits<double>::infinity();
      for (const fpga::Resources& r : streamed) floor = std::min(floor, r.ff);
      for (fpga::Resources& r : streamed) r.ff -= floor;
    }
    // The layer's own frontier over latency and interval both (either may
    // matter to the design: a producer's interval paces its consumers), by
    // either resource model.
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      bool beaten[2] = {false, false};
      for (int m = 0; m < 2; ++m) {
        const auto obj = [&](std::size_t x) {
          return Objectives::of(plans[x].latency, plans[x].interval,
                                m == 0 ? plans[x].resources : streamed[x]);
        };
        for (std::size_t j = 0; j < plans.size() && !beaten[m]; ++j)
          beaten[m] = j != i && dominates(obj(j), obj(i), Goal::Latency) &&
                      plans[j].interval <= plans[i].interval;
      }
      if (!beaten[0] || !beaten[1]) keep.push_back(i);
    }
    std::vector<LayerCandidate> candidates;
    std::vector<rtl::LayerPlan> kept;
    for (std::size_t i : keep) {
      const rtl::PlanChoice& c = plans[i];
      candidates.push_back(
          {c.plan, rtl::describe(kernel, c.plan), c.interval, c.latency, c.resources, streamed[i]});
      kept.push_back(c.plan);
    }
    pricer.forget(kk, kept);
    pricer.trim();
    return candidates;
  };

  // Each layer's plans priced on `jobs` threads, each with a pricer of its
  // own (rtl::Pricer is not thread-safe; GLPK, the SDC scheduler's solver,
  // is not either, so that scheduler prices on one), the largest layers
  // first.
  const std::size_t n = program.kernels.size();
  for (const loop::Kernel& k : program.kernels) result.layers.push_back(k.name);
  result.candidates.resize(n);
  std::vector<int64_t> tried(n, 0);
  std::vector<std::size_t> order_by_ops(n);
  std::iota(order_by_ops.begin(), order_by_ops.end(), 0);
  std::stable_sort(order_by_ops.begin(), order_by_ops.end(),
                   [&](std::size_t a, std::size_t b) { return ops[a] > ops[b]; });
  std::atomic<std::size_t> next{0};
  std::mutex said;
  int done = 0;
  std::vector<std::exception_ptr> failed(n);
  const auto work = [&](rtl::Pricer& own) {
    for (std::size_t at; (at = next++) < n;) {
      const std::size_t k = order_by_ops[at];
      try {
        result.candidates[k] = price_layer(own, static_cast<int>(k), tried[k]);
      } catch (...) {
        failed[k] = std::current_exception();
        continue;
      }
      std::lock_guard<std::mutex> lock(said);
      say(fmt::format("layer {} ({}): {} plans priced, {} on its frontier ({} of {} layers)", k + 1,
                      program.kernels[k].name, tried[k], result.candidates[k].size(), ++done, n));
    }
  };
  if (jobs == 1) {
    work(pricer);
  } else {
    std::vector<std::thread> threads;
    for (int j = 0; j < jobs; ++j)
      threads.emplace_back([&, j] { work(*pricers[static_cast<std::size_t>(j)]); });
    for (std::thread& t : threads) t.join();
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (failed[k]) std::rethrow_exception(failed[k]);
    result.plans_priced += std::max<int64_t>(1, tried[k]);
  }

  // One design of candidates placed as build_design places it; nullopt
  // (said) when it cannot be.
  std::mutex placing;  // result.points_placed and `say` while placing on threads
  const auto place_on = [&](rtl::Pricer& pricer,
                            const std::vector<int>& pick) -> std::optional<ExplorePoint> {
    ExplorePoint p;
    for (std::size_t k = 0; k < pick.size(); ++k)
      p.plans.push_back(result.candidates[k][static_cast<std::size_t>(pick[k])].plan);
    p.estimate = estimate_of(result.candidates, pick);
    pricer.trim();  // between designs: no graph held
    try {
      const rtl::PlacedDesign d = rtl::place_design(pricer, options, so, p.plans);
      {
        std::lock_guard<std::mutex> lock(placing);
        ++result.points_placed;
      }
      const Objectives estimate = p.estimate;
      p = placed_point(pricer, model, program, options, d,
                       fmt::format("kiln explore's point for {}: {} cycles of latency, an "
                                   "interval of {}",
                                   model.name, d.latency, d.interval));
      p.estimate = estimate;
    } catch (const Error& e) {
      std::lock_guard<std::mutex> lock(placing);
      say(fmt::format("a design could not be placed: {}", e.what()));
      return std::nullopt;
    }
    return p;
  };
  const auto place_pick = [&](const std::vector<int>& pick) { return place_on(pricer, pick); };
  // Designs placed on `jobs` threads (each on its pricer: a placement reads
  // no other's), the results in `picks`' order; `said(i, point)` reports
  // each as it is placed.
  const auto place_all = [&](const std::vector<const std::vector<int>*>& picks,
                             const std::function<void(std::size_t, const ExplorePoint&)>& said) {
    std::vector<std::optional<ExplorePoint>> out(picks.size());
    std::atomic<std::size_t> next_pick{0};
    std::vector<std::exception_ptr> failures(pricers.size());
    const auto run = [&](std::size_t j) {
      try {
        for (std::size_t i; (i = next_pick++) < picks.size();) {
          out[i] = place_on(*pricers[j], *picks[i]);
          if (out[i]) {
            std::lock_guard<std::mutex> lock(placing);
            said(i, *out[i]);
          }
        }
      } catch (...) {
        failures[j] = std::current_exception();
      }
    };
    std::vector<std::thread> threads;
    for (std::size_t j = 1; j < pricers.size(); ++j) threads.emplace_back(run, j);
    run(0);
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : failures)
      if (e) std::rethrow_exception(e);
    return out;
  };
  std::vector<ExplorePoint> placed;

  if (eo.strategy == Strategy::Exhaustive) {
    // Every design of the layers' candidates placed: the true frontier of
    // the space, to measure the strategies' against (ADRS).
    int64_t designs = 1;
    for (const std::vector<LayerCandidate>& c : result.candidates) {
      designs *= static_cast<int64_t>(c.size());
      if (designs > kMostExhaustive)
        throw_error(ErrorKind::Unsupported, "--strategy exhaustive",
                    fmt::format("the space of {} has over {} designs", model.name, kMostExhaustive),
                    "use kiln's strategy (leave --strategy out), or --max-latency to shrink it");
    }
    // Every pick in mixed-radix order, placed on the threads in that order.
    std::vector<std::vector<int>> all;
    all.reserve(static_cast<std::size_t>(designs));
    std::vector<int> pick(result.candidates.size(), 0);
    for (int64_t d = 0; d < designs; ++d) {
      all.push_back(pick);
      for (std::size_t k = 0; k < pick.size(); ++k) {  // the next, mixed radix
        if (++pick[k] < static_cast<int>(result.candidates[k].size())) break;
        pick[k] = 0;
      }
    }
    std::vector<const std::vector<int>*> picks;
    for (const std::vector<int>& p : all) picks.push_back(&p);
    std::size_t done = 0;
    for (std::optional<ExplorePoint>& p : place_all(picks, [&](std::size_t, const ExplorePoint&) {
           if (++done % 1000 == 0)
             say(fmt::format("placed {} of {} designs ({:.1f} s)", done, designs,
                             seconds_since(t0)));
         }))
      if (p) placed.push_back(std::move(*p));
    result.points_priced += designs;
    keep_frontier(result, std::move(placed), eo.goal, limit, max_cycles);
    result.seconds = seconds_since(t0);
    return result;
  }

  // Whole designs composed from the layers' frontiers. Layers priced alone
  // take more LUTs and flip-flops than placed (their inputs in registers
  // read through multiplexers, where the design's channels hold them:
  // ResNet-8's layers alone add up to about nine times the design's LUTs).
  // So the composition first runs without those two limits; the composed
  // design of least device share is placed to measure by how much (a ratio
  // between 1/50 and 1), and the designs composed are then held to the
  // limits over that ratio, with kComposeSlack to spare. Placing judges them
  // by the real figures.
  // Composed by both resource models (layers alone, inputs in registers;
  // and inputs through channels), the designs united.
  fpga::Resources open = limit;
  open.lut = open.ff = std::numeric_limits<double>::infinity();
  std::set<std::vector<int>> united;
  for (const bool streamed : {false, true})
    for (std::vector<int>& pick : compose(result.candidates, eo.goal, device.capacity, open,
                                          max_cycles, &result.points_priced, streamed))
      united.insert(std::move(pick));
  std::vector<std::vector<int>> picks(united.begin(), united.end());
  fpga::Resources loose[2] = {open, open};
  if (!picks.empty()) {
    for (int m = 0; m < 2; ++m) {
      const auto share_of = [&](const std::vector<int>& pick) {
        const Objectives o = estimate_of(result.candidates, pick, m == 1);
        fpga::Resources r;
        r.lut = o.lut;
        r.ff = o.ff;
        r.dsp = o.dsp;
        r.bram18 = o.bram18;
        return fpga::share(r, device.capacity);
      };
      const std::vector<int> least = *std::min_element(
          picks.begin(), picks.end(),
          [&](const auto& a, const auto& b) { return share_of(a) < share_of(b); });
      double lut_ratio = 1, ff_ratio = 1;
      if (std::optional<ExplorePoint> p = place_pick(least)) {
        const Objectives e = estimate_of(result.candidates, least, m == 1);
        const auto ratio = [](double placed_value, double estimate) {
          return estimate > 0 ? std::clamp(placed_value / estimate, 0.02, 1.0) : 1.0;
        };
        lut_ratio = ratio(p->placed.lut, e.lut);
        ff_ratio = ratio(p->placed.ff, e.ff);
        placed.push_back(std::move(*p));
      }
      loose[m].lut = limit.lut / lut_ratio * kComposeSlack;
      loose[m].ff = limit.ff / ff_ratio * kComposeSlack;
      say(
          fmt::format("{}: the design of least share placed takes {:.2f}x the LUTs and {:.2f}x "
                      "the flip-flops composed; designs composed up to {:.0f} LUT and {:.0f} FF "
                      "kept",
                      m == 0 ? "layers priced alone" : "inputs through channels", lut_ratio,
                      ff_ratio, loose[m].lut, loose[m].ff));
    }
    std::erase_if(picks, [&](const std::vector<int>& pick) {
      for (int m = 0; m < 2; ++m) {
        const Objectives o = estimate_of(result.candidates, pick, m == 1);
        if (o.lut <= loose[m].lut && o.ff <= loose[m].ff) return false;
      }
      return true;
    });
  }
  if (picks.empty()) {
    // What rules every design out: per resource, the fewest any design takes
    // (each layer's least, summed) against the limit the composition held.
    std::string over;
    for (const fpga::ResourceField& f : fpga::kResourceFields) {
      if (f.member != &fpga::Resources::lut && f.member != &fpga::Resources::ff &&
          f.member != &fpga::Resources::dsp && f.member != &fpga::Resources::bram18)
        continue;
      double least = 0;
      for (const std::vector<LayerCandidate>& c : result.candidates) {
        double m = std::numeric_limits<double>::infinity();
        for (const LayerCandidate& x : c) m = std::min(m, x.streamed.*f.member);
        least += m;
      }
      if (least > loose[1].*f.member)
        over += fmt::format("{}{} {:.0f} (at most {:.0f})", over.empty() ? "" : ", ", f.label,
                            least, loose[1].*f.member);
    }
    throw_error(
        ErrorKind::InvalidModel, "kiln explore",
        fmt::format("no design of {} is within the limits ({} designs priced{})", model.name,
                    result.points_priced, over.empty() ? "" : "; its layers take at least " + over),
        "raise --max or --max-latency, or choose a larger --part");
  }
  std::vector<Objectives> estimates;
  for (const std::vector<int>& pick : picks)
    estimates.push_back(estimate_of(result.candidates, pick));
  std::vector<std::size_t> order(picks.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return estimates[a].cycles(eo.goal) < estimates[b].cycles(eo.goal);
  });
  std::vector<Objectives> sorted, sorted_streamed;
  for (std::size_t i : order) {
    sorted.push_back(estimates[i]);
    sorted_streamed.push_back(estimate_of(result.candidates, picks[i], true));
  }
  say(fmt::format("{} designs priced, {} on the composed frontiers ({:.1f} s)",
                  result.points_priced, picks.size(), seconds_since(t0)));

  // The chosen ones placed as build_design places them.
  // Spread by each resource model's fewest LUTs (the cycles are the same in
  // both), the two sets united.
  std::vector<std::size_t> to_place;
  {
    std::set<std::size_t> both;
    for (const std::vector<Objectives>* est : {&sorted, &sorted_streamed})
      for (std::size_t i : spread(*est, eo.goal, eo.placements, device.capacity)) both.insert(i);
    to_place.assign(both.begin(), both.end());
  }
  {
    std::vector<const std::vector<int>*> these;
    for (std::size_t i : to_place) these.push_back(&picks[order[i]]);
    std::size_t done = 0;
    for (std::optional<ExplorePoint>& p : place_all(these, [&](std::size_t, const ExplorePoint& p) {
           say(fmt::format(
               "placed {} of {}: {} cycles, {:.0f} LUT, {:.0f} FF, {:.0f} DSP, {:.0f} BRAM18",
               ++done, these.size(), p.placed.cycles(eo.goal), p.placed.lut, p.placed.ff,
               p.placed.dsp, p.placed.bram18));
         }))
      if (p) placed.push_back(std::move(*p));
  }
  // Where the frontier meets the limits: the composed designs just faster,
  // by their estimate, than the fastest design placed within the limits,
  // placed too (a quarter of --placements), the nearest first: the fastest
  // design that fits is what a user with one part wants.
  const ExplorePoint* fastest_fit = nullptr;
  for (const ExplorePoint& p : placed)
    if (fits(p, eo.goal, limit, max_cycles) &&
        (!fastest_fit || p.placed.cycles(eo.goal) < fastest_fit->placed.cycles(eo.goal)))
      fastest_fit = &p;
  if (fastest_fit) {
    const int64_t below = fastest_fit->estimate.cycles(eo.goal);
    std::set<std::size_t> done(to_place.begin(), to_place.end());
    std::vector<std::size_t> nearer;  // positions in `sorted`, nearest below first
    for (std::size_t i = sorted.size(); i-- > 0;)
      if (!done.count(i) && sorted[i].cycles(eo.goal) < below) nearer.push_back(i);
    const std::size_t more = std::min<std::size_t>(nearer.size(), eo.placements / 4);
    std::vector<const std::vector<int>*> these;
    for (std::size_t n = 0; n < more; ++n) these.push_back(&picks[order[nearer[n]]]);
    std::size_t near_done = 0;
    for (std::optional<ExplorePoint>& p : place_all(these, [&](std::size_t, const ExplorePoint& p) {
           say(
               fmt::format("placed {} of {} near the limits: {} cycles, {:.0f} LUT, {:.0f} FF, "
                           "{:.0f} DSP, {:.0f} BRAM18",
                           ++near_done, more, p.placed.cycles(eo.goal), p.placed.lut, p.placed.ff,
                           p.placed.dsp, p.placed.bram18));
         }))
      if (p) placed.push_back(std::move(*p));
  }
  keep_frontier(result, std::move(placed), eo.goal, limit, max_cycles);
  result.seconds = seconds_since(t0);
  return result;
}

}  // namespace kiln::dse

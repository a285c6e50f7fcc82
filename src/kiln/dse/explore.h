// kiln explore's search (docs/explore.md): the frontier of whole designs of a
// model, latency (or interval) against the part's LUT, FF, DSP and BRAM18,
// each point a plan per layer that kiln rtl builds as it is.
//
// kiln's strategy: every layer's plans priced alone (rtl::layer_plans, the
// plans rtl's searches try, each from its exact schedule), cut to the
// layer's own frontier; then the designs composed layer by layer, keeping
// after each layer the partial designs on the frontier of (cycles so far,
// one resource): latencies add up and intervals take the slowest, resources
// add up, so a partial design off that frontier is off it for every
// completion, and the composition is exact for each such pair (run once per
// resource and once for the device share, the frontiers united). A partial
// design over the part's capacity (or the --max figures) is dropped. The
// composed frontier's points, an estimate (layers priced alone overlap and
// hand tensors through channels in the design), are then placed as
// build_design places them (rtl::place_design: the design's timing and
// channels, stretched plans) and the frontier taken again of what placing
// gave: each point's figures are the built design's.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/dse/frontier.h"
#include "kiln/dse/precision.h"
#include "kiln/fpga/devices.h"
#include "kiln/hls/model.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/rtl/plan/plan.h"

namespace kiln::dse {

// kiln's own (above), seed 003's (deepflexihls.h), or every design of the
// layers' candidates placed (the true frontier of the space, when it holds
// at most 200,000 designs: what the others are measured against).
enum class Strategy : uint8_t { Kiln, DeepFlexiHls, Exhaustive };

struct ExploreOptions {
  Goal goal = Goal::Latency;
  Strategy strategy = Strategy::Kiln;
  // The most of each resource a point may take (the part's capacity where
  // not set).
  std::optional<double> max_lut, max_ff, max_dsp, max_bram18;
  std::optional<int64_t> max_cycles;  // of the goal
  // The fastest design the search aims at, in the goal's cycles: a layer's
  // plans over 16 times the parallelism its share of it needs are not priced
  // (rtl::Prune::OverParallel). 0: the model's operations / 4096, at least 32.
  int64_t fastest_cycles = 0;
  // Estimated frontier points placed (spread over the cycles).
  int placements = 64;
  // Threads pricing layers' plans (each with a pricer of its own).
  int jobs = 1;
  // The most bytes the pricers' cached graphs hold between plans and
  // between designs placed, shared among the threads (rtl::Pricer::trim):
  // a graph dropped is made again when asked for. 0: no limit.
  std::size_t graph_cache_bytes = std::size_t{1} << 30;
  // Each plan that keeps a loop also priced with its inputs through
  // channels: the composition's second resource model.
  bool inputs_through_channels = true;
};

// One plan of a layer, priced alone.
struct LayerCandidate {
  rtl::LayerPlan plan;
  std::string text;  // rtl::describe
  int interval = 0, latency = 0;
  fpga::Resources resources;  // priced alone (its inputs in registers)
  // Priced with its inputs through channels where it keeps a loop and they
  // make one (else `resources`).
  fpga::Resources streamed;
};

struct ExplorePoint {
  std::vector<rtl::LayerPlan> plans;  // placed (stretched where placing did)
  std::vector<std::string> texts;     // each plan in words
  Objectives estimate;                // composed from the layers priced alone
  Objectives placed;                  // where the design places them
  fpga::Resources resources;          // placed, every field (LUT RAM among them)
  std::string plans_yaml;             // rtl::design_plans_yaml
  int variant = 0;                    // its precision: ExploreResult::variants
};

// What seed 003's strategy counted (deepflexihls.h).
struct DeepFlexiStats {
  int64_t neighbours = 0;     // neighbour sets stage 1 looked at
  int64_t simplified = 0;     // of those, answered from the cache after Simplify
  int64_t runs = 0;           // stage-1 "HLS runs" (layer plans priced)
  int64_t failed = 0;         // of those, sets kiln's plans cannot express or build
  int64_t selected_runs = 0;  // stage 2: the base, single partitions and APLs placed
  int64_t estimated = 0;      // stage 2: aggregate directive sets estimated
  // Over the estimated frontier's points placed: mean |estimate - placed| /
  // placed of the goal's cycles and of LUTs.
  double cycles_error = 0, lut_error = 0;
  std::vector<std::string> cds;  // stage 1's directives per partition
};

struct ExploreResult {
  Strategy strategy = Strategy::Kiln;
  std::optional<DeepFlexiStats> deepflexihls;
  std::string part;
  std::vector<std::string> layers;
  std::vector<std::vector<LayerCandidate>> candidates;  // per layer, its own frontier
  int64_t plans_priced = 0;                             // layer plans priced (rtl::Pricer)
  int64_t points_priced = 0;           // whole designs composed and priced by the estimate
  int64_t points_placed = 0;           // whole designs placed
  std::vector<ExplorePoint> frontier;  // placed, within the limits, by cycles
  // The precision choices explored (precision.h); one, the configured model's
  // with no accuracy measured, without --accuracy.
  std::vector<PrecisionVariant> variants;
  std::optional<AccuracyGoal> accuracy_goal;
  std::string accuracy_source;
  int precision_evaluations = 0;
  fpga::Resources capacity;
  double seconds = 0;
};

using Progress = std::function<void(const std::string&)>;

// Throws kiln::Error (InvalidModel) when no design is within the limits.
ExploreResult explore(const hls::Model& model, const rtl::RtlOptions& options,
                      const ExploreOptions& explore_options, const Progress& progress = {});

// One exploration per precision variant (`parts[v]` of `variants[v]`) made
// one: every point's loss the variant's accuracy_loss, the frontier taken
// over all of them (checked with verify_frontier), the counters summed. The
// first part's layers, candidates and capacity are kept.
ExploreResult unite_variants(std::vector<ExploreResult> parts,
                             const std::vector<PrecisionVariant>& variants,
                             const AccuracyGoal& goal, Goal objective);

// The composition step alone (exposed for its tests): the designs of one
// candidate per layer on the frontier of (cycles, cost) for each cost of
// lut, ff, dsp, bram18 and the share of `capacity`, within `limit`; each
// design a candidate index per layer. Cycles are, for latency, the layers'
// latencies summed and, separately, their fills (latency - interval + 1)
// summed, the frontiers of both united; for interval, the slowest layer's.
// `composed` counts the designs priced.
// `streamed`: the candidates' `streamed` resources instead.
std::vector<std::vector<int>> compose(const std::vector<std::vector<LayerCandidate>>& layers,
                                      Goal goal, const fpga::Resources& capacity,
                                      const fpga::Resources& limit, int64_t max_cycles,
                                      int64_t* composed, bool streamed = false);

// The estimate of one design of candidates: latencies summed (or the
// slowest interval), resources summed.
Objectives estimate_of(const std::vector<std::vector<LayerCandidate>>& layers,
                       const std::vector<int>& pick, bool streamed = false);

}  // namespace kiln::dse

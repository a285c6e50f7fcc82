// Seed 003's strategy (DeepFlexiHLS, Riazati et al.), as the seed describes
// it, with kiln's pricing where the seed runs Vitis HLS (docs/explore.md
// "Seed 003's strategy").
//
// A partition is a layer's loop nest (its top-level loop and the perfect
// nest inside it); a directive set gives each loop of the nest a pipeline
// flag and an unroll factor that divides its trip count. An "HLS run" of a
// design prices each layer's plan alone and adds their latencies (the
// seed's designs have no dataflow directive: the layers run one after the
// other) and their resources; a directive set that kiln's plans cannot
// express, or whose plan kiln cannot build or that unrolls more than the
// tool would (rtl::kAlwaysPriced x 64 operations), is a failed run.
//
// Stage 1 (the seed's Algorithm 1): from the design without directives,
// each partition in turn adds one directive at a time (each neighbour
// simplified first: a pipelined loop unrolls every loop inside it, so
// their directives go; a fully unrolled loop's pipeline flag goes; a loop
// of one iteration has none), taking the neighbour of least latency while
// it improves. A simplified set priced before is not priced again: the
// seed counts those savings (32.76% fewer runs on LeNet).
//
// Stage 2: the aggregate directive sets (ADS), a subset of partitions with
// their stage-1 directives, the others without: each single partition and
// each run of adjacent ones (APL) placed as a whole design (kiln's own
// "HLS" with dataflow and channels between layers, where adjacency
// matters), and every subset estimated from its largest adjacent runs
// (LAPL) as the base design plus their effects. The estimated frontier's
// points are then placed too, so the frontier reported is what kiln builds
// and the estimate's error is measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/dse/explore.h"
#include "kiln/loop/loop_ir.h"
#include "kiln/rtl/plan/plan.h"
#include "kiln/rtl/plan/price.h"

namespace kiln::dse {

// The loops of a partition, outermost first: the top-level loop of most
// operations and the perfect nest inside it.
std::vector<int> partition_loops(const loop::Kernel& kernel);

// One partition's directives, per loop of partition_loops.
struct DirectiveSet {
  std::vector<bool> pipeline;
  std::vector<int64_t> unroll;  // 1: none
  bool operator==(const DirectiveSet&) const = default;
  bool operator<(const DirectiveSet& o) const {
    return pipeline != o.pipeline ? pipeline < o.pipeline : unroll < o.unroll;
  }
};
DirectiveSet no_directives(const loop::Kernel& kernel, const std::vector<int>& loops);

// The seed's three rules (above).
DirectiveSet simplify(const loop::Kernel& kernel, const std::vector<int>& loops, DirectiveSet ds);
// The sets with one more active directive than `ds`: a pipeline flag on a
// loop without one, or an unroll factor (each divisor of the trip count
// over 1) on a loop without one.
std::vector<DirectiveSet> neighbours(const loop::Kernel& kernel, const std::vector<int>& loops,
                                     const DirectiveSet& ds);
// kiln's plan for a simplified set, or nullopt when its plans cannot
// express it: they keep a prefix of the nest (flattened), the innermost
// kept loop unrolled; so the loops outside the innermost kept one must have
// no unroll factor. The innermost kept loop is the outermost pipelined one,
// else the innermost that is not fully unrolled; none: fully unrolled.
std::optional<rtl::LayerPlan> plan_of(const loop::Kernel& kernel, const std::vector<int>& loops,
                                      const DirectiveSet& ds);
// "oh:pipeline ow:unroll=4" (loops without directives left out; "-" for none).
std::string directive_text(const loop::Kernel& kernel, const std::vector<int>& loops,
                           const DirectiveSet& ds);

// LAPL(PL) (the seed's equation 1): the maximal runs of adjacent partitions
// in `chosen` (indices in order), each as (first, size).
std::vector<std::pair<int, int>> largest_adjacent_runs(const std::vector<int>& chosen);

struct DeepFlexiResult {
  std::vector<ExplorePoint> placed;  // the estimated frontier's points, placed
  DeepFlexiStats stats;
};

// Both stages on the pricer's program; `limit`, `max_cycles` bound the
// frontier as kiln's strategy's.
DeepFlexiResult deepflexihls(rtl::Pricer& pricer, const hls::Model& model,
                             const rtl::RtlOptions& options, const rtl::StageOptions& stage,
                             Goal goal, const fpga::Resources& limit, int64_t max_cycles,
                             const Progress& progress);

}  // namespace kiln::dse

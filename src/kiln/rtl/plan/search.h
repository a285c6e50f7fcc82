// Choosing each layer's plan before any hardware is built (docs/config.md,
// "In kiln rtl"): the config's Loop directives where it gives them, else
//
//  - TargetCycles (or the II its ReuseFactor gives in kiln compile): the
//    plan that meets the layer's interval target with the smallest share of
//    the device;
//  - a Dense layer with a MultiplierLimit and no target: folded onto its
//    multipliers (the fastest plan whose products all run on them, or the
//    cheapest within 5% of it);
//  - Model.LatencyCycles: the searched plans raised until the layers'
//    latencies add up to the bound;
//  - otherwise fully unrolled.
//
// The plans tried: fully unrolled; each top-level loop kept and pipelined,
// unrolled by each factor of its trip count from the smallest up (the first
// that meets the target is the cheapest of that loop: more copies only cost
// more); flattened with the loop inside it when a perfect nest (that loop
// unrolled likewise); with the weights it reads in two-port ROM banks or in
// registers; and a stride-1 convolution's line-buffered form. Every plan is
// priced (price.h), never built. When no plan priced meets the target
// because the finer plans' graphs cannot be made, those skipped as too
// parallel (Prune::OverParallel) are priced after all, the least parallel
// first (layer_plans). A layer that reads a skip connection keeps a loop
// where one meets its target. Layers are searched in order, each priced
// where the design's timing puts it and with the channels (channels.h) its
// reads from the layers already chosen make, so that a consumer's memories
// instead of a register copy of its input count in its cost. The cost is the
// share of the device (fpga::share): one DSP weighs 1/6,840 of a VU9P's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/rtl/analysis/channels.h"
#include "kiln/rtl/plan/price.h"

namespace kiln::rtl {

struct PlanChoice {
  LayerPlan plan;
  int interval = 0;  // cycles between samples the layer takes
  int latency = 0;   // cycles from its start to its results
  double cost = 0;   // share of the device
  int tried = 0;     // plans priced
  int skipped = 0;   // plans not priced (Prune::OverParallel)
  int slow = 0;      // plans not priced: more iterations than the target's cycles
  // Its products run on DSP multipliers (none by constants as shifts and adds).
  bool on_multipliers = false;
  std::string text;           // describe(): the plan in words
  std::string why;            // for the report
  fpga::Resources resources;  // its estimate (the stage report's); the design
                              // prices the plan picked again where it puts it
};

struct LayerChoice {
  LayerPlan plan;
  std::string why;  // the search's or the fold's reason; empty for a configured plan
};

// The layer's MultiplierLimit (RtlOptions::multiplier_limits), if any.
std::optional<int> multiplier_limit_of(const RtlOptions& options, const loop::Kernel& kernel);

// The options a candidate plan of a layer is priced with.
using PlanContext = std::function<StageOptions(const LayerPlan&)>;

// The plans the search tries for kernel `kernel` that kiln can build, each
// priced: up to the first factor of each loop whose interval meets `target`
// and `more_factors` past it. `tried` (on every entry) counts the infeasible
// ones too.
//
// With Prune::OverParallel a plan that unrolls more than kOverParallel times
// the operations per cycle `target` needs (and more than kAlwaysPriced:
// plan_unrolled_ops) is not priced, only counted in `skipped`: it holds that
// many times the operators of a plan that just meets the target at II 1,
// which loop control and memories never cost. Its graph alone is what made
// `kiln rtl` take minutes and gigabytes (model64's third convolution
// line-buffered with its window loop kept unrolls a whole pixel's 148 K
// operations: 12 s and 3 GB). `prune_cycles`, when set, is the cycles the
// parallelism is measured against instead of the target's: a LatencyCycles
// search needs its layers faster than the bound, and measures each against
// its share of it (latency_share_cycles). Prune::OverParallel also leaves
// unpriced, counted in `slow`, a plan whose kept loops run more iterations
// than the target's cycles: one iteration issues per cycle at best, so it
// cannot meet it (model64's third convolution with its output-channel loop
// kept: 2.4 M iterations, the plan's walk over them minutes and gigabytes).
enum class Prune : uint8_t { None, OverParallel };
// A priced plan whose products of two variables run on at most this many DSP
// multipliers is priced on one and on none (LayerPlan::multipliers) too.
inline constexpr int64_t kFewMultipliers = 16;
inline constexpr int64_t kOverParallel = 16;
inline constexpr int64_t kAlwaysPriced = 4096;
bool over_parallel(int64_t layer_ops, int64_t unrolled_ops, int64_t target_cycles);
// `refused`, when given, gets the first plan priced that kiln cannot build
// and why ("loop=oh flatten=5 pipeline=1: ... does not fit the 7.00 ns clock").
std::vector<PlanChoice> layer_plans(Pricer& pricer, int kernel, const IntervalTarget& target,
                                    int more_factors, const PlanContext& context,
                                    Prune prune = Prune::None, int64_t prune_cycles = 0,
                                    std::string* refused = nullptr);

// A layer's share of a LatencyCycles bound: the bound times its operations'
// share of the model's (loop::dynamic_ops), at least 1. MobileNetV1's
// fully unrolled pointwise layers (3.5 M operations, a graph of gigabytes)
// are never what a bound of a million cycles over 30 layers needs.
int64_t latency_share_cycles(int64_t bound, int64_t layer_ops, int64_t model_ops);

// Every plan the search may try for kernel `kernel`, in its order, unpriced:
// what the pricing benchmark (bench/rtl_price.cpp) walks, and a directive
// explorer would.
std::vector<LayerPlan> candidate_plans(Pricer& pricer, int kernel);

// The cheapest of `plans` whose interval meets `target`, its `why` filled in.
// Throws kiln::Error(InvalidModel) naming the layer when none does, with the
// closest plan and its interval.
// With no plan at all, the message gives `refused` (layer_plans's) when set.
PlanChoice cheapest_meeting(const loop::Kernel& kernel, const IntervalTarget& target,
                            const std::vector<PlanChoice>& plans, const fpga::Device& device,
                            const std::string& refused = {});

// A layer folded onto its multipliers (RtlOptions::fold): of the plans
// layer_plans() prices with no interval to meet, those whose products run on
// the layer's MultiplierLimit DSPs; the fastest, or the cheapest whose
// interval is within 5% of it. nullopt when no plan does (the layer is then
// built as it would be without: fully unrolled).
inline constexpr double kFoldSlack = 0.05;
std::optional<PlanChoice> fold_plan(Pricer& pricer, int kernel, const RtlOptions& options,
                                    const PlanContext& context);

// LatencyCycles (docs/config.md): one plan per layer from `layers` (the plans
// each may take), their latencies adding up to at most `latency_cycles`.
// Dataflow only shortens the design's latency below that sum, so the sum
// bounds it. Greedy: each layer's cheapest plan, then, while over, the
// upgrade saving the most cycles per share of the device added. Returns the
// index picked per layer, or empty when even the fastest plans are over.
std::vector<int> meet_latency(const std::vector<std::vector<PlanChoice>>& layers,
                              int64_t latency_cycles);

// Improves a valid pick for the part: while some layer's other plan keeps
// the latencies' sum within `latency_cycles` and lowers the design's most
// used resource as a share of `capacity` (then the summed share), the best
// such swap is made. meet_latency weighs each layer's plans by their own
// summed share, which takes LUT-heavy plans where the LUTs are what run out.
std::vector<int> balance_for_part(const std::vector<std::vector<PlanChoice>>& layers,
                                  std::vector<int> pick, int64_t latency_cycles,
                                  const fpga::Resources& capacity);

// Checks a pick independently: one valid plan per layer, within the sum.
bool verify_latency(const std::vector<std::vector<PlanChoice>>& layers,
                    const std::vector<int>& pick, int64_t latency_cycles);

// Pacing, a LatencyCycles search's second try when the pick above is over
// the part. The layers of a design stream into each other: the slowest sets
// the pace, and a faster layer before it only waits for its producers (it
// starts later so as not to overtake them) while costing more; only the
// layers after the slowest add their own latencies to the design's. A paced
// pick takes each layer's cheapest plan whose interval is at most `pace`,
// and from layer `tail` on (in the program's order) at most `pace` / 2: a
// layer without such a plan takes its fastest. ResNet-8 on the xc7z020 at
// LatencyCycles 58714: the sum's pick placed at 43,633 cycles on 335 DSPs,
// paced at 37,000 with its third stack as the tail 55,027 on 231.
std::vector<int> paced_pick(const std::vector<std::vector<PlanChoice>>& layers, int64_t pace,
                            std::size_t tail);
// As balance_for_part does, swaps plans of a paced pick for others that keep
// to the same paces while that lowers the design's most used resource as a
// share of `capacity`, starting from `placed`, what the pick's design takes
// (a layer priced alone holds its input in registers, which the placed
// design's channels do not: ResNet-8's layers alone add up to 373 K LUTs, the
// design to 42 K); each swap adds the difference between the two plans'.
// The DSPs a Softmax takes for its ten products go where they run out.
std::vector<int> balance_paced(const std::vector<std::vector<PlanChoice>>& layers,
                               std::vector<int> pick, int64_t pace, std::size_t tail,
                               const fpga::Resources& placed, const fpga::Resources& capacity);
// Checks a paced pick independently: a valid plan per layer, each within its
// pace or, when none of the layer's plans is, the fastest of them.
bool verify_paced(const std::vector<std::vector<PlanChoice>>& layers, const std::vector<int>& pick,
                  int64_t pace, std::size_t tail);
// Paces tried: the bound, then each 1/sqrt(2) of the one before; at each, the
// shortest tail that brings the placed design within the bound (bisected).
// The search stops at the first pace whose design fits the part, or after
// this many designs placed (about 2 s each for ResNet-8).
inline constexpr int kPacedPlacements = 24;

// One plan per kernel of the pricer's program, in order, searched as above
// with `stage` (clock, family, scheduler) as the stages' options. Under a
// LatencyCycles bound the pick (meet_latency, balance_for_part) is made for
// a budget on the layers' latencies' sum, first the bound; the layers then
// placed in the design overlap where they hand tensors on, so the design's
// latency is below the sum, and up to kLatencyBudgetSteps larger budgets are
// tried (each scaled by the room the last left, halved back once over),
// keeping the placed design within the bound that fits the part best
// (DS-CNN on the xc7z020 at LatencyCycles 46285: 12,152 cycles at the sum's
// pick, 589 DSPs). When that design is over the part, paced designs
// (paced_pick) join the comparison.
inline constexpr int kLatencyBudgetSteps = 6;

// The flip-flops every plan of a layer has (its fewest): priced alone or
// before its consumers, a layer holds its input and output tensors in
// registers, which the design mostly puts in channel memories instead
// (DS-CNN's nine convolutions: 600 K such flip-flops against 32 K in the
// design). A LatencyCycles pick weighs what each plan adds over it:
// over_common_flip_flops takes it from every plan's flip-flops and cost.
double common_flip_flops(const std::vector<PlanChoice>& plans);
std::vector<std::vector<PlanChoice>> over_common_flip_flops(
    std::vector<std::vector<PlanChoice>> layers, const fpga::Device& device);

// Whether kernel `k` reads a tensor written by a kernel before the one just
// before it (a residual block's Add reading the block's input). A
// LatencyCycles search keeps a loop in such a layer where any plan does, so
// that the tensor waits in a channel's memory rather than in the top's delay
// registers, which pricing the layer alone does not see (ResNet-8's last Add
// fully unrolled: 10.9 M delay bits, refused).
bool reads_a_skip(const loop::Program& program, int k);
// Whether a kernel only moves data: loads, constants, conversions and
// selects (Transpose, Pad, Slice, Concat, a copy), no arithmetic. Such a
// layer after a producer that keeps a loop keeps one too where any plan
// meets its target, for the same reason.
bool moves_data(const loop::Kernel& kernel);
std::vector<LayerChoice> plan_layers(Pricer& pricer, const RtlOptions& options,
                                     const StageOptions& stage);

// A whole design priced without building its top or any Verilog: each
// layer's plan where the layers before it put it (the design's timing, the
// channels its reads make), as build_design places them. A plan that reads
// at a slower producer's pace is stretched to it (a larger II), as a
// search's would be; `plans` in the result are the plans placed.
struct PlacedDesign {
  std::vector<LayerChoice> plans;
  int latency = 0;            // the design's, where the layers overlap
  int interval = 0;           // cycles between samples
  fpga::Resources resources;  // the stages' estimates, summed
};
PlacedDesign place_design(Pricer& pricer, const RtlOptions& options, const StageOptions& stage,
                          const std::vector<LayerPlan>& plans);

// plans.yaml (Design::plans): every layer's plan as the config's Loop,
// Buffer and ConvImplementation blocks (plan_config), headed by `comment`,
// and the inputs' IOType (`streamed`: io_stream).
std::string design_plans_yaml(Pricer& pricer, const hls::Model& model,
                              const std::vector<LayerChoice>& plans, bool streamed,
                              const std::string& comment);

// The channels between the planned layers: for every tensor one kept loop
// writes and one other kept loop reads, the channel plan_channel finds, each
// checked by verify_channel; and from the top, for each model input streamed
// (`streamed`: options.h streamed_inputs), the channel plan_input_channel
// finds to each reader that keeps a loop. `handoffs`, when given, gets every
// tensor one layer writes (or the top streams) and others read, and how it
// travels.
std::vector<Channel> plan_channels(Pricer& pricer, const std::vector<LayerChoice>& plans,
                                   const std::map<int, int64_t>& streamed,
                                   std::vector<Handoff>* handoffs = nullptr);

}  // namespace kiln::rtl

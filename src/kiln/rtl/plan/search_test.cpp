// LatencyCycles as a problem of its own: per layer the plans it may take
// (interval already met), one pick per layer whose latencies add up to the
// bound, checked by verify_latency().
#include "kiln/rtl/plan/search.h"

#include <gtest/gtest.h>

#include <set>

#include "kiln/dfg/unroll.h"
#include "kiln/rtl/plan/price.h"
#include "kiln/rtl/testing/sim_check.h"

namespace kiln::rtl {
namespace {

PlanChoice plan(int latency, double cost) {
  PlanChoice c;
  c.latency = latency;
  c.interval = latency;
  c.cost = cost;
  return c;
}

TEST(MeetLatency, CheapestPlansWhenTheyFit) {
  const std::vector<std::vector<PlanChoice>> layers = {{plan(10, 1), plan(5, 2)},
                                                       {plan(20, 1), plan(4, 9)}};
  const std::vector<int> pick = meet_latency(layers, 30);
  EXPECT_EQ(pick, (std::vector<int>{0, 0}));
  EXPECT_TRUE(verify_latency(layers, pick, 30));
}

// Over the bound, the upgrade that saves the most cycles per share added
// comes first: layer 0's (5 cycles for 1) before layer 1's (16 for 8), which
// comes only when layer 0's is not enough.
TEST(MeetLatency, UpgradesTheCheapestCyclesFirst) {
  const std::vector<std::vector<PlanChoice>> layers = {{plan(10, 1), plan(5, 2)},
                                                       {plan(20, 1), plan(4, 9)}};
  std::vector<int> pick = meet_latency(layers, 25);
  EXPECT_EQ(pick, (std::vector<int>{1, 0}));
  EXPECT_TRUE(verify_latency(layers, pick, 25));
  pick = meet_latency(layers, 24);
  EXPECT_EQ(pick, (std::vector<int>{1, 1}));  // 5 + 4
  EXPECT_TRUE(verify_latency(layers, pick, 24));
  EXPECT_FALSE(verify_latency(layers, {0, 0}, 24));
}

TEST(MeetLatency, FasterAndNoDearerPlansAreFree) {
  const std::vector<std::vector<PlanChoice>> layers = {{plan(10, 1), plan(6, 1)}};
  EXPECT_EQ(meet_latency(layers, 100), (std::vector<int>{1}));  // a tie goes to the faster
}

TEST(MeetLatency, EmptyWhenEvenTheFastestPlansAreOver) {
  const std::vector<std::vector<PlanChoice>> layers = {{plan(10, 1), plan(5, 2)},
                                                       {plan(20, 1), plan(4, 9)}};
  EXPECT_TRUE(meet_latency(layers, 8).empty());
  EXPECT_FALSE(verify_latency(layers, {1}, 100));  // a pick per layer, or invalid
}

// Two layers, each with a plan of constants in LUTs and one on DSPs, as
// fast and priced alike: on a part with few LUTs, balancing takes the DSP
// plans until the LUTs no longer run out first; within the latency bound.
TEST(BalanceForPart, MovesWorkToTheResourceThePartHas) {
  auto with = [](int latency, double cost, double lut, double dsp) {
    PlanChoice c = plan(latency, cost);
    c.resources.lut = lut;
    c.resources.dsp = dsp;
    return c;
  };
  const std::vector<std::vector<PlanChoice>> layers = {
      {with(10, 0.1, 800, 0), with(10, 0.1, 100, 40), with(4, 0.5, 100, 200)},
      {with(10, 0.1, 600, 0), with(12, 0.1, 80, 30)}};
  fpga::Resources part;
  part.lut = 1000;
  part.dsp = 100;
  const std::vector<int> start = meet_latency(layers, 22);
  ASSERT_TRUE(verify_latency(layers, start, 22));
  const std::vector<int> pick = balance_for_part(layers, start, 22, part);
  EXPECT_TRUE(verify_latency(layers, pick, 22));
  EXPECT_EQ(pick, (std::vector<int>{1, 1}));  // 180 LUT and 70 DSP: 0.7 of the DSPs at most
  // A bound the swaps would break keeps them out: 10 + 12 > 21.
  EXPECT_EQ(balance_for_part(layers, {0, 0}, 21, part), (std::vector<int>{1, 0}));
}

// Pacing: each layer's cheapest plan within the pace (the tail's within half
// of it), its fastest where none is; verify_paced checks a pick alone.
TEST(PacedPick, EachLayerTakesItsCheapestPlanWithinItsPace) {
  const std::vector<std::vector<PlanChoice>> layers = {{plan(100, 1), plan(50, 2), plan(25, 4)},
                                                       {plan(100, 1), plan(50, 2), plan(25, 4)},
                                                       {plan(80, 3), plan(70, 5)}};
  EXPECT_EQ(paced_pick(layers, 100, 3), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(paced_pick(layers, 60, 3), (std::vector<int>{1, 1, 1}));   // layer 2 at its fastest
  EXPECT_EQ(paced_pick(layers, 100, 1), (std::vector<int>{0, 1, 1}));  // a tail at 50
  for (const std::size_t tail : {0, 1, 2, 3}) {
    for (const int64_t pace : {20, 60, 100, 200}) {
      EXPECT_TRUE(verify_paced(layers, paced_pick(layers, pace, tail), pace, tail));
    }
  }
  EXPECT_FALSE(verify_paced(layers, {0, 0, 0}, 100, 1));  // layer 1 over its tail's pace
  EXPECT_FALSE(verify_paced(layers, {1, 1, 0}, 60, 3));   // layer 2 not at its fastest
  EXPECT_FALSE(verify_paced(layers, {0, 0}, 100, 3));
}

// From what the placed design takes (not the plans' sum), swaps that keep to
// the paces move work off the resource that runs out: here the DSPs.
TEST(BalancePaced, SwapsWithinThePacesForTheResourceThatRunsOut) {
  auto with = [](int interval, double cost, double lut, double dsp) {
    PlanChoice c = plan(interval, cost);
    c.resources.lut = lut;
    c.resources.dsp = dsp;
    return c;
  };
  // Layer 0: a plan on 10 DSPs and one on 1 DSP, 16 times slower; layer 1:
  // a DSP plan, and one in LUTs too slow for its pace.
  const std::vector<std::vector<PlanChoice>> layers = {
      {with(1, 0.1, 600, 10), with(16, 0.2, 4000, 1)},
      {with(100, 0.5, 1000, 50), with(400, 0.1, 9000, 0)}};
  fpga::Resources part;
  part.lut = 50000;
  part.dsp = 55;
  const std::vector<int> pick = paced_pick(layers, 200, 2);
  ASSERT_EQ(pick, (std::vector<int>{0, 0}));
  fpga::Resources placed;  // 60 DSPs: over; 1,600 of the plans' LUTs in the design
  placed.lut = 1600;
  placed.dsp = 60;
  const std::vector<int> balanced = balance_paced(layers, pick, 200, 2, placed, part);
  EXPECT_EQ(balanced, (std::vector<int>{1, 0}));
  EXPECT_TRUE(verify_paced(layers, balanced, 200, 2));
  // Priced from the plans' own sum the LUTs would not run out either; a pace
  // too tight for the slow plan keeps the DSPs.
  EXPECT_EQ(balance_paced(layers, pick, 10, 2, placed, part), pick);
}

// A level of the nest that runs once (a convolution's group loop) still gets
// its plan: the window loops kept, the channels inside unrolled. Before, the
// walk over unroll factors found none for a loop of one iteration and
// skipped that depth.
TEST(CandidatePlans, KeepTheNestDownToALoopOfOneIteration) {
  const hls::Model m = testing::zoo_model("conv2d_a");
  const loop::Program program = design_program(m, RtlOptions{});
  Pricer pricer(program, m, {}, fpga::device_of_part(m.part), {}, {});
  bool found = false;
  for (std::size_t k = 0; k < program.kernels.size(); ++k)
    for (const LayerPlan& p : candidate_plans(pricer, static_cast<int>(k))) {
      if (p.loop < 0 || p.flatten == 0) continue;
      const loop::Kernel& kk = pricer.program_for(static_cast<int>(k), p).kernels[k];
      const std::vector<int> nest = dfg::perfect_nest(kk, p.loop);
      if (p.flatten <= static_cast<int>(nest.size()) &&
          kk.loops[static_cast<std::size_t>(nest[static_cast<std::size_t>(p.flatten - 1)])].trip ==
              1)
        found = true;
    }
  EXPECT_TRUE(found);
}

// A plan is over-parallel when it unrolls more than kOverParallel times the
// operations per cycle the target needs, and more than kAlwaysPriced.
TEST(OverParallel, ComparesWhatAPlanUnrollsWithWhatTheTargetNeeds) {
  EXPECT_FALSE(over_parallel(1'000'000, 16'000, 1'000));  // 1,000 needed per cycle: 16x
  EXPECT_TRUE(over_parallel(1'000'000, 16'001, 1'000));
  EXPECT_FALSE(over_parallel(1'000'000, kAlwaysPriced, 1'000'000));  // small: always priced
  EXPECT_TRUE(over_parallel(1'000'000, kAlwaysPriced + 1, 1'000'000));
  EXPECT_FALSE(over_parallel(1'000'000, 1'000'000, 0));  // no target: nothing to compare
}

// What a plan unrolls: one iteration of its kept loops and the rest of the
// kernel, so keeping a deeper nest or copying the body less unrolls less.
TEST(OverParallel, APlanUnrollsOneIterationOfItsKeptLoopsAndTheRest) {
  const hls::Model m = testing::zoo_model("conv2d_b");
  const loop::Program program = design_program(m, RtlOptions{});
  const loop::Kernel& k = program.kernels[0];
  const int64_t all = loop::dynamic_ops(k);
  EXPECT_EQ(plan_unrolled_ops(k, LayerPlan{}), all);
  LayerPlan rows;  // the row loop kept: one row of 62 pixels unrolled
  rows.loop = dfg::top_level(k).front().loop;
  const int64_t inside = loop::dynamic_ops(k, {dfg::top_level(k).front()});
  EXPECT_EQ(plan_unrolled_ops(k, rows), all - inside + inside / 62);
  LayerPlan pixels = rows;  // and the column loop: one pixel
  pixels.flatten = 1;
  EXPECT_EQ(plan_unrolled_ops(k, pixels), all - inside + inside / (62 * 62));
  pixels.unroll = 2;
  EXPECT_EQ(plan_unrolled_ops(k, pixels), all - inside + inside / (62 * 31));
}

// Pruning the over-parallel plans keeps the search's choice: at 4,000 cycles
// (56 operations a cycle) the fully unrolled convolution (223 K operations)
// and the other plans over 4,096 are not priced, nor those of more than
// 4,000 iterations, and the cheapest plan that meets the target is the one
// the whole walk finds.
TEST(OverParallel, PruningKeepsTheCheapestPlan) {
  const hls::Model m = testing::zoo_model("conv2d_b");
  const loop::Program program = design_program(m, RtlOptions{});
  const fpga::Device device = fpga::device_of_part(m.part);
  Pricer pricer(program, m, {}, device, {}, {});
  StageOptions so;
  const PlanContext alone = [&](const LayerPlan&) { return so; };
  const loop::Kernel& k = program.kernels[0];
  const IntervalTarget target{k.name, 4000, "TargetCycles 4000"};
  const std::vector<PlanChoice> all = layer_plans(pricer, 0, target, 0, alone);
  const std::vector<PlanChoice> pruned =
      layer_plans(pricer, 0, target, 0, alone, Prune::OverParallel);
  ASSERT_FALSE(pruned.empty());
  EXPECT_GT(pruned.front().skipped, 0);
  EXPECT_GT(pruned.front().slow, 0);  // the window rows kept: 62 x 62 x 3 iterations
  EXPECT_EQ(all.front().skipped, 0);
  EXPECT_EQ(all.front().slow, 0);
  EXPECT_LT(pruned.front().tried, all.front().tried);
  EXPECT_EQ(cheapest_meeting(k, target, pruned, device).plan,
            cheapest_meeting(k, target, all, device).plan);
}

// A LatencyCycles search measures a layer's parallelism against its share of
// the bound: the bound times its share of the model's operations.
TEST(OverParallel, ALatencyBoundIsSharedByTheLayersOperations) {
  EXPECT_EQ(latency_share_cycles(1'000'000, 250, 1'000), 250'000);
  EXPECT_EQ(latency_share_cycles(1'000, 1, 1'000'000'000), 1);  // at least a cycle
  EXPECT_EQ(latency_share_cycles(1'000, 5, 0), 1'000);          // nothing to share
}

// Each plan whose products by constants could go on DSP slices is priced
// both ways (issue 26: a choice per layer between DSPs and LUTs): dense_a
// fully unrolled makes its weights constants, shifts and adds in LUTs or
// DSP multipliers. A layer whose ConstantProducts the config sets is priced
// that way only.
TEST(LayerPlans, ProductsByConstantsArePricedOnDspsToo) {
  const hls::Model m = testing::zoo_model("dense_a");
  const loop::Program program = design_program(m, RtlOptions{});
  const fpga::Device device = fpga::device_of_part(m.part);
  StageOptions so;
  const PlanContext alone = [&](const LayerPlan&) { return so; };
  const IntervalTarget target{program.kernels[0].name, 1, "TargetCycles 1"};
  Pricer searched(program, m, {}, device, {}, {});
  std::optional<PlanChoice> luts, dsps;
  for (const PlanChoice& c : layer_plans(searched, 0, target, 0, alone))
    if (c.plan.loop < 0) (c.plan.constants_on_dsps ? dsps : luts) = c;
  ASSERT_TRUE(luts && dsps);
  EXPECT_EQ(luts->resources.dsp, 0);
  EXPECT_GT(dsps->resources.dsp, 0);
  EXPECT_LT(dsps->resources.lut, luts->resources.lut);
  for (const bool on : {false, true}) {
    Pricer configured(program, m, {}, device, {}, {}, {{program.kernels[0].name, on}});
    for (const PlanChoice& c : layer_plans(configured, 0, target, 0, alone))
      EXPECT_EQ(c.plan.constants_on_dsps, on) << c.text;
  }
}

// A fully unrolled layer's sums of products by constants, shared (issue 27),
// are priced lean and at the least adder depth where the lean build is
// deeper: dense_a's lean sums take fewer adders, the least-depth ones fewer
// levels and, at a 3 ns clock, a cycle less (4 against 3). A layer whose
// AdderDepth the config sets is priced that way only.
TEST(LayerPlans, SharedSumsArePricedAtTheLeastDepthToo) {
  const hls::Model m = testing::zoo_model("dense_a");
  const loop::Program program = design_program(m, RtlOptions{});
  const fpga::Device device = fpga::device_of_part(m.part);
  StageOptions so;
  so.clock_ns = 3;
  const PlanContext alone = [&](const LayerPlan&) { return so; };
  const IntervalTarget target{program.kernels[0].name, 1, "TargetCycles 1"};
  Pricer searched(program, m, {}, device, {}, {});
  std::optional<PlanChoice> lean, least;
  for (const PlanChoice& c : layer_plans(searched, 0, target, 0, alone))
    if (c.plan.loop < 0 && !c.plan.constants_on_dsps) (c.plan.least_depth ? least : lean) = c;
  ASSERT_TRUE(lean && least);
  const StageReport lean_report = searched.price(0, lean->plan, so).stage.report;
  const StageReport least_report = searched.price(0, least->plan, so).stage.report;
  EXPECT_LT(lean_report.adders, least_report.adders);
  EXPECT_GT(lean_report.adder_depth, least_report.adder_depth);
  EXPECT_LT(least->latency, lean->latency);
  const SharedSums* s = searched.shared_sums(0, lean->plan);
  ASSERT_NE(s, nullptr);
  EXPECT_GT(s->deeper, 0);
  for (const bool on : {false, true}) {
    Pricer configured(program, m, {}, device, {}, {}, {}, {{program.kernels[0].name, on}});
    for (const PlanChoice& c : layer_plans(configured, 0, target, 0, alone))
      EXPECT_EQ(c.plan.least_depth, on) << c.text;
  }
}

// A Softmax's few products of two variables are priced on one DSP
// multiplier too (and in LUTs where those meet the clock): where the part's
// DSPs run out, a search takes those. A configured MultiplierLimit leaves
// them out.
TEST(LayerPlans, FewProductsOfTwoVariablesArePricedOnOneDspToo) {
  const hls::Model m = testing::zoo_model("softmax_a");
  const loop::Program program = design_program(m, RtlOptions{});
  const fpga::Device device = fpga::device_of_part(m.part);
  StageOptions so;
  const PlanContext alone = [&](const LayerPlan&) { return so; };
  const IntervalTarget target{program.kernels[0].name, 1000, "TargetCycles 1000"};
  Pricer pricer(program, m, {}, device, {}, {});
  std::optional<PlanChoice> all, one;
  for (const PlanChoice& c : layer_plans(pricer, 0, target, 0, alone)) {
    if (c.plan.loop >= 0) continue;
    if (!c.plan.multipliers) all = c;
    if (c.plan.multipliers == 1) one = c;
    if (c.plan.multipliers == 0) {
      EXPECT_EQ(c.resources.dsp, 0);
    }
  }
  ASSERT_TRUE(all && one);
  EXPECT_GT(all->resources.dsp, 1);
  EXPECT_LE(all->resources.dsp, kFewMultipliers);
  EXPECT_EQ(one->resources.dsp, 1);
  EXPECT_GT(one->interval, all->interval);  // its products take turns
  so.multiplier_limit = 2;
  for (const PlanChoice& c : layer_plans(pricer, 0, target, 0, alone))
    EXPECT_FALSE(c.plan.multipliers) << c.text;
}

// A convolution kept down to its output-channel loop (model8's first: 8
// output channels) banks its weights and biases by that loop's copies: the
// walk has those plans for each factor that copies (none for 1, which banks
// nothing).
TEST(Candidates, TheOutputChannelLoopUnrolledBanksItsWeights) {
  const hls::Model m = testing::zoo_model("model8");
  const loop::Program program = design_program(m, RtlOptions{});
  Pricer pricer(program, m, {}, fpga::device_of_part(m.part), {}, {});
  const loop::Kernel& k = program.kernels[0];
  std::set<std::string> texts;
  for (const LayerPlan& p : candidate_plans(pricer, 0)) texts.insert(plan_text(k, p));
  EXPECT_TRUE(texts.count("loop=oh flatten=6 unroll=2 pipeline=1 weights=banked"));
  EXPECT_TRUE(texts.count("loop=oh flatten=6 unroll=4 pipeline=1 weights=banked"));
  EXPECT_FALSE(texts.count("loop=oh flatten=6 pipeline=1 weights=banked"));
  EXPECT_TRUE(texts.count("loop=oh flatten=6 pipeline=1"));
}

// A residual block's Add reads the block's input, written three layers
// before it; the layer before the Add's other input is no skip, nor is a
// chain's next layer.
TEST(LatencySearch, AResidualAddReadsASkip) {
  const std::filesystem::path onnx =
      kiln::testing::source_dir() / "models" / "coverage" / "mobilenetv3_block" / "model.onnx";
  const hls::Model m =
      hls::build_model(hls::prepare_graph(onnx, {}).passed, hls::Config{}, nullptr);
  const loop::Program program = design_program(m, RtlOptions{});
  auto kernel = [&](const std::string& name) {
    for (std::size_t k = 0; k < program.kernels.size(); ++k)
      if (program.kernels[k].name == name) return static_cast<int>(k);
    ADD_FAILURE() << "no kernel " << name;
    return 0;
  };
  EXPECT_TRUE(reads_a_skip(program, kernel("Add")));
  EXPECT_FALSE(reads_a_skip(program, kernel("project_project_0_Conv")));
  EXPECT_FALSE(reads_a_skip(program, kernel("GlobalAveragePool")));
}

// Flip-flops every plan of a layer has (its tensors in registers, priced
// alone) do not decide the pick: on a part whose flip-flops they fill, the
// balance would trade DSPs for flip-flops that the design does not have.
TEST(LatencySearch, FlipFlopsEveryPlanHasAreTakenOut) {
  fpga::Device part;
  part.capacity.lut = 1000;
  part.capacity.ff = 1000;
  part.capacity.dsp = 10;
  auto with = [](int latency, double ff, double dsp, double lut) {
    PlanChoice c = plan(latency, 0);
    c.resources.ff = ff;
    c.resources.dsp = dsp;
    c.resources.lut = lut;
    c.cost = ff / 1000 + dsp / 10 + lut / 1000;
    return c;
  };
  // Layer 0: a DSP plan and a LUT plan as fast; the DSP plan holds 300 more
  // flip-flops (its products' registers). Both hold 2,000 of the layer's
  // tensors.
  const std::vector<std::vector<PlanChoice>> layers = {
      {with(10, 2300, 8, 100), with(10, 2000, 0, 900)}};
  EXPECT_EQ(common_flip_flops(layers[0]), 2000);
  const auto over = over_common_flip_flops(layers, part);
  EXPECT_EQ(over[0][0].resources.ff, 300);
  EXPECT_EQ(over[0][1].resources.ff, 0);
  EXPECT_NEAR(over[0][1].cost, layers[0][1].cost - 2.0, 1e-9);
  // Taken out, the DSP plan is the better fit (80% of the DSPs against 90%
  // of the LUTs); left in, the flip-flops decide (230% against 200%).
  EXPECT_EQ(balance_for_part(over, {1}, 10, part.capacity), (std::vector<int>{0}));
  EXPECT_EQ(balance_for_part(layers, {0}, 10, part.capacity), (std::vector<int>{1}));
}

}  // namespace
}  // namespace kiln::rtl

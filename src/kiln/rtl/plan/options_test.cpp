#include "kiln/rtl/plan/options.h"

#include <gtest/gtest.h>

#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/hls/model_text.h"
#include "kiln/rtl/plan/price.h"
#include "kiln/rtl/plan/search.h"
#include "kiln/rtl/testing/sim_check.h"

namespace kiln::rtl {
namespace {

constexpr const char* kTwoDense = R"(layers 1
model "t" {}
%x: ap_fixed<16,6>[3] = Input() @x "x"
%h: ap_fixed<16,6>[2] = Dense(%x) {n_in=3 n_out=2} @fc1 "/fc1/Gemm" constants {float_weights=[0.5,-1,0.25,2,-0.75,0.125] float_bias=[0.0625,-3]}
%y: ap_fixed<16,6>[2] = Dense(%h) {n_in=2 n_out=2} @fc2 "/fc2/Gemm" constants {float_weights=[0.5,-1,0.25,2] float_bias=[0.0625,-3]}
input %x "x": [1x3] perm=[0]
output %y "y": [1x2] perm=[0]
)";

// The two-layer model with `yaml` resolved into it, as build_model resolves
// a config (the resolve_config layer pass): the only place kiln rtl's
// options come from.
hls::Model configured(const std::string& yaml) {
  hls::Model m = hls::parse_layers(kTwoDense, "t.layers");
  const hls::Config c = hls::parse_config(yaml, "c.yaml");
  hls::LayerPassContext context;
  context.config = &c;
  hls::make_resolve_config(context)->run(m);
  return m;
}

TEST(RtlOptions, DefaultsAreListWithoutLimits) {
  const RtlOptions o = rtl_options(configured(""));
  EXPECT_EQ(o.scheduler, Scheduler::List);
  EXPECT_TRUE(o.multiplier_limits.empty());
}

TEST(RtlOptions, LimitsResolvePerLayer) {
  const RtlOptions o = rtl_options(configured(R"(
Model:
  Scheduler: sdc
LayerType:
  Dense:
    MultiplierLimit: 4
LayerName:
  /fc2/Gemm:
    MultiplierLimit: 1
)"));
  EXPECT_EQ(o.scheduler, Scheduler::Sdc);
  const std::vector<std::pair<std::string, int>> expected = {{"fc1", 4}, {"fc2", 1}};
  EXPECT_EQ(o.multiplier_limits, expected);  // by layer name, the ONNX name accepted
}

// Model.MultiplierLimit is the design's budget: after the layers that set
// their own, the others share it by the products they compute (fc1 6, fc2 4
// of 10: 3 and 2 of 5), and the Dense layers with a limit and no interval
// target fold onto their multipliers.
TEST(RtlOptions, ModelMultiplierLimitIsTheDesignsBudget) {
  const RtlOptions shared = rtl_options(configured("Model:\n  MultiplierLimit: 5\n"));
  const std::vector<std::pair<std::string, int>> both = {{"fc1", 3}, {"fc2", 2}};
  EXPECT_EQ(shared.multiplier_limits, both);
  EXPECT_EQ(shared.fold, (std::set<std::string>{"fc1", "fc2"}));
  // fc2 takes 4 of 6 (the other 2 are fc1's), and fc1 has a target.
  const RtlOptions capped = rtl_options(configured(R"(
Model:
  MultiplierLimit: 6
LayerName:
  fc2:
    MultiplierLimit: 4
  fc1:
    TargetCycles: 10
)"));
  const std::vector<std::pair<std::string, int>> rest = {{"fc1", 2}, {"fc2", 4}};
  EXPECT_EQ(capped.multiplier_limits, rest);
  EXPECT_EQ(capped.fold, (std::set<std::string>{"fc2"}));
  // A budget of 1: the larger remainder (fc1's 0.6) takes it; fc2's share of
  // 0 puts its products in LUTs and does not fold.
  const RtlOptions one = rtl_options(configured("Model:\n  MultiplierLimit: 1\n"));
  const std::vector<std::pair<std::string, int>> single = {{"fc1", 1}, {"fc2", 0}};
  EXPECT_EQ(one.multiplier_limits, single);
  EXPECT_EQ(one.fold, (std::set<std::string>{"fc1"}));
}

// The keys kiln compile reads set the same interval in kiln rtl: TargetCycles
// wins where it is as specific as ReuseFactor; an explicit ReuseFactor asks
// for the II it gives there (a Dense in io_parallel: RF cycles); the default
// ReuseFactor asks nothing.
TEST(RtlOptions, IntervalTargetsFromTargetCyclesAndReuseFactor) {
  EXPECT_TRUE(rtl_options(configured("")).interval_targets.empty());
  const RtlOptions o = rtl_options(configured(R"(
Model:
  TargetCycles: 40
LayerName:
  fc2:
    ReuseFactor: 2
)"));
  ASSERT_EQ(o.interval_targets.size(), 2U);
  EXPECT_EQ(o.interval_targets[0].layer, "fc1");
  EXPECT_EQ(o.interval_targets[0].cycles, 40);
  EXPECT_EQ(o.interval_targets[0].source, "TargetCycles 40");
  EXPECT_EQ(o.interval_targets[1].layer, "fc2");
  EXPECT_EQ(o.interval_targets[1].cycles, 2);
  EXPECT_EQ(o.interval_targets[1].source, "ReuseFactor 2 (II 2 in kiln compile's estimate)");
}

// Keys that only shape kiln compile's project are said, not ignored.
TEST(RtlOptions, HlsOnlyKeysAreNoted) {
  EXPECT_TRUE(rtl_options(configured("")).notes.empty());
  const RtlOptions o =
      rtl_options(configured("IOType: io_stream\nLayerName:\n  fc1:\n    Strategy: Resource\n"));
  ASSERT_EQ(o.notes.size(), 1U);
  EXPECT_EQ(o.notes[0].rfind("Strategy shapes kiln compile's project only", 0), 0U);
}

// IOType says how the inputs come; without it kiln streams them where the
// interval targets leave room for a pixel per cycle and a latency bound for
// 16 times the beats.
TEST(RtlOptions, InputsStreamAsIOTypeSaysOrWhereTheTargetsLeaveRoom) {
  loop::Buffer image;
  image.shape = {16, 16, 3};  // 256 beats of 3 lanes when streamed
  loop::Buffer flat;
  flat.shape = {64};
  EXPECT_EQ(input_lanes(rtl_options(configured("")), image), 768);
  EXPECT_EQ(input_lanes(rtl_options(configured("IOType: io_stream\n")), image), 3);
  EXPECT_EQ(input_lanes(rtl_options(configured("IOType: io_stream\n")), flat), 64);
  EXPECT_EQ(
      input_lanes(rtl_options(configured("IOType: io_parallel\nModel:\n  TargetCycles: 400\n")),
                  image),
      768);
  EXPECT_EQ(input_lanes(rtl_options(configured("Model:\n  TargetCycles: 256\n")), image), 3);
  EXPECT_EQ(input_lanes(rtl_options(configured("Model:\n  TargetCycles: 255\n")), image), 768);
  EXPECT_EQ(
      input_lanes(rtl_options(configured("Model:\n  TargetCycles: 400\n  LatencyCycles: 900\n")),
                  image),
      768);
  // A latency bound streams them when it is kBeatsPerLatency times the beats.
  EXPECT_EQ(input_lanes(rtl_options(configured("Model:\n  LatencyCycles: 4096\n")), image), 3);
  EXPECT_EQ(input_lanes(rtl_options(configured("Model:\n  LatencyCycles: 4095\n")), image), 768);
}

// set_plan fixes a layer's plan as plans.yaml would: every plan the search
// may try for each layer of a convolution with both forms and a pooling,
// set in turn (each replacing the one before), comes back from the program
// build_design starts from, with its products, adder depth and multipliers.
TEST(RtlOptions, SetPlanFixesEveryPlanTheSearchMayTry) {
  for (const char* zoo : {"conv2d_a", "maxpool_b", "dense_a"}) {
    const hls::Model m = testing::zoo_model(zoo);
    const loop::Program base = design_program(m, {});
    Pricer pricer(base, m, {}, fpga::device_of_part(m.part), {}, {});
    RtlOptions o;
    int checked = 0;
    for (std::size_t k = 0; k < base.kernels.size(); ++k) {
      const int kernel = static_cast<int>(k);
      const std::string& layer = base.kernels[k].name;
      for (LayerPlan plan : candidate_plans(pricer, kernel)) {
        plan.multipliers = checked % 3 == 0 ? std::optional<int>(1) : std::nullopt;
        plan.constants_on_dsps = checked % 2 == 0;
        plan.least_depth = checked % 5 == 0;
        set_plan(o, m, layer, plan);
        const loop::Program p = design_program(m, o);
        LayerPlan back = configured_plan(p, kernel);
        back.constants_on_dsps = o.constants_on_dsps.at(layer);
        back.least_depth = o.least_depth.at(layer);
        back.multipliers = multiplier_limit_of(o, p.kernels[k]);
        ASSERT_EQ(back, plan) << zoo << " " << layer << ": " << plan_text(p.kernels[k], plan);
        EXPECT_TRUE(o.configured_layers.count(layer));
        ++checked;
      }
    }
    EXPECT_GT(checked, 3) << zoo;
  }
  RtlOptions o;
  EXPECT_THROW(set_plan(o, testing::zoo_model("dense_a"), "nope", {}), Error);
}

}  // namespace
}  // namespace kiln::rtl

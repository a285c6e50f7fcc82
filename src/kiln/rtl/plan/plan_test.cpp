// Plans as data: a canonical text that parses back, a stable key, and the
// round trip through the config's directives (plan -> Loop/Buffer blocks ->
// directives on the Loop IR -> the same plan) for every plan the searches
// try on a convolution, a pooling, element-wise layers and a dense layer.
#include "kiln/rtl/plan/plan.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kiln/loop/directives.h"
#include "kiln/loop/loop_text.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/sink_nests.h"
#include "kiln/rtl/plan/price.h"
#include "kiln/rtl/plan/search.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::rtl {
namespace {

using kiln::testing::catch_error;

// dense_a: Gemm with loops init, i, j (inside i), out.
struct Dense {
  hls::Model model = testing::zoo_model("dense_a");
  loop::Program program = loop::lower_model(model);
  const loop::Kernel& kernel() const { return program.kernels.at(0); }
  int loop(const std::string& name) const {
    for (std::size_t l = 0; l < kernel().loops.size(); ++l)
      if (kernel().loops[l].name == name) return static_cast<int>(l);
    return -1;
  }
};

TEST(Plan, TextIsCanonicalAndParsesBack) {
  const Dense d;
  LayerPlan p;
  EXPECT_EQ(plan_text(d.kernel(), p), "unrolled");
  p.loop = d.loop("i");
  p.unroll = 4;
  p.pipeline_ii = 1;
  p.weights = WeightPlace::Registers;
  EXPECT_EQ(plan_text(d.kernel(), p), "loop=i unroll=4 pipeline=1 weights=registers");
  EXPECT_EQ(parse_plan(d.kernel(), plan_text(d.kernel(), p), "test"), p);
  EXPECT_EQ(parse_plan(d.kernel(), "unrolled", "test"), LayerPlan{});
  LayerPlan q;
  q.loop = d.loop("i");
  q.flatten = true;
  q.unroll = 2;
  EXPECT_EQ(plan_text(d.kernel(), q), "loop=i flatten unroll=2");
  EXPECT_EQ(parse_plan(d.kernel(), plan_text(d.kernel(), q), "test"), q);
  EXPECT_EQ(describe(d.kernel(), q), "loop Gemm/i flattened with j unrolled by 2, not pipelined");
  LayerPlan u;
  u.constants_on_dsps = true;
  EXPECT_EQ(plan_text(d.kernel(), u), "unrolled constants=dsp");
  EXPECT_EQ(parse_plan(d.kernel(), "unrolled constants=dsp", "test"), u);
  EXPECT_EQ(describe(d.kernel(), u), "fully unrolled, products by weights on DSPs");
  LayerPlan few = q;
  few.multipliers = 1;
  EXPECT_EQ(plan_text(d.kernel(), few), "loop=i flatten unroll=2 multipliers=1");
  EXPECT_EQ(parse_plan(d.kernel(), plan_text(d.kernel(), few), "test"), few);
  EXPECT_EQ(describe(d.kernel(), few),
            "loop Gemm/i flattened with j unrolled by 2, not pipelined, products of two "
            "variables on 1 DSP multiplier");
  few.multipliers = 0;  // in LUTs
  EXPECT_EQ(plan_text(d.kernel(), few), "loop=i flatten unroll=2 multipliers=0");
  EXPECT_EQ(parse_plan(d.kernel(), plan_text(d.kernel(), few), "test"), few);
  LayerPlan shallow;
  shallow.least_depth = true;
  EXPECT_EQ(plan_text(d.kernel(), shallow), "unrolled depth=least");
  EXPECT_EQ(parse_plan(d.kernel(), "unrolled depth=least", "test"), shallow);
  EXPECT_EQ(describe(d.kernel(), shallow), "fully unrolled, sums at the least adder depth");
}

// A nest of three loops (max_pool_2d's oh, ow, c): "flatten=2" keeps all three.
TEST(Plan, FlattenCountsTheLoopsKeptInside) {
  const hls::Model m = testing::zoo_model("max_pool_2d");
  loop::Program program = loop::lower_model(m);
  const loop::Kernel& k = program.kernels.at(0);
  LayerPlan p = parse_plan(k, "loop=oh flatten=2 pipeline=1", "test");
  EXPECT_EQ(p.flatten, 2);
  EXPECT_EQ(plan_text(k, p), "loop=oh flatten=2 pipeline=1");
  EXPECT_EQ(describe(k, p), "loop MaxPool/oh flattened with ow, c, pipelined");
  // As the config says it: Flatten on oh and on ow; and back.
  const PlanConfig pc = plan_config(program, 0, p, false);
  EXPECT_TRUE(pc.directives.loops.at("MaxPool/oh").flatten);
  EXPECT_TRUE(pc.directives.loops.at("MaxPool/ow").flatten);
  EXPECT_FALSE(pc.directives.loops.count("MaxPool/c"));
  loop::apply_directives(program, pc.directives);
  EXPECT_EQ(configured_plan(program, 0), p);
  const Error e = catch_error([&] { parse_plan(k, "loop=oh flatten=3", "plan.txt"); });
  EXPECT_NE(e.message().find("has 2 loop(s) in its perfect nest, not 3"), std::string::npos)
      << e.message();
}

TEST(Plan, BadTextSaysWhatIsWrong) {
  const Dense d;
  for (const auto& [text, what] : std::vector<std::pair<std::string, std::string>>{
           {"loop=q", "has no loop 'q'"},
           {"loop=i unroll=3", "does not divide the trip count 8"},
           {"loop=init flatten", "not a perfect nest"},
           {"unrolled loop=i", "either"},
           {"", "either"},
           {"loop=i pipeline=0", "positive number"},
           {"unrolled multipliers=two", "positive number"},
           {"unrolled multipliers", "unknown word 'multipliers'"},
           {"loop=i fast", "unknown word 'fast'"}}) {
    const Error e = catch_error([&] { parse_plan(d.kernel(), text, "plan.txt"); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel) << text;
    EXPECT_EQ(e.where(), "plan.txt") << text;
    EXPECT_NE(e.message().find(what), std::string::npos) << text << ": " << e.message();
  }
}

TEST(Plan, KeyAndHashAreStable) {
  const Dense d;
  LayerPlan p;
  p.loop = d.loop("i");
  p.pipeline_ii = 1;
  EXPECT_EQ(plan_key(d.kernel(), p), "Gemm:loop=i pipeline=1");
  // "pipeline" alone asks for II 1.
  EXPECT_EQ(parse_plan(d.kernel(), "loop=i pipeline", "test"), p);
  // FNV-1a of the key, the same on every run and machine.
  EXPECT_EQ(plan_hash(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(plan_hash("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_NE(plan_hash(plan_key(d.kernel(), p)), plan_hash(plan_key(d.kernel(), LayerPlan{})));
}

// Every plan a search prices goes to the config's directives and comes back:
// written as Loop/Buffer blocks and ConvImplementation, applied to a fresh
// program by loop::apply_directives (the config's path), read back by
// configured_plan; and applied directly by apply_plan. On a convolution
// (both forms), a pooling, element-wise layers and a dense layer.
class PlanRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(PlanRoundTrip, EveryPlanTheSearchTriesRoundTripsThroughTheConfig) {
  const hls::Model m = testing::zoo_model(GetParam());
  const loop::Program base = loop::lower_model(m);
  Pricer pricer(base, m, {}, fpga::device_of_part(m.part), {}, {});
  StageOptions so;
  int checked = 0;
  for (std::size_t k = 0; k < base.kernels.size(); ++k) {
    const int kernel = static_cast<int>(k);
    const IntervalTarget none{base.kernels[k].name, 0, "test"};
    const PlanContext alone = [&](const LayerPlan&) { return so; };
    for (const PlanChoice& c : layer_plans(pricer, kernel, none, 1, alone)) {
      const bool has_lb = pricer.may_line_buffer(kernel);
      const loop::Program& form = pricer.program_for(kernel, c.plan);
      const PlanConfig pc = plan_config(form, kernel, c.plan, has_lb);
      loop::Program fresh = loop::lower_model(m);
      if (pc.conv_impl == hls::ConvImpl::LineBuffer) loop::line_buffer(fresh, m, kernel);
      loop::apply_directives(fresh, pc.directives);
      // Where the products by constants go is the layer's ConstantProducts
      // key, not a directive of the program.
      // Nor are the DSP multipliers its products share: its MultiplierLimit.
      const auto with_constants = [&](LayerPlan p) {
        p.constants_on_dsps = pc.constant_products == hls::ConstantProducts::Dsp;
        p.multipliers = pc.multiplier_limit;
        p.least_depth = pc.adder_depth == hls::AdderDepth::Least;  // its AdderDepth
        return p;
      };
      EXPECT_EQ(with_constants(configured_plan(fresh, kernel)), c.plan)
          << base.kernels[k].name << ": " << plan_text(form.kernels[k], c.plan);
      loop::Program direct = form;
      apply_plan(direct, kernel, c.plan);
      EXPECT_EQ(with_constants(configured_plan(direct, kernel)), c.plan);
      ++checked;
    }
  }
  EXPECT_GT(checked, 5);
}

INSTANTIATE_TEST_SUITE_P(Zoo, PlanRoundTrip,
                         ::testing::Values("conv2d_a", "maxpool_b", "thxprlsg", "dense_a"));

TEST(Plan, YamlIsAConfigKilnReads) {
  const Dense d;
  LayerPlan p;
  p.loop = d.loop("i");
  p.unroll = 2;
  p.pipeline_ii = 1;
  p.weights = WeightPlace::Registers;
  const PlanConfig pc = plan_config(d.program, 0, p, false);
  const std::string yaml = plans_yaml({pc}, {"Gemm"}, "the plans of a test\nline two");
  EXPECT_EQ(yaml,
            "# the plans of a test\n"
            "# line two\n"
            "Loop:\n"
            "  Gemm/i:\n"
            "    Pipeline: 1\n"
            "    Unroll: 2\n"
            "Buffer:\n"
            "  Gemm_b:\n"  // the biases are weights too
            "    Storage: registers\n"
            "  Gemm_w:\n"
            "    Storage: registers\n");
  const hls::Config cfg = hls::parse_config(yaml, "plans.yaml");
  loop::Program fresh = loop::lower_model(d.model);
  loop::apply_directives(fresh, cfg.directives);
  EXPECT_EQ(configured_plan(fresh, 0), p);
  // A plan on fewer DSP multipliers than its products: the layer's MultiplierLimit.
  p.multipliers = 1;
  const std::string limited = plans_yaml({plan_config(d.program, 0, p, false)}, {"Gemm"}, "");
  EXPECT_EQ(limited.substr(0, limited.find("Loop:")),
            "LayerName:\n"
            "  Gemm:\n"
            "    MultiplierLimit: 1\n");
  EXPECT_NO_THROW(hls::parse_config(limited, "plans.yaml"));
  // Sums at the least adder depth: the layer's AdderDepth, read back.
  LayerPlan shallow;
  shallow.least_depth = true;
  const std::string least = plans_yaml({plan_config(d.program, 0, shallow, false)}, {"Gemm"}, "");
  EXPECT_EQ(least.substr(0, least.find("Loop:")),
            "LayerName:\n"
            "  Gemm:\n"
            "    AdderDepth: Least\n");
  const hls::Config read = hls::parse_config(least, "plans.yaml");
  EXPECT_EQ(read.by_name.at("Gemm").adder_depth, hls::AdderDepth::Least);
}

// Banked weights: the dimension the body's copies index (dense_a's outputs
// j, unrolled inside the kept input loop i) is partitioned completely, as a
// Buffer block, and those directives give the plan back.
TEST(Plan, BankedWeightsPartitionTheCopiesDimension) {
  const Dense d;
  LayerPlan p;
  p.loop = d.loop("i");
  p.pipeline_ii = 1;
  p.weights = WeightPlace::Banked;
  EXPECT_EQ(plan_text(d.kernel(), p), "loop=i pipeline=1 weights=banked");
  EXPECT_EQ(parse_plan(d.kernel(), plan_text(d.kernel(), p), "test"), p);
  const int w = d.program.storage_of(weights_of(d.program, 0).back());
  const loop::Buffer& wb = d.program.buffers[static_cast<std::size_t>(w)];
  ASSERT_EQ(wb.name, "Gemm_w");
  const std::optional<loop::BufferDirectives> banked = banked_partition(d.program, 0, p, w);
  ASSERT_TRUE(banked);
  EXPECT_TRUE(banked->more_dims.empty());
  const int dim = banked->dim - 1;
  ASSERT_GE(dim, 0);
  EXPECT_EQ(wb.shape[static_cast<std::size_t>(dim)],
            d.kernel().loops[static_cast<std::size_t>(d.loop("j"))].trip);
  // Keeping j too leaves nothing to bank the weights by.
  LayerPlan q = p;
  q.flatten = 1;
  EXPECT_FALSE(banked_partition(d.program, 0, q, w));
  const PlanConfig pc = plan_config(d.program, 0, p, false);
  const std::string yaml = plans_yaml({pc}, {"Gemm"}, "banked");
  EXPECT_NE(yaml.find(fmt::format("  Gemm_w:\n    Partition: complete\n    Dim: {}\n", dim + 1)),
            std::string::npos)
      << yaml;
  const hls::Config cfg = hls::parse_config(yaml, "plans.yaml");
  loop::Program fresh = loop::lower_model(d.model);
  loop::apply_directives(fresh, cfg.directives);
  EXPECT_EQ(configured_plan(fresh, 0), p);
}

// A convolution with its window kept reads, in each iteration, one weight
// per input and output channel: both channel dimensions are partitioned
// completely (a bank per product), written `Dim: [3, 4]`, and the config
// gives the plan back.
TEST(Plan, BankedWeightsOfAConvolutionPartitionEveryChannelDimension) {
  const hls::Model m = testing::zoo_model("model8");
  // The convolution's loops sunk into one perfect nest, as design_program does.
  const auto sunk = [&m] {
    loop::Program p = loop::lower_model(m);
    for (std::size_t k = 0; k < p.kernels.size(); ++k) loop::sink_nests(p, static_cast<int>(k));
    return p;
  };
  const loop::Program program = sunk();
  const loop::Kernel& k = program.kernels.at(0);
  LayerPlan p;
  for (std::size_t l = 0; l < k.loops.size(); ++l)
    if (k.loops[l].name == "oh") p.loop = static_cast<int>(l);
  ASSERT_GE(p.loop, 0);
  p.pipeline_ii = 1;
  p.flatten = 3;  // ow, kh, kw kept with oh
  p.weights = WeightPlace::Banked;
  int w = -1;
  for (int b : weights_of(program, 0))
    if (program.buffers[static_cast<std::size_t>(b)].shape.size() == 4) w = program.storage_of(b);
  ASSERT_GE(w, 0);
  ASSERT_EQ(program.buffers[static_cast<std::size_t>(w)].shape, (std::vector<int64_t>{5, 5, 3, 8}));
  const std::optional<loop::BufferDirectives> b = banked_partition(program, 0, p, w);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->partition, loop::Partition::Complete);
  EXPECT_EQ(b->dim, 3);
  EXPECT_EQ(b->more_dims, (std::vector<int>{4}));
  // With kw unrolled too, the kernel columns are banked as well.
  LayerPlan q = p;
  q.flatten = 2;
  const std::optional<loop::BufferDirectives> c = banked_partition(program, 0, q, w);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->dim, 2);
  EXPECT_EQ(c->more_dims, (std::vector<int>{3, 4}));
  const std::string yaml = plans_yaml({plan_config(program, 0, p, false)}, {k.name}, "banked");
  EXPECT_NE(yaml.find("    Partition: complete\n    Dim: [3, 4]\n"), std::string::npos) << yaml;
  const hls::Config cfg = hls::parse_config(yaml, "plans.yaml");
  loop::Program fresh = sunk();
  loop::apply_directives(fresh, cfg.directives);
  EXPECT_EQ(configured_plan(fresh, 0), p);
  // The second convolution with its input-channel loop kept and unrolled by
  // 2: the copies read ci = 2k and 2k + 1, so ci is cyclic by 2 and co
  // complete (a bank per copy and output channel).
  const loop::Kernel& k4 = program.kernels.at(2);
  ASSERT_EQ(k4.name, "n_4_Conv");
  LayerPlan r;
  for (std::size_t l = 0; l < k4.loops.size(); ++l)
    if (k4.loops[l].name == "oh") r.loop = static_cast<int>(l);
  r.pipeline_ii = 1;
  r.flatten = 5;  // ow, kh, kw, g, ci
  r.unroll = 2;
  r.weights = WeightPlace::Banked;
  int w4 = -1;
  for (int x : weights_of(program, 2))
    if (program.buffers[static_cast<std::size_t>(x)].shape.size() == 4) w4 = program.storage_of(x);
  const std::optional<loop::BufferDirectives> e = banked_partition(program, 2, r, w4);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->partition, loop::Partition::Cyclic);
  EXPECT_EQ(e->factor, 2);
  EXPECT_EQ(e->dim, 3);
  EXPECT_EQ(e->more_dims, (std::vector<int>{4}));
  // The pricer keeps a program per banked partition: unrolled by 2, the
  // input channels are cyclic by 2; not unrolled, only co is banked (one
  // program for both gave the unrolled plan the other's banks, and the
  // model32 search its weights in registers).
  {
    const loop::Program base = sunk();
    Pricer pricer(base, m, {}, fpga::device_of_part(m.part), {}, {});
    LayerPlan one = r;
    one.unroll = 1;
    const loop::Buffer& w2 = pricer.program_for(2, r).buffers[static_cast<std::size_t>(w4)];
    const loop::Buffer& w1 = pricer.program_for(2, one).buffers[static_cast<std::size_t>(w4)];
    EXPECT_EQ(w2.directives, *e);
    EXPECT_EQ(w1.directives, *banked_partition(base, 2, one, w4));
    EXPECT_NE(w1.directives, w2.directives);
  }
  // The Loop IR's text keeps both dimensions.
  EXPECT_NE(loop::print_program(fresh).find("partition=complete factor=0 dim=3 dim=4"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::rtl

#include "kiln/dse/deepflexihls.h"

#include <gtest/gtest.h>

#include "kiln/hls/model_text.h"
#include "kiln/rtl/lower/design.h"

namespace kiln::dse {
namespace {

// A 3x3 convolution, 1 -> 4 channels over 5x5: nest oh, ow, kh, kw, g, ci,
// co after sink_nests (trip counts 5, 5, 3, 3, 1, 1, 4).
const char* kConv = R"(layers 1
model "c" {}
%x: ap_fixed<8,3>[5x5x1] = Input() @x "x"
%h: ap_fixed<10,4>[5x5x4] = Conv(%x) {in_h=5 in_w=5 c_in=1 out_h=5 out_w=5 c_out=4 kernel_h=3 kernel_w=3 stride_h=1 stride_w=1 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1} @conv config {accum=ap_fixed<20,8>} constants {weights=[3,-5,7,1,0,-2,4,6,-7,2,5,-1,-3,7,2,0,1,-6,5,3,-4,2,-7,6,1,1,-1,4,-3,2,6,-5,0,3,7,-2] bias=[1,-2,3,0]}
input %x "x": [1x1x5x5] perm=[1,2,0]
output %h "h": [1x4x5x5] perm=[1,2,0]
)";

struct Conv : ::testing::Test {
  hls::Model model = hls::parse_layers(kConv, "c.layers");
  loop::Program program = rtl::design_program(model, rtl::RtlOptions{});
  const loop::Kernel& kernel = program.kernels.at(0);
  std::vector<int> loops = partition_loops(kernel);

  DirectiveSet with(const std::vector<std::pair<std::string, std::string>>& d) {
    DirectiveSet ds = no_directives(kernel, loops);
    for (const auto& [loop, what] : d)
      for (std::size_t i = 0; i < loops.size(); ++i)
        if (kernel.loops[static_cast<std::size_t>(loops[i])].name == loop) {
          if (what == "pipeline")
            ds.pipeline[i] = true;
          else
            ds.unroll[i] = std::stoll(what);
        }
    return ds;
  }
  std::string text(const DirectiveSet& ds) { return directive_text(kernel, loops, ds); }
};

TEST_F(Conv, ThePartitionIsThePerfectNest) {
  std::string names;
  for (int l : loops) names += kernel.loops[static_cast<std::size_t>(l)].name + " ";
  EXPECT_EQ(names, "oh ow kh kw g ci co ");
}

TEST_F(Conv, SimplifyAppliesTheSeedsThreeRules) {
  // Inside a pipelined loop every directive goes; a fully unrolled loop is
  // not pipelined; a loop of one iteration has none.
  EXPECT_EQ(text(simplify(kernel, loops, with({{"ow", "pipeline"}, {"kh", "3"}, {"co", "2"}}))),
            "ow:pipeline");
  EXPECT_EQ(text(simplify(kernel, loops, with({{"kh", "pipeline"}, {"kh", "3"}}))), "kh:unroll=3");
  EXPECT_EQ(text(simplify(kernel, loops, with({{"g", "pipeline"}, {"ci", "1"}}))), "-");
  EXPECT_EQ(text(simplify(kernel, loops, with({{"oh", "5"}, {"co", "pipeline"}}))),
            "oh:unroll=5 co:pipeline");
}

TEST_F(Conv, NeighboursAddOneDirective) {
  // Each loop: a pipeline flag, and each divisor over 1 of its trip count.
  // oh 5: p, 5; ow: p, 5; kh: p, 3; kw: p, 3; g: p; ci: p; co: p, 2, 4.
  EXPECT_EQ(neighbours(kernel, loops, no_directives(kernel, loops)).size(), 13u);
  EXPECT_EQ(neighbours(kernel, loops, with({{"co", "2"}, {"oh", "pipeline"}})).size(), 10u);
}

TEST_F(Conv, PlansKeepAPrefixOfTheNest) {
  const auto plan = [&](const DirectiveSet& ds) -> std::string {
    const std::optional<rtl::LayerPlan> p = plan_of(kernel, loops, simplify(kernel, loops, ds));
    return p ? rtl::plan_text(kernel, *p) : "none";
  };
  EXPECT_EQ(plan(no_directives(kernel, loops)), "loop=oh flatten=6");
  EXPECT_EQ(plan(with({{"ow", "pipeline"}})), "loop=oh flatten pipeline=1");
  // co fully unrolled (g and ci have one iteration): kw is the innermost kept.
  EXPECT_EQ(plan(with({{"co", "4"}})), "loop=oh flatten=3");
  EXPECT_EQ(plan(with({{"co", "2"}})), "loop=oh flatten=6 unroll=2");
  EXPECT_EQ(plan(with({{"oh", "5"}, {"ow", "5"}, {"kh", "3"}, {"kw", "3"}, {"co", "4"}})),
            "unrolled");
  // An unroll factor outside the innermost kept loop: not a kiln plan (ow
  // unrolled, the loops inside it kept).
  EXPECT_EQ(plan(with({{"ow", "pipeline"}, {"ow", "5"}})), "none");
  EXPECT_EQ(plan(with({{"oh", "5"}, {"ow", "pipeline"}})), "none");
}

TEST(LargestAdjacentRuns, AreTheSeedsLapl) {
  // The seed's example: PL = {1, 2, 4, 5, 6} gives {1, 2} and {4, 5, 6}.
  EXPECT_EQ(largest_adjacent_runs({1, 2, 4, 5, 6}),
            (std::vector<std::pair<int, int>>{{1, 2}, {4, 3}}));
  EXPECT_EQ(largest_adjacent_runs({}), (std::vector<std::pair<int, int>>{}));
  EXPECT_EQ(largest_adjacent_runs({3}), (std::vector<std::pair<int, int>>{{3, 1}}));
}

}  // namespace
}  // namespace kiln::dse

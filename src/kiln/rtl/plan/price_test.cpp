// The Pricer's graph budget: trim() keeps the cached graphs within it, a
// graph dropped is made again with the same prices, and a Hold keeps every
// graph while a design is being placed.
#include "kiln/rtl/plan/price.h"

#include <gtest/gtest.h>

#include "kiln/loop/lower_layers.h"
#include "kiln/rtl/plan/search.h"
#include "kiln/rtl/testing/sim_check.h"

namespace kiln::rtl {
namespace {

struct Priced {
  int interval, latency;
  double lut, ff, dsp, bram18;
  bool operator==(const Priced&) const = default;
};

// Every plan the searches try of each layer, priced by `pricer`, trimmed
// (when it has a budget) between plans as the searches do.
std::vector<Priced> price_all(Pricer& pricer, const loop::Program& program,
                              std::size_t* most_after_trim) {
  std::vector<Priced> out;
  const StageOptions so;
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const int kernel = static_cast<int>(k);
    const IntervalTarget none{program.kernels[k].name, 0, "test"};
    const PlanContext alone = [&](const LayerPlan&) { return so; };
    for (const PlanChoice& c : layer_plans(pricer, kernel, none, 1, alone)) {
      out.push_back({c.interval, c.latency, c.resources.lut, c.resources.ff, c.resources.dsp,
                     c.resources.bram18});
      pricer.trim();
      *most_after_trim = std::max(*most_after_trim, pricer.graph_bytes());
    }
  }
  return out;
}

TEST(Pricer, TrimKeepsTheGraphsWithinTheBudgetAndPricesTheSame) {
  const hls::Model m = testing::zoo_model("conv2d_a");
  const loop::Program program = loop::lower_model(m);
  const fpga::Device device = fpga::device_of_part(m.part);

  Pricer unlimited(program, m, {}, device, {}, {});
  std::size_t all = 0;
  const std::vector<Priced> reference = price_all(unlimited, program, &all);
  ASSERT_GT(reference.size(), 5u);
  ASSERT_GT(all, 0u);

  // A budget of a third of what every graph takes: graphs are dropped and
  // made again, and the prices do not change.
  Pricer limited(program, m, {}, device, {}, {});
  limited.set_graph_budget(all / 3);
  std::size_t most = 0;
  EXPECT_EQ(price_all(limited, program, &most), reference);
  EXPECT_LE(most, all / 3);
  EXPECT_GT(most, 0u);

  // The same plans priced again after every graph was dropped.
  limited.set_graph_budget(1);
  limited.trim();
  EXPECT_EQ(limited.graph_bytes(), 0u);
  most = 0;
  EXPECT_EQ(price_all(limited, program, &most), reference);
}

TEST(Pricer, AHoldKeepsEveryGraph) {
  const hls::Model m = testing::zoo_model("conv2d_a");
  const loop::Program program = loop::lower_model(m);
  Pricer pricer(program, m, {}, fpga::device_of_part(m.part), {}, {});
  LayerPlan unrolled;
  const LayerGraph* g = pricer.graph_for(0, unrolled, nullptr);
  ASSERT_NE(g, nullptr);
  const std::size_t bytes = pricer.graph_bytes();
  EXPECT_GE(bytes, g->unrolled->graph.bytes());
  pricer.set_graph_budget(1);
  {
    const Pricer::Hold hold(pricer);
    pricer.trim();
    EXPECT_EQ(pricer.graph_bytes(), bytes);
  }
  pricer.trim();
  EXPECT_EQ(pricer.graph_bytes(), 0u);
}

}  // namespace
}  // namespace kiln::rtl

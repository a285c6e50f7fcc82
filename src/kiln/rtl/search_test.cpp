// LatencyCycles as a problem of its own: per layer the plans it may take
// (interval already met), one pick per layer whose latencies add up to the
// bound, checked by verify_latency().
#include "kiln/rtl/search.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kiln::rtl

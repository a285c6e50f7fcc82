// The precision search's pieces that need no model: the goal's test and
// loss, and the variants' frontiers united with the loss as an objective.
#include "kiln/dse/precision.h"

#include <gtest/gtest.h>

#include "kiln/dse/explore.h"

namespace kiln::dse {
namespace {

TEST(Precision, GoalsAndLosses) {
  Accuracy a;
  a.samples = 100;
  a.top1 = 0.98;
  a.max_error = 0.25;
  AccuracyGoal top1;
  top1.min_top1 = 0.99;
  EXPECT_FALSE(meets(a, top1));
  top1.min_top1 = 0.98;
  EXPECT_TRUE(meets(a, top1));
  EXPECT_NEAR(accuracy_loss(a, top1), 0.02, 1e-12);
  AccuracyGoal err;
  err.metric = AccuracyMetric::MaxError;
  err.max_error = 0.2;
  EXPECT_FALSE(meets(a, err));
  err.max_error = 0.25;
  EXPECT_TRUE(meets(a, err));
  EXPECT_DOUBLE_EQ(accuracy_loss(a, err), 0.25);
}

ExplorePoint point(int64_t latency, double lut) {
  ExplorePoint p;
  p.placed.latency = p.placed.interval = latency;
  p.placed.lut = lut;
  return p;
}

// A narrower variant's point that is cheaper but less accurate stays beside
// the wider one's; one beaten in cycles and LUTs at equal accuracy goes.
TEST(Precision, UnitedFrontierKeepsTheAccuracyTrade) {
  AccuracyGoal goal;
  goal.min_top1 = 0.9;
  std::vector<PrecisionVariant> variants(3);
  variants[0].accuracy.top1 = 1.0;   // wide
  variants[1].accuracy.top1 = 0.95;  // narrow
  variants[2].accuracy.top1 = 1.0;   // as accurate as the wide one, dearer
  std::vector<ExploreResult> parts(3);
  parts[0].frontier = {point(10, 1000), point(20, 600)};
  parts[1].frontier = {point(10, 700), point(20, 400)};
  parts[2].frontier = {point(10, 1100)};
  const ExploreResult u = unite_variants(parts, variants, goal, Goal::Latency);
  ASSERT_EQ(u.frontier.size(), 4u);
  for (const ExplorePoint& p : u.frontier) EXPECT_NE(p.variant, 2);
  EXPECT_EQ(u.frontier[0].variant, 1);  // 10 cycles, 700 LUT, loss 0.05
  EXPECT_NEAR(u.frontier[0].placed.loss, 0.05, 1e-12);
  EXPECT_EQ(u.frontier[1].variant, 0);  // 10 cycles, 1000 LUT, loss 0
  ASSERT_TRUE(u.accuracy_goal.has_value());
  EXPECT_EQ(u.variants.size(), 3u);
}

}  // namespace
}  // namespace kiln::dse

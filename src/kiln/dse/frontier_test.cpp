#include "kiln/dse/frontier.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln::dse {
namespace {

Objectives at(int64_t latency, double lut, double dsp = 0) {
  Objectives o;
  o.latency = latency;
  o.interval = latency;
  o.lut = lut;
  o.dsp = dsp;
  return o;
}

TEST(Frontier, KeepsThePointsNoneBeats) {
  const std::vector<Objectives> pts = {at(10, 100), at(20, 50), at(15, 120),  at(20, 50),
                                       at(5, 400),  at(30, 60), at(12, 80, 4)};
  const std::vector<std::size_t> f = frontier(pts, Goal::Latency);
  // (15, 120) is beaten by (10, 100); the second (20, 50) equals the first;
  // (30, 60) is beaten by (20, 50); (12, 80, 4 DSP) trades DSPs for LUTs.
  EXPECT_EQ(f, (std::vector<std::size_t>{4, 0, 6, 1}));
  std::vector<Objectives> front;
  for (std::size_t i : f) front.push_back(pts[i]);
  EXPECT_TRUE(verify_frontier(front, pts, Goal::Latency));
}

TEST(Frontier, VerifyFindsABeatenPoint) {
  const std::vector<Objectives> all = {at(10, 100), at(20, 50), at(15, 120)};
  std::string why;
  EXPECT_FALSE(verify_frontier({at(10, 100), at(15, 120)}, all, Goal::Latency, &why));
  EXPECT_EQ(why, "frontier point 0 dominates frontier point 1");
  EXPECT_FALSE(verify_frontier({at(15, 120)}, all, Goal::Latency, &why));
  EXPECT_EQ(why, "point 0 of those evaluated dominates frontier point 0");
}

TEST(Frontier, RandomSetsAgreeWithTheDefinition) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Objectives> pts;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      Objectives o = at(1 + rng() % 20, rng() % 20, rng() % 3);
      o.ff = rng() % 4;
      pts.push_back(o);
    }
    const std::vector<std::size_t> f = frontier(pts, Goal::Latency);
    std::vector<Objectives> front;
    for (std::size_t i : f) front.push_back(pts[i]);
    std::string why;
    ASSERT_TRUE(verify_frontier(front, pts, Goal::Latency, &why)) << why;
    // Every point left out is beaten or equalled by one kept.
    for (std::size_t i = 0; i < pts.size(); ++i) {
      bool covered = false;
      for (const Objectives& k : front)
        covered = covered || dominates(k, pts[i], Goal::Latency) ||
                  (k.latency == pts[i].latency && k.lut == pts[i].lut && k.ff == pts[i].ff &&
                   k.dsp == pts[i].dsp && k.bram18 == pts[i].bram18);
      ASSERT_TRUE(covered) << trial << " " << i;
    }
  }
}

TEST(Frontier, AdrsIsZeroOnTheReferenceAndGrowsWithTheGap) {
  const std::vector<Objectives> ref = {at(10, 100), at(20, 50)};
  EXPECT_DOUBLE_EQ(adrs(ref, ref, Goal::Latency), 0.0);
  // (11, 100) is 10% slower than (10, 100); (20, 50) is matched.
  EXPECT_NEAR(adrs(ref, {at(11, 100), at(20, 50)}, Goal::Latency), 0.05, 1e-12);
}

}  // namespace
}  // namespace kiln::dse

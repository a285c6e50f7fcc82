// The composition of layer frontiers against exhaustive enumeration: on
// random layers, the frontier of what compose() returns equals the
// frontier of every design, in latency (sums) and in interval (maxima).
#include <gtest/gtest.h>

#include <random>

#include "kiln/dse/explore.h"

namespace kiln::dse {
namespace {

std::vector<std::vector<LayerCandidate>> random_layers(std::mt19937& rng, int layers, int plans) {
  std::vector<std::vector<LayerCandidate>> out(static_cast<std::size_t>(layers));
  for (auto& l : out)
    for (int i = 0; i < plans; ++i) {
      LayerCandidate c;
      c.latency = 1 + static_cast<int>(rng() % 100);
      c.interval = 1 + static_cast<int>(rng() % 100);
      c.resources.lut = static_cast<double>(rng() % 1000);
      c.resources.ff = static_cast<double>(rng() % 1000);
      c.resources.dsp = static_cast<double>(rng() % 10);
      c.resources.bram18 = static_cast<double>(rng() % 4);
      l.push_back(c);
    }
  return out;
}

// The 2-D frontier of (cycles, LUT) of a set of designs.
std::vector<std::pair<int64_t, double>> lut_front(const std::vector<Objectives>& pts, Goal g) {
  std::vector<std::pair<int64_t, double>> v;
  for (const Objectives& o : pts) v.emplace_back(o.cycles(g), o.lut);
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int64_t, double>> f;
  for (const auto& p : v)
    if (f.empty() || p.second < f.back().second) f.push_back(p);
  return f;
}

TEST(Compose, EqualsExhaustiveEnumerationOnCyclesAndLuts) {
  std::mt19937 rng(11);
  fpga::Resources capacity;
  capacity.lut = 1e9;
  capacity.ff = 1e9;
  capacity.dsp = 1e9;
  capacity.bram18 = 1e9;
  for (Goal goal : {Goal::Latency, Goal::Interval})
    for (int trial = 0; trial < 20; ++trial) {
      const auto layers = random_layers(rng, 4, 5);
      int64_t composed = 0;
      const auto picks = compose(layers, goal, capacity, capacity, int64_t{1} << 40, &composed);
      std::vector<Objectives> got;
      for (const auto& p : picks) got.push_back(estimate_of(layers, p));
      std::vector<Objectives> all;
      for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 5; ++b)
          for (int c = 0; c < 5; ++c)
            for (int d = 0; d < 5; ++d) all.push_back(estimate_of(layers, {a, b, c, d}));
      EXPECT_EQ(lut_front(got, goal), lut_front(all, goal)) << trial;
      EXPECT_GT(composed, 0);
      // Every design is matched or beaten in cycles and LUTs: ADRS 0.
      EXPECT_DOUBLE_EQ(adrs(all, got, goal), 0.0) << trial;
    }
}

TEST(Compose, DropsDesignsOverTheLimits) {
  std::mt19937 rng(5);
  const auto layers = random_layers(rng, 3, 6);
  fpga::Resources capacity;
  capacity.lut = 1e9;
  capacity.ff = 1e9;
  capacity.dsp = 1e9;
  capacity.bram18 = 1e9;
  fpga::Resources limit = capacity;
  limit.lut = 1200;
  int64_t composed = 0;
  const auto picks = compose(layers, Goal::Latency, capacity, limit, 150, &composed);
  ASSERT_FALSE(picks.empty());
  for (const auto& p : picks) {
    const Objectives o = estimate_of(layers, p);
    EXPECT_LE(o.lut, 1200);
    // Within the bound by the layers' fills at least (streaming layers
    // overlap all but those): the design's latency may be.
    int64_t fill = 0;
    for (std::size_t k = 0; k < p.size(); ++k) {
      const LayerCandidate& c = layers[k][static_cast<std::size_t>(p[k])];
      fill += std::max<int64_t>(1, int64_t{c.latency} - c.interval + 1);
    }
    EXPECT_LE(fill, 150);
  }
}

}  // namespace
}  // namespace kiln::dse

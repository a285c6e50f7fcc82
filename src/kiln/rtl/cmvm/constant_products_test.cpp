#include "kiln/rtl/cmvm/constant_products.h"

#include <gtest/gtest.h>

#include <random>

#include "kiln/sched/operator_library.h"

namespace kiln::rtl {
namespace {

using sched::csd_digits;

TEST(ConstantProducts, CsdDigits) {
  EXPECT_EQ(csd_digits(7), (std::vector<std::pair<int, int>>{{-1, 0}, {1, 3}}));
  EXPECT_EQ(csd_digits(-3), (std::vector<std::pair<int, int>>{{1, 0}, {-1, 2}}));
  EXPECT_TRUE(csd_digits(0).empty());
}

// seed 004's conv_2d: its 27 weights as ap_fixed<16,6> raw values.
TEST(ConstantProducts, Conv2dWeightsShareAlmostHalfTheAdders) {
  const std::vector<int64_t> w = {809,  149,  -203, -7,   -718, 173,  384,  -170, -462,
                                  -649, -804, -520, -38,  190,  14,   -545, -145, -357,
                                  264,  -591, -30,  -422, -492, -818, 225,  136,  -637};
  ConstantProducts unshared;
  for (int64_t c : w) {
    std::vector<ConstantProducts::Digit> p;
    for (const auto& [d, i] : csd_digits(c)) p.push_back({d, i, -1});
    unshared.products.push_back(p);
  }
  const ConstantProducts plan = share_constant_products(w);
  EXPECT_EQ(unshared.adders(), 68);
  EXPECT_EQ(plan.adders(), 39);
  for (std::size_t j = 0; j < w.size(); ++j)
    for (int64_t x : {int64_t{1}, int64_t{-1}, int64_t{32767}, int64_t{-32768}, int64_t{12345}})
      EXPECT_EQ(evaluate(plan, j, x), w[j] * x) << "constant " << w[j];
}

// Random constant sets: every product exact, never more adders than without sharing.
TEST(ConstantProducts, RandomSetsStayExact) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<int64_t> c(1 + rng() % 40);
    for (int64_t& v : c) v = static_cast<int64_t>(rng() % (1 << 18)) - (1 << 17);
    const ConstantProducts plan = share_constant_products(c);
    int64_t unshared = 0;
    for (int64_t v : c) unshared += csd_digits(v).empty() ? 0 : csd_digits(v).size() - 1;
    EXPECT_LE(plan.adders(), unshared);
    for (std::size_t j = 0; j < c.size(); ++j) {
      const int64_t x = static_cast<int64_t>(rng() % (1 << 20)) - (1 << 19);
      ASSERT_EQ(evaluate(plan, j, x), c[j] * x) << "constant " << c[j];
    }
  }
}

}  // namespace
}  // namespace kiln::rtl

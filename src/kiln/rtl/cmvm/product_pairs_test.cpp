#include "kiln/rtl/cmvm/product_pairs.h"

#include <gtest/gtest.h>

#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::rtl {
namespace {

// Every pair of 8-bit products of one 8-bit x: the packed product gives
// both exactly, the most negative values included ((-128 << 16) + b with
// b < 0 needs the packed operand's extra bit).
TEST(ProductPairs, EveryEightBitPairComesBackExact) {
  const ProductPair p{0, 1, 2, 16, 25};
  for (int64_t a = -128; a < 128; ++a)
    for (int64_t b = -128; b < 128; b += 3)
      for (int64_t x = -128; x < 128; x += 5) {
        const auto [high, low] = evaluate(p, a, b, x);
        ASSERT_EQ(high, a * x) << a << " " << b << " " << x;
        ASSERT_EQ(low, b * x) << a << " " << b << " " << x;
      }
  for (int64_t x : {-128, 127})
    for (int64_t b : {-128, -1, 0, 127}) {
      EXPECT_EQ(evaluate(p, -128, b, x), std::make_pair(-128 * x, b * x));
      EXPECT_EQ(evaluate(p, 127, b, x), std::make_pair(127 * x, b * x));
    }
  // One bit fewer for the packed operand and (-128 << 16) + b wraps.
  const ProductPair narrow{0, 1, 2, 16, 24};
  EXPECT_NE(evaluate(narrow, -128, -1, 3).first, -128 * 3);
}

// x times five weights in one cycle: two pairs, the fifth product alone; a
// product in another cycle, or too wide to share the slice, is in none.
TEST(ProductPairs, ProductsOfOneOperandInOneCyclePairUp) {
  dfg::Graph g;
  const loop::ScalarType s8{8, 4, true}, s12{12, 4, true};
  const uint32_t x = g.input({0, 0}, s8);
  std::vector<uint32_t> products;
  for (int i = 0; i < 5; ++i) products.push_back(g.mul(x, g.input({1, i}, s8)));
  const uint32_t later = g.mul(x, g.input({1, 5}, s8));
  const uint32_t wide = g.mul(x, g.input({2, 0}, s12));
  std::vector<int> start(g.size(), 0);
  start[later] = 1;
  const auto on_dsp = [&](uint32_t n) { return g.node(n).op == dfg::NodeOp::Mul; };
  const std::vector<ProductPair> pairs = pair_products(g, start, fpga::Family::Series7, on_dsp);
  ASSERT_EQ(pairs.size(), 2u);
  for (const ProductPair& p : pairs) {
    EXPECT_EQ(p.shared, x);
    EXPECT_EQ(p.low_bits, 16);
    EXPECT_EQ(p.packed_bits, 25);  // a DSP48E1's A port
    for (uint32_t n : {p.high, p.low})
      EXPECT_NE(std::count(products.begin(), products.end(), n), 0);
  }
  verify_pairs(g, start, fpga::Family::Series7, on_dsp, pairs);
  // 12-bit weights: 12 + 20 + 1 = 33 bits, past a DSP48E2's 27.
  EXPECT_FALSE(pair_of(g, wide, products[0], x, fpga::Family::UltraScalePlus));
  // What verify_pairs refuses.
  std::vector<ProductPair> bad = pairs;
  bad[1].low = bad[0].high;
  EXPECT_THROW(verify_pairs(g, start, fpga::Family::Series7, on_dsp, bad), Error);
  bad = pairs;
  bad[0].low = later;
  EXPECT_THROW(verify_pairs(g, start, fpga::Family::Series7, on_dsp, bad), Error);
  bad = pairs;
  bad[0].packed_bits = 24;
  EXPECT_THROW(verify_pairs(g, start, fpga::Family::Series7, on_dsp, bad), Error);
  // Products the stage keeps off the DSPs pair with nothing.
  EXPECT_TRUE(
      pair_products(g, start, fpga::Family::Series7, [](uint32_t) { return false; }).empty());
}

}  // namespace
}  // namespace kiln::rtl

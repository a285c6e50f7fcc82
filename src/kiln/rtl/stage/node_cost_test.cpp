// What a node costs: a sum whose operands sit on different grids carries
// only over the bits where both have bits (the others pass through).
#include "kiln/rtl/stage/node_cost.h"

#include <gtest/gtest.h>

namespace kiln::rtl {
namespace {

TEST(NodeCost, ASumCarriesOnlyWhereBothOperandsHaveBits) {
  dfg::Graph g;
  const uint32_t a = g.input({0, 0}, {8, 0, true});
  const uint32_t b = g.input({0, 1}, {8, 0, true});
  const uint32_t b4 = g.shl(b, 4);
  // a + (b << 4): a's low 4 bits pass; (a << 4) + b: b's.
  EXPECT_EQ(adder_pass_bits(g, g.add(a, b4)), 4);
  EXPECT_EQ(adder_pass_bits(g, g.add(g.shl(a, 4), b)), 4);
  // a - (b << 4): the minuend's low bits pass; (a << 4) - b negates b's.
  EXPECT_EQ(adder_pass_bits(g, g.sub(a, b4)), 4);
  EXPECT_EQ(adder_pass_bits(g, g.sub(g.shl(a, 4), b)), 0);
  EXPECT_EQ(adder_pass_bits(g, g.add(a, b)), 0);
  // Priced on the bits that carry: a + (b << 4) costs what a 9-bit sum does
  // (13 bits in all, 4 passed).
  const uint32_t wide = g.add(a, b4);
  ASSERT_EQ(g.type(wide).width, 13);
  const uint32_t narrow = g.add(a, g.input({0, 2}, {9, 0, true}));
  EXPECT_EQ(g.type(narrow).width, 10);
  const auto lut = [&](uint32_t n) {
    return node_cost(g, n, fpga::Family::UltraScalePlus, false, false).resources.lut;
  };
  EXPECT_LT(lut(wide), lut(g.add(g.input({0, 3}, {12, 0, true}), b)));
  EXPECT_LE(lut(wide), lut(narrow));
}

}  // namespace
}  // namespace kiln::rtl

#include "kiln/hls/emit/layer_code.h"

#include <gtest/gtest.h>

namespace kiln::hls {
namespace {

FixedType fmt(int w, int i, bool s = true) {
  return FixedType{w, i, s};
}

TEST(FixedLiteral, ExactDecimals) {
  EXPECT_EQ(fixed_literal(-5, fmt(8, 4)), "-0.3125");  // -5 / 16
  EXPECT_EQ(fixed_literal(3, fmt(8, 8)), "3.0");
  EXPECT_EQ(fixed_literal(0, fmt(8, 2)), "0.0");
  EXPECT_EQ(fixed_literal(1, fmt(12, 2)), "0.0009765625");  // 2^-10
  EXPECT_EQ(fixed_literal(-128, fmt(8, 1)), "-1.0");
  EXPECT_EQ(fixed_literal(200, fmt(12, 4)), "0.78125");  // 200 / 256
  EXPECT_EQ(fixed_literal(27, fmt(8, 3)), "0.84375");    // 27 / 32
  EXPECT_EQ(fixed_literal(-3, fmt(4, 6)), "-12.0");      // I > W: raw * 4
  EXPECT_EQ(fixed_literal(1, fmt(24, 24 - 40)), "0.0000000000009094947017729282379150390625");
  EXPECT_EQ(fixed_literal(9007199254740991, fmt(54, 54)), "9007199254740991.0");
}

}  // namespace
}  // namespace kiln::hls

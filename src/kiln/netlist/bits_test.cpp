#include "kiln/netlist/bits.h"

#include <gtest/gtest.h>

namespace kiln::netlist {
namespace {

TEST(Bits, ZeroOfAnyWidth) {
  EXPECT_EQ(Bits().width(), 0);
  EXPECT_EQ(Bits().words(), 0u);
  EXPECT_EQ(Bits().hex(), "0");
  const Bits b(130);
  EXPECT_EQ(b.width(), 130);
  EXPECT_EQ(b.words(), 3u);
  EXPECT_TRUE(b.is_zero());
  EXPECT_EQ(b.literal(), "130'h0");
}

TEST(Bits, FromIntSignExtendsPast64Bits) {
  const Bits b = Bits::from_int(-2, 100);
  EXPECT_EQ(b.word(0), ~uint64_t{1});
  EXPECT_EQ(b.word(1), (uint64_t{1} << 36) - 1);  // only the 36 bits within the width
  EXPECT_EQ(b.hex(), "ffffffffffffffffffffffffe");
  EXPECT_EQ(Bits::from_int(-1, 8).to_uint64(), 0xffu);
  EXPECT_EQ(Bits::from_int(-1, 8).to_int64(), -1);
  EXPECT_EQ(Bits::from_int(127, 8).to_int64(), 127);
  EXPECT_EQ(Bits::from_int(128, 8).to_int64(), -128);
  EXPECT_EQ(Bits::from_int(INT64_MIN, 64).to_int64(), INT64_MIN);
  EXPECT_EQ(Bits::from_int(5, 64).to_int64(), 5);
}

TEST(Bits, FromUintCutsToTheWidth) {
  EXPECT_EQ(Bits::from_uint(0x1ff, 8).to_uint64(), 0xffu);
  EXPECT_EQ(Bits::from_uint(~uint64_t{0}, 64).to_uint64(), ~uint64_t{0});
  const Bits b = Bits::from_uint(~uint64_t{0}, 70);
  EXPECT_EQ(b.word(1), 0u);
  EXPECT_EQ(Bits::from_uint(3, 0).words(), 0u);
}

TEST(Bits, SetBitAndEquality) {
  Bits a(70), b(70);
  a.set_bit(69, true);
  EXPECT_TRUE(a.bit(69));
  EXPECT_FALSE(a.bit(68));
  EXPECT_NE(a, b);
  b.set_bit(69, true);
  EXPECT_EQ(a, b);
  a.set_bit(69, false);
  EXPECT_TRUE(a.is_zero());
  EXPECT_NE(Bits(8), Bits(9));  // the width is part of the value
}

TEST(Bits, HexRoundTrip) {
  EXPECT_EQ(Bits::from_uint(0x3fa, 16).hex(), "3fa");
  EXPECT_EQ(Bits::from_uint(0x3fa, 16).literal(), "16'h3fa");
  const auto b = Bits::from_hex("1ffffffffffffffff0", 72);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->word(0), 0xfffffffffffffff0u);
  EXPECT_EQ(b->word(1), 0x1fu);
  EXPECT_EQ(b->hex(), "1ffffffffffffffff0");
  EXPECT_EQ(Bits::from_hex("00ff", 8)->to_uint64(), 0xffu);  // leading zeros are fine
  EXPECT_FALSE(Bits::from_hex("1ff", 8));                    // too wide
  EXPECT_FALSE(Bits::from_hex("g", 8));
  EXPECT_FALSE(Bits::from_hex("", 8));
}

}  // namespace
}  // namespace kiln::netlist

#include "kiln/netlist/ops.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace kiln::netlist {
namespace {

TEST(Ops, EveryOpHasOneNameThatReadsBack) {
  std::set<std::string_view> seen;
  ASSERT_EQ(std::size(EnumNames<Op>::kNames), kNumOps);
  for (std::size_t i = 0; i < kNumOps; ++i) {
    const Op op = static_cast<Op>(i);
    const std::string_view name = op_name(op);
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(seen.insert(name).second) << name;
    EXPECT_EQ(op_from_name(name), op) << name;
    EXPECT_EQ(enum_name(op), name);
  }
  EXPECT_FALSE(op_from_name("madd"));
}

TEST(Ops, TableFacts) {
  EXPECT_EQ(op_info(Op::Add).min_args, 2);
  EXPECT_TRUE(op_info(Op::Add).combinational);
  EXPECT_EQ(op_info(Op::Concat).max_args, -1);
  EXPECT_EQ(op_info(Op::Case).min_args, 2);  // a selector and a default
  EXPECT_FALSE(op_info(Op::Reg).combinational);
  EXPECT_EQ(op_info(Op::Reg).optional_from, 1);  // en and rst
  EXPECT_EQ(op_info(Op::Slice).imm, Imm::Lsb);
  EXPECT_EQ(op_info(Op::Ult).rule, WidthRule::Compare);
  EXPECT_EQ(op_info(Op::MulS).rule, WidthRule::Product);
}

}  // namespace
}  // namespace kiln::netlist

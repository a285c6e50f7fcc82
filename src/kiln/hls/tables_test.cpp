#include "kiln/hls/tables.h"

#include <gtest/gtest.h>

#include "kiln/support/error.h"

namespace kiln::hls {
namespace {

using numeric::OverflowMode;
using numeric::QuantMode;

FixedType ufix(int w, int i, QuantMode q = QuantMode::Trn, OverflowMode o = OverflowMode::Wrap) {
  return FixedType{w, i, false, q, o};
}

TEST(Tables, SixteenEntrySigmoidOverMinusTwoToTwo) {
  TableConfig cfg;
  cfg.table_size = 16;
  cfg.table_range = 2;
  const TableGeometry g = table_geometry(TableKind::Sigmoid, cfg, 0, "s");
  EXPECT_EQ(g.size, 16);
  EXPECT_EQ(g.shift, 2);  // 16 / (2 * 2) = 4 bins per unit
  const std::vector<int64_t> t = make_table(TableKind::Sigmoid, g, ufix(8, 0));
  ASSERT_EQ(t.size(), 16u);
  // Bin midpoints -1.875, 0.125, 1.875; sigmoid * 256 = 34.04, 135.99, 221.96
  // (computed by hand), truncated.
  EXPECT_EQ(t[0], 34);
  EXPECT_EQ(t[8], 135);
  EXPECT_EQ(t[15], 221);
  // Rounding to nearest changes 135.99 and 221.96 up.
  const std::vector<int64_t> r = make_table(TableKind::Sigmoid, g, ufix(8, 0, QuantMode::Rnd));
  EXPECT_EQ(r[0], 34);
  EXPECT_EQ(r[8], 136);
  EXPECT_EQ(r[15], 222);
}

TEST(Tables, TanhIsOddAroundTheMiddle) {
  TableConfig cfg;
  cfg.table_size = 8;
  cfg.table_range = 4;  // bins of width 1, midpoints -3.5 .. 3.5
  const TableGeometry g = table_geometry(TableKind::Tanh, cfg, 0, "t");
  EXPECT_EQ(g.shift, 0);
  const FixedType t{12, 2, true, QuantMode::Rnd, OverflowMode::Sat};  // 10 fraction bits
  const std::vector<int64_t> v = make_table(TableKind::Tanh, g, t);
  // tanh(0.5) = 0.46212 -> 473.2 -> 473; tanh(3.5) = 0.99818 -> 1022.1 -> 1022.
  EXPECT_EQ(v[4], 473);
  EXPECT_EQ(v[3], -473);
  EXPECT_EQ(v[7], 1022);
  EXPECT_EQ(v[0], -1022);
}

TEST(Tables, ExpSaturatesInItsFormat) {
  TableConfig cfg;
  cfg.table_size = 4;
  cfg.table_range = 4;  // bins of width 2: midpoints -3, -1, 1, 3
  const TableGeometry g = table_geometry(TableKind::Exp, cfg, 0, "e");
  EXPECT_EQ(g.shift, -1);
  const FixedType t{8, 4, true, QuantMode::Trn, OverflowMode::Sat};  // max 7.9375
  const std::vector<int64_t> v = make_table(TableKind::Exp, g, t);
  EXPECT_EQ(v[0], 0);    // exp(-3) = 0.0498 * 16 = 0.8
  EXPECT_EQ(v[1], 5);    // exp(-1) = 0.3679 * 16 = 5.9
  EXPECT_EQ(v[2], 43);   // exp(1) = 2.718 * 16 = 43.5
  EXPECT_EQ(v[3], 127);  // exp(3) = 20.1 saturates
}

TEST(Tables, SoftmaxExpUsesLeftEdges) {
  TableConfig cfg;
  cfg.table_size = 8;
  cfg.table_range = 4;  // 2 bins per unit
  const TableGeometry g = table_geometry(TableKind::SoftmaxExp, cfg, 5, "sm");
  EXPECT_EQ(g.shift, 1);
  const std::vector<int64_t> v = make_table(TableKind::SoftmaxExp, g, ufix(9, 1));
  // exp(-k/2) * 256: 256, 155.27, 94.18, 57.12.
  EXPECT_EQ(v[0], 256);  // exactly 1
  EXPECT_EQ(v[1], 155);
  EXPECT_EQ(v[2], 94);
  EXPECT_EQ(v[3], 57);
}

TEST(Tables, SoftmaxReciprocalRangeDefaultsToRowLength) {
  TableConfig cfg;
  cfg.inv_table_size = 16;
  cfg.inv_table_range = 0;
  // Row of 5: range 8, 16 entries -> 2 bins per unit.
  TableGeometry g = table_geometry(TableKind::SoftmaxInv, cfg, 5, "sm");
  EXPECT_EQ(g.range, 8);
  EXPECT_EQ(g.shift, 1);
  EXPECT_EQ(table_geometry(TableKind::SoftmaxInv, cfg, 8, "sm").range, 8);
  EXPECT_EQ(table_geometry(TableKind::SoftmaxInv, cfg, 9, "sm").range, 16);
  EXPECT_EQ(table_geometry(TableKind::SoftmaxInv, cfg, 1, "sm").range, 1);
  const std::vector<int64_t> v =
      make_table(TableKind::SoftmaxInv, g,
                 FixedType{12, 4, false, QuantMode::Trn, OverflowMode::Wrap});  // 8 fraction bits
  // 1 / ((j + 0.5) / 2): 4, 4/3, 0.8, 4/7 -> * 256 = 1024, 341.3, 204.8, 146.3.
  EXPECT_EQ(v[0], 1024);
  EXPECT_EQ(v[1], 341);
  EXPECT_EQ(v[2], 204);
  EXPECT_EQ(v[3], 146);
  cfg.inv_table_range = 2;
  g = table_geometry(TableKind::SoftmaxInv, cfg, 5, "sm");
  EXPECT_EQ(g.shift, 3);
}

// LogSoftmax's log table shares the reciprocal table's geometry (size and
// range keys) and holds log of the bin midpoints.
TEST(Tables, SoftmaxLogSharesTheReciprocalGeometry) {
  TableConfig cfg;
  cfg.inv_table_size = 16;
  cfg.inv_table_range = 0;
  const TableGeometry g = table_geometry(TableKind::SoftmaxLog, cfg, 5, "lsm");
  EXPECT_EQ(g.range, 8);
  EXPECT_EQ(g.shift, 1);
  EXPECT_EQ(table_geometry(TableKind::SoftmaxLog, cfg, 9, "lsm").range, 16);
  const std::vector<int64_t> v =
      make_table(TableKind::SoftmaxLog, g,
                 FixedType{12, 4, true, QuantMode::Trn, OverflowMode::Wrap});  // 8 fraction bits
  // log((j + 0.5) / 2): log 0.25, log 0.75, log 1.25, log 7.75 -> * 256 =
  // -354.9, -73.6, 57.1, 524.3 (truncated toward -inf).
  EXPECT_EQ(v[0], -355);
  EXPECT_EQ(v[1], -74);
  EXPECT_EQ(v[2], 57);
  EXPECT_EQ(v[15], 524);
  SoftmaxParams p{1, 5};
  EXPECT_EQ(softmax_sum_table(p), TableKind::SoftmaxInv);
  p.log = true;
  EXPECT_EQ(softmax_sum_table(p), TableKind::SoftmaxLog);
  Precision pr;
  EXPECT_EQ(&softmax_sum_table_type(p, pr), &pr.log_table);
  cfg.inv_table_size = 1000;
  try {
    table_geometry(TableKind::SoftmaxLog, cfg, 5, "lsm");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "layer 'lsm'");
    EXPECT_NE(e.what_happened().find("inv_table_size 1000"), std::string::npos);
  }
}

TEST(Tables, BadGeometryNamesTheLayer) {
  TableConfig cfg;
  cfg.table_size = 1000;
  try {
    table_geometry(TableKind::Sigmoid, cfg, 0, "act_7");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
    EXPECT_NE(e.message().find("act_7"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("table_size 1000"), std::string::npos) << e.message();
  }
  cfg.table_size = 1024;
  cfg.table_range = 3;
  EXPECT_THROW(table_geometry(TableKind::Tanh, cfg, 0, "x"), Error);
  cfg.table_range = 0.5;  // a power of two below one is fine
  EXPECT_EQ(table_geometry(TableKind::Tanh, cfg, 0, "x").shift, 10);
  cfg.table_range = -8;
  EXPECT_THROW(table_geometry(TableKind::Tanh, cfg, 0, "x"), Error);
  cfg.table_range = 8;
  cfg.inv_table_size = 3;
  EXPECT_THROW(table_geometry(TableKind::SoftmaxInv, cfg, 4, "x"), Error);
  cfg.inv_table_size = 1;
  EXPECT_THROW(table_geometry(TableKind::SoftmaxInv, cfg, 4, "x"), Error);
}

TEST(Tables, ActivationsMapToTheirTables) {
  EXPECT_EQ(table_kind(ActKind::Sigmoid), TableKind::Sigmoid);
  EXPECT_EQ(table_kind(ActKind::Tanh), TableKind::Tanh);
  EXPECT_EQ(table_kind(ActKind::Elu), TableKind::Exp);
  EXPECT_EQ(table_kind(ActKind::Selu), TableKind::Exp);
  EXPECT_EQ(table_kind(ActKind::Exp), TableKind::Exp);
  EXPECT_FALSE(table_kind(ActKind::Relu).has_value());
}

}  // namespace
}  // namespace kiln::hls

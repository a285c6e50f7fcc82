#include "kiln/rtl/verilog_text.h"

#include <gtest/gtest.h>

namespace kiln::rtl {
namespace {

TEST(VerilogText, LiteralsAreSizedAndMasked) {
  EXPECT_EQ(literal(5, 4), "4'h5");
  EXPECT_EQ(literal(-1, 4), "4'hf");
  EXPECT_EQ(literal(0, 1), "1'h0");
}

// A valid bit per pipeline stage of a long iteration (model32's convolution
// rows) makes vectors wider than kiln's 128-bit arithmetic: their literals
// sign-extend by replication.
TEST(VerilogText, LiteralsWiderThan127BitsReplicateTheSign) {
  EXPECT_EQ(literal(1, 134), "{{7{1'b0}}, 127'h1}");
  EXPECT_EQ(literal(-1, 128), "{{1{1'b1}}, 127'h7fffffffffffffffffffffffffffffff}");
}

}  // namespace
}  // namespace kiln::rtl

// Guards the loops' ranges decide, text in and text out: one that always
// holds goes (and its If, when it was the only one), one that never holds
// takes its If along, one that depends on the iteration stays.
#include "kiln/cgen/simplify_guards.h"

#include <gtest/gtest.h>

#include "kiln/loop/loop_text.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::cgen {
namespace {

using kiln::testing::text_block;

const std::string kBefore = text_block(R"(
program "g"
buffer @x input ap_fixed<8,3> [4]
buffer @y output ap_fixed<8,3> [4]
inputs @x
outputs @y
kernel k "/K" reads @x writes @y locals {
  for %i < 4 {
    for %c < 1 {
      if 0 <= %c < 1 {
        %v0 = load @x[%i] : ap_fixed<8,3>
        store @y[%i] = %v0
      }
      if 0 <= %i + %c < 4, 1 <= %i < 3 {
        %v1 = load @x[%i + -1] : ap_fixed<8,3>
        store @y[%i] = %v1
      }
      if 5 <= %i < 9 {
        %v2 = load @x[0] : ap_fixed<8,3>
        store @y[0] = %v2
      }
    }
  }
}
)");

const std::string kAfter = text_block(R"(
program "g"
buffer @x input ap_fixed<8,3> [4]
buffer @y output ap_fixed<8,3> [4]
inputs @x
outputs @y
kernel k "/K" reads @x writes @y locals {
  for %i < 4 {
    for %c < 1 {
      %v0 = load @x[%i] : ap_fixed<8,3>
      store @y[%i] = %v0
      if 1 <= %i < 3 {
        %v1 = load @x[%i + -1] : ap_fixed<8,3>
        store @y[%i] = %v1
      }
    }
  }
}
)");

TEST(SimplifyGuards, DropsWhatTheLoopsDecide) {
  loop::Program p = loop::parse_program(kBefore, "before.loop");
  // Two guards that always hold, the If they emptied, the If that never runs.
  EXPECT_EQ(simplify_guards(p), 4);
  loop::verify(p);
  EXPECT_EQ(loop::print_program(p), kAfter);
  EXPECT_EQ(simplify_guards(p), 0);
}

}  // namespace
}  // namespace kiln::cgen

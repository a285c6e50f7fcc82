// Hoisting loop invariants, text in and text out: what moves (a weight read
// at a fixed index, out of both loops; a read that moves with the outer loop
// only, and the product of the two, out of the inner one), what stays (a
// read the loop stores to, a read under a guard, what depends on the loop).
#include "kiln/cgen/hoist_invariants.h"

#include <gtest/gtest.h>

#include "kiln/loop/loop_text.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::cgen {
namespace {

using kiln::testing::text_block;

const std::string kBefore = text_block(R"(
program "h"
buffer @x input ap_fixed<8,3> [4]
buffer @w const ap_fixed<8,3> [2] = [32, -16]
buffer @acc local ap_fixed<16,6> [4]
buffer @y output ap_fixed<16,6> [4]
inputs @x
outputs @y
kernel k "/K" reads @x @w writes @y locals @acc {
  for %i < 4 pipeline=1 {
    for %j < 2 {
      %v0 = load @w[1] : ap_fixed<8,3>
      %v1 = load @x[%i] : ap_fixed<8,3>
      %v2 = mul %v0, %v1 : ap_fixed<16,6>
      %v3 = load @w[%j] : ap_fixed<8,3>
      %v4 = load @acc[%i] : ap_fixed<16,6>
      %v5 = add %v4, %v2 : ap_fixed<17,7>
      %v6 = add %v5, %v3 : ap_fixed<18,8>
      %v7 = quantize %v6 to ap_fixed<16,6> : ap_fixed<16,6>
      store @acc[%i] = %v7
      if 1 <= %j < 2 {
        %v8 = load @x[3] : ap_fixed<8,3>
        %v9 = quantize %v8 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%i] = %v9
      }
    }
  }
}
)");

const std::string kAfter = text_block(R"(
program "h"
buffer @x input ap_fixed<8,3> [4]
buffer @w const ap_fixed<8,3> [2] = [32, -16]
buffer @acc local ap_fixed<16,6> [4]
buffer @y output ap_fixed<16,6> [4]
inputs @x
outputs @y
kernel k "/K" reads @x @w writes @y locals @acc {
  %v0 = load @w[1] : ap_fixed<8,3>
  for %i < 4 pipeline=1 {
    %v1 = load @x[%i] : ap_fixed<8,3>
    %v2 = mul %v0, %v1 : ap_fixed<16,6>
    for %j < 2 {
      %v3 = load @w[%j] : ap_fixed<8,3>
      %v4 = load @acc[%i] : ap_fixed<16,6>
      %v5 = add %v4, %v2 : ap_fixed<17,7>
      %v6 = add %v5, %v3 : ap_fixed<18,8>
      %v7 = quantize %v6 to ap_fixed<16,6> : ap_fixed<16,6>
      store @acc[%i] = %v7
      if 1 <= %j < 2 {
        %v8 = load @x[3] : ap_fixed<8,3>
        %v9 = quantize %v8 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%i] = %v9
      }
    }
  }
}
)");

TEST(HoistInvariants, MovesWhatDoesNotChangeWithTheLoopAsFarOutAsItGoes) {
  loop::Program p = loop::parse_program(kBefore, "before.loop");
  EXPECT_EQ(hoist_invariants(p), 4);  // v0 twice, v1 and v2 once
  loop::verify(p);
  EXPECT_EQ(loop::print_program(p), kAfter);
  // Run again, nothing moves.
  EXPECT_EQ(hoist_invariants(p), 0);
  EXPECT_EQ(loop::print_program(p), kAfter);
}

}  // namespace
}  // namespace kiln::cgen

// Keeping a load/store pair in a local, text in and text out: an
// accumulator the inner loop reads and writes at the outer loop's index is
// loaded once before the inner loop into a one-element local and stored
// back after it; what moves with the loop, what is read at two indices and
// what only a guard reaches stay.
#include "kiln/cgen/keep_in_locals.h"

#include <gtest/gtest.h>

#include "kiln/loop/interpret.h"
#include "kiln/loop/loop_text.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::cgen {
namespace {

using kiln::testing::text_block;

const std::string kBefore = text_block(R"(
program "k"
buffer @x input ap_fixed<8,3> [4]
buffer @acc local ap_fixed<16,6> [4]
buffer @y output ap_fixed<16,6> [4]
inputs @x
outputs @y
kernel k "/K" reads @x writes @y locals @acc {
  for %t < 2 {
    for %i < 4 {
      for %j < 3 {
        %v0 = load @x[%j] : ap_fixed<8,3>
        %v1 = load @acc[%i] : ap_fixed<16,6>
        %v2 = add %v1, %v0 : ap_fixed<17,7>
        %v3 = quantize %v2 to ap_fixed<16,6> : ap_fixed<16,6>
        store @acc[%i] = %v3
        %v4 = load @y[%j] : ap_fixed<16,6>
        store @y[%i] = %v4
      }
    }
  }
  for %o < 4 {
    %v5 = load @acc[%o] : ap_fixed<16,6>
    store @y[%o] = %v5
  }
}
)");

// acc[i] is kept over the j loop (and stored back: the t loop reads it
// again); y is read at j and written at i, so it stays in memory.
const std::string kAfter = text_block(R"(
program "k"
buffer @x input ap_fixed<8,3> [4]
buffer @acc local ap_fixed<16,6> [4]
buffer @y output ap_fixed<16,6> [4]
buffer @acc_kept local ap_fixed<16,6> [1]
inputs @x
outputs @y
kernel k "/K" reads @x writes @y locals @acc @acc_kept {
  for %t < 2 {
    for %i < 4 {
      %v6 = load @acc[%i] : ap_fixed<16,6>
      store @acc_kept[0] = %v6
      for %j < 3 {
        %v0 = load @x[%j] : ap_fixed<8,3>
        %v1 = load @acc_kept[0] : ap_fixed<16,6>
        %v2 = add %v1, %v0 : ap_fixed<17,7>
        %v3 = quantize %v2 to ap_fixed<16,6> : ap_fixed<16,6>
        store @acc_kept[0] = %v3
        %v4 = load @y[%j] : ap_fixed<16,6>
        store @y[%i] = %v4
      }
      %v7 = load @acc_kept[0] : ap_fixed<16,6>
      store @acc[%i] = %v7
    }
  }
  for %o < 4 {
    %v5 = load @acc[%o] : ap_fixed<16,6>
    store @y[%o] = %v5
  }
}
)");

TEST(KeepInLocals, KeepsAnAccumulatorOverTheLoopItsIndexDoesNotMoveWith) {
  loop::Program p = loop::parse_program(kBefore, "before.loop");
  const loop::Program original = p;
  EXPECT_EQ(keep_in_locals(p), 1);
  loop::verify(p);
  EXPECT_EQ(loop::print_program(p), kAfter);
  // The same outputs, and nothing more to keep (the local is a variable).
  const std::vector<std::vector<int64_t>> in = {{40, -7, 3, 100}};
  EXPECT_EQ(loop::interpret(p, in).outputs[0].raw, loop::interpret(original, in).outputs[0].raw);
  EXPECT_EQ(keep_in_locals(p), 0);
}

TEST(KeepInLocals, LeavesAnElementOnlyAGuardReachesOrReadAtTwoIndices) {
  const std::string guarded = text_block(R"(
program "g"
buffer @x input ap_fixed<16,6> [4]
buffer @acc local ap_fixed<16,6> [4]
buffer @y output ap_fixed<16,6> [4]
inputs @x
outputs @y
kernel k "/K" reads @x writes @y locals @acc {
  for %i < 4 {
    for %j < 3 {
      if 1 <= %j < 3 {
        %v0 = load @acc[%i] : ap_fixed<16,6>
        store @acc[%i] = %v0
      }
      %v1 = load @acc[%j] : ap_fixed<16,6>
      store @y[%j] = %v1
    }
  }
}
)");
  loop::Program p = loop::parse_program(guarded, "g.loop");
  EXPECT_EQ(keep_in_locals(p), 0);
  EXPECT_EQ(loop::print_program(p), guarded);
}

}  // namespace
}  // namespace kiln::cgen

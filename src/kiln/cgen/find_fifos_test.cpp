// FIFO detection, loop IR text in, queues out: a tensor written and read
// once per element in row-major order is a queue; read transposed, read
// twice or written under a guard, it stays an array.
#include "kiln/cgen/find_fifos.h"

#include <gtest/gtest.h>

#include "kiln/loop/loop_text.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::cgen {
namespace {

using kiln::testing::text_block;

// `read` is the consumer's loop nest and load of @t.
std::string program(const std::string& read) {
  return text_block(R"(
program "f"
buffer @x input ap_fixed<8,3> [6]
buffer @t tensor ap_fixed<8,3> [2x3]
buffer @y output ap_fixed<8,3> [6]
inputs @x
outputs @y
kernel a "/A" reads @x writes @t locals {
  for %i < 2 {
    for %j < 3 {
      %v0 = load @x[3 * %i + %j] : ap_fixed<8,3>
      store @t[%i, %j] = %v0
    }
  }
}
kernel b "/B" reads @t writes @y locals {
)") + read +
         "}\n";
}

std::vector<Fifo> fifos_of(const std::string& text) {
  const loop::Program p = loop::parse_program(text, "f.loop");
  loop::verify(p);
  return find_fifos(p);
}

TEST(FindFifos, ATensorReadInTheOrderItIsWrittenIsAQueue) {
  // The consumer's own 2x3 nest reads t[a, b] in the order the producer wrote it.
  EXPECT_EQ(fifos_of(program(R"(  for %a < 2 {
    for %b < 3 {
      %v0 = load @t[%a, %b] : ap_fixed<8,3>
      store @y[3 * %a + %b] = %v0
    }
  }
)")),
            (std::vector<Fifo>{{1, 0, 1}}));
}

TEST(FindFifos, ATransposedReadIsNot) {
  EXPECT_TRUE(fifos_of(program(R"(  for %b < 3 {
    for %a < 2 {
      %v0 = load @t[%a, %b] : ap_fixed<8,3>
      store @y[2 * %b + %a] = %v0
    }
  }
)"))
                  .empty());
}

TEST(FindFifos, TwoReadsOrAGuardedReadAreNot) {
  EXPECT_TRUE(fifos_of(program(R"(  for %a < 2 {
    for %b < 3 {
      %v0 = load @t[%a, %b] : ap_fixed<8,3>
      %v1 = load @t[%a, %b] : ap_fixed<8,3>
      %v2 = add %v0, %v1 : ap_fixed<9,4>
      %v3 = quantize %v2 to ap_fixed<8,3> : ap_fixed<8,3>
      store @y[3 * %a + %b] = %v3
    }
  }
)"))
                  .empty());
  EXPECT_TRUE(fifos_of(program(R"(  for %a < 2 {
    for %b < 3 {
      if 0 <= %b < 2 {
        %v0 = load @t[%a, %b] : ap_fixed<8,3>
        store @y[3 * %a + %b] = %v0
      }
    }
  }
)"))
                  .empty());
}

}  // namespace
}  // namespace kiln::cgen

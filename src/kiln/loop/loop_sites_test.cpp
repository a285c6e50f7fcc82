#include "kiln/loop/loop_sites.h"

#include <gtest/gtest.h>

#include "kiln/loop/loop_text.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::loop {
namespace {

// Two kernels; a perfect nest, a loop under a guard, directives as written.
constexpr const char* kProgram = R"(
program "t"
buffer @x input ap_fixed<8,3> [2x3]
buffer @y output ap_fixed<8,3> [2x3]
buffer @z output ap_fixed<8,3> [3]
inputs @x
outputs @y @z
kernel copy "/Copy" reads @x writes @y locals {
  for %i < 2 pipeline=1 {
    for %j < 3 unroll=0 {
      %v0 = load @x[%i, %j] : ap_fixed<8,3>
      store @y[%i, %j] = %v0
    }
  }
}
kernel first "/First" reads @x writes @z locals {
  for %c < 3 unroll=3 {
    if 0 <= %c < 2 {
      for %r < 1 {
        %v0 = load @x[%r, %c] : ap_fixed<8,3>
        store @z[%c] = %v0
      }
    }
    %v1 = const 0 : ap_fixed<8,3>
    store @z[%c] = %v1
  }
}
)";

// The If in first/c holds for c in 0..1: r runs twice, and its ops count so.
TEST(LoopSites, NamesTripsAndNestingInProgramOrder) {
  const Program p = parse_program(kiln::testing::text_block(kProgram), "t.loop");
  EXPECT_EQ(print_loop_sites(loop_sites(p)), kiln::testing::text_block(R"(
loop           trip      runs         ops  perfect  directives
copy/i            2         1           6  yes      pipeline=1
  copy/j          3         2           6  no       unroll=0
first/c           3         1           5  no       unroll=3
  first/r         1         2           2  no       -
)"));
}

TEST(LoopSites, BufferTableNamesWhatBufferBlocksTake) {
  Program p = parse_program(kiln::testing::text_block(kProgram), "t.loop");
  p.buffers[1].directives.partition = Partition::Cyclic;
  p.buffers[1].directives.factor = 2;
  p.buffers[1].directives.dim = 2;
  p.buffers[2].directives.storage = Storage::Bram;
  EXPECT_EQ(print_buffer_table(p), kiln::testing::text_block(R"(
buffer  role    type                shape          elements  directives
x       input   ap_fixed<8,3>       2x3                   6  -
y       output  ap_fixed<8,3>       2x3                   6  partition=cyclic factor=2 dim=2
z       output  ap_fixed<8,3>       3                     3  storage=bram
)"));
}

TEST(LoopSites, FindsASiteByNameAndNotAnother) {
  const Program p = parse_program(kiln::testing::text_block(kProgram), "t.loop");
  const std::optional<LoopSite> r = find_loop_site(p, "first/r");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->parent, "first/c");
  EXPECT_EQ(r->layer, "/First");
  EXPECT_EQ(r->kernel, 1);
  EXPECT_FALSE(find_loop_site(p, "first/i").has_value());
  EXPECT_FALSE(find_loop_site(p, "copy").has_value());
}

}  // namespace
}  // namespace kiln::loop

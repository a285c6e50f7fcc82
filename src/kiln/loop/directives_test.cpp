#include "kiln/loop/directives.h"

#include <gtest/gtest.h>

#include "kiln/loop/loop_text.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::loop {
namespace {

using kiln::testing::catch_error;
using kiln::testing::text_block;

constexpr const char* kProgram = R"(
program "t"
buffer @x input ap_fixed<8,3> [6x4]
buffer @y output ap_fixed<8,3> [6x4]
inputs @x
outputs @y
kernel copy "/Copy" reads @x writes @y locals {
  for %i < 6 {
    for %j < 4 {
      %v0 = load @x[%i, %j] : ap_fixed<8,3>
      store @y[%i, %j] = %v0
    }
  }
}
)";

Program program() {
  return parse_program(text_block(kProgram), "t.loop");
}

hls::LoopConfig loop_config(std::optional<int64_t> unroll, std::optional<int64_t> ii) {
  return {unroll, ii, "config.yaml: Loop.x"};
}

TEST(Directives, AppliedDirectivesPrintInTheLoopIR) {
  Program p = program();
  hls::BufferConfig x;
  x.partition = hls::BufferPartition::Cyclic;
  x.factor = 2;
  x.dim = 1;
  x.storage = hls::BufferStorage::Bram;
  apply_directives(p, {{"copy/i", loop_config(std::nullopt, 1)}, {"copy/j", loop_config(4, {})}},
                   {{"x", x}});
  const std::string text = print_program(p);
  EXPECT_CONTAINS(text, "for %i < 6 pipeline=1 {");
  // A factor equal to the trip count is full unrolling.
  EXPECT_CONTAINS(text, "for %j < 4 unroll=0 {");
  EXPECT_EQ(p.buffers[0].directives.partition, Partition::Cyclic);
  EXPECT_EQ(p.buffers[0].directives.factor, 2);
  EXPECT_EQ(p.buffers[0].directives.storage, Storage::Bram);
  // Pipeline off takes a directive back.
  apply_directives(p, {{"copy/i", loop_config(std::nullopt, 0)}}, {});
  EXPECT_FALSE(p.kernels[0].loops[0].directives.pipeline_ii.has_value());
}

TEST(Directives, UnrollMustDivideTheTripCount) {
  Program p = program();
  const Error e = catch_error([&] { apply_directives(p, {{"copy/i", loop_config(4, {})}}, {}); });
  EXPECT_EQ(e.where(), "config.yaml: Loop.x.Unroll");
  EXPECT_EQ(e.what_happened(), "4 does not divide the trip count 6 of copy/i");
  EXPECT_EQ(e.hint(), "valid: 1, 2, 3, 6 or full");
}

// Flatten keeps a perfect nest's two loops as one: only a loop whose body is
// one loop, and not unrolled as well.
TEST(Directives, FlattenNeedsAPerfectNestAndNoUnroll) {
  Program p = program();
  hls::LoopConfig flat = loop_config(std::nullopt, 1);
  flat.flatten = true;
  apply_directives(p, {{"copy/i", flat}}, {});
  EXPECT_TRUE(p.kernels[0].loops[0].directives.flatten);
  EXPECT_CONTAINS(print_program(p), "for %i < 6 pipeline=1 flatten=1 {");
  Error e = catch_error([&] { apply_directives(p, {{"copy/j", flat}}, {}); });
  EXPECT_EQ(e.where(), "config.yaml: Loop.x.Flatten");
  EXPECT_EQ(e.what_happened(), "copy/j is not a perfect nest (its body is not exactly one loop)");
  flat.unroll = 2;
  e = catch_error([&] { apply_directives(p, {{"copy/i", flat}}, {}); });
  EXPECT_EQ(e.what_happened(), "copy/i is both flattened and unrolled");
}

TEST(Directives, UnknownLoopSuggestsTheClosestName) {
  Program p = program();
  Error e = catch_error([&] { apply_directives(p, {{"copy/k", loop_config(2, {})}}, {}); });
  EXPECT_EQ(e.what_happened(), "the model has no loop 'copy/k'");
  EXPECT_EQ(e.hint(), "did you mean 'copy/i'?");
  e = catch_error([&] { apply_directives(p, {{"conv1/oh", loop_config(2, {})}}, {}); });
  EXPECT_EQ(e.hint(), "kiln rtl --list-loops MODEL prints the loops' names");
}

TEST(Directives, BufferRules) {
  const auto error = [](hls::BufferConfig b, const std::string& name = "x") {
    Program p = program();
    b.where = "config.yaml: Buffer." + name;
    return catch_error([&] { apply_directives(p, {}, {{name, b}}); });
  };
  hls::BufferConfig b;
  EXPECT_EQ(error(b, "zeta").what_happened(), "the model has no buffer 'zeta'");
  EXPECT_EQ(error(b, "zeta").hint(), "the Loop IR's buffers: x, y");
  b.factor = 2;
  EXPECT_EQ(error(b).what_happened(), "Factor and Dim describe a partition, and x has none");
  b.partition = hls::BufferPartition::Complete;
  EXPECT_EQ(error(b).what_happened(), "a complete partition takes no Factor");
  b.partition = hls::BufferPartition::Block;
  b.factor.reset();
  EXPECT_EQ(error(b).what_happened(), "a block partition needs a Factor");
  b.factor = 5;
  b.dim = 2;
  EXPECT_EQ(error(b).what_happened(), "5 is outside 2..4, the size of the partitioned dimension");
  b.dim = 3;
  EXPECT_EQ(error(b).what_happened(), "x has 2 dimensions; Dim 3 is not one of them");
}

}  // namespace
}  // namespace kiln::loop

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

// Directives as a config gives them: the blocks, each at "config.yaml: Loop.x".
hls::ConfiguredDirectives loops(const std::map<std::string, LoopDirectives>& blocks) {
  hls::ConfiguredDirectives d;
  d.loops = blocks;
  for (const auto& [name, block] : blocks) d.loop_where[name] = "config.yaml: Loop.x";
  return d;
}

LoopDirectives loop_config(std::optional<int64_t> unroll, std::optional<int> ii) {
  return {unroll, ii, false};
}

TEST(Directives, AppliedDirectivesPrintInTheLoopIR) {
  Program p = program();
  hls::ConfiguredDirectives d =
      loops({{"copy/i", loop_config(std::nullopt, 1)}, {"copy/j", loop_config(4, {})}});
  d.buffers["x"] = {Partition::Cyclic, 2, 1, Storage::Bram, {}};
  apply_directives(p, d);
  const std::string text = print_program(p);
  EXPECT_CONTAINS(text, "for %i < 6 pipeline=1 {");
  // A factor equal to the trip count is full unrolling.
  EXPECT_CONTAINS(text, "for %j < 4 unroll=0 {");
  EXPECT_EQ(p.buffers[0].directives.partition, Partition::Cyclic);
  EXPECT_EQ(p.buffers[0].directives.factor, 2);
  EXPECT_EQ(p.buffers[0].directives.storage, Storage::Bram);
  // A block replaces the loop's directives: Pipeline off (nothing set) alone
  // unrolls the loop fully.
  apply_directives(p, loops({{"copy/i", loop_config(std::nullopt, std::nullopt)}}));
  EXPECT_EQ(p.kernels[0].loops[0].directives, loop_config(0, std::nullopt));
}

TEST(Directives, UnrollMustDivideTheTripCount) {
  Program p = program();
  const Error e = catch_error([&] {
    apply_directives(p, loops({{"copy/i", loop_config(4, {})}}));
  });
  EXPECT_EQ(e.where(), "config.yaml: Loop.x.Unroll");
  EXPECT_EQ(e.what_happened(), "4 does not divide the trip count 6 of copy/i");
  EXPECT_EQ(e.hint(), "valid: 1, 2, 3, 6 or full");
}

// Flatten keeps a perfect nest's two loops as one: only a loop whose body is
// one loop, and not unrolled as well.
TEST(Directives, FlattenNeedsAPerfectNestAndNoUnroll) {
  Program p = program();
  LoopDirectives flat = loop_config(std::nullopt, 1);
  flat.flatten = true;
  apply_directives(p, loops({{"copy/i", flat}}));
  EXPECT_TRUE(p.kernels[0].loops[0].directives.flatten);
  EXPECT_CONTAINS(print_program(p), "for %i < 6 pipeline=1 flatten=1 {");
  Error e = catch_error([&] { apply_directives(p, loops({{"copy/j", flat}})); });
  EXPECT_EQ(e.where(), "config.yaml: Loop.x.Flatten");
  EXPECT_EQ(e.what_happened(), "copy/j is not a perfect nest (its body is not exactly one loop)");
  flat.unroll = 2;
  e = catch_error([&] { apply_directives(p, loops({{"copy/i", flat}})); });
  EXPECT_EQ(e.what_happened(), "copy/i is both flattened and unrolled");
}

TEST(Directives, UnknownLoopSuggestsTheClosestName) {
  Program p = program();
  Error e = catch_error([&] { apply_directives(p, loops({{"copy/k", loop_config(2, {})}})); });
  EXPECT_EQ(e.what_happened(), "the model has no loop 'copy/k'");
  EXPECT_EQ(e.hint(), "did you mean 'copy/i'?");
  e = catch_error([&] { apply_directives(p, loops({{"conv1/oh", loop_config(2, {})}})); });
  EXPECT_EQ(e.hint(), "kiln rtl --list-loops MODEL prints the loops' names");
}

TEST(Directives, BufferRules) {
  const auto error = [](BufferDirectives b, const std::string& name = "x") {
    Program p = program();
    hls::ConfiguredDirectives d;
    d.buffers[name] = b;
    d.buffer_where[name] = "config.yaml: Buffer." + name;
    return catch_error([&] { apply_directives(p, d); });
  };
  BufferDirectives b;
  EXPECT_EQ(error(b, "zeta").what_happened(), "the model has no buffer 'zeta'");
  EXPECT_EQ(error(b, "zeta").hint(), "the Loop IR's buffers: x, y");
  b.factor = 2;
  EXPECT_EQ(error(b).what_happened(), "Factor and Dim describe a partition, and x has none");
  b.partition = Partition::Complete;
  EXPECT_EQ(error(b).what_happened(), "a complete partition takes no Factor");
  b.partition = Partition::Block;
  b.factor = 0;
  EXPECT_EQ(error(b).what_happened(), "a block partition needs a Factor");
  b.factor = 5;
  b.dim = 2;
  EXPECT_EQ(error(b).what_happened(), "5 is outside 2..4, the size of the partitioned dimension");
  b.dim = 3;
  EXPECT_EQ(error(b).what_happened(), "x has 2 dimensions; Dim 3 is not one of them");
  EXPECT_EQ(error(b).where(), "config.yaml: Buffer.x.Dim");
  // Several dimensions: complete partitions only, each listed once.
  b.dim = 0;
  b.more_dims = {2};
  EXPECT_EQ(error(b).what_happened(),
            "a list of dimensions needs a Partition and names dimensions");
  b.dim = 1;
  b.partition = Partition::Complete;
  b.factor = 0;
  b.more_dims = {1};
  EXPECT_EQ(error(b).what_happened(), "x has 2 dimensions; Dim 1 is not another one of them");
  b.more_dims = {2};
  Program p = program();
  hls::ConfiguredDirectives d;
  d.buffers["x"] = b;
  apply_directives(p, d);
  EXPECT_NE(print_program(p).find("partition=complete factor=0 dim=1 dim=2"), std::string::npos);
  EXPECT_EQ(print_program(parse_program(print_program(p), "t.loop")), print_program(p));
}

}  // namespace
}  // namespace kiln::loop

#include "kiln/netlist/verify.h"

#include <gtest/gtest.h>

#include "kiln/netlist/testing/netlist_helpers.h"
#include "kiln/netlist/text.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::netlist {
namespace {

using testing::error_of;

// "where: what" of verify()'s error on a design given as text.
std::string error(const std::string& text) {
  const Design d = parse(text, "t.knl");
  const Error e = error_of([&] { verify(d); }, ErrorKind::Internal);
  return e.message();
}

// A module m of one input %a (8 bits) and %b (1 bit) with `body`.
std::string with(const std::string& body, const std::string& before = "") {
  return "netlist 1\ntop m\n" + before + "module m\n  input a : 8\n  input b : 1\n" + body +
         "end\n";
}

TEST(NetlistVerify, ValidDesignsPass) {
  EXPECT_NO_THROW(verify(parse(with("  output y : 8 = %s\n  %s : 8 = add %a, %a\n"))));
  EXPECT_NO_THROW(verify(testing::convolution_design(8)));
  // Every construct of the text test's design, made valid.
  EXPECT_NO_THROW(verify(parse(R"(netlist 1
top top

module add8
  input a : 8
  input b : 8
  output y : 8 = %s
  %s : 8 = add %a, %b
end

module top
  input x : 8
  input sel : 2
  output y : 8 = %sum
  output q : 16 = %rd
  table t : 8 {8'h1, 8'h2, 8'hff}
  memory ram : 16 depth 256 kind ram storage bram latency 1 reads 1 writes 1
  memory rom : 8 depth 4 kind rom storage lutram latency 0 reads 2 writes 0 init {8'h5, 8'h6}
  instance u0 add8 (a %x, b %r)
  %c : 8 = const 8'h3
  %p : 16 = muls %x, %c
  %lt : 1 = slt %x, %c
  %ro : 1 = reduce_or %x
  %m : 8 = mux %lt, %x, %c
  %cs : 8 = case %sel, 2'h0 %x, 2'h2 %c, default %m
  %l : 8 = lookup t, %sel
  %r : 8 = reg %nx, en %lt, rst %ro, reset 8'h7f
  %nx : 8 = add %r, %cs
  %rd : 16 = read ram.0 %x, en %lt
  %r0 : 8 = read rom.1 %sel
  %sum : 8 = instance_output u0.y
  write ram.0 %x, %p, en %lt
end
)")));
}

TEST(NetlistVerify, Widths) {
  EXPECT_EQ(error(with("  %z : 0 = const 0'h0\n")),
            "module m, value %z: const of 0 bits: every value has at least 1 bit");
  EXPECT_EQ(error(with("  %c : 9 = const 9'h0\n  %n3 : 9 = add %a, %c\n")),
            "module m, value %n3: add of 8 and 9 bits: operands and result must have one width");
  EXPECT_EQ(error(with("  %s : 9 = add %a, %a\n")),
            "module m, value %s: add of 8 and 8 bits into 9 bits: operands and result must have "
            "one width");
  EXPECT_EQ(error(with("  %s : 4 = shl %a, 1\n")),
            "module m, value %s: shl of 8 bits into 4: a shift keeps the width");
  EXPECT_EQ(error(with("  %s : 8 = shr %a, -1\n")),
            "module m, value %s: shr by -1: the amount must be at least 0");
  EXPECT_EQ(error(with("  %s : 2 = reduce_xor %a\n")),
            "module m, value %s: reduce_xor into 2 bits: the result is 1 bit");
  EXPECT_EQ(error(with("  %s : 1 = ult %a, %b\n")),
            "module m, value %s: ult of 8 and 1 bits: operands must have one width");
  EXPECT_EQ(error(with("  %s : 8 = eq %a, %a\n")),
            "module m, value %s: eq into 8 bits: the result is 1 bit");
  EXPECT_EQ(error(with("  %s : 8 = mux %a, %a, %a\n")),
            "module m, value %s: mux condition %a has 8 bits, not 1");
  EXPECT_EQ(error(with("  %s : 1 = mux %b, %a, %b\n")),
            "module m, value %s: mux of 8 and 1 bits into 1: choices and result must have one "
            "width");
  EXPECT_EQ(error(with("  %s : 8 = case %b, 2'h1 %a, default %a\n")),
            "module m, value %s: case key 2'h1 for a selector of 1 bits");
  EXPECT_EQ(error(with("  %s : 8 = case %b, 1'h1 %a, 1'h1 %a, default %a\n")),
            "module m, value %s: case key 1'h1 appears twice");
  EXPECT_EQ(error(with("  %s : 8 = case %a, 8'h1 %b, default %a\n")),
            "module m, value %s: case choice %b of 1 bits for a result of 8");
  EXPECT_EQ(error(with("  %s : 10 = concat %a, %b\n")),
            "module m, value %s: concat of 8 and 1 bits into 10: the result is their sum, 9");
  EXPECT_EQ(error(with("  %s : 4 = slice %a, 5\n")),
            "module m, value %s: slice of bits 5..8 of %a of 8 bits: outside its operand");
  EXPECT_EQ(error(with("  %s : 4 = sext %a\n")),
            "module m, value %s: sext of 8 bits into 4: an extension does not narrow");
  EXPECT_EQ(error(with("  table t : 8 {8'h1}\n  %s : 4 = lookup t, %a\n")),
            "module m, value %s: lookup of 4 bits in table t of 8");
  EXPECT_EQ(error(with("  table t : 8 {8'h1, 4'h1}\n")),
            "module m, table t: entry 4'h1 in a table of 8 bits");
  EXPECT_EQ(error(with("  %r : 4 = reg %a\n")),
            "module m, value %r: register of 4 bits loads %a of 8");
  EXPECT_EQ(error(with("  %r : 8 = reg %a, en %a\n")),
            "module m, value %r: reg enable %a has 8 bits, not 1");
  EXPECT_EQ(error(with("  %r : 8 = reg %a, rst %a\n")),
            "module m, value %r: reg reset %a has 8 bits, not 1");
  EXPECT_EQ(error(with("  %r : 8 = reg %a, reset 4'h1\n")),
            "module m, value %r: register of 8 bits with a reset value of 4");
  EXPECT_EQ(error(with("  output y : 4 = %a\n")),
            "module m, port y: output port of 4 bits driven by %a of 8");
  EXPECT_EQ(error(with("  input z : 0\n")),
            "module m, port z: port of 0 bits: every port has at least 1 bit");
  EXPECT_EQ(error(with("  memory r : 4 depth 4 kind rom storage auto latency 0 reads 1 writes 0 "
                       "init {8'h1}\n")),
            "module m, memory r: initial word 8'h1 in words of 4 bits");
}

TEST(NetlistVerify, References) {
  Design d = parse(with("  %s : 8 = not %a\n"));
  Module& m = d.modules[0];
  m.op(Op::Add, 8, {0, 99}, 0, "bad");
  EXPECT_EQ(error_of([&] { verify(d); }, ErrorKind::Internal).message(),
            "module m, value %bad: add operand 1 is value 99, not a value of the module");
  Design later = parse(with(""));
  Module& l = later.modules[0];
  l.op(Op::Not, 8, {3}, 0, "early");
  l.op(Op::Not, 8, {0}, 0, "late");
  EXPECT_EQ(error_of([&] { verify(later); }, ErrorKind::Internal).message(),
            "module m, value %early: not reads %late, defined after it (only registers read "
            "values defined later)");
  Design lookup = parse(with(""));
  lookup.modules[0].op(Op::Lookup, 8, {0}, 2, "l");
  EXPECT_EQ(error_of([&] { verify(lookup); }, ErrorKind::Internal).message(),
            "module m, value %l: lookup in table 2, which does not exist");
  Design arity = parse(with(""));
  arity.modules[0].op(Op::Neg, 8, {0, 0}, 0, "n");
  EXPECT_EQ(error_of([&] { verify(arity); }, ErrorKind::Internal).message(),
            "module m, value %n: neg with 2 operand(s): it takes 1");
  Design write =
      parse(with("  memory r : 8 depth 4 kind ram storage auto latency 0 reads 0 writes 1\n"));
  write.modules[0].write(0, 0, 1, 77);
  EXPECT_EQ(error_of([&] { verify(write); }, ErrorKind::Internal).message(),
            "module m, write 0 (memory r): data is value 77, not a value of the module");
}

TEST(NetlistVerify, DriversAndNames) {
  EXPECT_EQ(error(with("  output y : 8\n")), "module m, port y: output port is not driven");
  EXPECT_EQ(error(with("  %r : 8 = reg\n")), "module m, value %r: register is not driven (no d)");
  EXPECT_EQ(error(with("  %module : 8 = not %a\n")),
            "module m, value %module: name module is a Verilog keyword");
  EXPECT_EQ(error(with("  %logic : 8 = not %a\n")),
            "module m, value %logic: name logic is a Verilog keyword");
  EXPECT_EQ(error(with("  %clk : 8 = not %a\n")), "module m, value %clk: name clk is the clock's");
  EXPECT_EQ(error(with("  output y : 8 = %y\n  %y : 8 = not %a\n")),
            "module m, value %y: name y is also port y's");
  EXPECT_EQ(error(with("  memory a2 : 8 depth 4 kind ram storage auto latency 0 reads 0 writes 0\n"
                       "  %a2 : 8 = not %a\n")),
            "module m, memory a2: name a2 is also value %a2's");
  Design d = parse(with(""));
  d.modules[0].constant(1, 8, "no spaces");
  EXPECT_EQ(error_of([&] { verify(d); }, ErrorKind::Internal).message(),
            "module m, value %no spaces: name 'no spaces' is not a Verilog identifier");
  // An auto name that an explicit one took later.
  Design twice = parse(with(""));
  twice.modules[0].constant(1, 8);
  twice.modules[0].constant(1, 8, "v2");
  EXPECT_EQ(error_of([&] { verify(twice); }, ErrorKind::Internal).message(),
            "module m, value %v2: name v2 is also value %v2's");
}

// Rules that only a builder can break (the text cannot say it).
TEST(NetlistVerify, RulesOnlyBuildersCanBreak) {
  const auto message = [](const Design& d) {
    return error_of([&] { verify(d); }, ErrorKind::Internal).message();
  };
  Design keys = parse(with(""));
  const int k = keys.modules[0].case_keys({{Bits::from_uint(1, 8), Bits::from_uint(2, 8)}});
  keys.modules[0].op(Op::Case, 8, {0, 0, 0}, k, "c");
  EXPECT_EQ(message(keys), "module m, value %c: case with 2 keys for 1 choices");

  Design depth = parse(with(""));
  Memory mem;
  mem.name = "r";
  mem.depth = 0;
  depth.modules[0].memory(mem);
  EXPECT_EQ(message(depth), "module m, memory r: depth 0: at least 1");

  Design twice = parse(with(""));
  twice.modules.emplace_back("m");
  EXPECT_EQ(message(twice), "module m: module name m is used twice");

  Design bad = parse(with(""));
  bad.modules.emplace_back("2x");
  EXPECT_EQ(message(bad), "module 2x: name '2x' is not a Verilog identifier");

  // An input value of no port (made with the generic builder).
  Design input = parse(with(""));
  input.modules[0].op(Op::Input, 8, std::initializer_list<ValueId>{}, 7, "stray");
  EXPECT_EQ(message(input), "module m, value %stray: input value of no input port");

  Design io = parse(with(""));
  io.modules[0].op(Op::InstanceOutput, 8, std::initializer_list<ValueId>{}, 3, "o");
  EXPECT_EQ(message(io), "module m, value %o: instance output 3 does not exist");
}

const std::string kSub = R"(module sub
  input i : 8
  input j : 1
  output o : 8 = %n
  output p : 8 = %r
  %n : 8 = not %i
  %r : 8 = reg %i
end

)";

TEST(NetlistVerify, Instances) {
  const auto inst = [](const std::string& conn, const std::string& more = "") {
    return with("  instance u sub (" + conn + ")\n" + more, kSub);
  };
  EXPECT_NO_THROW(verify(parse(inst("i %a, j %b", "  %o : 8 = instance_output u.o\n"))));
  EXPECT_EQ(error(with("  instance u nope ()\n")),
            "module m, instance u: module nope does not exist");
  EXPECT_EQ(error(inst("i %a")), "module m, instance u: input j of sub is not connected");
  EXPECT_EQ(error(inst("i %a, j %b, j %b")), "module m, instance u: connects input j twice");
  EXPECT_EQ(error(inst("i %b, j %b")),
            "module m, instance u: connects input i of 8 bits to %b of 1");
  EXPECT_EQ(error(inst("i %a, j %b, o %a")),
            "module m, instance u: connects o, not an input port of sub");
  EXPECT_EQ(error(inst("i %a, j %b", "  %o : 4 = instance_output u.o\n")),
            "module m, value %o: output o of instance u has 8 bits, not 4");
  EXPECT_EQ(error(inst("i %a, j %b", "  %o : 8 = instance_output u.q\n")),
            "module m, value %o: output q of instance u: not an output port of sub");
}

TEST(NetlistVerify, Hierarchy) {
  EXPECT_EQ(error("netlist 1\ntop nope\nmodule m\nend\n"),
            "design: top module 'nope' does not exist");
  EXPECT_EQ(error("netlist 1\ntop m\nmodule m\n  instance u m ()\nend\n"),
            "module m, instance u: module m comes after m, which instantiates it (modules come "
            "before their instances)");
  EXPECT_EQ(error("netlist 1\ntop m\nmodule m\n  instance u s ()\nend\nmodule s\nend\n"),
            "module m, instance u: module s comes after m, which instantiates it (modules come "
            "before their instances)");
}

TEST(NetlistVerify, CombinationalLoops) {
  // Through an instance's combinational path i -> o; p is registered.
  EXPECT_EQ(error(with("  instance u sub (i %x, j %b)\n  %o : 8 = instance_output u.o\n"
                       "  %x : 8 = not %o\n",
                       kSub)),
            "module m, value %o: combinational loop: %o %x %o");
  EXPECT_NO_THROW(
      verify(parse(with("  instance u sub (i %x, j %b)\n  %p : 8 = instance_output u.p\n"
                        "  %x : 8 = not %p\n",
                        kSub))));
  // Two levels: sub's path is wrapper's path.
  const std::string wrapper = kSub + R"(module wrapper
  input i : 8
  output o : 8 = %so
  instance s sub (i %i, j %j)
  %j : 1 = const 1'h0
  %so : 8 = instance_output s.o
end

)";
  EXPECT_EQ(error(with("  instance w wrapper (i %x)\n  %o : 8 = instance_output w.o\n"
                       "  %x : 8 = add %o, %a\n",
                       wrapper)),
            "module m, value %o: combinational loop: %o %x %o");
  // A combinational memory read passes its address through; a registered one does not.
  const std::string mem =
      "  memory r : 8 depth 256 kind ram storage auto latency 0 reads 1 writes 0\n";
  Design d = parse(with(mem + "  instance u sub (i %q, j %b)\n  %o : 8 = instance_output u.o\n"
                              "  %q : 8 = read r.0 %o\n",
                        kSub));
  EXPECT_CONTAINS(error_of([&] { verify(d); }, ErrorKind::Internal).message(),
                  "combinational loop");
}

TEST(NetlistVerify, Memories) {
  const auto mem = [](const std::string& decl, const std::string& more = "") {
    return with("  memory r : 8 depth 100 " + decl + "\n" + more);
  };
  EXPECT_NO_THROW(verify(parse(mem("kind ram storage lutram latency 0 reads 2 writes 1",
                                   "  %q : 8 = read r.1 %a\n  write r.0 %a, %a, en %b\n"))));
  EXPECT_EQ(error(mem("kind rom storage auto latency 0 reads 1 writes 1")),
            "module m, memory r: ROM with 1 write port(s)");
  EXPECT_EQ(error(with("  memory r : 8 depth 1 kind rom storage auto latency 0 reads 1 writes 0 "
                       "init {8'h1, 8'h2}\n")),
            "module m, memory r: ROM of 1 words with 2 initial words");
  EXPECT_EQ(error(with("  memory r : 8 depth 1 kind ram storage auto latency 0 reads 1 writes 1 "
                       "init {8'h1}\n")),
            "module m, memory r: RAM with initial contents (only a ROM has them)");
  EXPECT_EQ(error(mem("kind ram storage bram latency 0 reads 1 writes 1")),
            "module m, memory r: block RAM with combinational reads (latency 0)");
  EXPECT_EQ(error(mem("kind ram storage bram latency 1 reads 2 writes 1")),
            "module m, memory r: block RAM with 3 ports: at most 2");
  EXPECT_EQ(error(mem("kind ram storage lutram latency 0 reads 1 writes 2")),
            "module m, memory r: distributed RAM with 2 write ports: at most 1");
  EXPECT_EQ(error(mem("kind ram storage auto latency 2 reads 1 writes 1")),
            "module m, memory r: read latency 2: 0 or 1");
  EXPECT_EQ(error(mem("kind ram storage auto latency 0 reads 1 writes 1",
                      "  %q : 8 = read r.0 %a\n  %q2 : 8 = read r.0 %a\n")),
            "module m, value %q2: read port 0 of memory r is used twice");
  EXPECT_EQ(
      error(mem("kind ram storage auto latency 0 reads 1 writes 1", "  %q : 8 = read r.1 %a\n")),
      "module m, value %q: read port 1 of memory r, which has 1");
  EXPECT_EQ(
      error(mem("kind ram storage auto latency 0 reads 1 writes 1", "  %q : 8 = read r.0 %b\n")),
      "module m, value %q: address of 1 bits for memory r of 100 words: at least 7");
  EXPECT_EQ(error(mem("kind ram storage auto latency 0 reads 1 writes 1",
                      "  %q : 8 = read r.0 %a, en %b\n")),
            "module m, value %q: read with an enable from memory r, whose reads are "
            "combinational (latency 0)");
  EXPECT_EQ(error(mem("kind ram storage auto latency 1 reads 1 writes 1",
                      "  write r.0 %a, %a\n  write r.0 %a, %a\n")),
            "module m, write 1 (memory r): write port 0 is used twice");
  EXPECT_EQ(error(mem("kind ram storage auto latency 1 reads 1 writes 1", "  write r.0 %b, %a\n")),
            "module m, write 0 (memory r): address of 1 bits for 100 words: at least 7");
  EXPECT_EQ(error(mem("kind ram storage auto latency 1 reads 1 writes 1", "  write r.0 %a, %b\n")),
            "module m, write 0 (memory r): data %b of 1 bits for words of 8");
  EXPECT_EQ(
      error(mem("kind ram storage auto latency 1 reads 1 writes 1", "  write r.0 %a, %a, en %a\n")),
      "module m, write 0 (memory r): enable %a has 8 bits, not 1");
  EXPECT_EQ(error(with("  memory r : 8 depth 4 kind rom storage auto latency 0 reads 1 writes 0\n"
                       "  write r.0 %a, %a\n")),
            "module m, write 0 (memory r): a ROM is not written");
}

}  // namespace
}  // namespace kiln::netlist

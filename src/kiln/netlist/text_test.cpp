#include "kiln/netlist/text.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "kiln/netlist/testing/netlist_helpers.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::netlist {
namespace {

using kiln::testing::text_block;
using testing::error_of;

// Every construct of the text once.
const char* const kEverything = R"(
netlist 1
top top

module add8
  doc "Adds two bytes.\nA second line, \"quoted\"."
  input a : 8
  input b : 8
  output y : 8 = %s
  %s : 8 = add %a, %b
end

module top
  input x : 8
  input sel : 2
  input wide : 100
  output y : 8 = %sum
  output q : 16 = %rd
  output late : 8
  table t : 8 {8'h1, 8'h2, 8'hff}
  table big : 4 {
    4'h0, 4'h1, 4'h2, 4'h3, 4'h4, 4'h5, 4'h6, 4'h7,
    4'h8, 4'h9
  }
  memory ram : 16 depth 256 kind ram storage bram latency 1 reads 1 writes 1
  memory rom : 8 depth 4 kind rom storage lutram latency 0 reads 2 writes 0 init {8'h5, 8'h6}
  instance u0 add8 (a %x, b %r)
  %c : 8 = const 8'h3
  %k : 100 = const 100'hfffffffffffffffffffffffff
  %n : 8 = neg %x
  %p : 16 = muls %x, %c
  %pu : 16 = mulu %x, %c
  %sh : 8 = shl %x, 3
  %sr : 8 = shr %x, 0
  %sa : 8 = sar %x, 7
  %bw : 8 = xor %x, %c
  %nt : 8 = not %bw
  %ro : 1 = reduce_or %x
  %lt : 1 = slt %x, %c
  %m : 8 = mux %lt, %x, %c
  %cs : 8 = case %sel, 2'h0 %x, 2'h2 %c, default %n
  %cat : 116 = concat %p, %wide
  %sl : 4 = slice %cat, 100
  %se : 12 = sext %sl
  %l : 8 = lookup t, %sel
  %r : 8 = reg %nx, en %lt, rst %ro, reset 8'h7f
  %free : 8 = reg
  %en_only : 8 = reg en %lt
  %nx : 8 = add %r, %m
  %rd : 16 = read ram.0 %x, en %lt
  %r0 : 8 = read rom.0 %sel
  %sum : 8 = instance_output u0.y
  write ram.0 %x, %p, en %lt
  write ram.0 %x, %pu
end
)";

TEST(NetlistText, RoundTripsEveryConstruct) {
  const std::string text = text_block(kEverything);
  const Design d = parse(text, "t.knl");
  EXPECT_EQ(print(d), text);
  ASSERT_EQ(d.modules.size(), 2u);
  EXPECT_EQ(d.top, "top");
  EXPECT_EQ(d.modules[0].doc(), "Adds two bytes.\nA second line, \"quoted\".");
  const Module& m = d.modules[1];
  EXPECT_EQ(m.ports().size(), 6u);
  EXPECT_EQ(m.ports()[3].direction, PortDirection::Out);
  EXPECT_EQ(m.ports()[5].value, kNoValue);  // `late` is not driven
  EXPECT_EQ(m.memories()[1].kind, MemoryKind::Rom);
  EXPECT_EQ(m.memories()[1].init.size(), 2u);
  EXPECT_EQ(m.tables()[1].entries.size(), 10u);
  // The register reads %nx, defined after it.
  const auto find = [&](std::string_view name) {
    for (ValueId v = 0; v < m.size(); ++v)
      if (m.value(v).name == name) return v;
    return kNoValue;
  };
  const ValueId r = find("r");
  ASSERT_NE(r, kNoValue);
  EXPECT_EQ(m.args(r)[0], find("nx"));
  EXPECT_EQ(m.registers()[static_cast<std::size_t>(m.value(r).imm)].reset,
            Bits::from_uint(0x7f, 8));
  EXPECT_EQ(m.constant_of(find("k")).word(1), (uint64_t{1} << 36) - 1);
  EXPECT_EQ(m.value(find("sl")).imm, 100);
  EXPECT_EQ(m.instances()[0].inputs[1], (std::pair<std::string, ValueId>("b", r)));
  EXPECT_EQ(m.writes()[1].en, kNoValue);
}

TEST(NetlistText, CommentsBlankLinesAndSpacingAreFree) {
  const Design d = parse(text_block(R"(
# a netlist
netlist 1   # version

module m
  input   a:4
  output y : 4 = %b   # forward
  %b : 4 = not %a
end
)"));
  EXPECT_EQ(print(d), text_block(R"(
netlist 1

module m
  input a : 4
  output y : 4 = %b
  %b : 4 = not %a
end
)"));
}

TEST(NetlistText, BuiltDesignsPrintTheirAutoNames) {
  Design d;
  d.top = "m";
  d.modules.emplace_back("m");
  Module& m = d.modules.back();
  const ValueId a = m.input("a", 8);
  const ValueId s = m.add(a, m.constant(1, 8));
  m.output("y", s);
  EXPECT_EQ(print(d), text_block(R"(
netlist 1
top m

module m
  input a : 8
  output y : 8 = %v2
  %v1 : 8 = const 8'h1
  %v2 : 8 = add %a, %v1
end
)"));
  EXPECT_EQ(print(parse(print(d))), print(d));
}

std::string parse_error(const std::string& text) {
  const Error e = error_of([&] { parse(text, "t.knl"); }, ErrorKind::InvalidModel);
  return e.where() + ": " + e.what_happened();
}

TEST(NetlistText, ParseErrors) {
  const std::string head = "netlist 1\nmodule m\n  input a : 8\n";
  EXPECT_EQ(parse_error("module m\n"), "t.knl:1:1: expected 'netlist', got 'module'");
  EXPECT_EQ(parse_error("netlist 2\n"), "t.knl:1:9: netlist text version 2, expected 1");
  EXPECT_EQ(parse_error("netlist 1 x\n"), "t.knl:1:11: expected the end of the line, got 'x'");
  EXPECT_EQ(parse_error("netlist 1\nmodule m\nend\nmodule m\nend\n"),
            "t.knl:4:8: module m is defined twice");
  EXPECT_EQ(parse_error(head), "t.knl:4:1: module m has no 'end'");
  EXPECT_EQ(parse_error(head + "  wire w : 8\nend\n"),
            "t.knl:4:3: unknown statement 'wire', expected doc, input, output, table, memory, "
            "instance, %value, write or end");
  EXPECT_EQ(parse_error(head + "  %b : 8 = madd %a, %a\nend\n"),
            "t.knl:4:12: unknown operation 'madd'");
  EXPECT_EQ(parse_error(head + "  %b 8 = not %a\nend\n"),
            "t.knl:4:6: expected ':', got the number 8");
  EXPECT_EQ(parse_error(head + "  %b : x = not %a\nend\n"),
            "t.knl:4:8: expected a number, got 'x'");
  EXPECT_EQ(parse_error(head + "  %b : 8 = not %c\nend\n"),
            "t.knl:4:16: undefined value %c (only register operands, output drivers, instance "
            "connections and writes may name values defined below)");
  EXPECT_EQ(parse_error(head + "  output y : 8 = %c\nend\n"), "t.knl:4:18: undefined value %c");
  EXPECT_EQ(parse_error(head + "  %a : 8 = not %a\nend\n"), "t.knl:4:3: value %a is defined twice");
  EXPECT_EQ(parse_error(head + "  input a : 8\nend\n"), "t.knl:4:9: port a is defined twice");
  EXPECT_EQ(parse_error(head + "  %c : 16 = const 8'h1\nend\n"),
            "t.knl:4:19: a constant of 8 bits for a value of 16");
  EXPECT_EQ(parse_error(head + "  %c : 8 = const 8'h100\nend\n"),
            "t.knl:4:18: literal 8'h100 does not fit in 8 bits");
  EXPECT_EQ(parse_error(head + "  %c : 8 = const 8'd1\nend\n"),
            "t.knl:4:19: expected 'h after the width of a literal");
  EXPECT_EQ(parse_error(head + "  %c : 8 = add %a\nend\n"),
            "t.knl:4:12: add takes 2 operand(s), got 1");
  EXPECT_EQ(parse_error(head + "  %c : 8 = shl %a\nend\n"),
            "t.knl:4:18: expected ', AMOUNT' after the operand of shl, got the end of the line");
  EXPECT_EQ(parse_error(head + "  %c : 8 = lookup t, %a\nend\n"), "t.knl:4:19: unknown table t");
  EXPECT_EQ(parse_error(head + "  %c : 8 = read m.0 %a\nend\n"), "t.knl:4:17: unknown memory m");
  EXPECT_EQ(parse_error(head + "  %c : 8 = instance_output u.y\nend\n"),
            "t.knl:4:28: unknown instance u");
  EXPECT_EQ(parse_error(head + "  memory r : 8 depth 4 kind flash storage auto latency 0 reads 1 "
                               "writes 0\nend\n"),
            "t.knl:4:29: unknown 'flash', expected rom, ram");
  EXPECT_EQ(parse_error(head + "  memory r : 4 depth 2 kind ram storage auto latency 0 reads 1 "
                               "writes 1\n  %c : 8 = read r.0 %a\nend\n"),
            "t.knl:5:17: memory r has 4-bit words, not 8");
  EXPECT_EQ(parse_error(head + "  table t : 8 {8'h1, 8'h2\nend\n"),
            "t.knl:5:1: expected ',', got 'end'");
  EXPECT_EQ(parse_error(head + "  %r : 8 = reg %a, en %a, en %a\nend\n"),
            "t.knl:4:27: expected en, rst or reset (each once), got 'en'");
  EXPECT_EQ(parse_error(head + "  doc \"open\nend\n"), "t.knl:4:12: unterminated string");
  EXPECT_EQ(parse_error(head + "  doc \"\\q\"\nend\n"),
            "t.knl:4:10: unknown escape '\\q' in a string");
  EXPECT_EQ(parse_error(head + "  %b : 8 = not %a;\nend\n"),
            "t.knl:4:18: unexpected character ';'");
  EXPECT_EQ(parse_error(head + "  instance u m (a %a\nend\n"),
            "t.knl:4:21: expected ')', got the end of the line");
  EXPECT_EQ(parse_error(head + "  write r.0 %a, %a\nend\n"), "t.knl:4:9: unknown memory r");
  EXPECT_EQ(parse_error(head + "  %b : 8 = case %a, 8'h1 %a\nend\n"),
            "t.knl:4:28: expected ',', got the end of the line");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A generated design of about 10^5 values (KILN_NETLIST_LARGE=1: 10^6)
// prints, parses and prints again byte for byte, in linear time.
TEST(NetlistText, LargeDesignRoundTrip) {
  const bool large = std::getenv("KILN_NETLIST_LARGE") != nullptr;
  const Design d = testing::convolution_design(large ? 148 : 48);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string text = print(d);
  const double print_s = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  const Design back = parse(text);
  const double parse_s = seconds_since(t1);
  EXPECT_EQ(print(back), text);
  std::cout << "values " << d.modules[0].size() << ", text " << text.size() / 1e6 << " MB, print "
            << print_s << " s, parse " << parse_s << " s\n";
  EXPECT_LT(print_s + parse_s, large ? 20.0 : 5.0);
}

}  // namespace
}  // namespace kiln::netlist

#include "kiln/netlist/verilog.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "kiln/netlist/testing/netlist_helpers.h"
#include "kiln/netlist/text.h"
#include "kiln/netlist/verify.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/hdl.h"

namespace kiln::netlist {
namespace {

using kiln::testing::TempDir;
using kiln::testing::text_block;

// Every op and construct, with bits nothing reads (slices, an unread
// instance output, an unread input).
const char* const kEverything = R"(
netlist 1
top top

module leaf
  doc "A leaf with a register."
  input a : 8
  output y : 8 = %r
  output z : 8 = %n
  %n : 8 = not %a
  %r : 8 = reg %n
end

module comb
  input a : 4
  output y : 4 = %n
  %n : 4 = neg %a
end

module top
  doc "Everything.\nTwo lines of doc."
  input x : 8
  input s : 2
  input wide : 100
  input unread : 3
  output y : 8 = %sum
  output q : 16 = %rd
  output w : 116 = %cat
  output o : 64 = %all
  table t : 8 {8'h1, 8'h2, 8'hff}
  table index : 3 {3'h1, 3'h2, 3'h3, 3'h4, 3'h5}
  memory ram : 16 depth 256 kind ram storage bram latency 1 reads 1 writes 1
  memory rom : 8 depth 3 kind rom storage lutram latency 0 reads 2 writes 0 init {8'h5, 8'h6}
  memory regs : 4 depth 5 kind ram storage registers latency 0 reads 1 writes 2
  memory free : 4 depth 2 kind ram storage auto latency 1 reads 0 writes 1
  instance u0 leaf (a %x)
  instance u1 comb (a %sl)
  %one : 1 = const 1'h1
  %c : 8 = const 8'h3
  %k : 100 = const 100'hfffffffffffffffffffffffff
  %ad : 8 = add %x, %c
  %sb : 8 = sub %x, %c
  %n : 8 = neg %x
  %p : 16 = muls %x, %c
  %pu : 16 = mulu %x, %c
  %pn : 4 = muls %x, %c
  %p1 : 1 = mulu %one, %one
  %sh : 8 = shl %x, 3
  %sh0 : 8 = shl %x, 0
  %sh9 : 8 = shl %x, 9
  %sr : 8 = shr %x, 7
  %sa : 8 = sar %x, 2
  %sa9 : 8 = sar %x, 9
  %an : 8 = and %x, %c
  %bo : 8 = or %x, %c
  %bw : 8 = xor %x, %c
  %nt : 8 = not %bw
  %ro : 1 = reduce_or %x
  %ra : 1 = reduce_and %x
  %rx : 1 = reduce_xor %x
  %e : 1 = eq %x, %c
  %ne : 1 = ne %x, %c
  %lt : 1 = ult %x, %c
  %le : 1 = ule %x, %c
  %slt : 1 = slt %x, %c
  %sle : 1 = sle %x, %c
  %m : 8 = mux %lt, %x, %c
  %cs : 8 = case %s, 2'h0 %x, 2'h2 %c, default %n
  %cat : 116 = concat %p, %wide
  %sl : 4 = slice %cat, 100
  %b1 : 1 = slice %x, 7
  %se : 12 = sext %sl
  %se1 : 8 = sext %b1
  %ze : 12 = zext %sl
  %l : 8 = lookup t, %s
  %l2 : 3 = lookup index, %x
  %r : 8 = reg %nx, en %lt, rst %ro, reset 8'h7f
  %r2 : 8 = reg %nx, rst %ro
  %r3 : 8 = reg %nx
  %nx : 8 = add %r, %m
  %rd : 16 = read ram.0 %x, en %lt
  %r0 : 8 = read rom.0 %s
  %r1 : 8 = read rom.1 %x
  %rr : 4 = read regs.0 %sl
  %sum : 8 = instance_output u0.y
  %sum2 : 8 = instance_output u0.y
  %nn : 4 = instance_output u1.y
  %all : 64 = concat %ad, %sb, %sh, %sh0, %sh9, %sr, %sa, %sa9
  write ram.0 %x, %p, en %lt
  write regs.0 %x, %sl, en %e
  write regs.1 %sl, %sl
  write free.0 %one, %sl
end
)";

TEST(NetlistVerilog, EveryConstructLintsClean) {
  if (!tools::find_verilator().found()) GTEST_SKIP() << "verilator is not installed";
  const Design d = parse(text_block(kEverything));
  verify(d);
  TempDir dir;
  const auto files = testing::write_verilog(d, dir.path());
  ASSERT_EQ(files.size(), 3u);
  const tools::LintResult r = tools::lint_verilog(files, "top");
  EXPECT_TRUE(r.ok) << r.error << "\n" << r.log;
}

// A sum, a slice of it zero-extended, and a register loading that.
constexpr const char* kAdds = R"(
netlist 1
top m

module m
  doc "Adds."
  input a : 8
  input b : 1
  output y : 8 = %r
  %s : 8 = add %a, %a
  %h : 4 = slice %s, 4
  %z : 8 = zext %h
  %r : 8 = reg %z, en %b
end
)";

TEST(NetlistVerilog, OneWirePerValueAndClkWhereNeeded) {
  const Design d = parse(text_block(kAdds));
  VerilogOptions plain;
  plain.compact = false;
  const auto files = print_verilog(d, plain);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].first, "m.v");
  EXPECT_EQ(files[0].second, text_block(R"(
// Adds.
module m (
  input clk,
  input [7:0] a,
  input b,
  output [7:0] y
);
  wire [7:0] s = a + a;
  wire [3:0] h = s[7:4];
  wire [7:0] z = {4'h0, h};
  reg [7:0] r = 8'h0;
  always @(posedge clk) begin
    if (b) r <= z;
  end
  assign y = r;
  wire unused_ok0 = ^{s};
endmodule
)"));
}

// Compact (the default): the slice and the zero extension are runs of the
// sum's bits, not wires; a register loads a name (a process reads names
// only). Text in, text out.
TEST(NetlistVerilog, CompactWiringIsRunsOfBits) {
  const Design d = parse(text_block(kAdds));
  EXPECT_EQ(print_verilog(d)[0].second, text_block(R"(
// Adds.
module m (
  input clk,
  input [7:0] a,
  input b,
  output [7:0] y
);
  wire [7:0] s = a + a;
  wire [7:0] z = {4'h0, s[7:4]};
  reg [7:0] r = 8'h0;
  always @(posedge clk) begin
    if (b) r <= z;
  end
  assign y = r;
  wire unused_ok0 = ^{s};
endmodule
)"));
}

// Compact: a value one expression (or an output) reads once and in full is
// printed inside it, in braces so that it keeps its own width (t = a + b is 8
// bits inside the 9-bit sum, as its wire was); a value read twice, or in
// part, keeps its name (d); extensions, shifts and constants are runs of
// bits.
TEST(NetlistVerilog, CompactInlinesValuesReadOnce) {
  const Design d = parse(text_block(R"(
netlist 1
top m

module m
  input a : 8
  input b : 8
  output y : 9 = %u
  output z : 9 = %w
  %t : 8 = add %a, %b
  %e : 9 = zext %t
  %k : 9 = const 9'h3
  %u : 9 = add %e, %k
  %d : 8 = sub %a, %b
  %x : 9 = sext %d
  %sh : 9 = shl %x, 2
  %w : 9 = xor %sh, %x
end
)"));
  EXPECT_EQ(print_verilog(d)[0].second, text_block(R"(
module m (
  input [7:0] a,
  input [7:0] b,
  output [8:0] y,
  output [8:0] z
);
  wire [7:0] d = a - b;
  assign y = {{1'h0, {a + b}} + 9'h3};
  assign z = {{d[6:0], 2'h0} ^ {d[7], d}};
endmodule
)"));
}

TEST(NetlistVerilog, CombinationalModulesHaveNoClock) {
  const Design d = parse("netlist 1\ntop m\nmodule m\n  input a : 1\n  output y : 1 = %a\nend\n");
  EXPECT_EQ(print_verilog(d)[0].second,
            "module m (\n  input a,\n  output y\n);\n  assign y = a;\nendmodule\n");
}

TEST(NetlistVerilog, SinksHoldAtMost64Signals) {
  Design d;
  d.top = "m";
  d.modules.emplace_back("m");
  for (int i = 0; i < 130; ++i) d.modules[0].input("i" + std::to_string(i), 2);
  const std::string v = print_verilog(d)[0].second;
  EXPECT_CONTAINS(v, "wire unused_ok0 = ^{i0, i1,");
  EXPECT_CONTAINS(v, "wire unused_ok1 = ^{i64,");
  EXPECT_CONTAINS(v, "wire unused_ok2 = ^{i128, i129};");
}

// A running sum of a ROM's words through a registered RAM, checked in
// Icarus against numbers worked out by hand.
TEST(NetlistVerilog, SimulatesInIcarus) {
  if (!tools::find_iverilog().found()) GTEST_SKIP() << "iverilog is not installed";
  const Design d = parse(text_block(R"(
netlist 1
top acc

module acc
  input rst : 1
  output y : 8 = %sum
  memory w : 8 depth 3 kind rom storage auto latency 0 reads 1 writes 0 init {8'h10, 8'h20, 8'h30}
  %one : 2 = const 2'h1
  %i : 2 = reg %in, rst %rst
  %in : 2 = add %i, %one
  %word : 8 = read w.0 %i
  %sum : 8 = reg %next, rst %rst
  %next : 8 = add %sum, %word
end
)"));
  verify(d);
  TempDir dir;
  auto files = testing::write_verilog(d, dir.path());
  kiln::testing::write_bytes(dir / "tb.v", text_block(R"(
module tb;
  reg clk = 0, rst = 1;
  wire [7:0] y;
  acc dut (.clk(clk), .rst(rst), .y(y));
  integer c;
  initial begin
    #1 clk = 1; #1 clk = 0; rst = 0;
    for (c = 0; c < 6; c = c + 1) begin
      #1 clk = 1; #1 clk = 0; $display("%0d", y);
    end
    $finish;
  end
endmodule
)"));
  files.push_back(dir / "tb.v");
  const tools::SimResult r = tools::simulate(tools::Simulator::Icarus, files, "tb", dir / "sim");
  ASSERT_TRUE(r.ok) << r.error << "\n" << r.build_log;
  // i = 0, 1, 2, 3 (past the depth: 0), 0, ...: sums 16, 48, 96, 96, 112, 144.
  EXPECT_EQ(r.out, "16\n48\n96\n96\n112\n144\n");
}

// The memories as Yosys infers them: a block RAM with an enabled registered
// read (its register starting at zero), a ROM read into a register (block
// RAM), a distributed RAM, and a table lookup in LUTs; no flip-flops.
TEST(NetlistVerilog, MemoriesMapAsYosysInfersThem) {
  if (!tools::find_yosys().found()) GTEST_SKIP() << "yosys is not installed";
  std::string init, tab;
  for (int k = 0; k < 1024; ++k)
    init += fmt::format("{}16'h{:x}", k ? ", " : "", (k * 40503) % 65536);
  for (int k = 0; k < 64; ++k) tab += fmt::format("{}8'h{:x}", k ? ", " : "", (k * 97) % 256);
  const Design d = parse(fmt::format(R"(netlist 1
top m
module m
  input addr : 10
  input a6 : 6
  input data : 16
  input d8 : 8
  input we : 1
  input en : 1
  output q : 16 = %rq
  output r : 16 = %rr
  output s : 8 = %rs
  output t : 8 = %rt
  table tab : 8 {{{}}}
  memory ram : 16 depth 1024 kind ram storage bram latency 1 reads 1 writes 1
  memory rom : 16 depth 1024 kind rom storage auto latency 1 reads 1 writes 0 init {{{}}}
  memory lut : 8 depth 64 kind ram storage lutram latency 0 reads 1 writes 1
  %rq : 16 = read ram.0 %addr, en %en
  %rr : 16 = read rom.0 %addr
  %rs : 8 = read lut.0 %a6
  %rt : 8 = lookup tab, %a6
  write ram.0 %addr, %data, en %we
  write lut.0 %a6, %d8, en %we
end
)",
                                     tab, init));
  verify(d);
  TempDir dir;
  const tools::SynthResult r = tools::synthesize(testing::write_verilog(d, dir.path()), "m",
                                                 fpga::Family::UltraScalePlus, dir / "synth");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.total.bram18, 2);   // the RAM and the ROM
  EXPECT_EQ(r.total.ff, 0);       // the read registers are the block RAMs' own
  EXPECT_EQ(r.total.lutram, 8);   // 64 x 8 bits: RAM64X1S x 8
  EXPECT_LE(r.total.lut, 8 + 8);  // those, and the table: 64 x 8 bits in LUT6s
}

// The generated convolution (register banks, packed ports, slices of both)
// lints clean; its Verilog is printed in linear time.
TEST(NetlistVerilog, ConvolutionLintsCleanAndPrintsQuickly) {
  if (tools::find_verilator().found()) {
    TempDir dir;
    const tools::LintResult r = tools::lint_verilog(
        testing::write_verilog(testing::convolution_design(10), dir.path()), "conv");
    EXPECT_TRUE(r.ok) << r.error << "\n" << r.log;
  }
  const Design d = testing::convolution_design(std::getenv("KILN_NETLIST_LARGE") ? 148 : 48);
  const auto t0 = std::chrono::steady_clock::now();
  const auto files = print_verilog(d);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "values " << d.modules[0].size() << ": Verilog " << files[0].second.size() / 1e6
            << " MB in " << s << " s\n";
  EXPECT_LT(s, 10.0);
}

}  // namespace
}  // namespace kiln::netlist

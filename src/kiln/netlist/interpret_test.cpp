#include "kiln/netlist/interpret.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "kiln/netlist/testing/netlist_helpers.h"
#include "kiln/netlist/text.h"
#include "kiln/netlist/verify.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::netlist {
namespace {

using testing::error_of;

// The output `y` of a one-module design `body` with inputs a, b of `wa`
// and `wb` bits set to the given values, after settle().
Bits eval(const std::string& body, int wa, const Bits& a, int wb, const Bits& b) {
  const std::string text = "netlist 1\ntop m\nmodule m\n  input a : " + std::to_string(wa) +
                           "\n  input b : " + std::to_string(wb) + "\n" + body + "end\n";
  Interpreter in(parse(text));
  in.set_input(in.port("a"), a);
  in.set_input(in.port("b"), b);
  in.settle();
  return in.output(in.port("y"));
}

// y = OP a, b for 8-bit operands.
uint64_t op8(const std::string& op, int wy, uint64_t a, uint64_t b, int64_t imm = -1) {
  const std::string args = imm >= 0 ? "%a, " + std::to_string(imm) : "%a, %b";
  const std::string single =
      op == "neg" || op == "not" || op.rfind("reduce", 0) == 0 || op == "sext" || op == "zext"
          ? "%a"
          : args;
  return eval("  output y : " + std::to_string(wy) + " = %v\n  %v : " + std::to_string(wy) + " = " +
                  op + " " + single + "\n",
              8, Bits::from_uint(a, 8), 8, Bits::from_uint(b, 8))
      .to_uint64();
}

TEST(NetlistInterpreter, NarrowOps) {
  EXPECT_EQ(op8("add", 8, 200, 100), 44u);
  EXPECT_EQ(op8("sub", 8, 1, 2), 255u);
  EXPECT_EQ(op8("neg", 8, 1, 0), 255u);
  EXPECT_EQ(op8("muls", 16, 0xff, 0x02), 0xfffeu);  // -1 x 2
  EXPECT_EQ(op8("mulu", 16, 0xff, 0x02), 0x1feu);
  EXPECT_EQ(op8("muls", 4, 0x13, 0x03), 0x9u);  // the low 4 bits of 19 x 3 = 57
  EXPECT_EQ(op8("shl", 8, 0x81, 0, 1), 0x02u);
  EXPECT_EQ(op8("shl", 8, 0x81, 0, 9), 0u);
  EXPECT_EQ(op8("shr", 8, 0x81, 0, 7), 1u);
  EXPECT_EQ(op8("sar", 8, 0x81, 0, 1), 0xc0u);
  EXPECT_EQ(op8("sar", 8, 0x81, 0, 100), 0xffu);
  EXPECT_EQ(op8("sar", 8, 0x41, 0, 100), 0u);
  EXPECT_EQ(op8("and", 8, 0xf0, 0x3c), 0x30u);
  EXPECT_EQ(op8("or", 8, 0xf0, 0x3c), 0xfcu);
  EXPECT_EQ(op8("xor", 8, 0xf0, 0x3c), 0xccu);
  EXPECT_EQ(op8("not", 8, 0xf0, 0), 0x0fu);
  EXPECT_EQ(op8("reduce_or", 1, 0, 0), 0u);
  EXPECT_EQ(op8("reduce_and", 1, 0xff, 0), 1u);
  EXPECT_EQ(op8("reduce_and", 1, 0xfe, 0), 0u);
  EXPECT_EQ(op8("reduce_xor", 1, 0x07, 0), 1u);
  EXPECT_EQ(op8("eq", 1, 5, 5), 1u);
  EXPECT_EQ(op8("ne", 1, 5, 5), 0u);
  EXPECT_EQ(op8("ult", 1, 0x80, 1), 0u);
  EXPECT_EQ(op8("slt", 1, 0x80, 1), 1u);
  EXPECT_EQ(op8("ule", 1, 3, 3), 1u);
  EXPECT_EQ(op8("sle", 1, 0xff, 0xfe), 0u);
  EXPECT_EQ(op8("concat", 16, 0x12, 0x34), 0x1234u);
  EXPECT_EQ(op8("sext", 12, 0x80, 0), 0xf80u);
  EXPECT_EQ(op8("zext", 12, 0x80, 0), 0x080u);
}

TEST(NetlistInterpreter, MuxCaseSliceLookup) {
  const std::string body = R"(  output y : 8 = %v
  table t : 8 {8'h10, 8'h20, 8'h30}
  %s : 2 = slice %a, 6
  %one : 1 = slice %b, 0
  %l : 8 = lookup t, %s
  %c : 8 = case %s, 2'h1 %a, 2'h3 %b, default %l
  %v : 8 = mux %one, %c, %b
)";
  const auto y = [&](uint64_t a, uint64_t b) {
    return eval(body, 8, Bits::from_uint(a, 8), 8, Bits::from_uint(b, 8)).to_uint64();
  };
  EXPECT_EQ(y(0x00, 0x02), 0x02u);  // b[0] = 0: b
  EXPECT_EQ(y(0x05, 0x03), 0x10u);  // s = 0: the default, table entry 0
  EXPECT_EQ(y(0x85, 0x03), 0x30u);  // s = 2: entry 2
  EXPECT_EQ(y(0x45, 0x03), 0x45u);  // s = 1: a
  EXPECT_EQ(y(0xc5, 0x03), 0x03u);  // s = 3: b
}

TEST(NetlistInterpreter, WideOps) {
  const auto hex = [](const char* digits, int w) { return *Bits::from_hex(digits, w); };
  const auto wide = [&](const std::string& op, int wy, const char* a, const char* b,
                        const std::string& imm = "") {
    const std::string args = imm.empty() ? "%a, %b" : "%a, " + imm;
    const std::string single =
        op == "neg" || op == "not" || op.rfind("reduce", 0) == 0 || op == "sext" ? "%a" : args;
    return eval("  output y : " + std::to_string(wy) + " = %v\n  %v : " + std::to_string(wy) +
                    " = " + op + " " + single + "\n",
                100, hex(a, 100), 100, hex(b, 100))
        .hex();
  };
  EXPECT_EQ(wide("add", 100, "ffffffffffffffff", "1"), "10000000000000000");
  EXPECT_EQ(wide("add", 100, "fffffffffffffffffffffffff", "2"), "1");
  EXPECT_EQ(wide("sub", 100, "10000000000000000", "1"), "ffffffffffffffff");
  EXPECT_EQ(wide("neg", 100, "1", "0"), "fffffffffffffffffffffffff");
  EXPECT_EQ(wide("mulu", 200, "fffffffffffffffffffffffff", "fffffffffffffffffffffffff"),
            "ffffffffffffffffffffffffe0000000000000000000000001");
  EXPECT_EQ(wide("muls", 200, "fffffffffffffffffffffffff", "2"),  // -1 x 2
            "fffffffffffffffffffffffffffffffffffffffffffffffffe");
  EXPECT_EQ(wide("muls", 8, "fffffffffffffffffffffffff", "3"), "fd");  // narrow of wide
  EXPECT_EQ(wide("shl", 100, "1", "0", "99"), "8000000000000000000000000");
  EXPECT_EQ(wide("shl", 100, "3", "0", "63"), "18000000000000000");
  EXPECT_EQ(wide("shr", 100, "8000000000000000000000000", "0", "99"), "1");
  EXPECT_EQ(wide("sar", 100, "8000000000000000000000000", "0", "36"), "fffffffff8000000000000000");
  EXPECT_EQ(wide("sar", 100, "8000000000000000000000000", "0", "200"), "fffffffffffffffffffffffff");
  EXPECT_EQ(wide("xor", 100, "f000000000000000000000000", "1"), "f000000000000000000000001");
  EXPECT_EQ(wide("not", 100, "0", "0"), "fffffffffffffffffffffffff");
  EXPECT_EQ(wide("reduce_and", 1, "fffffffffffffffffffffffff", "0"), "1");
  EXPECT_EQ(wide("reduce_and", 1, "7ffffffffffffffffffffffff", "0"), "0");
  EXPECT_EQ(wide("reduce_or", 1, "1000000000000000000", "0"), "1");
  EXPECT_EQ(wide("reduce_xor", 1, "1000000000000000001", "0"), "0");
  EXPECT_EQ(wide("ult", 1, "10000000000000000", "ffffffffffffffff"), "0");
  EXPECT_EQ(wide("slt", 1, "8000000000000000000000000", "1"), "1");
  EXPECT_EQ(wide("sle", 1, "1", "8000000000000000000000000"), "0");
  EXPECT_EQ(wide("eq", 1, "10000000000000000", "10000000000000000"), "1");
  EXPECT_EQ(wide("concat", 200, "1", "2"), "10000000000000000000000002");
  EXPECT_EQ(wide("sext", 130, "8000000000000000000000000", "0"),
            "3fffffff8000000000000000000000000");
  EXPECT_EQ(wide("slice", 70, "123456789abcdef0123456789", "0", "20"), "3456789abcdef01234");
  EXPECT_EQ(wide("slice", 8, "123456789abcdef0123456789", "0", "60"), "9a");  // across words
}

// A wide result is rewritten in full every cycle (the random designs found
// sar keeping the sign fill of the cycle before).
TEST(NetlistInterpreter, WideResultsForgetTheCycleBefore) {
  Interpreter in(parse(R"(netlist 1
top m
module m
  input a : 95
  output y : 95 = %s
  %s : 95 = sar %a, 31
end
)"));
  in.set_input(0, *Bits::from_hex("400000000000000000000000", 95));  // negative
  in.settle();
  EXPECT_EQ(in.output(1).hex(), "7fffffff8000000000000000");
  in.set_input(0, *Bits::from_hex("200000000000000000000000", 95));  // positive
  in.settle();
  EXPECT_EQ(in.output(1).hex(), "4000000000000000");
}

TEST(NetlistInterpreter, RegistersCountAndReset) {
  Interpreter in(parse(R"(netlist 1
top m
module m
  input rst : 1
  input en : 1
  output y : 8 = %r
  %one : 8 = const 8'h1
  %r : 8 = reg %n, en %en, rst %rst, reset 8'h10
  %n : 8 = add %r, %one
end
)"));
  const int rst = in.port("rst"), en = in.port("en"), y = in.port("y");
  in.settle();
  EXPECT_EQ(in.output_word(y), 0u);  // registers start at zero
  in.set_input(en, uint64_t{1});
  for (int k = 0; k < 3; ++k) {
    in.settle();
    in.clock();
  }
  in.settle();
  EXPECT_EQ(in.output_word(y), 3u);
  in.set_input(en, uint64_t{0});
  in.settle();
  in.clock();
  in.settle();
  EXPECT_EQ(in.output_word(y), 3u);  // held
  in.set_input(rst, uint64_t{1});
  in.settle();
  in.clock();
  in.settle();
  EXPECT_EQ(in.output_word(y), 0x10u);  // reset wins over the enable
  EXPECT_EQ(in.cycles(), 5);
}

TEST(NetlistInterpreter, MemoriesReadBeforeWriteAndPastTheDepth) {
  Interpreter in(parse(R"(netlist 1
top m
module m
  input addr : 3
  input data : 8
  input we : 1
  output q : 8 = %rq
  output c : 8 = %rc
  memory ram : 8 depth 5 kind ram storage auto latency 1 reads 1 writes 1
  memory rom : 8 depth 6 kind rom storage auto latency 0 reads 1 writes 0 init {8'h7, 8'h8}
  %rq : 8 = read ram.0 %addr
  %rc : 8 = read rom.0 %addr
  write ram.0 %addr, %data, en %we
end
)"));
  const int addr = in.port("addr"), data = in.port("data"), we = in.port("we");
  const int q = in.port("q"), c = in.port("c");
  const auto step = [&](uint64_t a, uint64_t d, uint64_t w) {
    in.set_input(addr, a);
    in.set_input(data, d);
    in.set_input(we, w);
    in.settle();
    const uint64_t rom = in.output_word(c);
    in.clock();
    in.settle();
    return std::make_pair(rom, in.output_word(q));
  };
  EXPECT_EQ(step(1, 0x55, 1), std::make_pair(uint64_t{8}, uint64_t{0}));  // the old word
  EXPECT_EQ(step(1, 0x66, 0).second, 0x55u);
  EXPECT_EQ(step(7, 0x77, 1), std::make_pair(uint64_t{0}, uint64_t{0}));  // past the depth
  EXPECT_EQ(step(7, 0, 0).second, 0u);                                    // nothing written
  EXPECT_EQ(step(0, 0, 0).first, 7u);
}

TEST(NetlistInterpreter, FlattensTheHierarchy) {
  Interpreter in(parse(R"(netlist 1
top top
module inc
  input a : 8
  output y : 8 = %s
  %one : 8 = const 8'h1
  %s : 8 = add %a, %one
end
module twice
  input a : 8
  output y : 8 = %y2
  output r : 8 = %rr
  instance u1 inc (a %a)
  instance u2 inc (a %y1)
  %y1 : 8 = instance_output u1.y
  %y2 : 8 = instance_output u2.y
  %rr : 8 = reg %y2
end
module top
  input x : 8
  output y : 8 = %ty
  output z : 8 = %tz
  instance t twice (a %x)
  instance t2 twice (a %ty)
  %ty : 8 = instance_output t.y
  %tz : 8 = instance_output t2.r
end
)"));
  in.set_input(in.port("x"), uint64_t{5});
  in.settle();
  EXPECT_EQ(in.output_word(in.port("y")), 7u);
  EXPECT_EQ(in.output_word(in.port("z")), 0u);
  in.clock();
  in.settle();
  EXPECT_EQ(in.output_word(in.port("z")), 9u);
}

TEST(NetlistInterpreter, RefusesAnInvalidDesign) {
  const Design d = parse("netlist 1\ntop m\nmodule m\n  output y : 8\nend\n");
  const Error e = error_of([&] { Interpreter in(d); }, ErrorKind::Internal);
  EXPECT_CONTAINS(e.message(), "output port is not driven");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The generated convolution: the interpreter agrees with a direct
// computation, and reports its speed (KILN_NETLIST_LARGE=1: ~10^6 values).
TEST(NetlistInterpreter, LargeConvolution) {
  const bool large = std::getenv("KILN_NETLIST_LARGE") != nullptr;
  const int n = large ? 148 : 48;
  const Design d = testing::convolution_design(n);
  auto t0 = std::chrono::steady_clock::now();
  verify(d);
  const double verify_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  Interpreter in(d);
  const double build_s = seconds_since(t0);
  std::vector<int> pixels(static_cast<std::size_t>(n * n));
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<int>((i * 37 + 11) % 256);
  for (int p = 0; p * 64 < n * n; ++p) {
    const int k = std::min(64, n * n - p * 64);
    Bits word(8 * k);
    for (int e = 0; e < k; ++e)
      for (int bit = 0; bit < 8; ++bit)
        word.set_bit(8 * e + bit, (pixels[static_cast<std::size_t>(p * 64 + e)] >> bit) & 1);
    in.set_input(in.port("i" + std::to_string(p)), word);
  }
  const int cycles = 20;
  t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < cycles; ++c) {
    in.settle();
    in.clock();
  }
  in.settle();
  const double run_s = seconds_since(t0);
  const int weights[9] = {1, -2, 3, -4, 5, -6, 7, -8, 9};
  const int out = n - 2;
  for (int y = 0; y < out; y += 7)
    for (int x = 0; x < out; x += 5) {
      int64_t sum = 0;
      for (int k = 0; k < 9; ++k)
        sum += weights[k] * pixels[static_cast<std::size_t>((y + k / 3) * n + x + k % 3)];
      const int e = y * out + x;
      const Bits q = in.output(in.port("q" + std::to_string(e / 64)));
      int64_t got = 0;
      for (int bit = 0; bit < 20; ++bit) got |= int64_t{q.bit(20 * (e % 64) + bit)} << bit;
      got = got >= (1 << 19) ? got - (1 << 20) : got;
      ASSERT_EQ(got, sum) << "pixel " << y << "," << x;
    }
  const auto values = d.modules[0].size();
  std::cout << "values " << values << ": verify " << verify_s << " s, interpreter build " << build_s
            << " s, " << cycles << " cycles " << run_s << " s ("
            << run_s / cycles / static_cast<double>(values) * 1e9 << " ns per value per cycle)\n";
}

}  // namespace
}  // namespace kiln::netlist

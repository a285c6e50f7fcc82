// Loop IR text: a hand-written program round-trips through the parser and
// the printer; each verify() rule, broken on its own, is reported with the
// rule; each parse error names FILE:LINE:COL.
#include "kiln/loop/loop_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::loop {
namespace {

using kiln::testing::catch_error;

// Every op, a guard, an alias, directives on loops and buffers.
const std::string kProgram = kiln::testing::text_block(R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2]
buffer @w const ap_fixed<8,3> [2] = [32, -16]
buffer @t const ap_fixed<8,3> [4] = [1, 2, 3, -4]
buffer @acc local ap_fixed<16,6> [1]
buffer @x_flat tensor ap_fixed<8,3> [4] alias @x
buffer @y output ap_fixed<16,6> [2x2] partition=cyclic factor=2 dim=1 storage=bram
inputs @x
outputs @y
kernel k "/K" reads @x @w @t writes @y locals @acc {
  for %i < 2 unroll=0 flatten=1 {
    for %j < 2 pipeline=1 {
      %v0 = load @x[%i, %j] : ap_fixed<8,3>
      %v1 = load @w[%j] : ap_fixed<8,3>
      %v2 = mul %v0, %v1 : ap_fixed<16,6>
      %v3 = const 3 : ap_ufixed<2,2>
      %v4 = add %v2, %v3 : ap_fixed<17,7>
      %v5 = sub %v4, %v0 : ap_fixed<18,8>
      %v6 = neg %v5 : ap_fixed<19,9>
      %v7 = shl %v6 -2 : ap_fixed<19,7>
      %v8 = max %v7, %v0 : ap_fixed<19,7>
      %v9 = min %v8, %v3 : ap_fixed<19,7>
      %v10 = lt %v9, %v0 : ap_ufixed<1,1>
      %v11 = select %v10, %v9, %v2 : ap_fixed<19,7>
      %v12 = lookup @t[%v11] shift 1 offset 2 : ap_fixed<8,3>
      %v13 = quantize %v11 to ap_fixed<16,6,AP_RND,AP_SAT> : ap_fixed<16,6>
      store @acc[0] = %v13
      if 0 <= %i + %j*2 + -1 < 3, 1 <= %j < 2 {
        %v14 = load @x_flat[%i*2 + %j] : ap_fixed<8,3>
        %v15 = add %v14, %v12 : ap_fixed<9,4>
        %v16 = quantize %v15 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%i, %j] = %v16
      }
    }
  }
}
)");

TEST(LoopText, HandWrittenProgramRoundTrips) {
  const Program p = parse_program(kProgram, "t.loop");
  EXPECT_EQ(print_program(p), kProgram);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].loops.at(0).directives.unroll, 0);
  EXPECT_EQ(p.kernels[0].loops.at(1).directives.pipeline_ii, 1);
  EXPECT_EQ(p.buffers.at(5).directives.storage, Storage::Bram);
  EXPECT_EQ(p.storage_of(4), 0);
  // The printed text of a printed program is the same (a fixed point).
  EXPECT_EQ(print_program(parse_program(print_program(p), "again.loop")), kProgram);
}

// ---- verify() rules ----------------------------------------------------------

struct Broken {
  const char* rule;  // a fragment of the expected message
  std::function<void(Program&)> mutate;
};

Kernel& kernel(Program& p) {
  return p.kernels.at(0);
}
// The statements of the inner loop (%j), and of the guarded block in it.
std::vector<Stmt>& inner(Program& p) {
  return kernel(p).body.at(0).body.at(0).body;
}
std::vector<Stmt>& guarded(Program& p) {
  return inner(p).back().body;
}
Value& value(Program& p, int v) {
  return kernel(p).values.at(static_cast<std::size_t>(v));
}
Stmt let(int v) {
  Stmt s;
  s.kind = StmtKind::Let;
  s.value = v;
  return s;
}

TEST(LoopVerify, EachRuleFailsOnItsOwn) {
  const Program good = parse_program(kProgram, "t.loop");
  verify(good);
  const Broken cases[] = {
      // Buffers and ports.
      {"buffer @x: is defined twice", [](Program& p) { p.buffers[1].name = "x"; }},
      {"buffer @acc: must be 1 to 64 bits wide", [](Program& p) { p.buffers[3].type.width = 65; }},
      {"buffer @acc: has a dimension of 0", [](Program& p) { p.buffers[3].shape = {0}; }},
      {"buffer @w: holds 3 values for 2 elements",
       [](Program& p) {
         std::vector<int64_t> d = p.buffers[1].data.values();
         d.push_back(7);
         p.buffers[1].data = d;
       }},
      {"buffer @acc: has data but is not const", [](Program& p) { p.buffers[3].data = {1}; }},
      {"buffer @x_flat: aliases @x but differs in type or element count",
       [](Program& p) { p.buffers[4].shape = {5}; }},
      {"buffer @x_flat: aliases @x but differs in type or element count",
       [](Program& p) { p.buffers[4].type.width = 9; }},
      {"buffer @x_flat: aliases a buffer defined after it",
       [](Program& p) { p.buffers[4].alias_of = 5; }},
      {"an input port is not an input buffer", [](Program& p) { p.inputs = {3}; }},
      {"an output port names no buffer", [](Program& p) { p.outputs = {42}; }},
      // Loops.
      {"loop %j has trip count 0", [](Program& p) { kernel(p).loops[1].trip = 0; }},
      {"loop %i is defined twice", [](Program& p) { kernel(p).loops[1].name = "i"; }},
      {"loop %j: unroll factor 3 does not divide the trip count 2",
       [](Program& p) { kernel(p).loops[1].directives.unroll = 3; }},
      {"loop %j: unroll factor -1", [](Program& p) { kernel(p).loops[1].directives.unroll = -1; }},
      {"loop %j: pipeline II must be at least 1",
       [](Program& p) { kernel(p).loops[1].directives.pipeline_ii = 0; }},
      {"loop %j appears twice",
       [](Program& p) {
         Stmt again;
         again.kind = StmtKind::For;
         again.loop = 1;
         kernel(p).body.push_back(again);
       }},
      {"for names no loop", [](Program& p) { kernel(p).body[0].loop = 9; }},
      // Values.
      {"value %v2: uses a value not defined before it in an enclosing block",
       [](Program& p) { value(p, 2).args[1] = 12; }},
      {"value %v15: uses a value not defined before it in an enclosing block",
       [](Program& p) {
         // %v14 moved after its user.
         std::swap(guarded(p)[0], guarded(p)[1]);
       }},
      {"value %v3 is defined twice", [](Program& p) { inner(p).push_back(let(3)); }},
      {"let defines no value", [](Program& p) { inner(p).push_back(let(99)); }},
      {"value %v2: has type ap_fixed<16,5> but mul gives ap_fixed<16,6>",
       [](Program& p) { value(p, 2).type.frac = 11; }},
      {"value %v3: a constant must be 1 to 64 bits wide",
       [](Program& p) { value(p, 3).type.width = 70; }},
      {"value %v11: select's condition must be 1 bit wide",
       [](Program& p) { value(p, 11).args[0] = 9; }},
      {"value %v12: lookup table @x must be a 1-D const buffer",
       [](Program& p) { value(p, 12).buffer = 0; }},
      {"value %v4: add takes 2 operands, not 1", [](Program& p) { value(p, 4).args.pop_back(); }},
      {"value %v6: neg takes 1 operands, not 0", [](Program& p) { value(p, 6).args.clear(); }},
      {"a load names no buffer", [](Program& p) { value(p, 1).buffer = 17; }},
      {"@x has 2 dimensions, indexed with 1", [](Program& p) { value(p, 0).index.pop_back(); }},
      {"@w is indexed by a loop variable outside its loop",
       [](Program& p) {
         // %v1 moved out of the loops, still indexed by %j.
         const Stmt load = inner(p)[1];
         inner(p).erase(inner(p).begin() + 1);
         kernel(p).body.insert(kernel(p).body.begin(), load);
       }},
      {"a guard uses a loop variable outside its loop",
       [](Program& p) {
         Stmt s = inner(p).back();
         s.body.clear();
         kernel(p).body.push_back(s);
       }},
      // Stores.
      {"stores a ap_fixed<8,3> value to @y of type ap_fixed<16,6>; quantize it first",
       [](Program& p) { guarded(p).back().value = 14; }},
      {"stores to @w, which is const", [](Program& p) { guarded(p).back().buffer = 1; }},
      {"stores to @x, which is input", [](Program& p) { guarded(p).back().buffer = 0; }},
      {"@acc has 1 dimensions, indexed with 2",
       [](Program& p) { inner(p)[14].index.push_back(Affine::of(0)); }},
      {"stores to @acc a value not defined before it", [](Program& p) { inner(p)[14].value = 16; }},
      {"a store names no buffer", [](Program& p) { inner(p)[14].buffer = -1; }},
  };
  for (const Broken& c : cases) {
    Program p = good;
    c.mutate(p);
    const Error e = catch_error([&] { verify(p); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel) << c.rule;
    EXPECT_CONTAINS(e.message(), c.rule);
  }
}

// ---- parse errors ------------------------------------------------------------

struct BadText {
  const char* find;     // replaced in kProgram ...
  const char* replace;  // ... by this
  const char* at;       // where the error is: the first occurrence of this in the new text
  const char* what;     // a fragment of the message
};

// FILE:LINE:COL of the first occurrence of `token` in `text`.
std::string location(const std::string& text, const std::string& token) {
  const std::size_t pos = text.find(token);
  EXPECT_NE(pos, std::string::npos) << token;
  const std::size_t line_start = text.rfind('\n', pos) + 1;  // npos + 1 == 0
  const auto line =
      1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n');
  return "t.loop:" + std::to_string(line) + ":" + std::to_string(pos - line_start + 1);
}

TEST(LoopText, EachParseErrorNamesItsPlace) {
  const BadText cases[] = {
      {"%v2 = mul", "%v2 = times", "times", "unknown op; use load | const"},
      {"load @w[%j]", "load @nope[%j]", "@nope", "unknown buffer @nope"},
      {"store @acc[0]", "store @accum[0]", "@accum", "unknown buffer @accum"},
      {"storage=bram", "speed=bram", "speed", "unknown buffer directive 'speed'"},
      {"partition=cyclic", "partition=diagonal", "diagonal", "unknown partition; use none"},
      {"storage=bram", "storage=flash", "flash", "unknown storage; use auto"},
      {"pipeline=1", "speed=1", "speed", "unknown loop directive 'speed'"},
      {"@t const", "@t constant", "constant", "unknown buffer role; use input"},
      {"mul %v0, %v1", "mul %v0, %v99", "%v99", "%v99 is not defined before it here"},
      {"load @x_flat[%i*2 + %j]", "load @x_flat[%i*2 + %k]", "%k", "%k is not an enclosing loop"},
      {"%v3 = const", "%v0 = const", "%v0 = const", "%v0 is already defined"},
      {"for %j < 2", "for %i < 2", "%i < 2 pipeline", "loop %i is defined twice"},
      {"buffer @acc local", "buffer @w local", "@w local", "buffer @w is defined twice"},
      {"inputs @x", "input @x", "input @x", "expected buffer, inputs, outputs or kernel"},
      {"store @y[%i, %j] = %v16", "put @y[%i, %j] = %v16", "put @y",
       "expected for, if, store or %value =, got 'put'"},
      {"ap_fixed<16,6> [1]", "int<16> [1]", "int<16>", "expected ap_fixed<W,I> or ap_ufixed"},
      {"ap_fixed<16,6> [1]", "ap_fixed<300,6> [1]", "ap_fixed<300", "width 300 is out of 1..256"},
  };
  for (const BadText& c : cases) {
    std::string text = kProgram;
    const std::size_t pos = text.find(c.find);
    ASSERT_NE(pos, std::string::npos) << c.find;
    text.replace(pos, std::string(c.find).size(), c.replace);
    const Error e = catch_error([&] { parse_program(text, "t.loop"); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel) << c.what;
    EXPECT_CONTAINS(e.message(), location(text, c.at) + ": " + c.what);
  }
}

// The parser verify()s what it read: a type mismatch is the verifier's message.
TEST(LoopText, ParsedProgramIsVerified) {
  std::string text = kProgram;
  text.replace(text.find("ap_fixed<17,7>"), 14, "ap_fixed<18,7>");
  const Error e = catch_error([&] { parse_program(text, "t.loop"); });
  EXPECT_CONTAINS(e.message(),
                  "kernel k: value %v4: has type ap_fixed<18,7> but add gives ap_fixed<17,7>");
}

TEST(LoopText, MissingCloseBraceIsAnError) {
  std::string text = kProgram;
  text.erase(text.rfind('}'));
  const Error e = catch_error([&] { parse_program(text, "t.loop"); });
  EXPECT_CONTAINS(e.message(), "missing '}'");
}

}  // namespace
}  // namespace kiln::loop

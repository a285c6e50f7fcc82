// Constant matrix products: the adder graph's text in and out, verify_cmvm
// refusing wrong answers, and the solver's answers exact (verified) on
// matrices of the kinds kiln meets, sharing across outputs, within a depth
// bound when given one.
#include "kiln/rtl/cmvm/cmvm.h"

#include <gtest/gtest.h>

#include <random>

#include "kiln/sched/operator_library.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::rtl {
namespace {

CmvmProblem problem(int inputs, int outputs, std::vector<int64_t> w, int64_t lo = -128,
                    int64_t hi = 127) {
  CmvmProblem p;
  p.inputs = inputs;
  p.outputs = outputs;
  p.weights = std::move(w);
  p.ranges.assign(static_cast<std::size_t>(inputs), {lo, hi});
  return p;
}

CmvmProblem random_problem(int inputs, int outputs, uint32_t seed, int64_t lo = -128,
                           int64_t hi = 127) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> w(lo, hi);
  std::vector<int64_t> weights;
  for (int k = 0; k < inputs * outputs; ++k) weights.push_back(w(rng));
  return problem(inputs, outputs, std::move(weights));
}

TEST(Cmvm, TextParsesBack) {
  const std::string text =
      "cmvm inputs 3 outputs 3\n"
      "a0 = add x0, x1:2\n"
      "a1 = sub a0, x2:1\n"
      "y0 = a1:1\n"
      "y1 = neg a0\n"
      "y2 = zero\n";
  const CmvmGraph g = parse_cmvm(text, "t.cmvm");
  EXPECT_EQ(g.adders.size(), 2u);
  EXPECT_EQ(cmvm_text(g), text);
  EXPECT_EQ(g.depth(), 2);
  // y0 = 2 (x0 + 4 x1 - 2 x2), y1 = -(x0 + 4 x1), y2 = 0.
  const CmvmProblem p = problem(3, 3, {2, -1, 0, 8, -4, 0, -4, 0, 0});
  EXPECT_EQ(verify_cmvm(p, g), "");
}

TEST(Cmvm, BadTextSaysWhereAndWhat) {
  for (const auto& [text, what] : std::vector<std::pair<std::string, std::string>>{
           {"cmvm inputs 1 outputs 1\na0 = add x0, x1\ny0 = a0\n", "'x1' is not defined"},
           {"cmvm inputs 1 outputs 1\na1 = add x0, x0:1\ny0 = a1\n", "expected a0"},
           {"cmvm inputs 1 outputs 1\na0 = mul x0, x0\ny0 = a0\n", "expected 'add'"},
           {"cmvm inputs 1 outputs 2\ny0 = x0\n", "output y1 is not given"},
           {"cmvm inputs 1 outputs 1\ny0 = x0:99\n", "a shift is 0 to 62"},
           {"cmvm inputs 1 outputs 1\ny0 = x0\ny0 = x0\n", "given twice"}}) {
    const Error e = kiln::testing::catch_error([&] { parse_cmvm(text, "t.cmvm"); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel) << text;
    EXPECT_NE(std::string(e.what()).find("t.cmvm:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << text << ": " << e.what();
  }
}

TEST(Cmvm, VerifyRefusesWrongAnswers) {
  const CmvmProblem p = problem(2, 1, {3, 5});  // y = 3 x0 + 5 x1
  CmvmGraph g = parse_cmvm(
      "cmvm inputs 2 outputs 1\na0 = add x0, x0:1\na1 = add x1, x1:2\n"
      "a2 = add a0, a1\ny0 = a2\n",
      "t");
  EXPECT_EQ(verify_cmvm(p, g), "");
  g.adders[1].b.shift = 1;  // 3 x1
  EXPECT_NE(verify_cmvm(p, g).find("y0 takes x1 3 times, not 5"), std::string::npos);
  g.adders[1].b.shift = 2;
  g.adders[0].a.negative = true;
  EXPECT_NE(verify_cmvm(p, g).find("first operand is negative"), std::string::npos);
  g.adders[0].a.negative = false;
  g.adders[0].b.node = 3;  // a1, defined after a0
  EXPECT_NE(verify_cmvm(p, g).find("not defined before it"), std::string::npos);
  g.adders[0].b.node = 0;
  CmvmProblem bounded = p;
  bounded.max_depth = 1;
  EXPECT_NE(verify_cmvm(bounded, g).find("adder depth 2, over the bound 1"), std::string::npos);
}

// Two outputs holding the same pair of inputs share its adder: y0 = x0 + 2 x1
// + x2, y1 = x0 + 2 x1 - x2 take three adders, not four.
TEST(Cmvm, APairTwoOutputsHoldIsAddedOnce) {
  const CmvmProblem p = problem(3, 2, {1, 1, 2, 2, 1, -1});
  const CmvmGraph g = solve_cmvm(p);
  EXPECT_EQ(verify_cmvm(p, g), "") << cmvm_text(g);
  EXPECT_EQ(g.adders.size(), 3u) << cmvm_text(g);
}

// Negations fold into subtractions and the output's sign: -x0 - x1 is one
// adder and a negative output, never a negation of its own.
TEST(Cmvm, NegationsFoldIntoSubtractionsAndTheOutputsSign) {
  const CmvmProblem p = problem(2, 2, {-1, -3, -1, 1});  // y0 = -x0 - x1, y1 = -3 x0 + x1
  const CmvmGraph g = solve_cmvm(p);
  EXPECT_EQ(verify_cmvm(p, g), "") << cmvm_text(g);
  ASSERT_TRUE(g.outputs[0]);
  EXPECT_TRUE(g.outputs[0]->negative) << cmvm_text(g);
  EXPECT_LE(g.adders.size(), 3u) << cmvm_text(g);  // x0 + x1; 3 x0 = x0 + 2 x0; x1 - 3 x0
}

TEST(Cmvm, ZeroAndSingleTermOutputsTakeNoAdder) {
  const CmvmProblem p = problem(2, 3, {0, 4, 0, 0, -8, 0});  // y0 = 0, y1 = 4 x0 - 8 x1, y2 = 0
  const CmvmGraph g = solve_cmvm(p);
  EXPECT_EQ(verify_cmvm(p, g), "") << cmvm_text(g);
  EXPECT_FALSE(g.outputs[0]);
  EXPECT_FALSE(g.outputs[2]);
  EXPECT_EQ(g.adders.size(), 1u) << cmvm_text(g);
}

// Random 16x16 8-bit matrices (the first row): exact, and sharing
// spends fewer adders than the outputs' digits summed alone.
TEST(Cmvm, RandomMatricesAreExactAndShareAdders) {
  for (uint32_t seed = 0; seed < 5; ++seed) {
    const CmvmProblem p = random_problem(16, 16, seed);
    const CmvmGraph g = solve_cmvm(p);
    ASSERT_EQ(verify_cmvm(p, g), "") << seed;
    int64_t digits = 0;
    for (int j = 0; j < p.outputs; ++j) {
      int64_t d = 0;
      for (int i = 0; i < p.inputs; ++i) d += sched::csd_nonzero_digits(p.weight(i, j));
      digits += std::max<int64_t>(0, d - 1);
    }
    const CmvmCounts c = cmvm_counts(p, g);
    EXPECT_LT(c.adders, digits * 3 / 4) << seed;
    EXPECT_EQ(c.adders, c.product_adders + c.sum_adders);
    EXPECT_GT(c.adder_bits, c.adders * 8);
    EXPECT_EQ(parse_cmvm(cmvm_text(g), "t"), g);
  }
}

TEST(Cmvm, ABoundBelowTheLeastDepthIsRefused) {
  CmvmProblem p = problem(4, 1, {3, 5, 7, 9});  // 8 digits: 3 levels at least
  EXPECT_EQ(minimal_depth(p), 3);
  p.max_depth = 2;
  const Error e = kiln::testing::catch_error([&] { solve_cmvm(p); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_NE(std::string(e.what()).find("below the least its outputs' sums need, 3"),
            std::string::npos)
      << e.what();
}

// Under a depth bound every answer is within it, the minimal bound too.
TEST(Cmvm, ADepthBoundHolds) {
  for (uint32_t seed = 0; seed < 3; ++seed) {
    CmvmProblem p = random_problem(16, 16, 100 + seed);
    const int least = minimal_depth(p);
    const CmvmGraph free = solve_cmvm(p);
    for (const int bound : {least, least + 1, least + 3}) {
      p.max_depth = bound;
      const CmvmGraph g = solve_cmvm(p);
      EXPECT_EQ(verify_cmvm(p, g), "") << seed << " bound " << bound;
      EXPECT_LE(g.depth(), bound);
      EXPECT_GE(g.adders.size(), free.adders.size() * 9 / 10) << "a bound only costs adders";
    }
  }
}

// Random shapes, weights of every size and sign (zero columns and rows,
// powers of two, 16-bit weights), unsigned and signed input ranges, with and
// without a bound: every answer exact, within its bound, and its text the
// same graph.
TEST(Cmvm, RandomProblemsOfEveryShapeAreExact) {
  std::mt19937 rng(27);
  for (int round = 0; round < 60; ++round) {
    const int inputs = 1 + static_cast<int>(rng() % 12), outputs = 1 + static_cast<int>(rng() % 12);
    const int bits = 1 + static_cast<int>(rng() % 16);
    std::vector<int64_t> w;
    for (int k = 0; k < inputs * outputs; ++k) {
      const uint32_t kind = rng() % 5;
      const int64_t mag = int64_t{1} << (rng() % static_cast<uint32_t>(bits));
      w.push_back(kind == 0   ? 0
                  : kind == 1 ? (rng() % 2 ? mag : -mag)
                              : static_cast<int64_t>(rng() % (2 * mag + 1)) - mag);
    }
    CmvmProblem p = rng() % 2 ? problem(inputs, outputs, w, 0, 255) : problem(inputs, outputs, w);
    if (rng() % 2) p.max_depth = minimal_depth(p) + static_cast<int>(rng() % 3);
    const CmvmGraph g = solve_cmvm(p);
    ASSERT_EQ(verify_cmvm(p, g), "") << "round " << round << "\n" << cmvm_text(g);
    EXPECT_EQ(parse_cmvm(cmvm_text(g), "t"), g) << round;
  }
}

}  // namespace
}  // namespace kiln::rtl

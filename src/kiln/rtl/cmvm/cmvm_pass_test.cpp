// The constant-matrix pass on unrolled graphs: the outputs' values the same
// for random inputs before and after (dfg::evaluate), with fewer adders.
#include "kiln/rtl/cmvm/cmvm_pass.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "kiln/dfg/testing/random_graphs.h"
#include "kiln/dfg/unroll.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/testing/small_programs.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/support/error.h"

namespace kiln::rtl {
namespace {

using dfg::Graph;

// The outputs' exact values (raw scaled to a common 2^-64 grid) for inputs
// given by element.
std::vector<std::pair<numeric::int128, int>> outputs_of(
    const Graph& g, const std::map<std::pair<int, int64_t>, int64_t>& in) {
  std::vector<int64_t> raw(g.size(), 0);
  for (uint32_t n = 0; n < g.size(); ++n)
    if (g.node(n).op == dfg::NodeOp::Input) {
      const dfg::Element& e = g.input_of(n);
      raw[n] = in.at({e.buffer, e.element});
    }
  const std::vector<numeric::Exact> v = dfg::evaluate(g, raw);
  std::vector<std::pair<numeric::int128, int>> out;
  for (const dfg::Output& o : g.outputs()) {
    numeric::Exact x = v[o.node];
    // The same value on one grid: normalize trailing zero bits away.
    while (x.frac > 0 && x.raw % 2 == 0) {
      x.raw /= 2;
      --x.frac;
    }
    out.emplace_back(x.raw, x.frac);
  }
  return out;
}

void expect_same_values(const Graph& before, const Graph& after, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 20; ++trial) {
    std::map<std::pair<int, int64_t>, int64_t> in;
    for (uint32_t n = 0; n < before.size(); ++n)
      if (before.node(n).op == dfg::NodeOp::Input) {
        const dfg::Element& e = before.input_of(n);
        const loop::ScalarType t = before.type(n);
        const int64_t span = int64_t{1} << std::min(t.width, 62);
        int64_t r = static_cast<int64_t>(rng() % static_cast<uint64_t>(span));
        if (t.is_signed) r -= span / 2;
        in[{e.buffer, e.element}] = r;
      }
    ASSERT_EQ(outputs_of(before, in), outputs_of(after, in)) << "trial " << trial;
  }
}

TEST(CmvmPass, DotProductsKeepTheirValuesWithFewerAdders) {
  for (const auto overflow : {numeric::OverflowMode::Wrap, numeric::OverflowMode::Sat}) {
    std::mt19937 rng(5);
    const int64_t n_in = 12, n_out = 6;
    std::vector<int64_t> w;
    for (int64_t k = 0; k < n_in * n_out; ++k)
      w.push_back(static_cast<int64_t>(rng() % 255) - 127);  // small weights: exact sums
    const Graph before =
        dfg::unroll(loop::testing::dot_program(w, n_in, n_out, overflow)).at(0).graph;
    Graph after = before;
    const SharedSums s = share_constant_sums(after);
    // Every output's sum (a saturating chain's steps too, where a step can saturate).
    EXPECT_GE(s.roots, n_out) << static_cast<int>(overflow);
    EXPECT_LE(s.counts.adders, s.replaced);
    expect_same_values(before, after, 11);
  }
}

// A wrapping accumulator is needed only modulo 2^32, and so is every adder
// it is built from: with full 16-bit weights the exact sums of twelve
// 16 x 16-bit products would take 37 bits.
TEST(CmvmPass, AWrappingSumIsBuiltFromModularAdders) {
  std::mt19937 rng(9);
  const int64_t n_in = 12, n_out = 4;
  std::vector<int64_t> w;
  for (int64_t k = 0; k < n_in * n_out; ++k)
    w.push_back(static_cast<int64_t>(rng() % 65535) - 32767);
  const Graph before =
      dfg::unroll(loop::testing::dot_program(w, n_in, n_out, numeric::OverflowMode::Wrap))
          .at(0)
          .graph;
  Graph after = before;
  const SharedSums s = share_constant_sums(after);
  EXPECT_EQ(s.roots, n_out);
  expect_same_values(before, after, 13);
  int widest = 0;
  for (uint32_t n = 0; n < after.size(); ++n) {
    const dfg::NodeOp op = after.node(n).op;
    if (op == dfg::NodeOp::Add || op == dfg::NodeOp::Sub || op == dfg::NodeOp::AddMod ||
        op == dfg::NodeOp::SubMod)
      widest = std::max(widest, after.type(n).width);
  }
  EXPECT_EQ(widest, 32);
}

// A wrapping result read from a shared sum: every rounding mode, the sum's
// values the same before and after. Rounding toward zero (and ties toward or
// away from it) reads the sign of the whole sum, so those results keep it
// exact; the others read only the bits they keep and those they drop (the
// fuzz tier's seed 1307: AP_TRN_ZERO of a sum built modulo 2^17).
TEST(CmvmPass, AWrappingResultKeepsWhatItsRoundingReads) {
  std::mt19937 rng(21);
  const int64_t n_in = 6, n_out = 3;
  std::vector<int64_t> w;
  for (int64_t k = 0; k < n_in * n_out; ++k) w.push_back(static_cast<int64_t>(rng() % 4095) - 2047);
  for (const auto q :
       {numeric::QuantMode::Trn, numeric::QuantMode::TrnZero, numeric::QuantMode::Rnd,
        numeric::QuantMode::RndZero, numeric::QuantMode::RndMinInf, numeric::QuantMode::RndInf,
        numeric::QuantMode::RndConv}) {
    const numeric::FixedType result{8, 3, true, q, numeric::OverflowMode::Wrap};
    const Graph before =
        dfg::unroll(loop::testing::dot_program(w, n_in, n_out, numeric::OverflowMode::Wrap, result))
            .at(0)
            .graph;
    Graph after = before;
    const SharedSums s = share_constant_sums(after);
    EXPECT_EQ(s.roots, n_out) << static_cast<int>(q);
    expect_same_values(before, after, 17);
  }
}

// A modular sum under a wider one: 15/16 - (x + 1054 (x0 + x0)) wrapped at
// 4, its operand wrapped at 1/2 first (ap_ufixed<9,-1>). Taking the inner
// sum's terms into the outer one dropped the inner wrap (the random graphs'
// seed 5771); the inner sum is a leaf of the outer one.
TEST(CmvmPass, AWiderWrapKeepsTheNarrowerWrapInside) {
  Graph g("nested_wraps");
  const uint32_t x0 = g.input({0, 0}, {11, 10, true});  // ap_fixed<11,1>
  const uint32_t x2 = g.input({0, 2}, {6, 5, true});    // ap_fixed<6,1>
  const numeric::FixedType narrow{9, -1, false};        // ap_ufixed<9,-1>
  const uint32_t twice = g.add(x0, x0);
  const uint32_t p = g.mul(twice, g.constant(527, {10, 4, false}));
  const uint32_t inner =
      g.add_mod(g.quantize(x2, narrow), g.quantize(p, narrow), loop::scalar_of(narrow));
  g.add_output({1, 0}, g.sub_mod(g.constant(15, {4, 4, false}), inner, {12, 10, true}));
  Graph after = g;
  share_constant_sums(after);
  expect_same_values(g, after, 23);
}

// Random graphs of sums of products by constants, quantized by every mode,
// with chains of sums, maxima, minima and modular sums among them
// (dfg/testing/random_graphs.h): the same values after the pass, lean, at the
// least depth and under a depth bound, on inputs at their types' extremes.
TEST(CmvmPass, RandomGraphsKeepEveryValue) {
  int rebuilt = 0;
  for (uint32_t seed = 0; seed < 10000; ++seed) {
    const dfg::testing::RandomGraph r =
        dfg::testing::random_graph(seed, 6 + static_cast<int>(seed % 30), seed % 4 != 0);
    Graph after = r.graph;
    ShareOptions o;
    o.least_depth = seed % 3 == 1;
    if (seed % 3 == 2) o.max_depth = 3 + static_cast<int>(seed % 4);
    try {
      rebuilt += share_constant_sums(after, o).roots > 0;
    } catch (const Error& e) {
      // A depth bound below what a problem's sums need is refused, by name.
      ASSERT_TRUE(o.max_depth) << "seed " << seed << ": " << e.what();
      continue;
    }
    for (const std::vector<int64_t>& in : dfg::testing::corner_inputs(r, 12, seed + 3)) {
      ASSERT_EQ(dfg::testing::graph_outputs(after, in), dfg::testing::graph_outputs(r.graph, in))
          << "seed " << seed << "\nbefore:\n"
          << dfg::print_graph(r.graph) << "after:\n"
          << dfg::print_graph(after);
    }
  }
  EXPECT_GT(rebuilt, 1500);  // the pass had sums to rebuild
}

// Zoo layers fully unrolled: every stage's outputs unchanged, and the stages
// whose sums are rebuilt take fewer adders than before (measured once:
// dense_a 254 -> 124, dense_b 12,647 -> 5,497, conv2d_a 1,404 -> 792).
class CmvmPassZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(CmvmPassZoo, StagesKeepTheirValues) {
  const loop::Program p = loop::lower_model(testing::zoo_model(GetParam()));
  int rebuilt = 0;
  for (const dfg::Stage& stage : dfg::unroll(p)) {
    Graph after = stage.graph;
    const SharedSums s = share_constant_sums(after);
    if (s.roots > 0) {
      ++rebuilt;
      EXPECT_LT(s.counts.adders, s.replaced) << stage.name;
      // A convolution's pixels (all but the padded ones) pose one problem,
      // solved once: conv2d_a's 36 output pixels, one problem.
      if (GetParam() == "conv2d_a") {
        EXPECT_EQ(s.problems, 36);
        EXPECT_EQ(s.solved, 1);
      }
    }
    expect_same_values(stage.graph, after, 3);
  }
  // The Dense and convolution layers' sums are rebuilt; element-wise layers have none.
  if (GetParam() != "vecmul_a" && GetParam() != "thxprlsg") {
    EXPECT_GT(rebuilt, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, CmvmPassZoo,
                         ::testing::Values("vecmul_a", "dense_a", "dense_b", "conv2d_a",
                                           "thxprlsg"));

}  // namespace
}  // namespace kiln::rtl

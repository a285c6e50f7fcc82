// Differential checks of the graph builder's folds and of balance_sums on
// random graphs (dfg/testing/random_graphs.h): the builder's graph computes
// what the expressions compute, evaluated without it, and a pass leaves every
// output's value as it was, on inputs at their types' extremes.
#include "kiln/dfg/testing/random_graphs.h"

#include <gtest/gtest.h>

#include "kiln/dfg/graph.h"

namespace kiln::dfg {
namespace {

using testing::corner_inputs;
using testing::graph_outputs;
using testing::random_graph;
using testing::reference;

// Every fold the builder makes as it goes (x*0, x*1, shifts for powers of
// two, quantizations that change nothing, modular sums from wrapping
// quantizations of sums, constants) keeps the value.
TEST(RandomGraphs, TheBuildersFoldsKeepEveryValue) {
  for (uint32_t seed = 0; seed < 20000; ++seed) {
    const testing::RandomGraph r =
        random_graph(seed, 4 + static_cast<int>(seed % 24), seed % 3 == 0);
    for (const std::vector<int64_t>& in : corner_inputs(r, 12, seed)) {
      ASSERT_EQ(graph_outputs(r.graph, in), reference(r, in)) << "seed " << seed << "\n"
                                                              << print_graph(r.graph);
    }
  }
}

// balance_sums regroups chains of exact and modular sums, maxima and minima
// into balanced trees (after folding guarded modular sums): the same values,
// with and without leaves kept last.
TEST(RandomGraphs, BalancingSumsKeepsEveryValue) {
  int changed = 0;
  for (uint32_t seed = 0; seed < 20000; ++seed) {
    const testing::RandomGraph r =
        random_graph(seed, 8 + static_cast<int>(seed % 32), seed % 2 == 0);
    Graph balanced = r.graph;
    if (seed % 3 == 0) {
      // A loop body's accumulator: leaves that are inputs added last.
      balanced.balance_sums([&](uint32_t n) { return balanced.node(n).op == NodeOp::Input; });
    } else {
      balanced.balance_sums();
    }
    changed += !balanced.same_content(r.graph);
    for (const std::vector<int64_t>& in : corner_inputs(r, 12, seed + 7)) {
      ASSERT_EQ(graph_outputs(balanced, in), graph_outputs(r.graph, in))
          << "seed " << seed << "\nbefore:\n"
          << print_graph(r.graph) << "after:\n"
          << print_graph(balanced);
    }
  }
  EXPECT_GT(changed, 3000);  // the pass had work to do
}

}  // namespace
}  // namespace kiln::dfg

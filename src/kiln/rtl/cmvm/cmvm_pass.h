// Constant matrix products in a stage's graph (issue 27): the values that are
// sums of products of other values by constants (a fully unrolled Dense or
// convolution layer's accumulators) are found as linear forms over their
// leaves, planned together as constant matrix products (rtl/cmvm/cmvm.h) and
// rebuilt from their shared adder graphs.
//
// A node is linear over its leaves when it is a constant, a shift, a negation,
// a product by a constant, or an exact or modular sum of linear nodes; every
// other node is a leaf of the nodes that use it (so is a modular sum where an
// exact operation uses it). A root is a linear node some user takes as a leaf,
// or an output. Roots rebuilt: raw(root) = sum of c_i raw(leaf_i) + constant,
// wrapped to the root's type when the root is a modular sum.
//
// The roots are grouped by the leaves they read: a root joins the group
// whose leaves hold all but a tenth of its own (a Dense layer's outputs, its
// pruned ones too, are one group; a convolution's outputs at one pixel are
// one, a neighbouring pixel's window being new by a third for a 3x3 kernel),
// else starts one. Each group is one problem, its leaves in the order of
// their elements, so a convolution's pixels pose the same problem and it is
// solved once (the memo). A group is rebuilt when its answer takes fewer
// adders than its roots' trees did (a residual x + y stays as it is).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "kiln/dfg/graph.h"
#include "kiln/rtl/cmvm/cmvm.h"

namespace kiln::rtl {

// Answers by problem (its matrix, ranges and bound): kept across the graphs
// one design prices.
using CmvmMemo = std::unordered_map<std::string, CmvmGraph>;

struct ShareOptions {
  // Each problem's adders at most this deep.
  std::optional<int> max_depth;
  // Each problem at the least depth its outputs' sums need (minimal_depth):
  // the shallow build, where max_depth unset builds lean.
  bool least_depth = false;
  CmvmMemo* memo = nullptr;
};

struct SharedSums {
  int roots = 0;         // sums rebuilt
  int problems = 0;      // groups rebuilt (each one constant matrix product)
  int solved = 0;        // problems solved, the others taken from the memo
  int deeper = 0;        // problems rebuilt deeper than the least their sums need
  CmvmCounts counts;     // the rebuilt groups' adder graphs', summed (depth: the deepest)
  int64_t replaced = 0;  // adders (and products' adders) the rebuilt sums took before
  SharedSums& operator+=(const SharedSums& o) {
    roots += o.roots;
    problems += o.problems;
    solved += o.solved;
    deeper += o.deeper;
    counts += o.counts;
    replaced += o.replaced;
    return *this;
  }
};

// Rebuilds `g`'s linear roots from shared adder graphs where that takes
// fewer adders.
SharedSums share_constant_sums(dfg::Graph& g, const ShareOptions& options = {});

// The key of a problem in a CmvmMemo.
std::string cmvm_key(const CmvmProblem& problem);

}  // namespace kiln::rtl

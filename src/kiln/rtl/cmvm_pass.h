// Constant matrix products in a stage's graph (issue 27, work in progress):
// the values that are sums of products of other values by constants (a fully
// unrolled Dense or convolution layer's accumulators) are found as linear
// forms over their leaves, planned together as one constant matrix product
// (rtl/cmvm.h) and rebuilt from its shared adder graph.
//
// A node is linear over its leaves when it is a constant, a shift, a negation,
// a product by a constant, or an exact or modular sum of linear nodes; every
// other node is a leaf of the nodes that use it (so is a modular sum where an
// exact operation uses it). A root is a linear node some user takes as a leaf,
// or an output. Roots rebuilt: raw(root) = sum of c_i raw(leaf_i) + constant,
// wrapped to the root's type when the root is a modular sum.
#pragma once

#include <optional>

#include "kiln/dfg/graph.h"
#include "kiln/rtl/cmvm.h"

namespace kiln::rtl {

struct SharedSums {
  int roots = 0;         // sums rebuilt
  CmvmCounts counts;     // the shared adder graph's
  int64_t replaced = 0;  // adders (and products' adders) the rebuilt sums took before
};

// Rebuilds `g`'s linear roots from one shared adder graph when that takes no
// more adders than they did; `max_depth` bounds its adder depth.
SharedSums share_constant_sums(dfg::Graph& g, std::optional<int> max_depth = std::nullopt);

}  // namespace kiln::rtl

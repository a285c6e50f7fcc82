// Per-layer parameter and multiply-accumulate counts (for `kiln info`).
//
// params counts the elements of every constant input of the node (weights,
// biases, BN scale/bias/mean/var, PRelu slopes, but also constant Clip bounds,
// Gather indices or a constant addend), each distinct value once.
// macs counts only multiply-accumulates: Conv N*M*prod(out spatial)*(C/group)*prod(kernel),
// Gemm M*N*K (bias adds and alpha/beta scaling are not counted), MatMul
// batch*M*N*K. Every other op (BatchNormalization, pools, elementwise,
// activations, data movement) counts 0. Counts saturate at INT64_MAX.
#pragma once

#include <cstdint>

#include "kiln/graph/graph.h"

namespace kiln {

struct LayerStats {
  int64_t params = 0;  // elements of constant inputs (weights, biases, BN statistics)
  int64_t macs = 0;    // multiply-accumulates of one inference
};

// For Conv, Gemm and MatMul this runs shape inference on the node, so it throws
// what infer_node_types throws for an inconsistent node.
LayerStats layer_stats(const Graph& graph, const Node& node);

}  // namespace kiln

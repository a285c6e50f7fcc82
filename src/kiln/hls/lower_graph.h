// Structural lowering: a graph that has been through the HLS graph passes
// (passes/pipeline.h) becomes a layer model with its shapes, parameters and
// float constants, one layer per node, before any configuration. The layer
// passes (hls/layer_passes.h) then absorb port transposes, resolve the
// configuration, quantize and plan fan-out. docs/hls-layers.md lists the
// supported layers.
#pragma once

#include "kiln/graph/graph.h"
#include "kiln/hls/model.h"

namespace kiln::hls {

// One Input layer per graph input (ports with identity permutations), then
// one layer per node in order. Tensors are batch-free when every graph input
// has a leading dimension of 1. Precision, reuse factor and the other
// settings keep their defaults; constants are in float_weights/float_bias.
// Throws Unsupported naming the node for ops without an HLS layer (a table
// over every op kind in lower_graph.cpp) and for shapes the layers cannot take.
Model lower_graph(const Graph& graph);

}  // namespace kiln::hls

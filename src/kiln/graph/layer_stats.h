// Per-layer parameter and multiply-accumulate counts (for `kiln info`).
#pragma once

#include <cstdint>

#include "kiln/graph/graph.h"

namespace kiln {

struct LayerStats {
  int64_t params = 0;  // elements of constant inputs (weights, biases, BN statistics)
  int64_t macs = 0;    // multiply-accumulates of one inference
};

LayerStats layer_stats(const Graph& graph, const Node& node);

}  // namespace kiln

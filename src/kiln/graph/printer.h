// Human-readable text of a graph (for `kiln info --ir`, tests and debugging).
#pragma once

#include <string>

#include "kiln/graph/graph.h"

namespace kiln {

// One line per input, constant, node and output, e.g.
//   %conv1_out: float32[1x6x28x28] = Conv(%input, %w1, %b1) {kernel=5x5 ...}
std::string print_graph(const Graph& graph);

}  // namespace kiln

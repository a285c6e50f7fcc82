// Human-readable text of a graph (for `kiln info --ir`, tests and debugging).
#pragma once

#include <string>

#include "kiln/graph/graph.h"

namespace kiln {

// One line per input, constant, node and output, e.g.
//   %conv1_out: float32[1x6x28x28] = Conv(%input, %w1, %b1) {kernel=5x5 ...}
// In full: a header "graph NAME (opset N)", then "input %x: TYPE" per graph
// input, "const %w: TYPE" per constant in value order (with " = VALUES" when it
// has at most 8 elements), one line per node in order ending in "  # NODE"
// (its ONNX name, else its identifier), and "output %y: TYPE" per graph
// output. Omitted optional inputs/outputs print as "_". Deterministic.
std::string print_graph(const Graph& graph);

}  // namespace kiln

// The reference (golden) semantics of every op: one kernel per op kind.
#pragma once

#include <span>
#include <vector>

#include "kiln/graph/graph.h"

namespace kiln::ref {

// Computes the outputs of `node`. `inputs` is parallel to node.inputs
// (nullptr for omitted optional inputs); `output_types` is what shape
// inference gave for node.outputs. Returns one tensor per output.
std::vector<Tensor> evaluate_node(const Node& node, std::span<const Tensor* const> inputs,
                                  std::span<const TensorType> output_types);

}  // namespace kiln::ref

// Static shape and type inference for every op of the graph IR.
#pragma once

#include <vector>

#include "kiln/graph/graph.h"

namespace kiln {

// Output types of `node` (one per entry of node.outputs, including unused
// ones) from its input types and typed attributes. Reads constant input
// values where the op needs them. Throws InvalidModel naming the node when the
// inputs are inconsistent (ranks, broadcast, channel counts, out-of-range axes).
std::vector<TensorType> infer_node_types(const Graph& graph, const Node& node);

// Recomputes the type of every node output in topological order.
void infer_shapes(Graph& graph);

// Throws Internal naming the first node whose stored output types differ from
// what shape inference gives (pipelines run it after each pass).
void check_value_types(const Graph& graph, std::string_view after_pass);

// Multidirectional (numpy) broadcast of two shapes; throws InvalidModel with `where`.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& where);

// Output length of one spatial dim of a conv/pool window.
int64_t window_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_begin,
                           int64_t pad_end, int64_t dilation, bool ceil_mode);

}  // namespace kiln

// Helpers for tests of the graph IR and its passes (kiln_graph_testing).
#pragma once

#include <cstddef>

#include "kiln/graph/graph.h"

namespace kiln::testing {

// The node at `position` in the order; O(position), which tests can afford.
inline const Node& node_at(const Graph& g, std::size_t position) {
  NodeId id = g.first_node();
  for (std::size_t i = 0; i < position; ++i) id = g.next_node(id);
  return g.node(id);
}
inline Node& node_at(Graph& g, std::size_t position) {
  return const_cast<Node&>(node_at(static_cast<const Graph&>(g), position));
}

}  // namespace kiln::testing

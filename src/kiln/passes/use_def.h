// Use-def information and small rewrite helpers shared by the passes.
#pragma once

#include <string>
#include <vector>

#include "kiln/graph/graph.h"

namespace kiln::passes {

// Producers and consumers of every value of a graph, for the node list as it
// was at construction (rebuild after changing the graph).
class UseDef {
 public:
  explicit UseDef(const Graph& graph);

  // Index of the node producing `v`, or -1 (graph input, constant, unset).
  int producer(ValueId v) const;
  // Indices of the nodes reading `v`, once per input slot that reads it.
  const std::vector<int>& consumers(ValueId v) const;
  bool is_graph_output(ValueId v) const;
  // True if exactly one node input reads `v` and it is not a graph output.
  bool single_use(ValueId v) const;
  // True if no node reads `v` and it is not a graph output.
  bool unused(ValueId v) const;

 private:
  std::vector<int> producer_;
  std::vector<std::vector<int>> consumers_;
  std::vector<int> output_count_;
};

// Makes every node input that reads `from` read `to` (graph outputs untouched).
void replace_uses(Graph& graph, ValueId from, ValueId to);

// Removes node `index`, which passes `in` through unchanged as `out` (same
// type): readers of `out` then read `in`. When `out` is a graph output the
// producer of `in` is made to produce `out` instead, so graph outputs keep
// their values and names; if that is impossible (`in` is a graph input, a
// constant or itself a graph output) nothing changes and false is returned.
bool bypass_node(Graph& graph, std::size_t index, ValueId in, ValueId out);

// Removes one node by index.
void erase_node(Graph& graph, std::size_t index);

// Adds a constant made by kiln (no ONNX name) with an identifier based on `base`.
ValueId add_kiln_constant(Graph& graph, const std::string& base, Tensor tensor);
// Adds a non-constant value made by kiln.
ValueId add_kiln_value(Graph& graph, const std::string& base, TensorType type);

// Runs `rewrite` (which tries one rewrite and reports whether it made it)
// until it makes no more; returns true if it made any. Each call sees a fresh
// UseDef, so rewrites never act on stale use counts.
template <class Rewrite>
bool rewrite_to_fixpoint(Graph& graph, Rewrite&& rewrite) {
  bool changed = false;
  while (true) {
    const UseDef uses(graph);
    if (!rewrite(uses)) break;
    changed = true;
  }
  return changed;
}

}  // namespace kiln::passes

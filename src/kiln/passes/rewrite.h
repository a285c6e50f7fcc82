// Rewrite helpers shared by the graph passes: use queries on the graph's
// use-def index, node bypassing, kiln-made values, and a worklist that visits
// each node once plus the nodes a rewrite touched, so a pass runs in time
// linear in the graph.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "kiln/graph/graph.h"

namespace kiln::passes {

// True if exactly one node input reads `v` and it is not a graph output.
bool single_use(const Graph& graph, ValueId v);
// True if no node reads `v` and it is not a graph output.
bool unused(const Graph& graph, ValueId v);

// Removes node `id`, which passes `in` through unchanged as `out` (same
// type): readers of `out` then read `in`. When `out` is a graph output the
// producer of `in` is made to produce `out` instead, so graph outputs keep
// their values and names; if that is impossible (`in` is a graph input, a
// constant or itself a graph output) nothing changes and false is returned.
bool bypass_node(Graph& graph, NodeId id, ValueId in, ValueId out);

// Adds a constant made by kiln (no ONNX name) with an identifier based on `base`.
ValueId add_kiln_constant(Graph& graph, const std::string& base, Tensor tensor);
// Adds a non-constant value made by kiln.
ValueId add_kiln_value(Graph& graph, const std::string& base, TensorType type);

// The nodes still to visit, first in, first out; a node is queued at most once.
class Worklist {
 public:
  // Every live node of `graph`, in order.
  explicit Worklist(const Graph& graph);
  void push(NodeId id);
  // The producer of `v` and the nodes reading it.
  void push_neighbors(const Graph& graph, ValueId v);
  // False when empty. Skips nodes erased since they were queued.
  bool pop(const Graph& graph, NodeId& id);

 private:
  std::deque<NodeId> queue_;
  std::vector<bool> queued_;  // by NodeId
};

// Calls rewrite(id, worklist) for every node in order and for every node a
// rewrite pushes back, until the worklist is empty. A rewrite returns true if
// it changed the graph (and pushes the nodes whose rewrites it may have
// enabled). Returns true if any did.
template <class Rewrite>
bool rewrite_nodes(Graph& graph, Rewrite&& rewrite) {
  Worklist work(graph);
  bool changed = false;
  NodeId id;
  while (work.pop(graph, id))
    if (rewrite(id, work)) changed = true;
  return changed;
}

}  // namespace kiln::passes

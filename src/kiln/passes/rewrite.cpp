#include "kiln/passes/rewrite.h"

namespace kiln::passes {

bool single_use(const Graph& graph, ValueId v) {
  return graph.uses(v).size() == 1 && !graph.is_output(v);
}

bool unused(const Graph& graph, ValueId v) {
  return graph.uses(v).empty() && !graph.is_output(v);
}

bool bypass_node(Graph& graph, NodeId id, ValueId in, ValueId out) {
  if (!in.valid() || !out.valid() || graph.value(in).type != graph.value(out).type) return false;
  if (!graph.is_output(out)) {
    graph.replace_all_uses(out, in);
    graph.erase_node(id);
    return true;
  }
  const NodeId p = graph.producer(in);
  if (!p.valid() || graph.is_output(in)) return false;
  graph.erase_node(id);  // frees `out`'s producer
  const Node& prod = graph.node(p);
  for (std::size_t k = 0; k < prod.outputs.size(); ++k)
    if (prod.outputs[k] == in) graph.set_output(p, k, out);
  graph.replace_all_uses(in, out);
  return true;
}

ValueId add_kiln_constant(Graph& graph, const std::string& base, Tensor tensor) {
  const ValueId id = graph.add_constant(base, std::move(tensor));
  graph.value(id).onnx_name.clear();
  return id;
}

ValueId add_kiln_value(Graph& graph, const std::string& base, TensorType type) {
  const ValueId id = graph.add_value(base, std::move(type));
  graph.value(id).onnx_name.clear();
  return id;
}

Worklist::Worklist(const Graph& graph) {
  for (const Node& n : graph.nodes()) push(n.id());
}

void Worklist::push(NodeId id) {
  if (!id.valid()) return;
  const auto i = static_cast<std::size_t>(id.index);
  if (i >= queued_.size()) queued_.resize(i + 1, false);
  if (queued_[i]) return;
  queued_[i] = true;
  queue_.push_back(id);
}

void Worklist::push_neighbors(const Graph& graph, ValueId v) {
  push(graph.producer(v));
  for (const Use& u : graph.uses(v)) push(u.node);
}

bool Worklist::pop(const Graph& graph, NodeId& id) {
  while (!queue_.empty()) {
    id = queue_.front();
    queue_.pop_front();
    queued_[static_cast<std::size_t>(id.index)] = false;
    if (graph.alive(id)) return true;
  }
  return false;
}

}  // namespace kiln::passes

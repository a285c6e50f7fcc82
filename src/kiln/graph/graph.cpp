#include "kiln/graph/graph.h"

#include <string>

namespace kiln {

std::string Node::describe() const {
  return std::string(op_name(kind)) + " '" + (onnx_name.empty() ? name : onnx_name) + "'";
}

ValueId Graph::add_value(const std::string& onnx_name, TensorType type) {
  Value v;
  v.onnx_name = onnx_name;
  v.name = names_.unique(onnx_name.empty() ? "v" : onnx_name, "v");
  v.type = std::move(type);
  values_.push_back(std::move(v));
  return ValueId{static_cast<int32_t>(values_.size() - 1)};
}

ValueId Graph::add_constant(const std::string& onnx_name, Tensor tensor) {
  ValueId id = add_value(onnx_name, tensor.type());
  values_.back().constant = std::make_shared<const Tensor>(std::move(tensor));
  return id;
}

Node& Graph::add_node(OpKind kind, const std::string& onnx_name, std::vector<ValueId> inputs,
                      std::vector<ValueId> outputs, Attrs attrs) {
  Node n;
  n.kind = kind;
  n.onnx_name = onnx_name;
  n.name = names_.unique(onnx_name.empty() ? std::string(op_name(kind)) : onnx_name, "n");
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attrs = std::move(attrs);
  nodes_.push_back(std::move(n));
  return nodes_.back();
}

Value& Graph::value(ValueId id) {
  KILN_ASSERT(id.index >= 0 && static_cast<std::size_t>(id.index) < values_.size(),
              "value id out of range");
  return values_[static_cast<std::size_t>(id.index)];
}

const Value& Graph::value(ValueId id) const {
  KILN_ASSERT(id.index >= 0 && static_cast<std::size_t>(id.index) < values_.size(),
              "value id out of range");
  return values_[static_cast<std::size_t>(id.index)];
}

const Tensor* Graph::constant(ValueId id) const {
  if (!id.valid()) return nullptr;
  return value(id).constant.get();
}

int Graph::producer(ValueId id) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    for (ValueId o : nodes_[i].outputs)
      if (o == id) return static_cast<int>(i);
  return -1;
}

void Graph::topological_sort() {
  const std::size_t n = nodes_.size();
  std::vector<int> producer_of(values_.size(), -1);
  for (std::size_t i = 0; i < n; ++i)
    for (ValueId o : nodes_[i].outputs)
      if (o.valid()) producer_of[static_cast<std::size_t>(o.index)] = static_cast<int>(i);

  // Kahn's algorithm, stable: among ready nodes the earliest in the old order goes first.
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (std::size_t i = 0; i < n; ++i)
    for (ValueId in : nodes_[i].inputs) {
      if (!in.valid()) continue;
      const int p = producer_of[static_cast<std::size_t>(in.index)];
      if (p >= 0) {
        ++pending[i];
        users[static_cast<std::size_t>(p)].push_back(static_cast<int>(i));
      }
    }
  std::vector<int> order;
  order.reserve(n);
  std::vector<bool> done(n, false);
  // O(n^2) worst case is fine for graphs of thousands of nodes; keeps order stable.
  std::size_t scan_from = 0;
  while (order.size() < n) {
    bool progressed = false;
    for (std::size_t i = scan_from; i < n; ++i) {
      if (done[i] || pending[i] != 0) continue;
      done[i] = true;
      order.push_back(static_cast<int>(i));
      for (int u : users[i]) --pending[static_cast<std::size_t>(u)];
      progressed = true;
      break;
    }
    if (!progressed) {
      // Every unfinished node waits for an unfinished producer. Following those
      // waits from any of them must revisit a node, and that node is on a cycle
      // (the first unfinished node may merely sit downstream of one).
      std::size_t i = 0;
      while (done[i]) ++i;
      std::vector<bool> visited(n, false);
      while (!visited[i]) {
        visited[i] = true;
        for (ValueId in : nodes_[i].inputs) {
          if (!in.valid()) continue;
          const int p = producer_of[static_cast<std::size_t>(in.index)];
          if (p >= 0 && !done[static_cast<std::size_t>(p)]) {
            i = static_cast<std::size_t>(p);
            break;
          }
        }
      }
      throw_error(ErrorKind::InvalidModel, "node " + nodes_[i].describe(),
                  "the graph has a cycle through this node",
                  "ONNX graphs must be acyclic; re-export the model");
    }
    while (scan_from < n && done[scan_from]) ++scan_from;
  }
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (int i : order) sorted.push_back(std::move(nodes_[static_cast<std::size_t>(i)]));
  nodes_ = std::move(sorted);
}

void Graph::verify() const {
  std::vector<bool> defined(values_.size(), false);
  for (std::size_t i = 0; i < values_.size(); ++i)
    if (values_[i].constant) defined[i] = true;
  for (ValueId in : inputs) {
    KILN_ASSERT(in.valid() && !value(in).is_constant(), "graph input is invalid or constant");
    defined[static_cast<std::size_t>(in.index)] = true;
  }
  for (const Node& node : nodes_) {
    for (ValueId in : node.inputs)
      if (in.valid())
        KILN_ASSERT(defined[static_cast<std::size_t>(in.index)],
                    "input used before definition in " + node.describe());
    for (ValueId out : node.outputs) {
      if (!out.valid()) continue;
      KILN_ASSERT(!defined[static_cast<std::size_t>(out.index)],
                  "value defined twice by " + node.describe());
      defined[static_cast<std::size_t>(out.index)] = true;
    }
  }
  for (ValueId out : outputs)
    KILN_ASSERT(out.valid() && defined[static_cast<std::size_t>(out.index)],
                "graph output is never produced");
}

void Graph::erase_nodes(const std::vector<bool>& dead) {
  KILN_ASSERT(dead.size() == nodes_.size(), "erase_nodes: mask size mismatch");
  std::vector<Node> kept;
  kept.reserve(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (!dead[i]) kept.push_back(std::move(nodes_[i]));
  nodes_ = std::move(kept);
}

}  // namespace kiln

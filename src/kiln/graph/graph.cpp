#include "kiln/graph/graph.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>

namespace kiln {

namespace {
const std::vector<Use> kNoUses;

std::size_t at(int32_t i) {
  return static_cast<std::size_t>(i);
}
}  // namespace

Node::Node(OpKind k, std::vector<ValueId> in, std::vector<ValueId> out, Attrs a)
    : kind(k),
      inputs(std::move(in)),
      outputs(std::move(out)),
      attrs(a.index() == 0 ? default_attrs(k) : std::move(a)) {}

std::string Node::describe() const {
  return std::string(op_name(kind)) + " '" + (onnx_name.empty() ? name : onnx_name) + "'";
}

// ---- values -------------------------------------------------------------------

ValueId Graph::add_value(const std::string& onnx_name, TensorType type) {
  Value v;
  v.onnx_name = onnx_name;
  v.name = names_.unique(onnx_name.empty() ? "v" : onnx_name, "v");
  v.type = std::move(type);
  values_.push_back(std::move(v));
  producer_.push_back(kNoNode);
  uses_.emplace_back();
  return ValueId{static_cast<int32_t>(values_.size() - 1)};
}

ValueId Graph::add_constant(const std::string& onnx_name, Tensor tensor) {
  ValueId id = add_value(onnx_name, tensor.type());
  values_.back().constant = std::make_shared<const Tensor>(std::move(tensor));
  return id;
}

std::optional<ValueId> Graph::add_named_value(const std::string& name, const std::string& onnx_name,
                                              TensorType type) {
  if (!names_.claim(name)) return std::nullopt;
  Value v;
  v.onnx_name = onnx_name;
  v.name = name;
  v.type = std::move(type);
  values_.push_back(std::move(v));
  producer_.push_back(kNoNode);
  uses_.emplace_back();
  return ValueId{static_cast<int32_t>(values_.size() - 1)};
}

Value& Graph::value(ValueId id) {
  KILN_ASSERT(id.index >= 0 && at(id.index) < values_.size(), "value id out of range");
  return values_[at(id.index)];
}

const Value& Graph::value(ValueId id) const {
  KILN_ASSERT(id.index >= 0 && at(id.index) < values_.size(), "value id out of range");
  return values_[at(id.index)];
}

const Tensor* Graph::constant(ValueId id) const {
  if (!id.valid()) return nullptr;
  return value(id).constant.get();
}

// ---- nodes ----------------------------------------------------------------------

Node& Graph::add_node(OpKind kind, const std::string& onnx_name, std::vector<ValueId> inputs,
                      std::vector<ValueId> outputs, Attrs attrs) {
  return insert_node(kNoNode, kind, onnx_name, std::move(inputs), std::move(outputs),
                     std::move(attrs));
}

Node Graph::make_node(OpKind kind, const std::string& onnx_name, std::vector<ValueId> inputs,
                      std::vector<ValueId> outputs, Attrs attrs) {
  Node n;
  n.kind = kind;
  n.onnx_name = onnx_name;
  n.inputs.v_ = std::move(inputs);
  n.outputs.v_ = std::move(outputs);
  n.attrs = attrs.index() == 0 ? default_attrs(kind) : std::move(attrs);
  return n;
}

Node& Graph::insert_node(NodeId before, OpKind kind, const std::string& onnx_name,
                         std::vector<ValueId> inputs, std::vector<ValueId> outputs, Attrs attrs) {
  KILN_ASSERT(!before.valid() || alive(before), "insert_node before an erased node");
  Node n = make_node(kind, onnx_name, std::move(inputs), std::move(outputs), std::move(attrs));
  n.name = names_.unique(onnx_name.empty() ? std::string(op_name(kind)) : onnx_name, "n");
  return link(std::move(n), before.index);
}

Node* Graph::add_named_node(const std::string& name, OpKind kind, const std::string& onnx_name,
                            std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                            Attrs attrs) {
  if (!names_.claim(name)) return nullptr;
  Node n = make_node(kind, onnx_name, std::move(inputs), std::move(outputs), std::move(attrs));
  n.name = name;
  return &link(std::move(n), -1);
}

Node& Graph::link(Node n, int32_t before) {
  const auto id = static_cast<int32_t>(nodes_.size());
  n.id_ = NodeId{id};
  for (std::size_t s = 0; s < n.inputs.size(); ++s)
    if (n.inputs[s].valid()) add_use(n.inputs[s], Use{n.id_, static_cast<int32_t>(s)});
  for (ValueId o : n.outputs) {
    if (!o.valid()) continue;
    KILN_ASSERT(!producer_[at(o.index)].valid(),
                "value '" + value(o).name + "' already has a producer");
    producer_[at(o.index)] = n.id_;
  }
  nodes_.push_back(std::move(n));
  alive_.push_back(true);
  const int32_t prev = before < 0 ? tail_ : prev_[at(before)];
  next_.push_back(before);
  prev_.push_back(prev);
  if (prev < 0)
    head_ = id;
  else
    next_[at(prev)] = id;
  if (before < 0)
    tail_ = id;
  else
    prev_[at(before)] = id;
  ++live_;
  return nodes_.back();
}

void Graph::erase_node(NodeId id) {
  Node& n = node(id);
  for (std::size_t s = 0; s < n.inputs.size(); ++s)
    if (n.inputs[s].valid()) remove_use(n.inputs[s], Use{id, static_cast<int32_t>(s)});
  for (ValueId o : n.outputs)
    if (o.valid() && producer_[at(o.index)] == id) producer_[at(o.index)] = kNoNode;
  const int32_t p = prev_[at(id.index)], x = next_[at(id.index)];
  if (p < 0)
    head_ = x;
  else
    next_[at(p)] = x;
  if (x < 0)
    tail_ = p;
  else
    prev_[at(x)] = p;
  alive_[at(id.index)] = false;
  --live_;
  n = Node();  // frees the tombstone's strings, operands and attributes
  n.id_ = id;
}

bool Graph::alive(NodeId id) const {
  return id.index >= 0 && at(id.index) < nodes_.size() && alive_[at(id.index)];
}

Node& Graph::node(NodeId id) {
  KILN_ASSERT(alive(id), "node id out of range or erased");
  return nodes_[at(id.index)];
}

const Node& Graph::node(NodeId id) const {
  KILN_ASSERT(alive(id), "node id out of range or erased");
  return nodes_[at(id.index)];
}

std::vector<NodeId> Graph::node_ids() const {
  std::vector<NodeId> ids;
  ids.reserve(live_);
  for (int32_t i = head_; i >= 0; i = next_[at(i)]) ids.push_back(NodeId{i});
  return ids;
}

NodeId Graph::next_node(NodeId id) const {
  KILN_ASSERT(alive(id), "next_node of an erased node");
  return NodeId{next_[at(id.index)]};
}

NodeId Graph::prev_node(NodeId id) const {
  KILN_ASSERT(alive(id), "prev_node of an erased node");
  return NodeId{prev_[at(id.index)]};
}

// ---- operand edits ----------------------------------------------------------------

void Graph::add_use(ValueId v, Use u) {
  KILN_ASSERT(v.index >= 0 && at(v.index) < values_.size(), "operand value id out of range");
  uses_[at(v.index)].push_back(u);
}

void Graph::remove_use(ValueId v, Use u) {
  std::vector<Use>& list = uses_[at(v.index)];
  const auto it = std::find(list.begin(), list.end(), u);
  KILN_ASSERT(it != list.end(), "use-def index lost a use of '" + value(v).name + "'");
  *it = list.back();
  list.pop_back();
}

void Graph::set_input(NodeId id, std::size_t slot, ValueId v) {
  Node& n = node(id);
  KILN_ASSERT(slot < n.inputs.size(), "set_input: slot out of range");
  const ValueId old = n.inputs.v_[slot];
  if (old == v) return;
  const Use u{id, static_cast<int32_t>(slot)};
  if (old.valid()) remove_use(old, u);
  if (v.valid()) add_use(v, u);
  n.inputs.v_[slot] = v;
}

void Graph::set_inputs(NodeId id, std::vector<ValueId> inputs) {
  Node& n = node(id);
  for (std::size_t s = 0; s < n.inputs.size(); ++s)
    if (n.inputs[s].valid()) remove_use(n.inputs[s], Use{id, static_cast<int32_t>(s)});
  n.inputs.v_ = std::move(inputs);
  for (std::size_t s = 0; s < n.inputs.size(); ++s)
    if (n.inputs[s].valid()) add_use(n.inputs[s], Use{id, static_cast<int32_t>(s)});
}

void Graph::set_output(NodeId id, std::size_t slot, ValueId v) {
  Node& n = node(id);
  KILN_ASSERT(slot < n.outputs.size(), "set_output: slot out of range");
  const ValueId old = n.outputs.v_[slot];
  if (old == v) return;
  if (v.valid()) {
    KILN_ASSERT(!producer_[at(v.index)].valid(),
                "set_output: value '" + value(v).name + "' already has a producer");
    producer_[at(v.index)] = id;
  }
  if (old.valid() && producer_[at(old.index)] == id) producer_[at(old.index)] = kNoNode;
  n.outputs.v_[slot] = v;
}

void Graph::replace_all_uses(ValueId from, ValueId to) {
  if (from == to) return;
  std::vector<Use> moved = std::move(uses_[at(from.index)]);
  uses_[at(from.index)].clear();
  for (const Use& u : moved) {
    nodes_[at(u.node.index)].inputs.v_[at(u.slot)] = to;
    if (to.valid()) add_use(to, u);
  }
}

// ---- use-def ------------------------------------------------------------------------

NodeId Graph::producer(ValueId v) const {
  if (!v.valid() || at(v.index) >= producer_.size()) return kNoNode;
  return producer_[at(v.index)];
}

const std::vector<Use>& Graph::uses(ValueId v) const {
  if (!v.valid() || at(v.index) >= uses_.size()) return kNoUses;
  return uses_[at(v.index)];
}

bool Graph::is_output(ValueId v) const {
  return v.valid() && std::find(outputs.begin(), outputs.end(), v) != outputs.end();
}

bool Graph::is_input(ValueId v) const {
  return v.valid() && std::find(inputs.begin(), inputs.end(), v) != inputs.end();
}

// ---- order and invariants -----------------------------------------------------------

void Graph::topological_sort() {
  // Kahn's algorithm, stable: among ready nodes the earliest in the current
  // order goes first (a min-heap of positions), O(n log n).
  const std::vector<NodeId> order = node_ids();
  std::vector<int32_t> position(nodes_.size(), -1);
  for (std::size_t p = 0; p < order.size(); ++p)
    position[at(order[p].index)] = static_cast<int32_t>(p);
  std::vector<int32_t> pending(nodes_.size(), 0);
  for (NodeId id : order)
    for (ValueId in : nodes_[at(id.index)].inputs)
      if (in.valid() && producer(in).valid()) ++pending[at(id.index)];
  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<>> ready;
  for (NodeId id : order)
    if (pending[at(id.index)] == 0) ready.push(position[at(id.index)]);
  std::vector<NodeId> sorted;
  sorted.reserve(order.size());
  std::vector<bool> done(nodes_.size(), false);
  while (!ready.empty()) {
    const NodeId id = order[at(ready.top())];
    ready.pop();
    done[at(id.index)] = true;
    sorted.push_back(id);
    for (ValueId o : nodes_[at(id.index)].outputs) {
      if (!o.valid()) continue;
      for (const Use& u : uses(o))
        if (--pending[at(u.node.index)] == 0) ready.push(position[at(u.node.index)]);
    }
  }
  if (sorted.size() != order.size()) {
    // Every unfinished node waits for an unfinished producer. Following those
    // waits from any of them must revisit a node, and that node is on a cycle
    // (the first unfinished node may merely sit downstream of one).
    NodeId i = order.front();
    for (NodeId id : order)
      if (!done[at(id.index)]) {
        i = id;
        break;
      }
    std::vector<bool> visited(nodes_.size(), false);
    while (!visited[at(i.index)]) {
      visited[at(i.index)] = true;
      for (ValueId in : nodes_[at(i.index)].inputs) {
        const NodeId p = producer(in);
        if (p.valid() && !done[at(p.index)]) {
          i = p;
          break;
        }
      }
    }
    throw_error(ErrorKind::InvalidModel, "node " + nodes_[at(i.index)].describe(),
                "the graph has a cycle through this node",
                "ONNX graphs must be acyclic; re-export the model");
  }
  // Relink in sorted order.
  head_ = tail_ = -1;
  for (NodeId id : sorted) {
    const int32_t i = id.index;
    prev_[at(i)] = tail_;
    next_[at(i)] = -1;
    if (tail_ < 0)
      head_ = i;
    else
      next_[at(tail_)] = i;
    tail_ = i;
  }
}

void Graph::verify() const {
  std::vector<bool> defined(values_.size(), false);
  for (std::size_t i = 0; i < values_.size(); ++i)
    if (values_[i].constant) defined[i] = true;
  for (ValueId in : inputs) {
    KILN_ASSERT(in.valid() && at(in.index) < values_.size() && !value(in).is_constant(),
                "graph input is invalid or constant");
    defined[at(in.index)] = true;
  }
  std::size_t count = 0, use_count = 0;
  int32_t prev = -1;
  for (int32_t i = head_; i >= 0; i = next_[at(i)]) {
    KILN_ASSERT(alive_[at(i)] && prev_[at(i)] == prev, "node order links are broken");
    prev = i;
    ++count;
    const Node& node = nodes_[at(i)];
    KILN_ASSERT(node.attrs.index() == attrs_index(node.kind),
                node.describe() + " carries attributes of another op kind");
    for (std::size_t s = 0; s < node.inputs.size(); ++s) {
      const ValueId in = node.inputs[s];
      if (!in.valid()) continue;
      KILN_ASSERT(at(in.index) < values_.size(), "input id out of range in " + node.describe());
      KILN_ASSERT(defined[at(in.index)], "input used before definition in " + node.describe());
      ++use_count;
    }
    for (ValueId out : node.outputs) {
      if (!out.valid()) continue;
      KILN_ASSERT(at(out.index) < values_.size(), "output id out of range in " + node.describe());
      KILN_ASSERT(!defined[at(out.index)], "value defined twice by " + node.describe());
      KILN_ASSERT(producer_[at(out.index)] == node.id_,
                  "use-def index has another producer for an output of " + node.describe());
      defined[at(out.index)] = true;
    }
  }
  KILN_ASSERT(tail_ == prev && count == live_, "node order links are broken");
  // Every indexed use names a live node's input slot that reads the value,
  // each slot once, and there are as many as there are operands.
  std::vector<std::size_t> slot_base(nodes_.size() + 1, 0);
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    slot_base[i + 1] = slot_base[i] + nodes_[i].inputs.size();
  std::vector<bool> slot_seen(slot_base.back(), false);
  std::size_t indexed_uses = 0;
  for (std::size_t v = 0; v < uses_.size(); ++v)
    for (const Use& u : uses_[v]) {
      KILN_ASSERT(alive(u.node) && at(u.slot) < nodes_[at(u.node.index)].inputs.size() &&
                      nodes_[at(u.node.index)].inputs[at(u.slot)].index == static_cast<int32_t>(v),
                  "use-def index lists a use of '" + values_[v].name + "' that does not read it");
      const std::size_t k = slot_base[at(u.node.index)] + at(u.slot);
      KILN_ASSERT(!slot_seen[k], "use-def index lists a use of '" + values_[v].name + "' twice");
      slot_seen[k] = true;
      ++indexed_uses;
    }
  KILN_ASSERT(indexed_uses == use_count, "use-def index misses a node input");
  for (std::size_t v = 0; v < producer_.size(); ++v) {
    if (!producer_[v].valid()) continue;
    KILN_ASSERT(alive(producer_[v]),
                "use-def index names an erased producer of '" + values_[v].name + "'");
    const ValueList& outs = nodes_[at(producer_[v].index)].outputs;
    KILN_ASSERT(
        std::find(outs.begin(), outs.end(), ValueId{static_cast<int32_t>(v)}) != outs.end(),
        "use-def index names a producer of '" + values_[v].name + "' that does not make it");
  }
  for (ValueId out : outputs)
    KILN_ASSERT(out.valid() && at(out.index) < values_.size() && defined[at(out.index)],
                "graph output is never produced");
}

}  // namespace kiln

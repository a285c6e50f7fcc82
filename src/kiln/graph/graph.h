// The graph IR: values (typed tensors) and nodes (typed ops), in topological order.
//
// Nodes have stable handles (NodeId): adding or erasing a node never moves
// another, so passes keep handles across rewrites. The graph keeps its own
// use-def index up to date as it changes (the producer and the uses of every
// value), which is why a node's operands are read-only outside Graph:
// set_input, set_output and replace_all_uses edit them and their index
// entries together, in time proportional to the edit, not to the graph.
#pragma once

#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/graph/ops.h"
#include "kiln/graph/tensor.h"
#include "kiln/support/names.h"
#include "kiln/support/pass.h"

namespace kiln {

struct ValueId {
  int32_t index = -1;
  bool valid() const { return index >= 0; }
  bool operator==(const ValueId&) const = default;
};
inline constexpr ValueId kNoValue{};

struct NodeId {
  int32_t index = -1;
  bool valid() const { return index >= 0; }
  bool operator==(const NodeId&) const = default;
};
inline constexpr NodeId kNoNode{};

// Input `slot` of node `node` reads the value.
struct Use {
  NodeId node;
  int32_t slot = 0;
  bool operator==(const Use&) const = default;
};

struct Value {
  std::string onnx_name;  // as in the model (empty for values kiln made)
  std::string name;       // unique C/Verilog identifier
  TensorType type;
  // Set for initializers and folded values. Shared so copies of a graph and the
  // interpreter do not duplicate weights.
  std::shared_ptr<const Tensor> constant;
  bool is_constant() const { return constant != nullptr; }
};

// A node's operands: readable like a vector, changed only through Graph (so
// assigning one is private to Graph and Node).
class ValueList {
 public:
  ValueList() = default;
  explicit ValueList(std::vector<ValueId> v) : v_(std::move(v)) {}
  ValueList(const ValueList&) = default;
  ValueList(ValueList&&) = default;

  std::size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  ValueId operator[](std::size_t i) const { return v_[i]; }
  ValueId at(std::size_t i) const { return v_.at(i); }
  ValueId front() const { return v_.front(); }
  ValueId back() const { return v_.back(); }
  auto begin() const { return v_.begin(); }
  auto end() const { return v_.end(); }
  const std::vector<ValueId>& vector() const { return v_; }
  bool operator==(const ValueList&) const = default;

 private:
  friend class Graph;
  friend struct Node;
  ValueList& operator=(const ValueList&) = default;
  ValueList& operator=(ValueList&&) = default;
  std::vector<ValueId> v_;
};

struct Node {
  Node() = default;
  // A node outside any graph (tests evaluate single nodes); a graph makes its
  // own with Graph::add_node.
  Node(OpKind kind, std::vector<ValueId> inputs, std::vector<ValueId> outputs, Attrs attrs = {});

  OpKind kind = OpKind::Identity;
  std::string onnx_name;  // node name in the model (may be empty)
  std::string name;       // unique C/Verilog identifier
  ValueList inputs;       // kNoValue marks an omitted optional input
  ValueList outputs;      // kNoValue marks an output the model does not use
  Attrs attrs;            // always the attribute struct of `kind` (KILN_OPS)

  NodeId id() const { return id_; }

  template <class A>
  const A& attr() const {
    const A* a = std::get_if<A>(&attrs);
    KILN_ASSERT(a != nullptr, std::string("node has no such attributes: ") + name);
    return *a;
  }
  template <class A>
  A& attr() {
    A* a = std::get_if<A>(&attrs);
    KILN_ASSERT(a != nullptr, std::string("node has no such attributes: ") + name);
    return *a;
  }
  // "Conv 'conv1'": how errors and listings name a node.
  std::string describe() const;

 private:
  friend class Graph;
  NodeId id_;
};

class Graph {
 public:
  std::string name;
  int64_t opset = 0;  // default-domain opset the model was imported from

  std::vector<ValueId> inputs;   // runtime inputs, in model order (never constants)
  std::vector<ValueId> outputs;  // in model order

  // ---- values
  // Adds a value with a fresh unique identifier derived from `onnx_name`.
  ValueId add_value(const std::string& onnx_name, TensorType type);
  ValueId add_constant(const std::string& onnx_name, Tensor tensor);
  // Adds a value whose identifier is exactly `name` (the IR text parser);
  // nullopt if `name` is taken or not an identifier.
  std::optional<ValueId> add_named_value(const std::string& name, const std::string& onnx_name,
                                         TensorType type);
  Value& value(ValueId id);
  const Value& value(ValueId id) const;
  std::size_t num_values() const { return values_.size(); }
  // The constant tensor of a value, or nullptr.
  const Tensor* constant(ValueId id) const;

  // ---- nodes
  // Adds a node at the end of the order (call topological_sort() if that
  // breaks it), or before `before`. Missing attributes (NoAttrs) become the
  // kind's defaults. Output values must not have a producer yet.
  Node& add_node(OpKind kind, const std::string& onnx_name, std::vector<ValueId> inputs,
                 std::vector<ValueId> outputs, Attrs attrs = {});
  Node& insert_node(NodeId before, OpKind kind, const std::string& onnx_name,
                    std::vector<ValueId> inputs, std::vector<ValueId> outputs, Attrs attrs = {});
  // Adds a node at the end whose identifier is exactly `name` (the IR text
  // parser); nullptr if `name` is taken or not an identifier.
  Node* add_named_node(const std::string& name, OpKind kind, const std::string& onnx_name,
                       std::vector<ValueId> inputs, std::vector<ValueId> outputs, Attrs attrs = {});
  // Removes a node; its outputs lose their producer (verify() fails while
  // they are still read).
  void erase_node(NodeId id);
  Node& node(NodeId id);
  const Node& node(NodeId id) const;
  bool alive(NodeId id) const;

  // Live nodes in topological order.
  template <class G, class N>
  class NodeIterator {
   public:
    using value_type = Node;
    using difference_type = std::ptrdiff_t;
    using reference = N&;
    NodeIterator() = default;
    NodeIterator(G* g, int32_t i) : g_(g), i_(i) {}
    N& operator*() const { return g_->nodes_[static_cast<std::size_t>(i_)]; }
    N* operator->() const { return &**this; }
    NodeIterator& operator++() {
      i_ = g_->next_[static_cast<std::size_t>(i_)];
      return *this;
    }
    NodeIterator operator++(int) {
      NodeIterator t = *this;
      ++*this;
      return t;
    }
    bool operator==(const NodeIterator& o) const { return i_ == o.i_; }

   private:
    G* g_ = nullptr;
    int32_t i_ = -1;
  };
  template <class G, class N>
  class NodeRange {
   public:
    explicit NodeRange(G* g) : g_(g) {}
    NodeIterator<G, N> begin() const { return {g_, g_->head_}; }
    NodeIterator<G, N> end() const { return {g_, -1}; }
    std::size_t size() const { return g_->live_; }
    bool empty() const { return g_->live_ == 0; }

   private:
    G* g_;
  };
  NodeRange<Graph, Node> nodes() { return NodeRange<Graph, Node>(this); }
  NodeRange<const Graph, const Node> nodes() const {
    return NodeRange<const Graph, const Node>(this);
  }
  std::size_t num_nodes() const { return live_; }
  // Every NodeId index is below this (for tables indexed by NodeId).
  std::size_t node_id_bound() const { return nodes_.size(); }
  // Handles of the live nodes in order (a snapshot to iterate while editing).
  std::vector<NodeId> node_ids() const;
  NodeId first_node() const { return NodeId{head_}; }
  NodeId next_node(NodeId id) const;  // kNoNode after the last
  NodeId prev_node(NodeId id) const;  // kNoNode before the first

  // ---- operand edits (they keep the use-def index right)
  void set_input(NodeId id, std::size_t slot, ValueId v);
  void set_inputs(NodeId id, std::vector<ValueId> inputs);
  // `v` must not be produced by another node.
  void set_output(NodeId id, std::size_t slot, ValueId v);
  // Every node input that reads `from` reads `to` (graph outputs untouched).
  void replace_all_uses(ValueId from, ValueId to);

  // ---- use-def
  // The node producing `v`, or kNoNode for graph inputs, constants and unset values.
  NodeId producer(ValueId v) const;
  // The node inputs reading `v` (once per input slot).
  const std::vector<Use>& uses(ValueId v) const;
  bool is_output(ValueId v) const;
  bool is_input(ValueId v) const;

  // Reorders nodes so every input is produced before use, keeping the current
  // order where it already is (stable); throws InvalidModel naming a node on
  // the cycle if there is one.
  void topological_sort();
  // Checks the invariants: ids in range, one producer per value, inputs
  // defined before use, outputs produced, attributes of the kind's type, and
  // a use-def index that matches the operands. Throws Internal on violation.
  void verify() const;

  NameTable& names() { return names_; }

 private:
  Node& link(Node n, int32_t before);
  static Node make_node(OpKind kind, const std::string& onnx_name, std::vector<ValueId> inputs,
                        std::vector<ValueId> outputs, Attrs attrs);
  void add_use(ValueId v, Use u);
  void remove_use(ValueId v, Use u);

  std::vector<Value> values_;
  std::vector<Node> nodes_;  // arena indexed by NodeId; erased nodes stay as tombstones
  std::vector<bool> alive_;
  std::vector<int32_t> next_, prev_;  // the order, a doubly linked list over the arena
  int32_t head_ = -1, tail_ = -1;
  std::size_t live_ = 0;
  std::vector<NodeId> producer_;        // per value
  std::vector<std::vector<Use>> uses_;  // per value
  NameTable names_;
};

// The graph IR in pass pipelines (support/pass.h): verified with
// Graph::verify and a re-run of shape inference on every node.
template <>
struct IrTraits<Graph> {
  static constexpr std::string_view kName = "graph IR";
  static void verify(const Graph& graph, std::string_view after_pass);
  static std::string print(const Graph& graph);
};

}  // namespace kiln

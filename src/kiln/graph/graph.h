// The graph IR: values (typed tensors) and nodes (typed ops), in topological order.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/graph/ops.h"
#include "kiln/graph/tensor.h"
#include "kiln/support/names.h"

namespace kiln {

struct ValueId {
  int32_t index = -1;
  bool valid() const { return index >= 0; }
  bool operator==(const ValueId&) const = default;
};
inline constexpr ValueId kNoValue{};

struct Value {
  std::string onnx_name;  // as in the model (may be empty for values kiln made)
  std::string name;       // unique C/Verilog identifier
  TensorType type;
  // Set for initializers and folded values. Shared so copies of a graph and the
  // interpreter do not duplicate weights.
  std::shared_ptr<const Tensor> constant;
  bool is_constant() const { return constant != nullptr; }
};

struct Node {
  OpKind kind = OpKind::Identity;
  std::string onnx_name;         // node name in the model (may be empty)
  std::string name;              // unique C/Verilog identifier
  std::vector<ValueId> inputs;   // kNoValue marks an omitted optional input
  std::vector<ValueId> outputs;  // kNoValue marks an output the model does not use
  Attrs attrs;

  template <class A>
  const A& attr() const {
    const A* a = std::get_if<A>(&attrs);
    KILN_ASSERT(a != nullptr, std::string("node has no such attributes: ") + name);
    return *a;
  }
  // "Conv 'conv1'": how errors and listings name a node.
  std::string describe() const;
};

class Graph {
 public:
  std::string name;
  int64_t opset = 0;  // default-domain opset the model was imported from

  // Adds a value with a fresh unique identifier derived from `onnx_name`.
  ValueId add_value(const std::string& onnx_name, TensorType type);
  ValueId add_constant(const std::string& onnx_name, Tensor tensor);
  // Adds a node at the end of the node list; call topological_sort() if that breaks the order.
  Node& add_node(OpKind kind, const std::string& onnx_name, std::vector<ValueId> inputs,
                 std::vector<ValueId> outputs, Attrs attrs = {});

  Value& value(ValueId id);
  const Value& value(ValueId id) const;
  std::size_t num_values() const { return values_.size(); }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& nodes() { return nodes_; }

  // The constant tensor of a value, or nullptr.
  const Tensor* constant(ValueId id) const;
  // Index of the node producing `id`, or -1 for graph inputs and constants.
  int producer(ValueId id) const;

  std::vector<ValueId> inputs;   // runtime inputs, in model order (never constants)
  std::vector<ValueId> outputs;  // in model order

  // Reorders nodes so every input is produced before use; throws InvalidModel
  // naming a node on the cycle if there is one.
  void topological_sort();
  // Checks structural invariants (ids in range, single producer, inputs
  // defined before use, outputs produced). Throws Internal on violation.
  void verify() const;
  // Removes nodes flagged in `dead` (same length as nodes()).
  void erase_nodes(const std::vector<bool>& dead);

  NameTable& names() { return names_; }

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  NameTable names_;
};

}  // namespace kiln

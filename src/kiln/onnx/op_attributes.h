// ONNX NodeProto attributes and constant inputs -> kiln's canonical typed Attrs.
//
// Each ONNX op has several versions whose parameters moved between attributes
// and inputs (Slice, Pad, Squeeze, Clip, ReduceSum, ...) or changed defaults
// (Softmax axis). lower_node() turns one node, at the model's opset, into the
// canonical form of graph/ops.h: one OpKind, one attribute struct, and only the
// data inputs. Private to the importer.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kiln/graph/graph.h"

namespace kiln::onnx_import {

// Typed access to a node's attributes; a present attribute of the wrong type
// is an InvalidModel error naming the node.
class AttrReader {
 public:
  AttrReader(const ::onnx::NodeProto& node, std::string where)
      : node_(node), where_(std::move(where)) {}

  bool has(const std::string& name) const { return find(name) != nullptr; }
  std::optional<int64_t> get_int(const std::string& name) const;
  std::optional<float> get_float(const std::string& name) const;
  std::optional<std::string> get_string(const std::string& name) const;
  std::optional<std::vector<int64_t>> get_ints(const std::string& name) const;
  std::optional<std::vector<float>> get_floats(const std::string& name) const;
  std::optional<std::vector<std::string>> get_strings(const std::string& name) const;
  const ::onnx::TensorProto* get_tensor(const std::string& name) const;

  int64_t int_or(const std::string& name, int64_t fallback) const {
    return get_int(name).value_or(fallback);
  }
  float float_or(const std::string& name, float fallback) const {
    return get_float(name).value_or(fallback);
  }
  int64_t required_int(const std::string& name) const;
  std::vector<int64_t> required_ints(const std::string& name) const;

  const std::string& where() const { return where_; }
  const ::onnx::AttributeProto* find(const std::string& name) const;

 private:
  [[noreturn]] void wrong_type(const ::onnx::AttributeProto& a, const char* expected) const;

  const ::onnx::NodeProto& node_;
  std::string where_;
};

// One ONNX node about to be lowered.
struct NodeContext {
  Graph& graph;
  const ::onnx::NodeProto& proto;
  OpKind kind;
  int64_t opset;                // the model's opset of the node's domain (the default
                                // domain's, QONNX's for its ops)
  std::vector<ValueId> inputs;  // parallel to proto.input(); kNoValue where omitted
  std::string where;            // how errors name the node: "Conv 'conv1'"
};

// The canonical form of a node: what the importer adds to the graph (or folds).
struct LoweredNode {
  OpKind kind = OpKind::Identity;
  Attrs attrs;
  std::vector<ValueId> inputs;  // data inputs only; parameters moved into attrs
};

// Builds the canonical attributes and data inputs of ctx.proto. May add
// constant values to ctx.graph (Clip bounds given as attributes, reshaped
// legacy-broadcast operands) and, for legacy broadcasting of a non-constant
// operand, a Reshape node. Throws InvalidModel for malformed attributes and
// Unsupported for valid features kiln lacks, both naming the node.
LoweredNode lower_node(const NodeContext& ctx);

// The tensor of an ONNX Constant node (value, value_float(s), value_int(s)).
Tensor constant_node_value(const ::onnx::NodeProto& node, const std::filesystem::path& base_dir,
                           const std::string& where);

// Numbers of a node's outputs with non-empty names (ONNX marks omitted optional
// outputs with ""), for checks such as "BatchNormalization in training mode".
int count_used_outputs(const ::onnx::NodeProto& node);

}  // namespace kiln::onnx_import

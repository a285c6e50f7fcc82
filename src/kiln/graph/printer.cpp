#include "kiln/graph/printer.h"

#include <cstdio>
#include <string>

namespace kiln {

namespace {

// Constants this small are printed with their values (Clip bounds, scalars).
constexpr int64_t kMaxPrintedElements = 8;

std::string ref(const Graph& graph, ValueId id) {
  return id.valid() ? "%" + graph.value(id).name : "_";
}

std::string typed_ref(const Graph& graph, ValueId id) {
  return id.valid() ? ref(graph, id) + ": " + graph.value(id).type.to_string() : "_";
}

std::string element_text(const Tensor& t, int64_t i) {
  if (t.dtype() == DType::Bool) return t.as_int64(i) ? "true" : "false";
  if (is_integer(t.dtype())) {
    // as_int64 would wrap uint64 values above INT64_MAX.
    if (t.dtype() == DType::UInt64) return std::to_string(t.data<uint64_t>()[i]);
    return std::to_string(t.as_int64(i));
  }
  char buf[32];
  // %.9g round-trips float32; doubles lose digits, which is fine for a listing.
  std::snprintf(buf, sizeof buf, "%.9g", t.as_double(i));
  return buf;
}

std::string values_text(const Tensor& t) {
  if (t.rank() == 0) return element_text(t, 0);
  std::string s = "[";
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (i) s += ", ";
    s += element_text(t, i);
  }
  return s + "]";
}

}  // namespace

std::string print_graph(const Graph& graph) {
  std::string out = "graph";
  if (!graph.name.empty()) out += " " + graph.name;
  out += " (opset " + std::to_string(graph.opset) + ")\n";

  for (ValueId in : graph.inputs) out += "input " + typed_ref(graph, in) + "\n";

  for (std::size_t i = 0; i < graph.num_values(); ++i) {
    const ValueId id{static_cast<int32_t>(i)};
    const Value& v = graph.value(id);
    if (!v.is_constant()) continue;
    out += "const " + typed_ref(graph, id);
    if (v.constant->numel() <= kMaxPrintedElements) out += " = " + values_text(*v.constant);
    out += "\n";
  }

  for (const Node& node : graph.nodes()) {
    std::string line;
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      if (i) line += ", ";
      line += typed_ref(graph, node.outputs[i]);
    }
    line += " = " + std::string(op_name(node.kind)) + "(";
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      if (i) line += ", ";
      line += ref(graph, node.inputs[i]);
    }
    line += ")";
    const std::string attrs = attrs_to_string(node.attrs);
    if (!attrs.empty()) line += " {" + attrs + "}";
    line += "  # " + (node.onnx_name.empty() ? node.name : node.onnx_name);
    out += line + "\n";
  }

  for (ValueId o : graph.outputs) out += "output " + typed_ref(graph, o) + "\n";
  return out;
}

}  // namespace kiln

#include "kiln/passes/use_def.h"

namespace kiln::passes {

namespace {
const std::vector<int> kNoConsumers;
}  // namespace

UseDef::UseDef(const Graph& graph)
    : producer_(graph.num_values(), -1),
      consumers_(graph.num_values()),
      output_count_(graph.num_values(), 0) {
  const auto& nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (ValueId o : nodes[i].outputs)
      if (o.valid()) producer_[static_cast<std::size_t>(o.index)] = static_cast<int>(i);
    for (ValueId in : nodes[i].inputs)
      if (in.valid()) consumers_[static_cast<std::size_t>(in.index)].push_back(static_cast<int>(i));
  }
  for (ValueId o : graph.outputs)
    if (o.valid()) ++output_count_[static_cast<std::size_t>(o.index)];
}

int UseDef::producer(ValueId v) const {
  return v.valid() && static_cast<std::size_t>(v.index) < producer_.size()
             ? producer_[static_cast<std::size_t>(v.index)]
             : -1;
}

const std::vector<int>& UseDef::consumers(ValueId v) const {
  return v.valid() && static_cast<std::size_t>(v.index) < consumers_.size()
             ? consumers_[static_cast<std::size_t>(v.index)]
             : kNoConsumers;
}

bool UseDef::is_graph_output(ValueId v) const {
  return v.valid() && static_cast<std::size_t>(v.index) < output_count_.size() &&
         output_count_[static_cast<std::size_t>(v.index)] > 0;
}

bool UseDef::single_use(ValueId v) const {
  return consumers(v).size() == 1 && !is_graph_output(v);
}

bool UseDef::unused(ValueId v) const {
  return consumers(v).empty() && !is_graph_output(v);
}

void replace_uses(Graph& graph, ValueId from, ValueId to) {
  for (Node& node : graph.nodes())
    for (ValueId& in : node.inputs)
      if (in == from) in = to;
}

void erase_node(Graph& graph, std::size_t index) {
  std::vector<bool> dead(graph.nodes().size(), false);
  dead[index] = true;
  graph.erase_nodes(dead);
}

bool bypass_node(Graph& graph, std::size_t index, ValueId in, ValueId out) {
  if (!in.valid() || !out.valid() || graph.value(in).type != graph.value(out).type) return false;
  const UseDef uses(graph);
  if (!uses.is_graph_output(out)) {
    replace_uses(graph, out, in);
    erase_node(graph, index);
    return true;
  }
  const int p = uses.producer(in);
  if (p < 0 || uses.is_graph_output(in)) return false;
  for (ValueId& o : graph.nodes()[static_cast<std::size_t>(p)].outputs)
    if (o == in) o = out;
  replace_uses(graph, in, out);
  erase_node(graph, index);
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

}  // namespace kiln::passes

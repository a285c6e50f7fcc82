#include "kiln/passes/gather_as_slice.h"

#include "kiln/passes/rewrite.h"

namespace kiln::passes {

bool GatherAsSlicePass::run(Graph& graph) {
  bool changed = false;
  for (NodeId id : graph.node_ids()) {
    const Node& n = graph.node(id);
    if (n.kind != OpKind::Gather || n.outputs.empty() || !n.outputs[0].valid()) continue;
    const Tensor* idx = graph.constant(n.inputs.at(1));
    if (idx == nullptr || idx->numel() != 1 || idx->shape().size() > 1) continue;
    const TensorType data = graph.value(n.inputs[0]).type;
    const auto rank = static_cast<int64_t>(data.shape.size());
    int64_t axis = n.attr<GatherAttrs>().axis;
    if (axis < 0) axis += rank;
    const auto ax = static_cast<std::size_t>(axis);
    int64_t at = idx->as_int64(0);
    if (at < 0) at += data.shape[ax];  // shape inference checked the range

    SliceAttrs s;
    s.starts.assign(data.shape.size(), 0);
    s.ends = data.shape;
    s.steps.assign(data.shape.size(), 1);
    s.starts[ax] = at;
    s.ends[ax] = at + 1;
    // The node becomes the Slice (keeping its name); its index input goes.
    const ValueId y = n.outputs[0];
    const std::string onnx_name = n.onnx_name;
    graph.set_inputs(id, {n.inputs[0]});
    graph.node(id).kind = OpKind::Slice;
    graph.node(id).attrs = s;
    if (idx->shape().empty()) {  // the axis disappears: a Reshape after the Slice
      TensorType sliced = data;
      sliced.shape[ax] = 1;
      const ValueId mid = add_kiln_value(graph, graph.value(y).name + "_slice", sliced);
      graph.set_output(id, 0, mid);
      graph.add_node(OpKind::Reshape, onnx_name + "/squeeze", {mid}, {y},
                     ReshapeAttrs{graph.value(y).type.shape});
    }
    changed = true;
  }
  if (changed) graph.topological_sort();
  return changed;
}

}  // namespace kiln::passes

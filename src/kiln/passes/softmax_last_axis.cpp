#include "kiln/passes/softmax_last_axis.h"

#include <numeric>

#include "kiln/passes/rewrite.h"

namespace kiln::passes {

bool SoftmaxLastAxisPass::run(Graph& graph) {
  bool changed = false;
  // The Transposes go at the end of the order; one sort afterwards places them.
  for (NodeId id : graph.node_ids()) {
    const Node& sm = graph.node(id);
    if ((sm.kind != OpKind::Softmax && sm.kind != OpKind::LogSoftmax) || sm.outputs.empty() ||
        !sm.outputs[0].valid())
      continue;
    const SoftmaxAttrs attrs = sm.attr<SoftmaxAttrs>();
    const ValueId x = sm.inputs[0];
    const ValueId y = sm.outputs[0];
    const TensorType type = graph.value(x).type;
    const int64_t rank = static_cast<int64_t>(type.shape.size());
    if (rank < 2 || attrs.coerce_2d || attrs.axis == rank - 1) continue;

    // perm moves `axis` to the end; inverse puts it back.
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d)
      if (d != attrs.axis) perm.push_back(d);
    perm.push_back(attrs.axis);
    std::vector<int64_t> inverse(perm.size());
    for (std::size_t d = 0; d < perm.size(); ++d) inverse[static_cast<std::size_t>(perm[d])] = d;
    TensorType moved = type;
    for (std::size_t d = 0; d < perm.size(); ++d)
      moved.shape[d] = type.shape[static_cast<std::size_t>(perm[d])];

    const std::string base = sm.name;
    const std::string onnx_name = sm.onnx_name;
    const ValueId xt = add_kiln_value(graph, base + "_in", moved);
    const ValueId yt = add_kiln_value(graph, base + "_out", moved);
    graph.set_input(id, 0, xt);
    graph.set_output(id, 0, yt);
    graph.node(id).attrs = SoftmaxAttrs{rank - 1, false};
    graph.add_node(OpKind::Transpose, onnx_name + "/to_last", {x}, {xt}, TransposeAttrs{perm});
    graph.add_node(OpKind::Transpose, onnx_name + "/from_last", {yt}, {y}, TransposeAttrs{inverse});
    changed = true;
  }
  if (changed) graph.topological_sort();
  return changed;
}

}  // namespace kiln::passes

#include "kiln/passes/global_pool.h"

#include <algorithm>

#include "kiln/passes/rewrite.h"

namespace kiln::passes {

bool GlobalPoolPass::run(Graph& graph) {
  return rewrite_nodes(graph, [&](NodeId id, Worklist&) {
    Node& n = graph.node(id);
    if (n.kind != OpKind::AveragePool && n.kind != OpKind::MaxPool) return false;
    // The Indices output of a MaxPool has no global form.
    if (n.outputs.size() > 1 && n.outputs[1].valid()) return false;
    const PoolAttrs& p = n.attr<PoolAttrs>();
    const std::vector<int64_t>& shape = graph.value(n.inputs[0]).type.shape;
    const std::size_t spatial = p.kernel_shape.size();
    if (spatial == 0 || shape.size() != spatial + 2) return false;
    const std::size_t first = p.channels_last ? 1 : 2;  // the first spatial axis
    for (std::size_t d = 0; d < spatial; ++d)
      if (p.kernel_shape[d] != shape[first + d]) return false;
    const auto ones = [](const std::vector<int64_t>& v) {
      return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
    };
    const auto zeros = [](const std::vector<int64_t>& v) {
      return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
    };
    if (!zeros(p.pads) || !ones(p.dilations)) return false;
    // One output pixel per channel whatever the strides and the ceil mode.
    const OpKind kind =
        n.kind == OpKind::AveragePool ? OpKind::GlobalAveragePool : OpKind::GlobalMaxPool;
    const GlobalPoolAttrs attrs{p.channels_last};
    if (n.outputs.size() == 1) {  // the node itself, its names kept
      n.kind = kind;
      n.attrs = attrs;
      return true;
    }
    // A MaxPool's unused Indices slot: a new node of one output.
    const std::string onnx_name = n.onnx_name;
    const ValueId in = n.inputs[0], out = n.outputs[0];
    const NodeId next = graph.next_node(id);
    graph.erase_node(id);
    if (next.valid())
      graph.insert_node(next, kind, onnx_name, {in}, {out}, attrs);
    else
      graph.add_node(kind, onnx_name, {in}, {out}, attrs);
    return true;
  });
}

}  // namespace kiln::passes

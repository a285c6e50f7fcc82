#include "kiln/passes/remove_identity.h"

#include "kiln/passes/rewrite.h"

namespace kiln::passes {

bool RemoveIdentityPass::run(Graph& graph) {
  return rewrite_nodes(graph, [&](NodeId id, Worklist&) {
    const Node& n = graph.node(id);
    if (n.kind != OpKind::Identity && n.kind != OpKind::Dropout) return false;
    if (n.inputs.empty() || n.outputs.empty() || !n.outputs[0].valid()) return false;
    // Dropout's mask output, when used, has no stand-in.
    for (std::size_t o = 1; o < n.outputs.size(); ++o)
      if (n.outputs[o].valid() && !unused(graph, n.outputs[o])) return false;
    return bypass_node(graph, id, n.inputs[0], n.outputs[0]);
  });
}

}  // namespace kiln::passes

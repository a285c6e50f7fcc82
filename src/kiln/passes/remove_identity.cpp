#include "kiln/passes/remove_identity.h"

#include "kiln/passes/use_def.h"

namespace kiln::passes {

bool RemoveIdentityPass::run(Graph& graph) {
  return rewrite_to_fixpoint(graph, [&](const UseDef& uses) {
    const auto& nodes = graph.nodes();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      if (n.kind != OpKind::Identity && n.kind != OpKind::Dropout) continue;
      if (n.inputs.empty() || n.outputs.empty()) continue;
      // Dropout's mask output, when used, has no stand-in.
      bool extra_used = false;
      for (std::size_t o = 1; o < n.outputs.size(); ++o)
        extra_used = extra_used || (n.outputs[o].valid() && !uses.unused(n.outputs[o]));
      if (extra_used) continue;
      if (!n.outputs[0].valid()) continue;
      if (bypass_node(graph, i, n.inputs[0], n.outputs[0])) return true;
    }
    return false;
  });
}

}  // namespace kiln::passes

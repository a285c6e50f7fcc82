#include "kiln/passes/simplify_layout.h"

#include "kiln/passes/use_def.h"

namespace kiln::passes {

namespace {

bool is_reshape_like(OpKind k) {
  return k == OpKind::Reshape || k == OpKind::Flatten || k == OpKind::Squeeze ||
         k == OpKind::Unsqueeze;
}

bool is_identity_perm(const std::vector<int64_t>& perm) {
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// One simplification at node i, if any applies.
bool simplify_at(Graph& g, const UseDef& uses, std::size_t i) {
  const Node& n = g.nodes()[i];
  if (n.inputs.size() != 1 || n.outputs.size() != 1 || !n.outputs[0].valid()) return false;
  const ValueId x = n.inputs[0], y = n.outputs[0];
  const int p = uses.producer(x);
  const Node* prev = p >= 0 ? &g.nodes()[static_cast<std::size_t>(p)] : nullptr;

  if (n.kind == OpKind::Transpose) {
    const auto& perm = n.attr<TransposeAttrs>().perm;
    if (is_identity_perm(perm)) return bypass_node(g, i, x, y);
    if (prev == nullptr || prev->kind != OpKind::Transpose) return false;
    // y[i] takes dim perm[i] of x, which took dim first[perm[i]] of x0.
    const auto& first = prev->attr<TransposeAttrs>().perm;
    std::vector<int64_t> composed;
    for (int64_t d : perm) composed.push_back(first[static_cast<std::size_t>(d)]);
    const ValueId x0 = prev->inputs[0];
    if (is_identity_perm(composed)) {
      if (bypass_node(g, i, x0, y)) return true;
      return false;
    }
    if (!uses.single_use(x)) return false;
    Node& t = g.nodes()[i];
    t.inputs[0] = x0;
    t.attrs = TransposeAttrs{composed};
    erase_node(g, static_cast<std::size_t>(p));
    return true;
  }

  if (is_reshape_like(n.kind)) {
    if (g.value(x).type == g.value(y).type) return bypass_node(g, i, x, y);
    if (prev == nullptr || !is_reshape_like(prev->kind) || prev->inputs.size() != 1) return false;
    const ValueId x0 = prev->inputs[0];
    if (g.value(x0).type == g.value(y).type && bypass_node(g, i, x0, y)) return true;
    if (!uses.single_use(x)) return false;
    Node& r = g.nodes()[i];
    r.kind = OpKind::Reshape;
    r.inputs[0] = x0;
    r.attrs = ReshapeAttrs{g.value(y).type.shape};
    erase_node(g, static_cast<std::size_t>(p));
    return true;
  }
  return false;
}

// Drops layout nodes whose output nobody reads (left over by the rewrites).
bool drop_dead_layout(Graph& g, const UseDef& uses) {
  for (std::size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.kind != OpKind::Transpose && !is_reshape_like(n.kind)) continue;
    if (n.outputs.size() == 1 && uses.unused(n.outputs[0])) {
      erase_node(g, i);
      return true;
    }
  }
  return false;
}

}  // namespace

bool SimplifyLayoutPass::run(Graph& graph) {
  return rewrite_to_fixpoint(graph, [&](const UseDef& uses) {
    for (std::size_t i = 0; i < graph.nodes().size(); ++i)
      if (simplify_at(graph, uses, i)) return true;
    return drop_dead_layout(graph, uses);
  });
}

}  // namespace kiln::passes

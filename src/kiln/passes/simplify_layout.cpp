#include "kiln/passes/simplify_layout.h"

#include "kiln/passes/rewrite.h"

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

// True if `perm` keeps the axes of `shape` longer than 1 in their order, so
// the transpose moves only size-1 axes and the data order is unchanged.
bool moves_only_unit_axes(const std::vector<int64_t>& perm, const Shape& shape) {
  int64_t last = -1;
  for (int64_t d : perm) {
    if (shape[static_cast<std::size_t>(d)] == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

// One simplification at node `id`, if any applies. Pushes the nodes whose
// simplifications the change may enable.
bool simplify_at(Graph& g, NodeId id, Worklist& work) {
  const Node& n = g.node(id);
  if (n.inputs.size() != 1 || n.outputs.size() != 1 || !n.outputs[0].valid()) return false;
  const ValueId x = n.inputs[0], y = n.outputs[0];
  const NodeId p = g.producer(x);
  const Node* prev = p.valid() ? &g.node(p) : nullptr;
  // After a bypass, readers of the surviving value and its producer may
  // simplify, and the producer of x may have lost its last reader.
  auto bypass = [&](ValueId in, ValueId out) {
    if (!bypass_node(g, id, in, out)) return false;
    work.push_neighbors(g, g.is_output(out) ? out : in);
    if (g.alive(p)) work.push(p);
    return true;
  };
  // After a merge, the merged node may merge again, and the old producer's
  // input may have lost a use.
  auto merged = [&](ValueId x0) {
    g.erase_node(p);
    work.push(id);
    work.push_neighbors(g, x0);
    return true;
  };
  if (n.kind == OpKind::Transpose) {
    const auto perm = n.attr<TransposeAttrs>().perm;
    if (is_identity_perm(perm)) return bypass(x, y);
    if (moves_only_unit_axes(perm, g.value(x).type.shape)) {  // a reshape in disguise
      Node& r = g.node(id);
      r.kind = OpKind::Reshape;
      r.attrs = ReshapeAttrs{g.value(y).type.shape};
      work.push(id);
      return true;
    }
    if (prev == nullptr || prev->kind != OpKind::Transpose) return false;
    // y[i] takes dim perm[i] of x, which took dim first[perm[i]] of x0.
    const auto& first = prev->attr<TransposeAttrs>().perm;
    std::vector<int64_t> composed;
    for (int64_t d : perm) composed.push_back(first[static_cast<std::size_t>(d)]);
    const ValueId x0 = prev->inputs[0];
    if (is_identity_perm(composed)) return bypass(x0, y);
    if (!single_use(g, x)) return false;
    g.set_input(id, 0, x0);
    g.node(id).attrs = TransposeAttrs{composed};
    return merged(x0);
  }
  if (is_reshape_like(n.kind)) {
    if (g.value(x).type == g.value(y).type) return bypass(x, y);
    if (prev == nullptr || !is_reshape_like(prev->kind) || prev->inputs.size() != 1) return false;
    const ValueId x0 = prev->inputs[0];
    if (g.value(x0).type == g.value(y).type && bypass(x0, y)) return true;
    if (!single_use(g, x)) return false;
    g.set_input(id, 0, x0);
    Node& r = g.node(id);
    r.kind = OpKind::Reshape;
    r.attrs = ReshapeAttrs{g.value(y).type.shape};
    return merged(x0);
  }
  return false;
}

// Drops a layout node whose output nobody reads (left over by the rewrites).
bool drop_if_dead(Graph& g, NodeId id, Worklist& work) {
  const Node& n = g.node(id);
  if (n.kind != OpKind::Transpose && !is_reshape_like(n.kind)) return false;
  if (n.outputs.size() != 1 || !unused(g, n.outputs[0])) return false;
  const ValueId x = n.inputs.empty() ? kNoValue : n.inputs[0];
  g.erase_node(id);
  if (x.valid()) work.push_neighbors(g, x);
  return true;
}

}  // namespace

bool SimplifyLayoutPass::run(Graph& graph) {
  return rewrite_nodes(graph, [&](NodeId id, Worklist& work) {
    return simplify_at(graph, id, work) || drop_if_dead(graph, id, work);
  });
}

}  // namespace kiln::passes

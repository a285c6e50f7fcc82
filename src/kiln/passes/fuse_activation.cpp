#include "kiln/passes/fuse_activation.h"

#include <limits>
#include <optional>

#include "kiln/passes/rewrite.h"

namespace kiln::passes {

namespace {

FusedActivation* activation_of(Node& n) {
  if (auto* c = std::get_if<ConvAttrs>(&n.attrs)) return &c->activation;
  if (auto* d = std::get_if<DenseAttrs>(&n.attrs)) return &d->activation;
  return nullptr;
}

// The fused form of an activation node, or nullopt if it has none.
std::optional<FusedActivation> fused_form(const Graph& g, const Node& n) {
  FusedActivation a;
  if (n.kind == OpKind::Relu) {
    a.kind = FusedActivation::Kind::Relu;
    return a;
  }
  if (n.kind == OpKind::LeakyRelu) {
    a.kind = FusedActivation::Kind::LeakyRelu;
    a.alpha = n.attr<LeakyReluAttrs>().alpha;
    return a;
  }
  if (n.kind == OpKind::Clip) {
    a.kind = FusedActivation::Kind::Clip;
    a.lo = -std::numeric_limits<float>::infinity();
    a.hi = std::numeric_limits<float>::infinity();
    for (std::size_t i = 1; i < 3; ++i) {
      if (i >= n.inputs.size() || !n.inputs[i].valid()) continue;
      const Tensor* t = g.constant(n.inputs[i]);
      if (t == nullptr || t->dtype() != DType::Float32 || t->numel() != 1) return std::nullopt;
      (i == 1 ? a.lo : a.hi) = t->data<float>()[0];
    }
    return a;
  }
  return std::nullopt;
}

}  // namespace

bool FuseActivationPass::run(Graph& graph) {
  return rewrite_nodes(graph, [&](NodeId id, Worklist&) {
    const Node& act = graph.node(id);
    if (act.inputs.empty() || act.outputs.empty() || !act.outputs[0].valid()) return false;
    const NodeId p = graph.producer(act.inputs[0]);
    if (!p.valid() || !single_use(graph, act.inputs[0])) return false;
    if (graph.value(act.inputs[0]).type.dtype != DType::Float32) return false;
    const std::optional<FusedActivation> fused = fused_form(graph, act);
    if (!fused) return false;
    FusedActivation* slot = activation_of(graph.node(p));
    if (slot == nullptr || slot->kind != FusedActivation::Kind::None) return false;
    *slot = *fused;
    const ValueId out = act.outputs[0];
    graph.erase_node(id);
    graph.set_output(p, 0, out);
    return true;
  });
}

}  // namespace kiln::passes

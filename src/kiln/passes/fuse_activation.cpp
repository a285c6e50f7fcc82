#include "kiln/passes/fuse_activation.h"

#include <limits>
#include <optional>

#include "kiln/passes/use_def.h"

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
  switch (n.kind) {
    case OpKind::Relu: a.kind = FusedActivation::Kind::Relu; return a;
    case OpKind::LeakyRelu:
      a.kind = FusedActivation::Kind::LeakyRelu;
      a.alpha = n.attr<LeakyReluAttrs>().alpha;
      return a;
    case OpKind::Clip: {
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
    default: return std::nullopt;
  }
}

}  // namespace

bool FuseActivationPass::run(Graph& graph) {
  return rewrite_to_fixpoint(graph, [&](const UseDef& uses) {
    for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
      const Node& act = graph.nodes()[i];
      if (act.inputs.empty() || act.outputs.empty() || !act.outputs[0].valid()) continue;
      const int p = uses.producer(act.inputs[0]);
      if (p < 0 || !uses.single_use(act.inputs[0])) continue;
      if (graph.value(act.inputs[0]).type.dtype != DType::Float32) continue;
      const std::optional<FusedActivation> fused = fused_form(graph, act);
      if (!fused) continue;
      Node& prod = graph.nodes()[static_cast<std::size_t>(p)];
      FusedActivation* slot = activation_of(prod);
      if (slot == nullptr || slot->kind != FusedActivation::Kind::None) continue;
      *slot = *fused;
      prod.outputs[0] = act.outputs[0];
      erase_node(graph, i);
      return true;
    }
    return false;
  });
}

}  // namespace kiln::passes

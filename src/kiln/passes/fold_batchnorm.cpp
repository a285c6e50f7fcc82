#include "kiln/passes/fold_batchnorm.h"

#include <cmath>

#include "kiln/passes/rewrite.h"

namespace kiln::passes {

namespace {

const FusedActivation* activation_of(const Node& n) {
  if (const auto* c = std::get_if<ConvAttrs>(&n.attrs)) return &c->activation;
  if (const auto* d = std::get_if<DenseAttrs>(&n.attrs)) return &d->activation;
  return nullptr;
}

const Tensor* f32_constant(const Graph& g, ValueId v) {
  const Tensor* t = g.constant(v);
  return t != nullptr && t->dtype() == DType::Float32 ? t : nullptr;
}

// Folds BN node `bn_id` into its producer if the rule applies.
bool try_fold(Graph& graph, NodeId bn_id) {
  const Node& bn = graph.node(bn_id);
  const BatchNormAttrs bna = bn.attr<BatchNormAttrs>();
  if (bn.inputs.size() != 5 || bn.outputs.empty() || !bn.outputs[0].valid()) return false;
  const NodeId p = graph.producer(bn.inputs[0]);
  if (!p.valid() || !single_use(graph, bn.inputs[0])) return false;
  const Node& prod = graph.node(p);
  if (prod.kind != OpKind::Conv && prod.kind != OpKind::Dense) return false;
  const FusedActivation* act = activation_of(prod);
  if (act == nullptr || act->kind != FusedActivation::Kind::None) return false;

  const Tensor* w = f32_constant(graph, prod.inputs[1]);
  const ValueId bias_id = prod.inputs.size() > 2 ? prod.inputs[2] : kNoValue;
  const Tensor* bias = bias_id.valid() ? f32_constant(graph, bias_id) : nullptr;
  if (w == nullptr || (bias_id.valid() && bias == nullptr)) return false;
  const Tensor* gamma = f32_constant(graph, bn.inputs[1]);
  const Tensor* beta = f32_constant(graph, bn.inputs[2]);
  const Tensor* mean = f32_constant(graph, bn.inputs[3]);
  const Tensor* var = f32_constant(graph, bn.inputs[4]);
  if (!gamma || !beta || !mean || !var) return false;

  // The BN channel axis must be the producer's output-channel axis.
  const std::size_t rank = graph.value(bn.inputs[0]).type.shape.size();
  const std::size_t bn_axis = bna.channels_last ? rank - 1 : 1;
  int64_t channels = 0;
  if (prod.kind == OpKind::Conv) {
    const bool conv_last = prod.attr<ConvAttrs>().channels_last;
    if ((conv_last ? rank - 1 : 1) != bn_axis) return false;
    channels = w->shape()[0];  // W [M, C/group, kernel...]
  } else {
    if (bn_axis != rank - 1) return false;
    channels = w->shape()[1];  // W [K, N]
  }
  if (gamma->numel() != channels) return false;

  std::vector<double> scale(static_cast<std::size_t>(channels));
  Tensor new_b(DType::Float32, {channels});
  for (int64_t c = 0; c < channels; ++c) {
    const double s =
        gamma->as_double(c) / std::sqrt(var->as_double(c) + static_cast<double>(bna.epsilon));
    const double b0 = bias != nullptr ? bias->as_double(c) : 0.0;
    scale[static_cast<std::size_t>(c)] = s;
    new_b.data<float>()[static_cast<std::size_t>(c)] =
        static_cast<float>((b0 - mean->as_double(c)) * s + beta->as_double(c));
  }
  Tensor new_w(DType::Float32, w->shape());
  auto wd = new_w.data<float>();
  if (prod.kind == OpKind::Conv) {
    const int64_t per = w->numel() / channels;
    for (int64_t i = 0; i < w->numel(); ++i)
      wd[static_cast<std::size_t>(i)] =
          static_cast<float>(w->as_double(i) * scale[static_cast<std::size_t>(i / per)]);
  } else {
    for (int64_t i = 0; i < w->numel(); ++i)
      wd[static_cast<std::size_t>(i)] =
          static_cast<float>(w->as_double(i) * scale[static_cast<std::size_t>(i % channels)]);
  }
  const ValueId bn_out = bn.outputs[0];
  const std::string base = prod.name;
  const ValueId wid = add_kiln_constant(graph, base + "_w_bn", std::move(new_w));
  const ValueId bid = add_kiln_constant(graph, base + "_b_bn", std::move(new_b));
  const ValueId x = graph.node(p).inputs[0];
  graph.erase_node(bn_id);  // frees bn_out
  graph.set_inputs(p, {x, wid, bid});
  graph.set_output(p, 0, bn_out);
  return true;
}

}  // namespace

bool FoldBatchNormPass::run(Graph& graph) {
  return rewrite_nodes(graph, [&](NodeId id, Worklist&) {
    // A BN folded into a Conv may make the next BN foldable; it comes later
    // in the order, so one visit per node suffices.
    return graph.node(id).kind == OpKind::BatchNormalization && try_fold(graph, id);
  });
}

}  // namespace kiln::passes

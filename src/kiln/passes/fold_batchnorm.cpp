#include "kiln/passes/fold_batchnorm.h"

#include <cmath>
#include <optional>

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

// y = x * scale[c] + shift[c] per output channel c of the producer.
struct Affine {
  std::vector<double> scale, shift;
};

// The producer's output channels and their axis in its output, or 0.
int64_t producer_channels(const Graph& graph, const Node& prod, std::size_t* axis) {
  const Tensor* w = f32_constant(graph, prod.inputs[1]);
  if (w == nullptr) return 0;
  const std::size_t rank = graph.value(prod.outputs[0]).type.shape.size();
  if (prod.kind == OpKind::Conv) {
    *axis = prod.attr<ConvAttrs>().channels_last ? rank - 1 : 1;
    return w->shape()[0];  // W [M, C/group, kernel...]
  }
  *axis = rank - 1;
  return w->shape()[1];  // W [K, N]
}

// BatchNormalization over the producer's channel axis.
std::optional<Affine> batchnorm_affine(const Graph& graph, const Node& bn, std::size_t axis,
                                       int64_t channels) {
  const BatchNormAttrs& bna = bn.attr<BatchNormAttrs>();
  if (bn.inputs.size() != 5) return std::nullopt;
  const std::size_t rank = graph.value(bn.inputs[0]).type.shape.size();
  if ((bna.channels_last ? rank - 1 : 1) != axis) return std::nullopt;
  const Tensor* gamma = f32_constant(graph, bn.inputs[1]);
  const Tensor* beta = f32_constant(graph, bn.inputs[2]);
  const Tensor* mean = f32_constant(graph, bn.inputs[3]);
  const Tensor* var = f32_constant(graph, bn.inputs[4]);
  if (!gamma || !beta || !mean || !var || gamma->numel() != channels) return std::nullopt;
  Affine a;
  for (int64_t c = 0; c < channels; ++c) {
    const double s =
        gamma->as_double(c) / std::sqrt(var->as_double(c) + static_cast<double>(bna.epsilon));
    a.scale.push_back(s);
    a.shift.push_back(beta->as_double(c) - mean->as_double(c) * s);
  }
  return a;
}

// Mul, Add or Sub of the producer's output `x` and a constant of one value or
// one per channel along `axis` (numpy broadcasting, not growing x).
std::optional<Affine> constant_affine(const Graph& graph, const Node& n, ValueId x,
                                      std::size_t axis, int64_t channels) {
  if (n.inputs.size() != 2) return std::nullopt;
  const bool x_first = n.inputs[0] == x;
  const Tensor* c = f32_constant(graph, n.inputs[x_first ? 1 : 0]);
  if (c == nullptr || (!x_first && n.inputs[1] != x)) return std::nullopt;
  const Shape& xs = graph.value(x).type.shape;
  if (!broadcasts_along_axis(c->shape(), xs, axis) || graph.value(n.outputs[0]).type.shape != xs ||
      xs.at(axis) != channels)
    return std::nullopt;
  Affine a;
  for (int64_t i = 0; i < channels; ++i) {
    const double v = c->as_double(c->numel() == 1 ? 0 : i);
    switch (n.kind) {
      case OpKind::Mul: a.scale.push_back(v), a.shift.push_back(0.0); break;
      case OpKind::Add: a.scale.push_back(1.0), a.shift.push_back(v); break;
      default:  // Sub: x - c, or c - x
        a.scale.push_back(x_first ? 1.0 : -1.0), a.shift.push_back(x_first ? -v : v);
        break;
    }
  }
  return a;
}

// Folds node `id` (a BatchNormalization, or a Mul/Add/Sub by a per-channel
// constant) into the Conv or Dense that produces its input, if the rule
// applies: w' = w * scale[c], b' = b * scale[c] + shift[c].
bool try_fold(Graph& graph, NodeId id) {
  const Node& n = graph.node(id);
  if (n.outputs.empty() || !n.outputs[0].valid() || n.inputs.empty()) return false;
  NodeId p;
  ValueId x;
  for (ValueId in : n.inputs) {
    const NodeId q = graph.producer(in);
    if (q.valid() && (graph.node(q).kind == OpKind::Conv || graph.node(q).kind == OpKind::Dense)) {
      p = q, x = in;
      break;
    }
  }
  if (!p.valid() || !single_use(graph, x)) return false;
  const Node& prod = graph.node(p);
  const FusedActivation* act = activation_of(prod);
  if (act == nullptr || act->kind != FusedActivation::Kind::None) return false;
  std::size_t axis = 0;
  const int64_t channels = producer_channels(graph, prod, &axis);
  if (channels == 0) return false;
  const std::optional<Affine> affine =
      n.kind == OpKind::BatchNormalization
          ? (n.inputs[0] == x ? batchnorm_affine(graph, n, axis, channels) : std::nullopt)
          : constant_affine(graph, n, x, axis, channels);
  if (!affine) return false;

  const Tensor* w = f32_constant(graph, prod.inputs[1]);
  const ValueId bias_id = prod.inputs.size() > 2 ? prod.inputs[2] : kNoValue;
  const Tensor* bias = bias_id.valid() ? f32_constant(graph, bias_id) : nullptr;
  if (bias_id.valid() && bias == nullptr) return false;
  Tensor new_b(DType::Float32, {channels});
  for (int64_t c = 0; c < channels; ++c) {
    const double b0 = bias != nullptr ? bias->as_double(c) : 0.0;
    const auto k = static_cast<std::size_t>(c);
    new_b.data<float>()[k] = static_cast<float>(b0 * affine->scale[k] + affine->shift[k]);
  }
  Tensor new_w(DType::Float32, w->shape());
  auto wd = new_w.data<float>();
  const int64_t per = w->numel() / channels;
  for (int64_t i = 0; i < w->numel(); ++i) {
    const int64_t c = prod.kind == OpKind::Conv ? i / per : i % channels;
    wd[static_cast<std::size_t>(i)] =
        static_cast<float>(w->as_double(i) * affine->scale[static_cast<std::size_t>(c)]);
  }
  const ValueId out = n.outputs[0];
  const std::string suffix = n.kind == OpKind::BatchNormalization ? "_bn" : "_affine";
  const std::string base = prod.name;
  const ValueId wid = add_kiln_constant(graph, base + "_w" + suffix, std::move(new_w));
  const ValueId bid = add_kiln_constant(graph, base + "_b" + suffix, std::move(new_b));
  const ValueId input = graph.node(p).inputs[0];
  graph.erase_node(id);  // frees `out`
  graph.set_inputs(p, {input, wid, bid});
  graph.set_output(p, 0, out);
  return true;
}

}  // namespace

bool FoldBatchNormPass::run(Graph& graph) {
  return rewrite_nodes(graph, [&](NodeId id, Worklist&) {
    // A BN folded into a Conv may make the next BN foldable; it comes later
    // in the order, so one visit per node suffices.
    const OpKind k = graph.node(id).kind;
    return (k == OpKind::BatchNormalization || k == OpKind::Mul || k == OpKind::Add ||
            k == OpKind::Sub) &&
           try_fold(graph, id);
  });
}

}  // namespace kiln::passes

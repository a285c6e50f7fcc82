// Range profiling with the reference interpreter (profile.h).
#include "kiln/hls/profile.h"

#include <algorithm>
#include <cmath>

#include "kiln/ref/evaluate.h"
#include "kiln/ref/interpreter.h"
#include "kiln/support/error.h"
#include "kiln/support/progress.h"

namespace kiln::hls {

double ValueRange::max_abs() const {
  return empty() ? 0.0 : std::max(std::abs(min), std::abs(max));
}

void ValueRange::add(double v) {
  if (std::isnan(v)) return;  // NaN has no range; the float model would be broken anyway
  min = std::min(min, v);
  max = std::max(max, v);
  if (v == 0 || std::isinf(v)) {
    zeros += v == 0;
    return;
  }
  int e = 0;
  std::frexp(v, &e);  // |v| = m * 2^e, m in [0.5, 1): floor(log2|v|) = e - 1
  ++log2_counts[static_cast<std::size_t>(std::clamp(e - 1 - kLowestLog2, 0, kLog2Bins - 1))];
}

void ValueRange::add(const Tensor& t) {
  if (t.dtype() == DType::Float32) {
    for (float v : t.data<float>()) add(static_cast<double>(v));
    return;
  }
  for (int64_t i = 0; i < t.numel(); ++i) add(t.as_double(i));
}

const LayerProfile* Profile::find(const std::string& name) const {
  for (const LayerProfile& l : layers)
    if (l.name == name) return &l;
  return nullptr;
}

namespace {

const Tensor* constant_input(const Graph& g, const Node& n, std::size_t i) {
  return i < n.inputs.size() && n.inputs[i].valid() ? g.constant(n.inputs[i]) : nullptr;
}

// Folded batch-norm scale and bias (docs/config.md): s = gamma / sqrt(var + eps),
// b = beta - mean * s, as build_model computes them.
void add_batchnorm_constants(const Graph& g, const Node& n, LayerProfile& lp) {
  const Tensor* gamma = constant_input(g, n, 1);
  const Tensor* beta = constant_input(g, n, 2);
  const Tensor* mean = constant_input(g, n, 3);
  const Tensor* var = constant_input(g, n, 4);
  if (!gamma || !beta || !mean || !var) return;
  const double eps = n.attr<BatchNormAttrs>().epsilon;
  for (int64_t c = 0; c < gamma->numel(); ++c) {
    const double s = gamma->as_double(c) / std::sqrt(var->as_double(c) + eps);
    lp.weight.add(s);
    lp.bias.add(beta->as_double(c) - mean->as_double(c) * s);
  }
}

// The node with its fused activation removed, or nullopt if it has none.
// A bound on a recurrent layer's accumulator (docs/numerics.md
// "Recurrent"): every gate pre-activation is at most |Wb| + |Rb| + sum |W|
// max|x| + sum |R| (|h| <= 1, sigmoid and tanh gated), and an LSTM's cell
// state grows by at most 1 per step. A bound from the constants, sound
// for every sample, rather than the values one run saw.
double recurrent_accum_bound(const Graph& g, const Node& n, const Tensor& x) {
  const Tensor* w = constant_input(g, n, 1);
  const Tensor* r = constant_input(g, n, 2);
  const Tensor* b = constant_input(g, n, 3);
  if (!w || !r) return 0;
  double max_x = 0;
  for (int64_t i = 0; i < x.numel(); ++i) max_x = std::max(max_x, std::abs(x.as_double(i)));
  const int64_t dirs = w->shape()[0], rows = w->shape()[1];
  const int64_t n_in = w->shape()[2], hidden = r->shape()[2];
  double bound = 0;
  for (int64_t d = 0; d < dirs; ++d)
    for (int64_t j = 0; j < rows; ++j) {
      double s = 0;
      for (int64_t i = 0; i < n_in; ++i) s += std::abs(w->as_double((d * rows + j) * n_in + i));
      s *= max_x;
      for (int64_t k = 0; k < hidden; ++k) s += std::abs(r->as_double((d * rows + j) * hidden + k));
      if (b)
        s += std::abs(b->as_double(d * 2 * rows + j)) +
             std::abs(b->as_double((d * 2 + 1) * rows + j));
      bound = std::max(bound, s);
    }
  if (n.kind == OpKind::LSTM) {
    const auto& a = n.attr<RecurrentAttrs>();
    bound = std::max(bound, static_cast<double>(x.shape()[a.batch_first ? 1 : 0]));
  }
  return bound;
}

std::optional<Node> without_activation(const Node& n) {
  if (n.kind == OpKind::Conv) {
    const auto& a = n.attr<ConvAttrs>();
    if (a.activation.kind == FusedActivation::Kind::None) return std::nullopt;
    Node copy = n;
    auto attrs = a;
    attrs.activation = FusedActivation{};
    copy.attrs = attrs;
    return copy;
  }
  if (n.kind == OpKind::Dense) {
    const auto& a = n.attr<DenseAttrs>();
    if (a.activation.kind == FusedActivation::Kind::None) return std::nullopt;
    Node copy = n;
    copy.attrs = DenseAttrs{};
    return copy;
  }
  return std::nullopt;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t d : v) p *= d;
  return p;
}

}  // namespace

Profile profile_graph(const Graph& g, const std::vector<std::vector<Tensor>>& samples,
                      const std::string& task) {
  Profile prof;
  prof.samples = static_cast<int>(samples.size());
  for (ValueId v : g.inputs) {
    LayerProfile lp;
    lp.name = g.value(v).name;
    lp.onnx_name = g.value(v).onnx_name;
    lp.op = "Input";
    prof.layers.push_back(lp);
  }
  const std::size_t first_node = prof.layers.size();
  std::vector<std::size_t> layer_of;  // by NodeId: index into prof.layers
  for (const Node& n : g.nodes()) {
    const auto id = static_cast<std::size_t>(n.id().index);
    if (layer_of.size() <= id) layer_of.resize(id + 1, 0);
    layer_of[id] = first_node + (prof.layers.size() - first_node);
    LayerProfile lp;
    lp.name = n.name;
    lp.onnx_name = n.onnx_name;
    lp.op = std::string(op_name(n.kind));
    // Constants do not depend on the samples.
    switch (n.kind) {
      case OpKind::Conv:
      case OpKind::Dense:
      case OpKind::Gemm:
      case OpKind::MatMul:
      case OpKind::PRelu:
        if (const Tensor* w = constant_input(g, n, 1)) lp.weight.add(*w);
        if (n.kind != OpKind::PRelu)
          if (const Tensor* b = constant_input(g, n, 2)) lp.bias.add(*b);
        break;
      case OpKind::BatchNormalization: add_batchnorm_constants(g, n, lp); break;
      case OpKind::GRU:
      case OpKind::LSTM:
        for (std::size_t i : {1, 2})
          if (const Tensor* w = constant_input(g, n, i)) lp.weight.add(*w);
        if (const Tensor* b = constant_input(g, n, 3)) lp.bias.add(*b);
        break;
      default: break;
    }
    prof.layers.push_back(lp);
  }

  ref::Interpreter interp(g);
  Progress progress(task, static_cast<int64_t>(samples.size()));
  if (!task.empty()) progress.phase("running the float model");
  int64_t done = 0;
  for (const auto& sample : samples) {
    if (!task.empty()) progress.advance(done++);
    for (std::size_t i = 0; i < g.inputs.size() && i < sample.size(); ++i)
      prof.layers[i].result.add(sample[i]);
    interp.run(sample, [&](const Node& n, const std::vector<const Tensor*>& in,
                           const std::vector<Tensor>& out) {
      LayerProfile& lp = prof.layers[layer_of[static_cast<std::size_t>(n.id().index)]];
      if (out.empty()) return;
      lp.result.add(out[0]);
      switch (n.kind) {
        case OpKind::Conv:
        case OpKind::Dense: {
          // The accumulator holds the sum before the fused activation.
          if (auto plain = without_activation(n)) {
            std::vector<TensorType> types = {out[0].type()};
            const auto pre = ref::evaluate_node(*plain, in, types);
            lp.accum.add(pre[0]);
          } else {
            lp.accum.add(out[0]);
          }
          break;
        }
        case OpKind::MatMul:
        case OpKind::Gemm: lp.accum.add(out[0]); break;
        case OpKind::GRU:
        case OpKind::LSTM:
          if (in[0]) {
            const double bound = recurrent_accum_bound(g, n, *in[0]);
            lp.accum.add(-bound);
            lp.accum.add(bound);
          }
          break;
        case OpKind::AveragePool:
        case OpKind::GlobalAveragePool: {
          // Window sum = average * window size (an upper bound for padded edges).
          double window = 1;
          if (n.kind == OpKind::AveragePool)
            window = static_cast<double>(product(n.attr<PoolAttrs>().kernel_shape));
          else if (in[0] && out[0].numel() > 0)
            window = static_cast<double>(in[0]->numel() / out[0].numel());
          ValueRange r;
          r.add(out[0]);
          if (!r.empty()) {
            lp.accum.add(r.min * window);
            lp.accum.add(r.max * window);
          }
          break;
        }
        case OpKind::Softmax:
        case OpKind::LogSoftmax: {
          // The exp sum lies in [1, row length].
          const auto& a = n.attr<SoftmaxAttrs>();
          const Shape& s = out[0].shape();
          int64_t len = 1;
          if (a.coerce_2d) {
            for (std::size_t d = static_cast<std::size_t>(a.axis); d < s.size(); ++d) len *= s[d];
          } else if (static_cast<std::size_t>(a.axis) < s.size()) {
            len = s[static_cast<std::size_t>(a.axis)];
          }
          lp.accum.add(1.0);
          lp.accum.add(static_cast<double>(len));
          break;
        }
        default: break;
      }
    });
  }
  return prof;
}

FixedType auto_fixed_type(double max_abs, const FixedType& base) {
  FixedType t = base;
  int log_term = 0;
  if (max_abs > 0 && std::isfinite(max_abs))
    log_term = static_cast<int>(std::ceil(std::log2(max_abs)));
  t.integer = log_term + (base.is_signed ? 1 : 0) + 1;
  return t;
}

std::vector<PrecisionSuggestion> suggest_precisions(const Profile& profile, int width,
                                                    int accum_width) {
  std::vector<PrecisionSuggestion> out;
  const FixedType base{width, 0};
  const FixedType acc_base{accum_width, 0};
  for (const LayerProfile& lp : profile.layers) {
    PrecisionSuggestion s;
    s.name = lp.name;
    s.op = lp.op;
    if (!lp.weight.empty()) s.weight = auto_fixed_type(lp.weight.max_abs(), base);
    if (!lp.bias.empty()) s.bias = auto_fixed_type(lp.bias.max_abs(), base);
    if (!lp.result.empty()) s.result = auto_fixed_type(lp.result.max_abs(), base);
    if (!lp.accum.empty()) s.accum = auto_fixed_type(lp.accum.max_abs(), acc_base);
    out.push_back(s);
  }
  return out;
}

}  // namespace kiln::hls

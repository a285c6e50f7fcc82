// Graph -> HLS layer model (build_model.h).
#include "kiln/hls/build_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kiln/support/error.h"

namespace kiln::hls {

namespace {

constexpr const char* kLayersDoc = "see docs/hls-layers.md for the layers kiln's HLS backend has";

[[noreturn]] void unsupported(const Node& n, const std::string& what) {
  throw_error(ErrorKind::Unsupported, n.describe(), what, kLayersDoc);
}

std::string shape_str(const Shape& s) {
  return "[" + shape_to_string(s) + "]";
}

Activation to_activation(const FusedActivation& f) {
  Activation a;
  switch (f.kind) {
    case FusedActivation::Kind::None: break;
    case FusedActivation::Kind::Relu: a.kind = ActKind::Relu; break;
    case FusedActivation::Kind::LeakyRelu:
      a.kind = ActKind::LeakyRelu;
      a.alpha = f.alpha;
      break;
    case FusedActivation::Kind::Clip:
      a.kind = ActKind::Clip;
      a.alpha = f.lo;
      a.beta = f.hi;
      break;
  }
  return a;
}

bool is_channels_last_perm(const std::vector<int64_t>& p) {
  // (0, 2, ..., r-1, 1): NC... -> N...C
  if (p.size() < 3 || p[0] != 0 || p.back() != 1) return false;
  for (std::size_t i = 1; i + 1 < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i) + 1) return false;
  return true;
}

class Lowering {
 public:
  Lowering(const Graph& g, const Config& cfg, const Profile* profile)
      : g_(g), cfg_(cfg), profile_(profile) {}

  Model run();

 private:
  // ---- graph facts
  // The nodes reading `v`, each once.
  std::vector<NodeId> consumers(ValueId v) const {
    std::vector<NodeId> out;
    for (const Use& u : g_.uses(v))
      if (std::find(out.begin(), out.end(), u.node) == out.end()) out.push_back(u.node);
    return out;
  }
  bool is_graph_output(ValueId v) const {
    return std::find(g_.outputs.begin(), g_.outputs.end(), v) != g_.outputs.end();
  }
  // The value's shape without the batch dimension.
  Shape batch_free(ValueId v, const Node* n) const {
    const Value& val = g_.value(v);
    const Shape& s = val.type.shape;
    if (!batched_) return s;
    if (s.empty() || s[0] != 1) {
      const std::string where = n ? n->describe() : "value '" + val.name + "'";
      throw_error(ErrorKind::Unsupported, where,
                  "tensor '" + val.name + "' has shape " + shape_str(s) +
                      ": kiln's HLS layers process one sample (batch 1)",
                  "re-import with --batch 1, or see docs/hls-layers.md");
    }
    return Shape(s.begin() + 1, s.end());
  }
  // Conv, pooling, padding and batch norm need the [1, ..., C] layout.
  void require_batch(const Node& n) const {
    if (batched_) return;
    throw_error(ErrorKind::Unsupported, n.describe(),
                std::string(op_name(n.kind)) + " of a tensor of shape " +
                    shape_str(g_.value(n.inputs[0]).type.shape) +
                    ": kiln's HLS layers process one sample (batch 1)",
                "re-import with --batch 1, or see docs/hls-layers.md");
  }
  int tensor_of(ValueId v, const Node& n) const {
    const int t = tensor_index_[static_cast<std::size_t>(v.index)];
    if (t < 0) {
      if (g_.value(v).is_constant())
        unsupported(n, std::string("a constant operand ('") + g_.value(v).name +
                           "') is not supported for " + std::string(op_name(n.kind)) +
                           " yet; only activations computed by the model");
      KILN_ASSERT(false, "value without tensor: " + g_.value(v).name);
    }
    return t;
  }
  const Tensor& constant(const Node& n, std::size_t i, const char* what) const {
    const Tensor* t =
        i < n.inputs.size() && n.inputs[i].valid() ? g_.constant(n.inputs[i]) : nullptr;
    if (!t) unsupported(n, std::string(what) + " must be a constant");
    return *t;
  }

  // ---- building
  int add_tensor(ValueId v, const Shape& shape) {
    TensorInfo t;
    t.name = g_.value(v).name;
    t.shape = shape;
    model_.tensors.push_back(t);
    const int idx = static_cast<int>(model_.tensors.size()) - 1;
    tensor_index_[static_cast<std::size_t>(v.index)] = idx;
    return idx;
  }
  Layer& add_layer(const Node& n, LayerKind kind, LayerParams params, std::vector<int> inputs,
                   const Shape& out_shape) {
    Layer l;
    l.name = n.name;
    l.onnx_name = n.onnx_name;
    l.kind = kind;
    l.params = std::move(params);
    l.inputs = std::move(inputs);
    l.output = add_tensor(n.outputs.at(0), out_shape);
    model_.layers.push_back(std::move(l));
    return model_.layers.back();
  }

  void lower_inputs();
  void lower_node(const Node& n);
  void lower_conv(const Node& n);
  void lower_pool(const Node& n);
  void lower_pad(const Node& n);
  void lower_batchnorm(const Node& n);
  void lower_activation(const Node& n);
  void lower_softmax(const Node& n);
  void lower_dense(const Node& n);
  void lower_matmul(const Node& n);
  void lower_outputs();
  void check_layer_names();
  void configure(Layer& l, std::vector<double> weights, std::vector<double> bias);

  const Graph& g_;
  const Config& cfg_;
  const Profile* profile_;
  Model model_;
  bool batched_ = true;
  std::vector<int> tensor_index_;  // per value id: tensor, -1 if none
  std::vector<bool> skip_;         // by NodeId: absorbed into an input/output port
  // Per layer (parallel to model_.layers): float constants before quantization.
  std::vector<std::vector<double>> raw_weights_, raw_bias_;
};

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<std::size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<std::size_t>(i)] = t.as_double(i);
  return v;
}

void Lowering::lower_inputs() {
  // The graph is batched when every input has a leading dimension of 1 and
  // rank >= 2; then dimension 0 of every value is the batch and is dropped.
  batched_ = !g_.inputs.empty();
  for (ValueId v : g_.inputs) {
    const Shape& s = g_.value(v).type.shape;
    if (s.size() < 2 || s[0] != 1) batched_ = false;
  }
  for (ValueId v : g_.inputs) {
    const Value& val = g_.value(v);
    Model::Port port;
    port.onnx_name = val.onnx_name.empty() ? val.name : val.onnx_name;
    port.onnx_shape = val.type.shape;
    const Shape bf = batch_free(v, nullptr);
    Shape shape = bf;
    std::vector<int64_t> perm(bf.size());
    std::iota(perm.begin(), perm.end(), 0);
    // Absorb a lone Transpose to channels-last: the top function takes the
    // channels-last tensor and the port records the permutation.
    const std::vector<NodeId> uses = consumers(v);
    ValueId also;
    if (batched_ && uses.size() == 1 && !is_graph_output(v)) {
      const Node& t = g_.node(uses[0]);
      if (t.kind == OpKind::Transpose && is_channels_last_perm(t.attr<TransposeAttrs>().perm)) {
        const auto& p = t.attr<TransposeAttrs>().perm;
        for (std::size_t i = 0; i < bf.size(); ++i) perm[i] = p[i + 1] - 1;
        for (std::size_t i = 0; i < bf.size(); ++i)
          shape[i] = bf[static_cast<std::size_t>(perm[i])];
        skip_[static_cast<std::size_t>(uses[0].index)] = true;
        also = t.outputs.at(0);
      }
    }
    port.perm = perm;
    Layer l;
    l.name = val.name;
    l.onnx_name = val.onnx_name;
    l.kind = LayerKind::Input;
    l.params = InputParams{};
    l.output = add_tensor(v, shape);
    if (also.valid()) tensor_index_[static_cast<std::size_t>(also.index)] = l.output;
    model_.inputs.push_back(l.output);
    model_.input_ports.push_back(port);
    model_.layers.push_back(std::move(l));
    raw_weights_.emplace_back();
    raw_bias_.emplace_back();
  }
}

void Lowering::lower_conv(const Node& n) {
  const auto& a = n.attr<ConvAttrs>();
  const std::size_t sd = a.kernel_shape.size();
  if (sd != 1 && sd != 2) unsupported(n, std::to_string(sd) + "-D convolution (1-D and 2-D only)");
  require_batch(n);
  if (!a.channels_last)
    unsupported(n, "Conv is not channels-last (run the HLS pass pipeline first)");
  for (int64_t d : a.dilations)
    if (d != 1) unsupported(n, "dilated convolution");
  const Shape x = batch_free(n.inputs[0], &n);
  const Shape y = batch_free(n.outputs[0], &n);
  const Tensor& w = constant(n, 1, "the Conv weight");
  ConvParams p;
  p.dims = static_cast<int>(sd);
  p.c_in = x.back();
  p.c_out = y.back();
  p.groups = a.group;
  if (p.groups != 1 && !(p.groups == p.c_in && p.c_out == p.c_in))
    unsupported(n, "grouped convolution with group " + std::to_string(p.groups) +
                       " (only group 1 and depthwise with one output per channel)");
  if (sd == 2) {
    p.in_h = x[0], p.in_w = x[1], p.out_h = y[0], p.out_w = y[1];
    p.kernel_h = a.kernel_shape[0], p.kernel_w = a.kernel_shape[1];
    p.stride_h = a.strides[0], p.stride_w = a.strides[1];
    p.pad_top = a.pads[0], p.pad_left = a.pads[1], p.pad_bottom = a.pads[2],
    p.pad_right = a.pads[3];
  } else {
    p.in_w = x[0], p.out_w = y[0];
    p.kernel_w = a.kernel_shape[0];
    p.stride_w = a.strides[0];
    p.pad_left = a.pads[0], p.pad_right = a.pads[1];
  }
  p.act = to_activation(a.activation);
  // ONNX [c_out][c_in/g][kh][kw] -> [kh][kw][c_in/g][c_out].
  const int64_t cig = p.c_in / p.groups, kh = p.kernel_h, kw = p.kernel_w, co = p.c_out;
  KILN_ASSERT(w.numel() == co * cig * kh * kw, "conv weight size");
  std::vector<double> weights(static_cast<std::size_t>(w.numel()));
  for (int64_t o = 0; o < co; ++o)
    for (int64_t i = 0; i < cig; ++i)
      for (int64_t r = 0; r < kh; ++r)
        for (int64_t c = 0; c < kw; ++c)
          weights[static_cast<std::size_t>(((r * kw + c) * cig + i) * co + o)] =
              w.as_double(((o * cig + i) * kh + r) * kw + c);
  std::vector<double> bias(static_cast<std::size_t>(co), 0.0);
  if (n.inputs.size() > 2 && n.inputs[2].valid())
    bias = to_doubles(constant(n, 2, "the Conv bias"));
  add_layer(n, LayerKind::Conv, p, {tensor_of(n.inputs[0], n)}, y);
  raw_weights_.push_back(std::move(weights));
  raw_bias_.push_back(std::move(bias));
}

void Lowering::lower_pool(const Node& n) {
  require_batch(n);
  const Shape x = batch_free(n.inputs[0], &n);
  const Shape y = batch_free(n.outputs[0], &n);
  PoolParams p;
  const bool global = n.kind == OpKind::GlobalAveragePool || n.kind == OpKind::GlobalMaxPool;
  p.kind = (n.kind == OpKind::MaxPool || n.kind == OpKind::GlobalMaxPool) ? PoolKind::Max
                                                                          : PoolKind::Average;
  const bool cl =
      global ? n.attr<GlobalPoolAttrs>().channels_last : n.attr<PoolAttrs>().channels_last;
  if (!cl) unsupported(n, "pooling is not channels-last (run the HLS pass pipeline first)");
  const std::size_t sd = x.size() - 1;
  if (sd != 1 && sd != 2) unsupported(n, std::to_string(sd) + "-D pooling (1-D and 2-D only)");
  if (n.outputs.size() > 1 && n.outputs[1].valid())
    unsupported(n, "MaxPool with an Indices output");
  p.dims = static_cast<int>(sd);
  p.channels = x.back();
  if (sd == 2)
    p.in_h = x[0], p.in_w = x[1], p.out_h = y[0], p.out_w = y[1];
  else
    p.in_w = x[0], p.out_w = y[0];
  if (global) {
    p.kernel_h = p.in_h, p.kernel_w = p.in_w;
    p.stride_h = p.in_h, p.stride_w = p.in_w;
  } else {
    const auto& a = n.attr<PoolAttrs>();
    for (int64_t d : a.dilations)
      if (d != 1) unsupported(n, "dilated pooling");
    p.count_include_pad = a.count_include_pad;
    std::vector<int64_t> pads = a.pads;
    // ceil_mode adds a last window that runs past the end: the same as more
    // end padding, which pooling never reads.
    for (std::size_t d = 0; d < sd; ++d) {
      const int64_t in = x[d], out = y[d];
      const int64_t need = (out - 1) * a.strides[d] + a.kernel_shape[d] - in - pads[d];
      pads[sd + d] = std::max(pads[sd + d], need);
    }
    if (sd == 2) {
      p.kernel_h = a.kernel_shape[0], p.kernel_w = a.kernel_shape[1];
      p.stride_h = a.strides[0], p.stride_w = a.strides[1];
      p.pad_top = pads[0], p.pad_left = pads[1], p.pad_bottom = pads[2], p.pad_right = pads[3];
    } else {
      p.kernel_w = a.kernel_shape[0];
      p.stride_w = a.strides[0];
      p.pad_left = pads[0], p.pad_right = pads[1];
    }
  }
  add_layer(n, LayerKind::Pool, p, {tensor_of(n.inputs[0], n)}, y);
  raw_weights_.emplace_back();
  raw_bias_.emplace_back();
}

void Lowering::lower_pad(const Node& n) {
  require_batch(n);
  const auto& a = n.attr<PadAttrs>();
  if (a.mode != PadMode::Constant || a.value != 0.0) unsupported(n, "Pad other than zero padding");
  const Shape x = batch_free(n.inputs[0], &n);
  const Shape y = batch_free(n.outputs[0], &n);
  const std::size_t r = g_.value(n.inputs[0]).type.shape.size();
  const std::size_t sd = x.size() - 1;
  if (!batched_ || !a.channels_last || (sd != 1 && sd != 2))
    unsupported(n, "Pad of a tensor that is not a channels-last 1-D or 2-D feature map");
  for (int64_t v : a.pads)
    if (v < 0) unsupported(n, "negative padding (cropping)");
  // Pads follow the tensor's axes [N, spatial..., C]: N and C must be unpadded.
  if (a.pads[0] || a.pads[r] || a.pads[r - 1] || a.pads[2 * r - 1])
    unsupported(n, "padding of the batch or channel axis");
  ZeroPadParams p;
  p.dims = static_cast<int>(sd);
  p.channels = x.back();
  if (sd == 2) {
    p.in_h = x[0], p.in_w = x[1];
    p.pad_top = a.pads[1], p.pad_left = a.pads[2], p.pad_bottom = a.pads[r + 1],
    p.pad_right = a.pads[r + 2];
  } else {
    p.in_w = x[0];
    p.pad_left = a.pads[1], p.pad_right = a.pads[r + 1];
  }
  add_layer(n, LayerKind::ZeroPad, p, {tensor_of(n.inputs[0], n)}, y);
  raw_weights_.emplace_back();
  raw_bias_.emplace_back();
}

void Lowering::lower_batchnorm(const Node& n) {
  const auto& a = n.attr<BatchNormAttrs>();
  require_batch(n);
  const Shape x = batch_free(n.inputs[0], &n);
  if (x.size() > 1 && !a.channels_last)
    unsupported(n, "BatchNormalization is not channels-last (run the HLS pass pipeline first)");
  const Tensor& gamma = constant(n, 1, "the BatchNormalization scale");
  const Tensor& beta = constant(n, 2, "the BatchNormalization bias");
  const Tensor& mean = constant(n, 3, "the BatchNormalization mean");
  const Tensor& var = constant(n, 4, "the BatchNormalization variance");
  BatchNormParams p;
  p.channels = x.back();
  p.n = shape_numel(x);
  std::vector<double> scale(static_cast<std::size_t>(p.channels)), bias(scale.size());
  for (int64_t c = 0; c < p.channels; ++c) {
    const double s =
        gamma.as_double(c) / std::sqrt(var.as_double(c) + static_cast<double>(a.epsilon));
    scale[static_cast<std::size_t>(c)] = s;
    bias[static_cast<std::size_t>(c)] = beta.as_double(c) - mean.as_double(c) * s;
  }
  add_layer(n, LayerKind::BatchNorm, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs[0], &n));
  raw_weights_.push_back(std::move(scale));
  raw_bias_.push_back(std::move(bias));
}

void Lowering::lower_activation(const Node& n) {
  const Shape x = batch_free(n.inputs[0], &n);
  ActivationParams p;
  p.n = shape_numel(x);
  p.channels = x.empty() ? 1 : x.back();
  std::vector<double> weights;
  switch (n.kind) {
    case OpKind::Relu: p.act.kind = ActKind::Relu; break;
    case OpKind::LeakyRelu:
      p.act.kind = ActKind::LeakyRelu;
      p.act.alpha = n.attr<LeakyReluAttrs>().alpha;
      break;
    case OpKind::Elu:
      p.act.kind = ActKind::Elu;
      p.act.alpha = n.attr<EluAttrs>().alpha;
      break;
    case OpKind::Selu:
      p.act.kind = ActKind::Selu;
      p.act.alpha = n.attr<SeluAttrs>().alpha;
      p.act.beta = n.attr<SeluAttrs>().gamma;
      break;
    case OpKind::Sigmoid: p.act.kind = ActKind::Sigmoid; break;
    case OpKind::Tanh: p.act.kind = ActKind::Tanh; break;
    case OpKind::Exp: p.act.kind = ActKind::Exp; break;
    case OpKind::Clip: {
      p.act.kind = ActKind::Clip;
      p.act.alpha = -INFINITY;
      p.act.beta = INFINITY;
      if (n.inputs.size() > 1 && n.inputs[1].valid())
        p.act.alpha = constant(n, 1, "the Clip minimum").as_double(0);
      if (n.inputs.size() > 2 && n.inputs[2].valid())
        p.act.beta = constant(n, 2, "the Clip maximum").as_double(0);
      break;
    }
    case OpKind::PRelu: {
      p.act.kind = ActKind::PRelu;
      const Tensor& slope = constant(n, 1, "the PRelu slope");
      // One slope per channel of the last axis (or one for all).
      bool per_last = slope.numel() == p.channels;
      for (std::size_t i = 0; i + 1 < slope.shape().size(); ++i)
        if (slope.shape()[i] != 1) per_last = false;
      if (slope.numel() == 1) {
        weights.assign(static_cast<std::size_t>(p.channels), slope.as_double(0));
      } else if (per_last) {
        weights = to_doubles(slope);
      } else {
        unsupported(n, "PRelu slope of shape " + shape_str(slope.shape()) +
                           " (one slope, or one per channel of the last axis)");
      }
      break;
    }
    default: KILN_ASSERT(false, "not an activation");
  }
  add_layer(n, LayerKind::Activation, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs[0], &n));
  raw_weights_.push_back(std::move(weights));
  raw_bias_.emplace_back();
}

void Lowering::lower_softmax(const Node& n) {
  const auto& a = n.attr<SoftmaxAttrs>();
  const Shape x = batch_free(n.inputs[0], &n);
  const int64_t offset = batched_ ? 1 : 0;
  const int64_t axis = a.axis - offset;  // in the batch-free shape
  SoftmaxParams p;
  if (x.empty()) unsupported(n, "Softmax of a scalar");
  if (a.coerce_2d && axis >= 0) {
    // Rows are everything before the axis, flattened; a row is contiguous.
    p.length = 1;
    for (std::size_t d = static_cast<std::size_t>(axis); d < x.size(); ++d) p.length *= x[d];
  } else if (axis == static_cast<int64_t>(x.size()) - 1) {
    p.length = x.back();
  } else {
    unsupported(n, "Softmax over axis " + std::to_string(a.axis) + " of a tensor of shape " +
                       shape_str(g_.value(n.inputs[0]).type.shape) + " (only over the last axis)");
  }
  p.rows = p.length == 0 ? 0 : shape_numel(x) / p.length;
  add_layer(n, LayerKind::Softmax, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs[0], &n));
  raw_weights_.emplace_back();
  raw_bias_.emplace_back();
}

void Lowering::lower_dense(const Node& n) {
  const Shape x = batch_free(n.inputs[0], &n);
  if (x.size() != 1)
    unsupported(n, "Dense over a tensor of shape " + shape_str(g_.value(n.inputs[0]).type.shape) +
                       " (only over a vector)");
  const Tensor& w = constant(n, 1, "the Dense weight");
  const Tensor& b = constant(n, 2, "the Dense bias");
  DenseParams p;
  p.n_in = w.shape()[0];
  p.n_out = w.shape()[1];
  p.act = to_activation(n.attr<DenseAttrs>().activation);
  add_layer(n, LayerKind::Dense, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs[0], &n));
  raw_weights_.push_back(to_doubles(w));  // already [n_in][n_out]
  raw_bias_.push_back(to_doubles(b));
}

void Lowering::lower_matmul(const Node& n) {
  if (g_.constant(n.inputs[0]) || g_.constant(n.inputs[1]))
    unsupported(n, "MatMul with a constant operand that the passes did not turn into Dense");
  const Shape a = batch_free(n.inputs[0], &n);
  const Shape b = batch_free(n.inputs[1], &n);
  if (a.size() < 2 || b.size() < 2 || a.size() != b.size() ||
      !std::equal(a.begin(), a.end() - 2, b.begin()))
    unsupported(n, "MatMul of shapes " + shape_str(a) + " and " + shape_str(b) +
                       " (both at least 2-D with equal batch dimensions; no broadcasting)");
  MatMulParams p;
  p.m = a[a.size() - 2], p.k = a.back(), p.n = b.back();
  p.batch = 1;
  for (std::size_t i = 0; i + 2 < a.size(); ++i) p.batch *= a[i];
  add_layer(n, LayerKind::MatMul, p, {tensor_of(n.inputs[0], n), tensor_of(n.inputs[1], n)},
            batch_free(n.outputs[0], &n));
  raw_weights_.emplace_back();
  raw_bias_.emplace_back();
}

void Lowering::lower_node(const Node& n) {
  auto simple = [&](LayerKind kind, LayerParams params, std::vector<int> inputs) {
    add_layer(n, kind, std::move(params), std::move(inputs), batch_free(n.outputs.at(0), &n));
    raw_weights_.emplace_back();
    raw_bias_.emplace_back();
  };
  switch (n.kind) {
    case OpKind::Conv: return lower_conv(n);
    case OpKind::MaxPool:
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool: return lower_pool(n);
    case OpKind::Pad: return lower_pad(n);
    case OpKind::BatchNormalization: return lower_batchnorm(n);
    case OpKind::Relu:
    case OpKind::LeakyRelu:
    case OpKind::Elu:
    case OpKind::Selu:
    case OpKind::PRelu:
    case OpKind::Clip:
    case OpKind::Sigmoid:
    case OpKind::Tanh:
    case OpKind::Exp: return lower_activation(n);
    case OpKind::Softmax: return lower_softmax(n);
    case OpKind::Dense: return lower_dense(n);
    case OpKind::MatMul: return lower_matmul(n);
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul: {
      const ValueId a = n.inputs[0], b = n.inputs[1];
      if (g_.constant(a) || g_.constant(b))
        unsupported(n, std::string(op_name(n.kind)) +
                           " with a constant operand (only two computed tensors of the same "
                           "shape for now)");
      if (g_.value(a).type.shape != g_.value(b).type.shape)
        unsupported(n, std::string(op_name(n.kind)) + " with broadcasting (" +
                           shape_str(g_.value(a).type.shape) + " and " +
                           shape_str(g_.value(b).type.shape) + "; only equal shapes for now)");
      BinaryParams p;
      p.op = n.kind == OpKind::Add   ? BinaryOp::Add
             : n.kind == OpKind::Sub ? BinaryOp::Sub
                                     : BinaryOp::Mul;
      const Shape s = batch_free(a, &n);
      p.n = shape_numel(s);
      p.channels = s.empty() ? 1 : s.back();
      return simple(LayerKind::Binary, p, {tensor_of(a, n), tensor_of(b, n)});
    }
    case OpKind::Concat: {
      ConcatParams p;
      const int64_t axis = n.attr<ConcatAttrs>().axis - (batched_ ? 1 : 0);
      if (axis < 0) unsupported(n, "Concat along the batch axis");
      p.axis = static_cast<int>(axis);
      std::vector<int> ins;
      for (ValueId v : n.inputs) ins.push_back(tensor_of(v, n));
      return simple(LayerKind::Concat, p, ins);
    }
    case OpKind::Transpose: {
      const auto& perm = n.attr<TransposeAttrs>().perm;
      TransposeParams p;
      if (batched_) {
        if (perm.empty() || perm[0] != 0) unsupported(n, "Transpose that moves the batch axis");
        for (std::size_t i = 1; i < perm.size(); ++i) p.perm.push_back(perm[i] - 1);
      } else {
        p.perm = perm;
      }
      return simple(LayerKind::Transpose, p, {tensor_of(n.inputs[0], n)});
    }
    case OpKind::Flatten:
    case OpKind::Reshape:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::Identity:
    case OpKind::Dropout:
      return simple(LayerKind::Reshape, ReshapeParams{}, {tensor_of(n.inputs[0], n)});
    default: unsupported(n, "op " + std::string(op_name(n.kind)) + " has no HLS layer");
  }
}

void Lowering::lower_outputs() {
  for (ValueId v : g_.outputs) {
    const Value& val = g_.value(v);
    Model::Port port;
    port.onnx_name = val.onnx_name.empty() ? val.name : val.onnx_name;
    port.onnx_shape = val.type.shape;
    const NodeId producer = g_.producer(v);
    if (!producer.valid())
      throw_error(ErrorKind::Unsupported, "output '" + port.onnx_name + "'",
                  "a model output that is a model input or a constant", kLayersDoc);
    int t = tensor_index_[static_cast<std::size_t>(v.index)];
    const Shape bf = batch_free(v, nullptr);
    std::vector<int64_t> perm(bf.size());
    std::iota(perm.begin(), perm.end(), 0);
    if (t < 0) {
      // An absorbed final Transpose: the output is its input, channels-last;
      // onnx_bf[j] = tensor[q[j]] with q its batch-free perm, so
      // tensor[i] = onnx_bf[q^-1[i]].
      const Node& tr = g_.node(producer);
      const auto& p = tr.attr<TransposeAttrs>().perm;
      for (std::size_t j = 0; j < bf.size(); ++j)
        perm[static_cast<std::size_t>(p[j + 1] - 1)] = static_cast<int64_t>(j);
      t = tensor_index_[static_cast<std::size_t>(tr.inputs[0].index)];
      KILN_ASSERT(t >= 0, "absorbed transpose without input tensor");
    }
    port.perm = perm;
    model_.outputs.push_back(t);
    model_.output_ports.push_back(port);
  }
}

void Lowering::check_layer_names() {
  std::vector<std::string> names;
  for (const Layer& l : model_.layers) {
    names.push_back(l.name);
    if (!l.onnx_name.empty()) names.push_back(l.onnx_name);
  }
  for (const auto& [key, lc] : cfg_.by_name) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    const auto w = cfg_.by_name_where.find(key);
    const std::string where =
        w != cfg_.by_name_where.end() ? w->second : cfg_.source + ": LayerName." + key;
    std::string hint;
    if (auto best = closest_spelling(key, names))
      hint = "did you mean '" + *best + "'?";
    else
      hint = "`kiln config MODEL.onnx --granularity name` lists the layer names";
    throw_error(ErrorKind::InvalidModel, where, "no layer named '" + key + "' in the model", hint);
  }
}

std::string join_ints(const std::vector<int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

// The config key path a resolved field came from, for messages.
std::string key_path(const Config& cfg, const Layer& l, ConfigLevel level, const std::string& key) {
  switch (level) {
    case ConfigLevel::Name:
      return "LayerName." + (cfg.by_name.count(l.name) ? l.name : l.onnx_name) + "." + key;
    case ConfigLevel::Type: return std::string("LayerType.") + layer_kind_name(l.kind) + "." + key;
    case ConfigLevel::Model: return "Model." + key;
    case ConfigLevel::Default: return key + " (default)";
  }
  return key;
}

bool has_multipliers(LayerKind k) {
  return k == LayerKind::Dense || k == LayerKind::Conv || k == LayerKind::MatMul;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

void Lowering::configure(Layer& l, std::vector<double> weights, std::vector<double> bias) {
  const ResolvedLayerConfig r = resolve_layer_config(cfg_, l.kind, l.name, l.onnx_name);
  const std::string where_layer = std::string(layer_kind_name(l.kind)) + " layer '" + l.name + "'";

  // Precision, with "auto" fields from the constants or the profile.
  const LayerProfile* lp = profile_ ? profile_->find(l.name) : nullptr;
  const bool has_accum =
      l.kind == LayerKind::Dense || l.kind == LayerKind::Conv || l.kind == LayerKind::MatMul ||
      l.kind == LayerKind::Softmax ||
      (l.kind == LayerKind::Pool && l.as<PoolParams>().kind == PoolKind::Average);
  // "auto" on a field the layer does not use keeps the base type.
  auto resolve = [&](const PrecisionSpec& spec, const char* field, auto range_of,
                     bool used = true) -> FixedType {
    if (!spec.automatic || !used) return spec.type;
    const std::optional<double> m = range_of();
    if (!m)
      throw_error(ErrorKind::InvalidModel,
                  cfg_.source + ": Precision." + field + " of " + where_layer,
                  "'auto' needs profile data for this layer",
                  "profile the model (kiln profile) or give a type");
    return auto_fixed_type(*m, spec.type);
  };
  auto from_profile = [&](ValueRange LayerProfile::*f) {
    return [lp, f]() -> std::optional<double> {
      if (!lp || (lp->*f).empty()) return std::nullopt;
      return (lp->*f).max_abs();
    };
  };
  l.precision.weight = resolve(
      r.weight, "weight",
      [&]() -> std::optional<double> {
        if (!weights.empty()) return max_abs(weights);
        return from_profile(&LayerProfile::weight)();
      },
      !weights.empty());
  l.precision.bias = resolve(
      r.bias, "bias",
      [&]() -> std::optional<double> {
        if (!bias.empty()) return max_abs(bias);
        return from_profile(&LayerProfile::bias)();
      },
      !bias.empty());
  l.precision.result = resolve(r.result, "result", from_profile(&LayerProfile::result));
  l.precision.accum = resolve(r.accum, "accum", from_profile(&LayerProfile::accum), has_accum);
  l.precision.table = r.table.type;
  l.precision.inv_table = r.inv_table.type;

  l.strategy = r.strategy;
  l.conv_impl = r.conv_impl;
  l.tables.table_size = r.table_size;
  l.tables.table_range = r.table_range;
  l.tables.inv_table_size = r.table_size;

  // Reuse factor: TargetCycles (Dense/Conv) when it is set at least as
  // specifically as ReuseFactor; otherwise ReuseFactor, validated, never snapped.
  const bool target_applies = (l.kind == LayerKind::Dense || l.kind == LayerKind::Conv) &&
                              r.target_cycles && r.target_level >= r.reuse_level;
  if (target_applies) {
    l.reuse_factor = reuse_factor_for_target(l, *r.target_cycles);
    l.target_cycles = *r.target_cycles;
  } else if (has_multipliers(l.kind) || r.reuse_level == ConfigLevel::Name ||
             r.reuse_level == ConfigLevel::Type) {
    const std::vector<int64_t> valid = valid_reuse_factors(l);
    if (std::find(valid.begin(), valid.end(), r.reuse_factor) == valid.end())
      throw_error(
          ErrorKind::InvalidModel,
          cfg_.source + ": " + key_path(cfg_, l, r.reuse_level, "ReuseFactor"),
          "reuse factor " + std::to_string(r.reuse_factor) + " is not valid for " + where_layer,
          "valid reuse factors for this layer: " + join_ints(valid));
    l.reuse_factor = r.reuse_factor;
  } else {
    l.reuse_factor = 1;  // a model-wide reuse factor applies to layers with multipliers only
  }

  // Constants in their formats (with the format's own rounding and overflow).
  l.weights.clear();
  l.bias.clear();
  for (double v : weights) l.weights.push_back(numeric::quantize(v, l.precision.weight));
  for (double v : bias) l.bias.push_back(numeric::quantize(v, l.precision.bias));
}

Model Lowering::run() {
  tensor_index_.assign(g_.num_values(), -1);
  skip_.assign(g_.node_id_bound(), false);
  model_.name = g_.name;
  model_.part = cfg_.part;
  model_.clock_period_ns = cfg_.clock_period_ns;
  model_.io_type = cfg_.io_type;
  model_.backend = cfg_.backend;

  lower_inputs();
  // A final Transpose whose input only feeds it and whose output is only a
  // model output is absorbed into the output port.
  for (const Node& n : g_.nodes()) {
    const auto i = static_cast<std::size_t>(n.id().index);
    if (n.kind != OpKind::Transpose || skip_[i] || !batched_) continue;
    const ValueId out = n.outputs.at(0);
    if (!is_graph_output(out) || !consumers(out).empty()) continue;
    if (consumers(n.inputs[0]).size() != 1 || is_graph_output(n.inputs[0])) continue;
    if (g_.constant(n.inputs[0]) || !g_.producer(n.inputs[0]).valid()) continue;
    const auto& p = n.attr<TransposeAttrs>().perm;
    if (p.empty() || p[0] != 0) continue;
    skip_[i] = true;
  }
  for (const Node& n : g_.nodes())
    if (!skip_[static_cast<std::size_t>(n.id().index)]) lower_node(n);
  lower_outputs();
  check_layer_names();

  for (std::size_t i = 0; i < model_.layers.size(); ++i)
    configure(model_.layers[i], std::move(raw_weights_[i]), std::move(raw_bias_[i]));
  for (const Layer& l : model_.layers)
    model_.tensors[static_cast<std::size_t>(l.output)].type = l.precision.result;
  return model_;
}

}  // namespace

int64_t reuse_factor_for_target(const Layer& layer, int64_t target_cycles) {
  int64_t calls = 1;
  if (layer.kind == LayerKind::Conv) {
    const auto& p = layer.as<ConvParams>();
    calls = p.out_h * p.out_w;
  }
  const int64_t target =
      std::max<int64_t>(1, (target_cycles - kTargetCyclesOverhead) / std::max<int64_t>(1, calls));
  int64_t best = 1;
  for (int64_t rf : valid_reuse_factors(layer))
    if (rf <= target) best = std::max(best, rf);
  return best;
}

Model build_model(const Graph& g, const Config& cfg, const Profile* profile) {
  return Lowering(g, cfg, profile).run();
}

}  // namespace kiln::hls

// Graph -> unconfigured HLS layer model (lower_graph.h).
#include "kiln/hls/lower_graph.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kiln/hls/derived.h"
#include "kiln/hls/quantizer.h"
#include "kiln/hls/refusal.h"
#include "kiln/ref/resize_taps.h"
#include "kiln/support/enum_table.h"
#include "kiln/support/error.h"
#include "kiln/support/strings.h"

namespace kiln::hls {

namespace {

[[noreturn]] void unsupported(const Node& n, const std::string& what,
                              const std::string& alternative = {}) {
  throw_error(ErrorKind::Unsupported, n.describe(), what, refusal_hint(alternative));
}

// The nearest thing the HLS backend has, for ops it has no layer for.
constexpr std::pair<OpKind, const char*> kAlternatives[] = {
    {OpKind::Gemm, "export the Gemm with a constant B (it becomes a Dense layer)"},
    {OpKind::Hardmax, "end the model at the logits and take the arg max outside"},
    {OpKind::ArgMax, "end the model at the logits and take the arg max outside"},
    {OpKind::Div, "divide by a constant as a Mul by its reciprocal"},
    {OpKind::ReduceMean, "average over the spatial axes with GlobalAveragePool"},
    {OpKind::ReduceMax, "take the spatial maximum with GlobalMaxPool"},
    {OpKind::LayerNormalization, "use BatchNormalization (folded into the layer before it)"},
    {OpKind::InstanceNormalization, "use BatchNormalization (folded into the layer before it)"},
    {OpKind::Gather, "export static indexing as Reshape/Transpose where the data allows"},
    {OpKind::Sum, "chain two-input Adds"},
    {OpKind::Max, "use Relu or Clip when one operand is a constant"},
    {OpKind::Min, "use Clip when one operand is a constant"},
    {OpKind::Softplus, "use Relu, or Sigmoid/Tanh (table activations)"},
    {OpKind::Celu, "use Elu (a table activation)"},
    {OpKind::ThresholdedRelu, "use Relu"},
};

const char* alternative_for(OpKind kind) {
  for (const auto& [k, text] : kAlternatives)
    if (k == kind) return text;
  return "";
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

// The dims, channels and map sizes of a pool or resize from its batch-free
// channels-last input and output shapes ([H, W, C] or [W, C]).
template <class P>
void set_map(P& p, const Shape& x, const Shape& y) {
  p.dims = static_cast<int>(x.size() - 1);
  p.channels = x.back();
  if (p.dims == 2)
    p.in_h = x[0], p.in_w = x[1], p.out_h = y[0], p.out_w = y[1];
  else
    p.in_w = x[0], p.out_w = y[0];
}

class GraphLowering {
 public:
  explicit GraphLowering(const Graph& g) : g_(g) {}

  Model run();

 private:
  // ---- graph facts
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
  // A tensor of no graph value (between the layers one node lowers to).
  int add_internal_tensor(const std::string& name, const Shape& shape) {
    TensorInfo t;
    t.name = name;
    t.shape = shape;
    model_.tensors.push_back(t);
    return static_cast<int>(model_.tensors.size()) - 1;
  }
  int add_tensor(ValueId v, const Shape& shape) {
    const int idx = add_internal_tensor(g_.value(v).name, shape);
    tensor_index_[static_cast<std::size_t>(v.index)] = idx;
    return idx;
  }
  // A layer named `name` lowered from node `n`, writing tensor `output`.
  Layer& push_layer(const Node& n, std::string name, LayerParams params, std::vector<int> inputs,
                    int output) {
    Layer l;
    l.name = std::move(name);
    l.onnx_name = n.onnx_name;
    l.params = std::move(params);
    l.inputs = std::move(inputs);
    l.outputs = {output};
    model_.layers.push_back(std::move(l));
    return model_.layers.back();
  }
  // A layer for node `n` with constants (float, quantized later) and one output.
  Layer& add_layer(const Node& n, LayerParams params, std::vector<int> inputs,
                   const Shape& out_shape, std::vector<double> weights = {},
                   std::vector<double> bias = {}) {
    Layer& l = push_layer(n, n.name, std::move(params), std::move(inputs),
                          add_tensor(n.outputs.at(0), out_shape));
    l.float_weights = std::move(weights);
    l.float_bias = std::move(bias);
    return l;
  }

  void lower_inputs();
  void lower_outputs();
  // The per-tensor scale and zero point of a QuantizeLinear or
  // DequantizeLinear (refusing per-axis quantizers of activations).
  std::pair<double, int64_t> quantizer_of(const Node& n) const;
  // A Slice layer for output k of `n` (Slice, or one part of a Split) with
  // per-axis starts and steps over the batched shape.
  void add_slice(const Node& n, std::size_t k, std::vector<int64_t> starts,
                 std::vector<int64_t> steps);
  // A bipolar Quantize layer for node `n` (BipolarQuant, signed 1-bit Quant).
  void add_bipolar(const Node& n, double scale);
  // A Quantize layer `name` of node `n` from tensor `input` to `output`,
  // whose result format is the quantizer's.
  void add_quantize(const Node& n, const std::string& name, const QuantizeParams& p, int input,
                    int output);
  // The ap_fixed mode of a QONNX rounding mode (refusing CEIL and UP).
  numeric::QuantMode ap_mode(const Node& n, RoundingMode r) const;

 public:  // the handlers of kLower
  void lower_conv(const Node& n);
  void lower_conv_transpose(const Node& n);
  void lower_pool(const Node& n);
  void lower_pad(const Node& n);
  void lower_batchnorm(const Node& n);
  void lower_activation(const Node& n);
  void lower_softmax(const Node& n);
  void lower_dense(const Node& n);
  void lower_matmul(const Node& n);
  void lower_binary(const Node& n);
  void lower_concat(const Node& n);
  void lower_transpose(const Node& n);
  void lower_slice(const Node& n);
  void lower_split(const Node& n);
  void lower_resize(const Node& n);
  void lower_quantize_linear(const Node& n);
  void lower_dequantize_linear(const Node& n);
  void lower_qonnx_quant(const Node& n);
  void lower_bipolar_quant(const Node& n);
  void lower_trunc(const Node& n);
  void lower_reshape(const Node& n);
  void lower_recurrent(const Node& n);
  [[noreturn]] void no_hls_layer(const Node& n);

 private:
  const Graph& g_;
  Model model_;
  bool batched_ = true;
  std::vector<int> tensor_index_;  // per value id: tensor, -1 if none
};

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<std::size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<std::size_t>(i)] = t.as_double(i);
  return v;
}

void GraphLowering::lower_inputs() {
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
    const Shape shape = batch_free(v, nullptr);
    port.perm.resize(shape.size());
    std::iota(port.perm.begin(), port.perm.end(), 0);
    Layer l;
    l.name = val.name;
    l.onnx_name = val.onnx_name;
    l.params = InputParams{};
    l.outputs = {add_tensor(v, shape)};
    model_.inputs.push_back(l.output());
    model_.input_ports.push_back(port);
    model_.layers.push_back(std::move(l));
  }
}

// Dilated and grouped convolutions are lowered to the library's plain (or
// depthwise) kernel with zero weights: a dilation d spreads a k-tap kernel
// over (k - 1) * d + 1 taps, and a grouped convolution (other than depthwise)
// becomes a full one whose weights are zero between groups. Adding x * 0 to
// the accumulator leaves it unchanged, so each output sums exactly the
// ONNX operator's terms in the library's (kh, kw, ci) order. The zero taps
// still cost multipliers (docs/hls-layers.md).
// ONNX convolution weights, w_at(o, i, r, c) for output channel o, input
// channel i of its group, tap (r, c), laid out as the library's
// [kh][kw][c_in / p.groups][c_out] with zero taps between dilated taps and,
// unless depthwise, between groups.
template <class W>
std::vector<double> library_conv_weights(const ConvParams& p, int64_t groups, int64_t taps_h,
                                         int64_t taps_w, int64_t dil_h, int64_t dil_w,
                                         const W& w_at) {
  const bool depthwise = p.groups != 1;
  const int64_t onnx_cig = p.c_in / groups, cig = p.c_in / p.groups, co = p.c_out;
  const int64_t out_per_group = co / groups;
  std::vector<double> weights(static_cast<std::size_t>(p.kernel_h * p.kernel_w * cig * co), 0.0);
  for (int64_t o = 0; o < co; ++o) {
    const int64_t first_ci = depthwise ? 0 : (o / out_per_group) * onnx_cig;
    for (int64_t i = 0; i < onnx_cig; ++i)
      for (int64_t r = 0; r < taps_h; ++r)
        for (int64_t c = 0; c < taps_w; ++c)
          weights[static_cast<std::size_t>(
              ((r * dil_h * p.kernel_w + c * dil_w) * cig + first_ci + i) * co + o)] =
              w_at(o, i, r, c);
  }
  return weights;
}

void GraphLowering::lower_conv(const Node& n) {
  const auto& a = n.attr<ConvAttrs>();
  const std::size_t sd = a.kernel_shape.size();
  if (sd != 1 && sd != 2) unsupported(n, std::to_string(sd) + "-D convolution (1-D and 2-D only)");
  require_batch(n);
  if (!a.channels_last)
    unsupported(n, "Conv is not channels-last (run the HLS pass pipeline first)");
  const Shape x = batch_free(n.inputs[0], &n);
  const Shape y = batch_free(n.outputs[0], &n);
  const Tensor& w = constant(n, 1, "the Conv weight");
  ConvParams p;
  p.dims = static_cast<int>(sd);
  p.c_in = x.back();
  p.c_out = y.back();
  const int64_t groups = a.group;
  const bool depthwise = groups != 1 && groups == p.c_in && p.c_out == p.c_in;
  p.groups = depthwise ? groups : 1;
  // Taps and dilation along (h, w); a 1-D convolution has one row.
  const int64_t taps_h = sd == 2 ? a.kernel_shape[0] : 1, taps_w = a.kernel_shape[sd - 1];
  const int64_t dil_h = sd == 2 ? a.dilations[0] : 1, dil_w = a.dilations[sd - 1];
  p.kernel_h = (taps_h - 1) * dil_h + 1;
  p.kernel_w = (taps_w - 1) * dil_w + 1;
  if (sd == 2) {
    p.in_h = x[0], p.in_w = x[1], p.out_h = y[0], p.out_w = y[1];
    p.stride_h = a.strides[0], p.stride_w = a.strides[1];
    p.pad_top = a.pads[0], p.pad_left = a.pads[1], p.pad_bottom = a.pads[2],
    p.pad_right = a.pads[3];
  } else {
    p.in_w = x[0], p.out_w = y[0];
    p.stride_w = a.strides[0];
    p.pad_left = a.pads[0], p.pad_right = a.pads[1];
  }
  p.act = to_activation(a.activation);
  KILN_ASSERT(w.numel() == p.c_out * (p.c_in / groups) * taps_h * taps_w, "conv weight size");
  std::vector<double> weights = library_conv_weights(
      p, groups, taps_h, taps_w, dil_h, dil_w, [&](auto o, auto i, auto r, auto c) {
        return w.as_double(((o * (p.c_in / groups) + i) * taps_h + r) * taps_w + c);
      });
  std::vector<double> bias(static_cast<std::size_t>(p.c_out), 0.0);
  if (n.inputs.size() > 2 && n.inputs[2].valid())
    bias = to_doubles(constant(n, 2, "the Conv bias"));
  add_layer(n, p, {tensor_of(n.inputs[0], n)}, y, std::move(weights), std::move(bias));
}

// A transposed convolution is a convolution of its input spread out: a
// ZeroPad layer puts stride - 1 zeros between the input pixels and
// (kernel - 1) - pad zeros around them (output_padding more at the end), and
// a stride-1 Conv with the kernel flipped and its channel axes swapped reads
// that. Each output sums the operator's terms; the zeros cost multipliers, as
// dilation does (docs/hls-layers.md).
void GraphLowering::lower_conv_transpose(const Node& n) {
  const auto& a = n.attr<ConvTransposeAttrs>();
  const std::size_t sd = a.kernel_shape.size();
  if (sd != 1 && sd != 2)
    unsupported(n, std::to_string(sd) + "-D transposed convolution (1-D and 2-D only)");
  require_batch(n);
  if (!a.channels_last)
    unsupported(n, "ConvTranspose is not channels-last (run the HLS pass pipeline first)");
  const Shape x = batch_free(n.inputs[0], &n), y = batch_free(n.outputs[0], &n);
  const Tensor& w = constant(n, 1, "the ConvTranspose weight");
  const int64_t groups = a.group, c_in = x.back(), c_out = y.back();
  const int64_t taps_h = sd == 2 ? a.kernel_shape[0] : 1, taps_w = a.kernel_shape[sd - 1];
  const int64_t dil_h = sd == 2 ? a.dilations[0] : 1, dil_w = a.dilations[sd - 1];
  ZeroPadParams z;
  z.dims = static_cast<int>(sd);
  z.channels = c_in;
  // Per spatial axis d: the border the spread input needs on each side.
  auto border = [&](std::size_t d, int64_t kernel, bool end) {
    const int64_t b = kernel - 1 - a.pads[end ? sd + d : d] + (end ? a.output_padding[d] : 0);
    if (b < 0)
      unsupported(n, "ConvTranspose whose pads exceed kernel - 1 (pads " + join(a.pads, ",") + ")",
                  "crop the output with a Slice instead");
    return b;
  };
  ConvParams p;
  p.dims = static_cast<int>(sd);
  p.c_in = c_in;
  p.c_out = c_out;
  p.groups = groups != 1 && groups == c_in && c_out == c_in ? groups : 1;
  p.kernel_h = (taps_h - 1) * dil_h + 1;
  p.kernel_w = (taps_w - 1) * dil_w + 1;
  if (sd == 2) {
    z.in_h = x[0], z.in_w = x[1];
    z.stride_h = a.strides[0], z.stride_w = a.strides[1];
    z.pad_top = border(0, p.kernel_h, false), z.pad_bottom = border(0, p.kernel_h, true);
    z.pad_left = border(1, p.kernel_w, false), z.pad_right = border(1, p.kernel_w, true);
    p.out_h = y[0], p.out_w = y[1];
  } else {
    z.in_w = x[0];
    z.stride_w = a.strides[0];
    z.pad_left = border(0, p.kernel_w, false), z.pad_right = border(0, p.kernel_w, true);
    p.out_w = y[0];
  }
  p.in_h = z.out_h(), p.in_w = z.out_w();
  const Shape spread = sd == 2 ? Shape{p.in_h, p.in_w, c_in} : Shape{p.in_w, c_in};
  // ONNX [c_in][c_out/group][taps_h][taps_w]; the equivalent convolution's weight of output o,
  // input i of o's group, tap (r, c) is the transposed one's of input (o's group, i), output o
  // within its group, tap (taps_h - 1 - r, taps_w - 1 - c).
  const int64_t cig = c_in / groups, cog = c_out / groups;
  KILN_ASSERT(w.numel() == c_in * cog * taps_h * taps_w, "conv transpose weight size");
  std::vector<double> weights = library_conv_weights(
      p, groups, taps_h, taps_w, dil_h, dil_w, [&](auto o, auto i, auto r, auto c) {
        const int64_t ci = (o / cog) * cig + i;
        return w.as_double(((ci * cog + o % cog) * taps_h + (taps_h - 1 - r)) * taps_w +
                           (taps_w - 1 - c));
      });
  std::vector<double> bias(static_cast<std::size_t>(c_out), 0.0);
  if (n.inputs.size() > 2 && n.inputs[2].valid())
    bias = to_doubles(constant(n, 2, "the ConvTranspose bias"));
  const int spread_tensor = add_internal_tensor(n.name + "_spread", spread);
  push_layer(n, n.name + "_spread", z, {tensor_of(n.inputs[0], n)}, spread_tensor);
  add_layer(n, p, {spread_tensor}, y, std::move(weights), std::move(bias));
}

void GraphLowering::lower_pool(const Node& n) {
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
  set_map(p, x, y);
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
      // ONNX divides such a window by its part inside the declared padding;
      // the library's count_include_pad divides by the whole window.
      if (need > pads[sd + d] && p.kind == PoolKind::Average && a.count_include_pad)
        unsupported(n,
                    "AveragePool with count_include_pad=1 whose ceil_mode window runs past the "
                    "padding",
                    "use count_include_pad=0, or pad explicitly so no window runs past the end");
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
  add_layer(n, p, {tensor_of(n.inputs[0], n)}, y);
}

void GraphLowering::lower_pad(const Node& n) {
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
  add_layer(n, p, {tensor_of(n.inputs[0], n)}, y);
}

void GraphLowering::lower_batchnorm(const Node& n) {
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
  add_layer(n, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs[0], &n), std::move(scale),
            std::move(bias));
}

void GraphLowering::lower_activation(const Node& n) {
  const Shape x = batch_free(n.inputs[0], &n);
  ActivationParams p;
  p.n = shape_numel(x);
  p.channels = x.empty() ? 1 : x.back();
  std::vector<double> weights;
  const OpKind k = n.kind;
  if (k == OpKind::Relu) {
    p.act.kind = ActKind::Relu;
  } else if (k == OpKind::LeakyRelu) {
    p.act.kind = ActKind::LeakyRelu;
    p.act.alpha = n.attr<LeakyReluAttrs>().alpha;
  } else if (k == OpKind::Elu) {
    p.act.kind = ActKind::Elu;
    p.act.alpha = n.attr<EluAttrs>().alpha;
  } else if (k == OpKind::Selu) {
    p.act.kind = ActKind::Selu;
    p.act.alpha = n.attr<SeluAttrs>().alpha;
    p.act.beta = n.attr<SeluAttrs>().gamma;
  } else if (k == OpKind::Sigmoid) {
    p.act.kind = ActKind::Sigmoid;
  } else if (k == OpKind::Tanh) {
    p.act.kind = ActKind::Tanh;
  } else if (k == OpKind::Exp) {
    p.act.kind = ActKind::Exp;
  } else if (k == OpKind::HardSigmoid) {
    p.act.kind = ActKind::HardSigmoid;
    p.act.alpha = n.attr<HardSigmoidAttrs>().alpha;
    p.act.beta = n.attr<HardSigmoidAttrs>().beta;
  } else if (k == OpKind::HardSwish) {
    p.act.kind = ActKind::HardSwish;
    p.act.alpha = 1.0 / 6.0;
    p.act.beta = 0.5;
  } else if (k == OpKind::Clip) {
    p.act.kind = ActKind::Clip;
    p.act.alpha = -INFINITY;
    p.act.beta = INFINITY;
    if (n.inputs.size() > 1 && n.inputs[1].valid())
      p.act.alpha = constant(n, 1, "the Clip minimum").as_double(0);
    if (n.inputs.size() > 2 && n.inputs[2].valid())
      p.act.beta = constant(n, 2, "the Clip maximum").as_double(0);
  } else {
    KILN_ASSERT(k == OpKind::PRelu, "lower_activation called for " + n.describe());
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
  }
  add_layer(n, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs[0], &n), std::move(weights));
}

void GraphLowering::lower_softmax(const Node& n) {
  const auto& a = n.attr<SoftmaxAttrs>();
  const Shape x = batch_free(n.inputs[0], &n);
  const int64_t offset = batched_ ? 1 : 0;
  const int64_t axis = a.axis - offset;  // in the batch-free shape
  const std::string op = std::string(op_name(n.kind));
  SoftmaxParams p;
  p.log = n.kind == OpKind::LogSoftmax;
  if (x.empty()) unsupported(n, op + " of a scalar");
  if (a.coerce_2d && axis >= 0) {
    // Rows are everything before the axis, flattened; a row is contiguous.
    p.length = 1;
    for (std::size_t d = static_cast<std::size_t>(axis); d < x.size(); ++d) p.length *= x[d];
  } else if (axis == static_cast<int64_t>(x.size()) - 1) {
    p.length = x.back();
  } else {
    unsupported(n, op + " over axis " + std::to_string(a.axis) + " of a tensor of shape " +
                       shape_str(g_.value(n.inputs[0]).type.shape) + " (only over the last axis)");
  }
  p.rows = p.length == 0 ? 0 : shape_numel(x) / p.length;
  add_layer(n, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs[0], &n));
}

void GraphLowering::lower_dense(const Node& n) {
  const Shape x = batch_free(n.inputs[0], &n);
  if (x.size() != 1 && x.size() != 2)
    unsupported(n,
                "Dense over a tensor of shape " + shape_str(g_.value(n.inputs[0]).type.shape) +
                    " (over a vector or rows)",
                "flatten the leading axes into rows with a Reshape to [rows, features]");
  const Tensor& w = constant(n, 1, "the Dense weight");
  const Tensor& b = constant(n, 2, "the Dense bias");
  if (x.size() == 2) {
    // Rows [R, n_in]: the same Dense on every row, which is a 1-D convolution
    // with a 1-wide kernel over R pixels of n_in channels (weights [ci][co]
    // are the Dense's [n_in][n_out]); it streams one row per beat.
    ConvParams p;
    p.dims = 1;
    p.in_w = p.out_w = x[0];
    p.c_in = w.shape()[0];
    p.c_out = w.shape()[1];
    p.act = to_activation(n.attr<DenseAttrs>().activation);
    add_layer(n, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs[0], &n), to_doubles(w),
              to_doubles(b));
    return;
  }
  DenseParams p;
  p.n_in = w.shape()[0];
  p.n_out = w.shape()[1];
  p.act = to_activation(n.attr<DenseAttrs>().activation);
  // W is already [n_in][n_out].
  add_layer(n, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs[0], &n), to_doubles(w),
            to_doubles(b));
}

void GraphLowering::lower_matmul(const Node& n) {
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
  add_layer(n, p, {tensor_of(n.inputs[0], n), tensor_of(n.inputs[1], n)},
            batch_free(n.outputs[0], &n));
}

// The values of constant `c` along the last axis of `x` when `c` broadcasts
// to x's shape and varies along that axis at most (a scalar, [C], [1, 1, C],
// ...); nullopt otherwise.
std::optional<std::vector<double>> per_last_axis(const Tensor& c, const Shape& x) {
  const int64_t channels = x.empty() ? 1 : x.back();
  if (!broadcasts_along_axis(c.shape(), x, x.empty() ? 0 : x.size() - 1)) return std::nullopt;
  std::vector<double> v(static_cast<std::size_t>(channels));
  for (int64_t i = 0; i < channels; ++i)
    v[static_cast<std::size_t>(i)] = c.as_double(c.numel() == 1 ? 0 : i);
  return v;
}

// How `other` broadcasts onto `full` (both batch-free, channels-last), the
// plain form first; nullopt when it is none of BinaryParams' forms.
std::optional<BinaryBroadcast> binary_broadcast(const Shape& full, const Shape& other) {
  for (BinaryBroadcast b :
       {BinaryBroadcast::None, BinaryBroadcast::PerChannel, BinaryBroadcast::PerPixel})
    if (binary_operand_shape(full, b) == other) return b;
  return std::nullopt;
}

void GraphLowering::lower_binary(const Node& n) {
  const ValueId a = n.inputs[0], b = n.inputs[1];
  const Tensor* ca = g_.constant(a);
  const Tensor* cb = g_.constant(b);
  if (ca && cb) unsupported(n, std::string(op_name(n.kind)) + " of two constants");
  if (ca || cb) {
    // x op c with c per channel (or one value): y = x * scale + bias, the
    // BatchNorm layer's one multiply-add and one rounding.
    const ValueId x = ca ? b : a;
    const Tensor& c = ca ? *ca : *cb;
    const auto values = per_last_axis(c, g_.value(x).type.shape);
    if (!values || g_.value(n.outputs.at(0)).type.shape != g_.value(x).type.shape)
      unsupported(n,
                  std::string(op_name(n.kind)) + " with a constant of shape " +
                      shape_str(c.shape()) + " on " + shape_str(g_.value(x).type.shape) +
                      " (a constant must be one value or one per channel)",
                  "fold a per-element constant into the layer before it");
    const std::size_t channels = values->size();
    std::vector<double> scale(channels, 1.0), bias(channels, 0.0);
    for (std::size_t i = 0; i < channels; ++i) {
      const double v = (*values)[i];
      if (n.kind == OpKind::Mul) {
        scale[i] = v;
      } else if (n.kind == OpKind::Add) {
        bias[i] = v;
      } else if (ca) {  // c - x
        scale[i] = -1.0, bias[i] = v;
      } else {  // x - c
        bias[i] = -v;
      }
    }
    BatchNormParams p;
    const Shape xs = batch_free(x, &n);
    p.channels = static_cast<int64_t>(channels);
    p.n = shape_numel(xs);
    add_layer(n, p, {tensor_of(x, n)}, batch_free(n.outputs.at(0), &n), std::move(scale),
              std::move(bias));
    return;
  }
  // Two computed tensors: the layer's first operand has the output's shape,
  // its second that or a broadcast form (BinaryParams::broadcast). Mul and Add
  // commute; Sub with the broadcast operand first is b - a.
  const Shape& out = g_.value(n.outputs.at(0)).type.shape;
  const bool a_full = g_.value(a).type.shape == out;
  const ValueId full = a_full ? a : b, other = a_full ? b : a;
  const std::optional<BinaryBroadcast> form =
      g_.value(full).type.shape == out && g_.value(other).type.shape.size() == out.size()
          ? binary_broadcast(batch_free(full, &n), batch_free(other, &n))
          : std::nullopt;
  if (!form)
    unsupported(n,
                std::string(op_name(n.kind)) + " with broadcasting (" +
                    shape_str(g_.value(a).type.shape) + " and " +
                    shape_str(g_.value(b).type.shape) +
                    "; one operand must have the output's shape and the other the same, one "
                    "value per channel or one value per pixel)",
                "broadcast one operand over the spatial axes (a [N, C, 1, 1] gate) or over the "
                "channels (a [N, 1, H, W] gate)");
  BinaryParams p;
  p.op = n.kind == OpKind::Add   ? BinaryOp::Add
         : n.kind == OpKind::Mul ? BinaryOp::Mul
         : a_full                ? BinaryOp::Sub
                                 : BinaryOp::ReverseSub;
  const Shape s = batch_free(full, &n);
  p.n = shape_numel(s);
  p.channels = s.empty() ? 1 : s.back();
  p.broadcast = *form;
  add_layer(n, p, {tensor_of(full, n), tensor_of(other, n)}, batch_free(n.outputs.at(0), &n));
}

void GraphLowering::lower_concat(const Node& n) {
  ConcatParams p;
  const int64_t axis = n.attr<ConcatAttrs>().axis - (batched_ ? 1 : 0);
  if (axis < 0) unsupported(n, "Concat along the batch axis");
  p.axis = static_cast<int>(axis);
  std::vector<int> ins;
  for (ValueId v : n.inputs) ins.push_back(tensor_of(v, n));
  add_layer(n, p, ins, batch_free(n.outputs.at(0), &n));
}

void GraphLowering::lower_transpose(const Node& n) {
  const auto& perm = n.attr<TransposeAttrs>().perm;
  TransposeParams p;
  if (batched_) {
    if (perm.empty() || perm[0] != 0) unsupported(n, "Transpose that moves the batch axis");
    for (std::size_t i = 1; i < perm.size(); ++i) p.perm.push_back(perm[i] - 1);
  } else {
    p.perm = perm;
  }
  add_layer(n, p, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs.at(0), &n));
}

void GraphLowering::add_slice(const Node& n, std::size_t k, std::vector<int64_t> starts,
                              std::vector<int64_t> steps) {
  const ValueId x = n.inputs.at(0), y = n.outputs.at(k);
  const Shape ys = batch_free(y, &n);
  if (batched_) {
    if (starts.at(0) != 0 || steps.at(0) != 1)
      unsupported(n, std::string(op_name(n.kind)) + " along the batch axis");
    starts.erase(starts.begin());
    steps.erase(steps.begin());
  }
  for (std::size_t a = 0; a < steps.size(); ++a) {
    if (steps[a] >= 0) continue;
    if (ys[a] > 1)
      unsupported(n, "Slice with a negative step (" + std::to_string(steps[a]) + ")",
                  "reverse the order outside the model, or with a Transpose-free export");
    steps[a] = 1;  // one element (or none): the step does not matter
  }
  const std::string name = n.outputs.size() > 1 ? n.name + "_" + std::to_string(k) : n.name;
  push_layer(n, name, SliceParams{std::move(starts), std::move(steps)}, {tensor_of(x, n)},
             add_tensor(y, ys));
}

void GraphLowering::lower_slice(const Node& n) {
  const auto& a = n.attr<SliceAttrs>();
  add_slice(n, 0, a.starts, a.steps);
}

// Each output of a Split is a Slice of the input along the split axis.
void GraphLowering::lower_split(const Node& n) {
  const auto& a = n.attr<SplitAttrs>();
  const std::size_t rank = g_.value(n.inputs.at(0)).type.shape.size();
  int64_t offset = 0;
  for (std::size_t k = 0; k < n.outputs.size() && k < a.split.size(); ++k) {
    if (n.outputs[k].valid()) {
      std::vector<int64_t> starts(rank, 0), steps(rank, 1);
      starts.at(static_cast<std::size_t>(a.axis)) = offset;
      add_slice(n, k, std::move(starts), std::move(steps));
    }
    offset += a.split[k];
  }
}

// The taps of each output row and column come from the golden model's own
// coordinate mapping (ref/resize_taps.h), so every ONNX coordinate mode the
// interpreter runs maps the same pixels here. The library's io_stream form
// keeps two input rows, so a row's taps must be the rows just read.
void GraphLowering::lower_resize(const Node& n) {
  require_batch(n);
  const auto& a = n.attr<ResizeAttrs>();
  const Shape xb = g_.value(n.inputs[0]).type.shape;
  const Shape x = batch_free(n.inputs[0], &n), y = batch_free(n.outputs[0], &n);
  const std::size_t sd = x.size() - 1;
  if (sd != 1 && sd != 2) unsupported(n, std::to_string(sd) + "-D Resize (1-D and 2-D only)");
  if (a.mode == ResizeMode::Cubic)
    unsupported(n, "Resize in cubic mode", "use mode nearest or linear (bilinear)");
  if (a.coord == ResizeCoord::TfCropAndResize)
    unsupported(n, "Resize with tf_crop_and_resize", "crop with a Slice, then Resize");
  if (y.back() != x.back() || y[0] == 0)
    unsupported(n, "Resize of the channel axis (only the spatial axes of a channels-last map)",
                "run the HLS pass pipeline first (it makes feature maps channels-last)");
  ResizeParams p;
  p.mode = a.mode == ResizeMode::Linear ? ResizeKind::Linear : ResizeKind::Nearest;
  set_map(p, x, y);
  std::vector<double> weights;
  // Axis d of the batched shape: rows are axis 1 of a 2-D map, columns the last spatial one.
  auto taps_of = [&](std::size_t d, int64_t in, int64_t out, std::vector<int64_t>& index,
                     std::vector<double>& w) {
    const auto taps = ref::resize_taps(a, d, xb.size(), in, out);
    for (const auto& t : taps) {
      KILN_ASSERT(!t.empty() && static_cast<int64_t>(t.size()) <= p.taps(), "resize taps");
      for (int64_t k = 0; k < p.taps(); ++k) {
        const bool has = k < static_cast<int64_t>(t.size());
        index.push_back(has ? t[static_cast<std::size_t>(k)].index : t[0].index);
        w.push_back(has ? t[static_cast<std::size_t>(k)].weight : 0.0);
      }
    }
  };
  std::vector<double> col_w;
  if (sd == 2) {
    taps_of(1, p.in_h, p.out_h, p.row_index, weights);
  } else {
    p.row_index.assign(static_cast<std::size_t>(p.taps()), 0);  // one row, weight 1 then 0
    weights = p.taps() == 2 ? std::vector<double>{1.0, 0.0} : std::vector<double>{1.0};
  }
  taps_of(sd, p.in_w, p.out_w, p.col_index, col_w);
  // Rows never go back, and each output row reads the last two rows read.
  int64_t last = -1;
  for (int64_t o = 0; o < p.out_h; ++o) {
    int64_t lo = p.in_h, hi = -1;
    for (int64_t t = 0; t < p.taps(); ++t) {
      lo = std::min(lo, p.row_index[static_cast<std::size_t>(o * p.taps() + t)]);
      hi = std::max(hi, p.row_index[static_cast<std::size_t>(o * p.taps() + t)]);
    }
    if (hi < last || lo < std::max(last, hi) - 1)
      unsupported(n, "Resize whose output rows read input rows out of order",
                  "use a coordinate mode that keeps rows in order (asymmetric, half_pixel, "
                  "pytorch_half_pixel, align_corners)");
    last = std::max(last, hi);
  }
  if (p.mode == ResizeKind::Nearest) {
    weights.clear();
  } else {
    weights.insert(weights.end(), col_w.begin(), col_w.end());
  }
  add_layer(n, p, {tensor_of(n.inputs[0], n)}, y, std::move(weights));
}

// ONNX's quantizer pair: QuantizeLinear then DequantizeLinear of the same
// scale and zero point (ONNX Runtime's QDQ format, PyTorch's export of fake
// quantization) is one Quantize layer, made at the DequantizeLinear; the
// QuantizeLinear's integer tensor exists only between the two. Constant
// weights quantized this way are folded to their values at import.
std::pair<double, int64_t> GraphLowering::quantizer_of(const Node& n) const {
  const Tensor& s = constant(n, 1, "the quantizer's scale");
  if (s.numel() != 1)
    unsupported(n, "a per-axis quantizer of a computed tensor",
                "quantize activations per tensor (weights may be per channel)");
  int64_t zp = 0;
  if (n.inputs.size() > 2 && n.inputs[2].valid()) {
    const Tensor& z = constant(n, 2, "the quantizer's zero point");
    if (z.numel() != 1) unsupported(n, "a per-axis zero point of a computed tensor");
    zp = static_cast<int64_t>(z.as_double(0));
  }
  const DType t = n.kind == OpKind::QuantizeLinear ? g_.value(n.outputs.at(0)).type.dtype
                                                   : g_.value(n.inputs.at(0)).type.dtype;
  if (!is_integer(t) || dtype_size(t) > 2)
    unsupported(n, std::string("a quantizer to ") + dtype_name(t) + " (8- and 16-bit only)");
  if (!(s.as_double(0) > 0)) unsupported(n, "a quantizer scale that is not positive");
  return {s.as_double(0), zp};
}

void GraphLowering::lower_quantize_linear(const Node& n) {
  const ValueId q = n.outputs.at(0);
  if (g_.is_output(q))
    unsupported(n, "an integer model output (a QuantizeLinear without its DequantizeLinear)",
                "end the model with the DequantizeLinear of its last quantizer");
  for (const Use& u : g_.uses(q)) {
    const Node& d = g_.node(u.node);
    if (d.kind != OpKind::DequantizeLinear || d.inputs.size() != n.inputs.size() ||
        quantizer_of(n) != quantizer_of(d))
      unsupported(n,
                  "a QuantizeLinear read other than by a DequantizeLinear of the same scale and "
                  "zero point (integer arithmetic between quantizers)",
                  "export the model in the QDQ format: every QuantizeLinear followed by its "
                  "DequantizeLinear");
  }
}

void GraphLowering::lower_dequantize_linear(const Node& n) {
  const NodeId qid = g_.producer(n.inputs.at(0));
  if (!qid.valid() || g_.node(qid).kind != OpKind::QuantizeLinear)
    unsupported(n, "a DequantizeLinear of a tensor no QuantizeLinear makes (an integer input)",
                "give the model a float input followed by a QuantizeLinear / DequantizeLinear "
                "pair");
  const Node& q = g_.node(qid);
  const auto [scale, zero_point] = quantizer_of(q);
  const QuantizeParams p =
      quantizer_params(scale, zero_point, g_.value(q.outputs.at(0)).type.dtype);
  Layer& l = add_layer(n, p, {tensor_of(q.inputs.at(0), n)}, batch_free(n.outputs.at(0), &n));
  l.precision.result = p.format;  // the model's format, whatever the config says
  model_.tensors[static_cast<std::size_t>(l.output())].type = p.format;
}

// QONNX's Quant (Brevitas, QKeras through QONNX): one node computing what a
// QuantizeLinear / DequantizeLinear pair does, for any bit width and with its
// own rounding mode. Quantized constants (weights, biases) are folded at
// import; this is the quantizer of a computed tensor.
void GraphLowering::lower_qonnx_quant(const Node& n) {
  const auto& a = n.attr<IntQuantAttrs>();
  const Tensor& s = constant(n, 1, "the Quant scale");
  const Tensor& z = constant(n, 2, "the Quant zero point");
  if (s.numel() != 1 || z.numel() != 1)
    unsupported(n, "a per-channel Quant of a computed tensor",
                "quantize activations per tensor (weights may be per channel)");
  const double scale = s.as_double(0), zero = z.as_double(0);
  if (!(scale > 0)) unsupported(n, "a Quant scale that is not positive");
  if (zero != std::floor(zero))
    unsupported(n, "a Quant zero point that is not an integer (" + std::to_string(zero) + ")");
  if (a.bitwidth > 32) unsupported(n, "a Quant of more than 32 bits");
  if (a.is_signed && a.bitwidth == 1) {  // QONNX runs signed 1-bit as bipolar
    if (zero != 0) unsupported(n, "a bipolar (signed 1-bit) Quant with a zero point");
    add_bipolar(n, scale);
    return;
  }
  const QuantizeParams p =
      quantizer_params(scale, static_cast<int64_t>(zero), static_cast<int>(a.bitwidth), a.is_signed,
                       a.narrow, ap_mode(n, a.rounding));
  add_quantize(n, n.name, p, tensor_of(n.inputs.at(0), n),
               add_tensor(n.outputs.at(0), batch_free(n.outputs.at(0), &n)));
}

// QONNX Trunc, opset 2, with power-of-two scales and zero point 0: y =
// rounding(clip(round_even(x / s) / t)) * out_scale with t = out_scale / s =
// 2^d is two Quantize layers: to s's grid (ties to even, wide enough that
// its saturation only touches values the clip maps to the bound anyway),
// then to out_scale's grid with the Trunc's rounding and out_bitwidth's range.
void GraphLowering::lower_trunc(const Node& n) {
  const auto& a = n.attr<TruncAttrs>();
  if (a.version != 2)
    unsupported(n,
                "a QONNX opset 1 Trunc (its output keeps the input's scale: a division kiln has "
                "no exact layer for)",
                "export with QONNX opset 2 (Trunc with out_scale)");
  const Tensor& s = constant(n, 1, "the Trunc scale");
  const Tensor& z = constant(n, 2, "the Trunc zero point");
  const Tensor& os = constant(n, 3, "the Trunc out_scale");
  if (s.numel() != 1 || z.numel() != 1 || os.numel() != 1)
    unsupported(n, "a per-channel Trunc", "truncate per tensor");
  if (z.as_double(0) != 0) unsupported(n, "a Trunc with a zero point");
  const auto k = power_of_two_exponent(s.as_double(0));
  const auto k_out = power_of_two_exponent(os.as_double(0));
  if (!k || !k_out || *k_out > *k)
    unsupported(n,
                "a Trunc with scale " + std::to_string(s.as_double(0)) + " and out_scale " +
                    std::to_string(os.as_double(0)) +
                    " (kiln maps power-of-two scales with out_scale >= scale)",
                "use power-of-two scales");
  const numeric::QuantMode mode = ap_mode(n, a.rounding);
  const int drop = *k - *k_out;
  const int in_bits = static_cast<int>(std::max<int64_t>(a.in_bitwidth, a.out_bitwidth + drop)) + 2;
  QuantizeParams grid;  // round_even(x / s) * s
  grid.scale = s.as_double(0);
  grid.format = FixedType{in_bits, in_bits - *k, true, numeric::QuantMode::RndConv,
                          numeric::OverflowMode::Sat};
  grid.min_raw = grid.format.min_raw();
  grid.max_raw = grid.format.max_raw();
  const int mid = add_internal_tensor(n.name + "_grid", batch_free(n.outputs.at(0), &n));
  add_quantize(n, n.name + "_grid", grid, tensor_of(n.inputs.at(0), n), mid);
  add_quantize(n, n.name,
               quantizer_params(os.as_double(0), 0, static_cast<int>(a.out_bitwidth), a.is_signed,
                                a.narrow, mode),
               mid, add_tensor(n.outputs.at(0), batch_free(n.outputs.at(0), &n)));
}

// Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout: the same data.
numeric::QuantMode GraphLowering::ap_mode(const Node& n, RoundingMode r) const {
  using numeric::QuantMode;
  switch (r) {
    case RoundingMode::Round: return QuantMode::RndConv;
    case RoundingMode::Floor: return QuantMode::Trn;
    case RoundingMode::Down: return QuantMode::TrnZero;
    case RoundingMode::HalfUp: return QuantMode::RndInf;
    case RoundingMode::HalfDown: return QuantMode::RndZero;
    case RoundingMode::Ceil:
    case RoundingMode::Up: break;
  }
  unsupported(n,
              std::string("rounding ") + std::string(enum_name(r)) +
                  " (ap_fixed has no such quantization mode)",
              "use ROUND, FLOOR, DOWN, HALF_UP or HALF_DOWN");
}

void GraphLowering::add_quantize(const Node& n, const std::string& name, const QuantizeParams& p,
                                 int input, int output) {
  Layer& l = push_layer(n, name, p, {input}, output);
  l.precision.result = p.format;
  model_.tensors[static_cast<std::size_t>(output)].type = p.format;
}

void GraphLowering::add_bipolar(const Node& n, double scale) {
  const std::optional<QuantizeParams> p = bipolar_params(scale);
  if (!p)
    unsupported(n,
                "a bipolar quantizer of scale " + std::to_string(scale) +
                    ", which is not a power of two (+-scale has no exact format)",
                "use a power-of-two scale, or scale 1 and fold the scale into the next layer");
  add_quantize(n, n.name, *p, tensor_of(n.inputs.at(0), n),
               add_tensor(n.outputs.at(0), batch_free(n.outputs.at(0), &n)));
}

void GraphLowering::lower_bipolar_quant(const Node& n) {
  const Tensor& s = constant(n, 1, "the BipolarQuant scale");
  if (s.numel() != 1)
    unsupported(n, "a per-channel BipolarQuant of a computed tensor",
                "quantize activations per tensor (weights may be per channel)");
  add_bipolar(n, s.as_double(0));
}

void GraphLowering::lower_reshape(const Node& n) {
  add_layer(n, ReshapeParams{}, {tensor_of(n.inputs[0], n)}, batch_free(n.outputs.at(0), &n));
}

// GRU and LSTM in the forms PyTorch exports (RecurrentParams). The
// recurrent_batch_first pass has put one-sequence models in the batch-first
// layout: X [1, steps, n_in], Y [1, steps, 1, hidden], Y_h [1, 1, hidden].
void GraphLowering::lower_recurrent(const Node& n) {
  const auto& a = n.attr<RecurrentAttrs>();
  const char* fix = "export one forward nn.GRU/nn.LSTM layer per ONNX node with PyTorch's defaults";
  if (n.kind == OpKind::RNN)
    unsupported(n, "RNN has no HLS layer yet (GRU and LSTM have)", "use nn.GRU or nn.LSTM");
  require_batch(n);
  if (!a.batch_first)
    unsupported(n, "a recurrent layer over several sequences",
                "compile one sequence at a time (--batch 1)");
  if (a.direction != RnnDirection::Forward)
    unsupported(n, std::string(enum_name(a.direction)) + " direction (the HLS layer runs forward)",
                fix);
  const bool gru = n.kind == OpKind::GRU;
  for (std::size_t i = 0; i < a.activations.size(); ++i) {
    const RnnActivation want = i == 0 ? RnnActivation::Sigmoid : RnnActivation::Tanh;
    if (a.activations[i].kind != want)
      unsupported(n, "activation " + std::to_string(i) + " is not " + (i == 0 ? "Sigmoid" : "Tanh"),
                  fix);
  }
  if (a.clip != 0.0f) unsupported(n, "clip is not supported", fix);
  if (gru && !a.linear_before_reset)
    unsupported(n, "GRU with linear_before_reset=0 (the HLS layer has PyTorch's form, 1)", fix);
  if (a.input_forget) unsupported(n, "LSTM with input_forget", fix);
  // Optional inputs: sequence_lens (4) must be the full length, initial
  // states (5, 6) and peepholes (7) zero.
  const Shape x = batch_free(n.inputs.at(0), &n);
  auto input = [&](std::size_t i) -> const Value* {
    return i < n.inputs.size() && n.inputs[i].valid() ? &g_.value(n.inputs[i]) : nullptr;
  };
  auto all_equal = [&](std::size_t i, double v, const char* what) {
    if (!input(i)) return;
    const Tensor& t = constant(n, i, what);
    for (int64_t k = 0; k < t.numel(); ++k)
      if (t.as_double(k) != v)
        unsupported(n, std::string(what) + " other than " + std::to_string(static_cast<int>(v)),
                    fix);
  };
  all_equal(4, static_cast<double>(x.at(0)), "sequence_lens");
  all_equal(5, 0.0, "initial_h");
  all_equal(6, 0.0, "initial_c");
  all_equal(7, 0.0, "peepholes");
  // One output: the sequence Y or the last state Y_h.
  auto used = [&](std::size_t i) {
    return i < n.outputs.size() && n.outputs[i].valid() &&
           (!g_.uses(n.outputs[i]).empty() || g_.is_output(n.outputs[i]));
  };
  if (used(2)) unsupported(n, "the LSTM's cell state output Y_c is read", fix);
  if (used(0) == used(1))
    unsupported(n, used(0) ? "both Y and Y_h are read" : "neither Y nor Y_h is read",
                "read the last step of Y, y[:, -1], instead of Y_h");
  const std::size_t out = used(0) ? 0 : 1;

  RecurrentParams p;
  p.cell = gru ? CellKind::Gru : CellKind::Lstm;
  p.steps = x.at(0);
  p.n_in = x.at(1);
  p.hidden = a.hidden_size;
  p.sequences = out == 0;
  const int64_t G = p.gates() * p.hidden;
  // W [1, G, n_in] and R [1, G, hidden] to the library's [i][gate row].
  const Tensor& w = constant(n, 1, "the weight W");
  const Tensor& r = constant(n, 2, "the recurrence weight R");
  std::vector<double> weights;
  weights.reserve(static_cast<std::size_t>((p.n_in + p.hidden) * G));
  for (const auto& [t, cols] : {std::pair{&w, p.n_in}, std::pair{&r, p.hidden}})
    for (int64_t i = 0; i < cols; ++i)
      for (int64_t j = 0; j < G; ++j) weights.push_back(t->as_double(j * cols + i));
  std::vector<double> bias(static_cast<std::size_t>(2 * G), 0.0);
  if (input(3)) bias = to_doubles(constant(n, 3, "the bias B"));
  push_layer(n, n.name, p, {tensor_of(n.inputs[0], n)},
             add_tensor(n.outputs[out], batch_free(n.outputs[out], &n)));
  model_.layers.back().float_weights = std::move(weights);
  model_.layers.back().float_bias = std::move(bias);
}

void GraphLowering::no_hls_layer(const Node& n) {
  unsupported(n, "op " + std::string(op_name(n.kind)) + " has no HLS layer",
              alternative_for(n.kind));
}

void GraphLowering::lower_outputs() {
  for (ValueId v : g_.outputs) {
    const Value& val = g_.value(v);
    Model::Port port;
    port.onnx_name = val.onnx_name.empty() ? val.name : val.onnx_name;
    port.onnx_shape = val.type.shape;
    const NodeId producer = g_.producer(v);
    if (!producer.valid())
      throw_error(ErrorKind::Unsupported, "output '" + port.onnx_name + "'",
                  "a model output that is a model input or a constant", refusal_hint());
    const int t = tensor_index_[static_cast<std::size_t>(v.index)];
    KILN_ASSERT(t >= 0, "model output without a tensor: " + val.name);
    port.perm.resize(batch_free(v, nullptr).size());
    std::iota(port.perm.begin(), port.perm.end(), 0);
    model_.outputs.push_back(t);
    model_.output_ports.push_back(port);
  }
}

// How each op kind lowers to layers; the build fails while a kind has no row.
using LowerFn = void (GraphLowering::*)(const Node&);
constexpr auto kLower = make_enum_table<OpKind, kNumOpKinds, LowerFn>({
    {{OpKind::Conv}, &GraphLowering::lower_conv},
    {{OpKind::ConvTranspose}, &GraphLowering::lower_conv_transpose},
    {{OpKind::MaxPool, OpKind::AveragePool, OpKind::GlobalAveragePool, OpKind::GlobalMaxPool},
     &GraphLowering::lower_pool},
    {{OpKind::Pad}, &GraphLowering::lower_pad},
    {{OpKind::BatchNormalization}, &GraphLowering::lower_batchnorm},
    {{OpKind::Relu, OpKind::LeakyRelu, OpKind::Elu, OpKind::Selu, OpKind::PRelu, OpKind::Clip,
      OpKind::Sigmoid, OpKind::Tanh, OpKind::Exp, OpKind::HardSigmoid, OpKind::HardSwish},
     &GraphLowering::lower_activation},
    {{OpKind::Softmax, OpKind::LogSoftmax}, &GraphLowering::lower_softmax},
    {{OpKind::Dense}, &GraphLowering::lower_dense},
    {{OpKind::MatMul}, &GraphLowering::lower_matmul},
    {{OpKind::Add, OpKind::Sub, OpKind::Mul}, &GraphLowering::lower_binary},
    {{OpKind::Concat}, &GraphLowering::lower_concat},
    {{OpKind::Transpose}, &GraphLowering::lower_transpose},
    {{OpKind::Slice}, &GraphLowering::lower_slice},
    {{OpKind::Split}, &GraphLowering::lower_split},
    {{OpKind::Resize}, &GraphLowering::lower_resize},
    {{OpKind::QuantizeLinear}, &GraphLowering::lower_quantize_linear},
    {{OpKind::DequantizeLinear}, &GraphLowering::lower_dequantize_linear},
    {{OpKind::Quant}, &GraphLowering::lower_qonnx_quant},
    {{OpKind::BipolarQuant}, &GraphLowering::lower_bipolar_quant},
    {{OpKind::Trunc}, &GraphLowering::lower_trunc},
    {{OpKind::RNN, OpKind::GRU, OpKind::LSTM}, &GraphLowering::lower_recurrent},
    {{OpKind::Flatten, OpKind::Reshape, OpKind::Squeeze, OpKind::Unsqueeze, OpKind::Identity,
      OpKind::Dropout},
     &GraphLowering::lower_reshape},
    // No HLS layer yet (docs/hls-layers.md).
    {{OpKind::Gemm,
      OpKind::Hardmax,
      OpKind::Log,
      OpKind::Sqrt,
      OpKind::Abs,
      OpKind::Neg,
      OpKind::Reciprocal,
      OpKind::Div,
      OpKind::Max,
      OpKind::Min,
      OpKind::Sum,
      OpKind::Mean,
      OpKind::Gather,
      OpKind::Cast,
      OpKind::Shape,
      OpKind::ReduceMean,
      OpKind::ReduceSum,
      OpKind::ReduceMax,
      OpKind::Floor,
      OpKind::Ceil,
      OpKind::Round,
      OpKind::Sign,
      OpKind::Erf,
      OpKind::Softplus,
      OpKind::Softsign,
      OpKind::Sin,
      OpKind::Cos,
      OpKind::Tan,
      OpKind::Asin,
      OpKind::Acos,
      OpKind::Atan,
      OpKind::Sinh,
      OpKind::Cosh,
      OpKind::Asinh,
      OpKind::Acosh,
      OpKind::Atanh,
      OpKind::Not,
      OpKind::ThresholdedRelu,
      OpKind::Celu,
      OpKind::Shrink,
      OpKind::IsNaN,
      OpKind::IsInf,
      OpKind::Pow,
      OpKind::Mod,
      OpKind::BitShift,
      OpKind::And,
      OpKind::Or,
      OpKind::Xor,
      OpKind::Equal,
      OpKind::Less,
      OpKind::LessOrEqual,
      OpKind::Greater,
      OpKind::GreaterOrEqual,
      OpKind::Where,
      OpKind::ReduceMin,
      OpKind::ReduceProd,
      OpKind::ReduceL1,
      OpKind::ReduceL2,
      OpKind::ReduceSumSquare,
      OpKind::ReduceLogSum,
      OpKind::ReduceLogSumExp,
      OpKind::ArgMax,
      OpKind::ArgMin,
      OpKind::Expand,
      OpKind::Tile,
      OpKind::ConstantOfShape,
      OpKind::Range,
      OpKind::Size,
      OpKind::EyeLike,
      OpKind::Trilu,
      OpKind::DepthToSpace,
      OpKind::SpaceToDepth,
      OpKind::GatherElements,
      OpKind::CumSum,
      OpKind::OneHot,
      OpKind::LayerNormalization,
      OpKind::InstanceNormalization,
      OpKind::LRN,
      OpKind::MaxUnpool},
     &GraphLowering::no_hls_layer},
});

}  // namespace

Model GraphLowering::run() {
  tensor_index_.assign(g_.num_values(), -1);
  model_.name = g_.name;
  lower_inputs();
  // An op with no layer at all is the refusal to report, not the shape of
  // the nodes before it (a recurrent layer's exporter Transposes, say).
  for (const Node& n : g_.nodes())
    if (kLower[n.kind] == &GraphLowering::no_hls_layer) no_hls_layer(n);
  for (const Node& n : g_.nodes()) (this->*kLower[n.kind])(n);
  lower_outputs();
  return std::move(model_);
}

Model lower_graph(const Graph& graph) {
  return GraphLowering(graph).run();
}

}  // namespace kiln::hls

// model_quantizers: a quantized model (QuantizeLinear / DequantizeLinear
// pairs, lowered to Quantize layers) sets its own formats, so the project
// computes what the quantized model computes (docs/hls-layers.md "Quantized
// models"). In one sweep in layer order:
//  - a Quantize layer whose input only it reads, written by a layer whose
//    last step assigns its result, is absorbed: that layer's result becomes
//    the quantizer's format (one rounding, not two); a quantizer whose zero
//    point narrows the range stays to clamp, after that same rounding;
//  - layers that only move values (max pools, reshapes, concats, slices,
//    nearest resizes, zero padding, transposes) of quantized tensors keep
//    the format;
//  - a Dense or Conv reading a quantized tensor gets exact formats: weights
//    in the fewest bits (at most kMaxExactWeightBits) that hold them exactly
//    (power-of-two weight scales make them so), an accumulator that holds
//    every partial sum exactly (at most 64 bits), and biases in the
//    accumulator's format.
// Config precisions of these fields give way: the model fixed them.
#include <algorithm>
#include <cmath>
#include <optional>

#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/hls/model_edit.h"

namespace kiln::hls {

namespace {

constexpr int kMaxExactWeightBits = 16;
constexpr int kMaxFracBits = 40;

// The smallest format holding every value exactly, or nullopt if none of at
// most `max_width` bits does.
std::optional<FixedType> exact_format(const std::vector<double>& values, int max_width) {
  int f = 0;
  for (double v : values) {
    while (f <= kMaxFracBits && std::ldexp(v, f) != std::floor(std::ldexp(v, f))) ++f;
    if (f > kMaxFracBits) return std::nullopt;
  }
  double lo = 0, hi = 0;
  for (double v : values) lo = std::min(lo, std::ldexp(v, f)), hi = std::max(hi, std::ldexp(v, f));
  const bool sign = lo < 0;
  int w = 1;
  while (w <= max_width && (sign ? (lo < -std::ldexp(1.0, w - 1) || hi > std::ldexp(1.0, w - 1) - 1)
                                 : hi > std::ldexp(1.0, w) - 1))
    ++w;
  if (w > max_width) return std::nullopt;
  return FixedType{w, w - f, sign};
}

bool moves_values(const Layer& l) {
  switch (l.kind()) {
    case LayerKind::Pool: return l.as<PoolParams>().kind == PoolKind::Max;
    case LayerKind::Resize: return l.as<ResizeParams>().mode == ResizeKind::Nearest;
    case LayerKind::ZeroPad:
    case LayerKind::Concat:
    case LayerKind::Transpose:
    case LayerKind::Slice:
    case LayerKind::Reshape: return true;
    case LayerKind::Input:
    case LayerKind::Dense:
    case LayerKind::Conv:
    case LayerKind::BatchNorm:
    case LayerKind::Activation:
    case LayerKind::Softmax:
    case LayerKind::Binary:
    case LayerKind::Quantize:
    case LayerKind::MatMul:
    case LayerKind::Recurrent:
    case LayerKind::Clone: return false;
  }
  return false;
}

// Layers whose last step is y = Q_result(value): a quantizer after them can
// be that step.
bool assigns_result(LayerKind k) {
  switch (k) {
    case LayerKind::Input:
    case LayerKind::Dense:
    case LayerKind::Conv:
    case LayerKind::Pool:
    case LayerKind::BatchNorm:
    case LayerKind::Activation:
    case LayerKind::Binary:
    case LayerKind::MatMul:
    case LayerKind::Resize: return true;
    // Not absorbed: Softmax (no quantized model has needed it yet), layers
    // that only move values, quantizers, and Recurrent (its result format is
    // also the state's, which the model's quantizer does not round).
    case LayerKind::Softmax:
    case LayerKind::Recurrent:
    case LayerKind::ZeroPad:
    case LayerKind::Concat:
    case LayerKind::Transpose:
    case LayerKind::Slice:
    case LayerKind::Quantize:
    case LayerKind::Reshape:
    case LayerKind::Clone: return false;
  }
  return false;
}

class ModelQuantizers final : public LayerPass {
 public:
  std::string_view name() const override { return "model_quantizers"; }

  bool run(Model& m) override {
    quantized_.assign(m.tensors.size(), false);
    rounded_.assign(m.tensors.size(), false);
    bool changed = false;
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
      Layer& l = m.layers[i];
      if (l.kind() == LayerKind::Quantize) {
        quantized_[static_cast<std::size_t>(l.output())] = true;
        const std::size_t before = m.layers.size();
        changed |= absorb(m, i);
        if (m.layers.size() < before) --i;  // layer i is gone; the next one took its place
        continue;
      }
      if (l.inputs.empty() || !all_quantized(l)) continue;
      if (moves_values(l)) {
        const FixedType t = m.tensors[static_cast<std::size_t>(l.inputs[0])].type;
        bool same = true;
        for (int in : l.inputs) same = same && m.tensors[static_cast<std::size_t>(in)].type == t;
        if (!same) continue;
        set_result(m, l, t);
        changed = true;
      } else if (l.kind() == LayerKind::Dense || l.kind() == LayerKind::Conv) {
        changed |= exact_products(m, l);
      }
    }
    return changed;
  }

 private:
  bool all_quantized(const Layer& l) const {
    return std::all_of(l.inputs.begin(), l.inputs.end(),
                       [&](int t) { return quantized_[static_cast<std::size_t>(t)]; });
  }

  void set_result(Model& m, Layer& l, const FixedType& t) {
    l.precision.result = t;
    for (int o : l.outputs) {
      m.tensors[static_cast<std::size_t>(o)].type = t;
      quantized_[static_cast<std::size_t>(o)] = true;
    }
  }

  // Quantize layer i into the layer writing its input, if it can be.
  bool absorb(Model& m, std::size_t i) {
    const Layer& q = m.layers[i];
    const auto& p = q.as<QuantizeParams>();
    const int in = q.inputs.at(0);
    const int pi = producer_index(m, in);
    if (pi < 0 || !assigns_result(m.layers[static_cast<std::size_t>(pi)].kind())) return false;
    if (readers(m, in).size() != 1 || is_model_output(m, in)) return false;
    if (rounded_[static_cast<std::size_t>(in)]) return false;
    Layer& producer = m.layers[static_cast<std::size_t>(pi)];
    if (p.bipolar) {
      // Not a rounding, so it stays; it reads only the sign, which a Dense or
      // Conv keeps exactly by writing its accumulator's format (exact after
      // quantized inputs), not a narrower result that rounds or wraps.
      const LayerKind k = producer.kind();
      if ((k != LayerKind::Dense && k != LayerKind::Conv) ||
          producer.precision.result == producer.precision.accum)
        return false;
      set_result(m, producer, producer.precision.accum);
      return true;
    }
    if (p.min_raw != p.format.min_raw() || p.max_raw != p.format.max_raw()) {
      // A clamp the producer cannot apply: the producer rounds and saturates
      // into the quantizer's format (rounding once), the quantizer stays and
      // only clamps.
      set_result(m, producer, p.format);
      rounded_[static_cast<std::size_t>(in)] = true;
      return true;
    }
    const int out = q.output();
    const FixedType type = p.format;
    // Readers of the quantizer's output (and the model's outputs) read its input.
    replace_reads(m, out, in);
    for (int& o : m.outputs)
      if (o == out) o = in;
    remove_layer(m, i);
    remove_tensor(m, out);
    quantized_.erase(quantized_.begin() + out);
    rounded_.erase(rounded_.begin() + out);
    set_result(m, m.layers[static_cast<std::size_t>(pi)], type);
    for (int o : m.layers[static_cast<std::size_t>(pi)].outputs)
      rounded_[static_cast<std::size_t>(o)] = true;
    return true;
  }

  bool exact_products(Model& m, Layer& l) {
    const std::optional<FixedType> w = exact_format(l.float_weights, kMaxExactWeightBits);
    if (!w) return false;
    const FixedType& x = m.tensors[static_cast<std::size_t>(l.inputs.at(0))].type;
    const int64_t n_in = l.kind() == LayerKind::Dense
                             ? l.as<DenseParams>().n_in
                             : l.as<ConvParams>().kernel_h * l.as<ConvParams>().kernel_w *
                                   l.as<ConvParams>().c_in / l.as<ConvParams>().groups;
    // n_in products of x * w and the bias: log2(n_in + 1) more integer bits.
    int sum_bits = 0;
    while ((int64_t{1} << sum_bits) < n_in + 1) ++sum_bits;
    // Biases on a grid (int32 biases of a power-of-two scale) need its bits too.
    const std::optional<FixedType> b = exact_format(l.float_bias, 64);
    const int frac = std::max(x.frac() + w->frac(), b ? b->frac() : 0);
    const int product = x.integer + w->integer + (x.is_signed || w->is_signed ? 0 : 1);
    double max_bias = 0;
    for (double b : l.float_bias) max_bias = std::max(max_bias, std::abs(b));
    int bias = 1;  // a sign bit and the integer bits of the largest bias
    while (std::ldexp(1.0, bias - 1) <= max_bias) ++bias;
    const int integer = std::max(product, bias) + sum_bits;
    if (integer + frac > 64 || integer + frac < 1) return false;
    l.precision.weight = *w;
    l.precision.accum = FixedType{integer + frac, integer, true};
    l.precision.bias = l.precision.accum;
    return true;
  }

  std::vector<bool> quantized_;  // per tensor: its format is the model's
  // Per tensor: its producer already rounds as an absorbed quantizer. A
  // second quantizer stays a layer: two roundings are not one (round half to
  // even onto 2^-1, then floor onto 2^1, is not a floor onto 2^1).
  std::vector<bool> rounded_;
};

}  // namespace

std::unique_ptr<LayerPass> make_model_quantizers(const LayerPassContext&) {
  return std::make_unique<ModelQuantizers>();
}

}  // namespace kiln::hls

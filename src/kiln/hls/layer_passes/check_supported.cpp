// check_supported: the limits of kiln's HLS layer library (docs/hls-layers.md)
// that lowering cannot see because they depend on the configuration, checked
// once here so the emitter, the emulator and the estimator can rely on them.
// Each refusal is an Unsupported error naming the layer, with what to change.
#include "kiln/hls/derived.h"
#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/hls/refusal.h"
#include "kiln/hls/tables.h"
#include "kiln/support/enum_table.h"
#include "kiln/support/error.h"

namespace kiln::hls {

namespace {

[[noreturn]] void unsupported(const Layer& l, const std::string& what,
                              const std::string& hint = {}) {
  throw_error(ErrorKind::Unsupported,
              "layer '" + (l.onnx_name.empty() ? l.name : l.onnx_name) + "'", what,
              refusal_hint(hint));
}

// The dense kernel applies these itself; the others need an Activation layer.
void check_fusable(const Layer& l, const Activation& act) {
  switch (act.kind) {
    case ActKind::None:
    case ActKind::Relu:
    case ActKind::LeakyRelu:
    case ActKind::Clip: return;
    case ActKind::Elu:
    case ActKind::Selu:
    case ActKind::PRelu:
    case ActKind::Sigmoid:
    case ActKind::Tanh:
    case ActKind::Exp:
    case ActKind::HardSigmoid:
    case ActKind::HardSwish: break;
  }
  unsupported(
      l, std::string(enum_name(act.kind)) + " cannot be fused into a dense or convolution layer",
      "keep it as a separate Activation layer");
}

// The window kernels step whole windows: out = (in + pads - kernel) / stride + 1.
void check_window(const Layer& l, int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t s,
                  int64_t out) {
  const int64_t padded = in + pad0 + pad1;
  if (k < 1 || s < 1 || padded < k || (padded - k) / s + 1 != out)
    unsupported(l,
                "window geometry not supported (padded size " + std::to_string(padded) +
                    ", kernel " + std::to_string(k) + ", stride " + std::to_string(s) +
                    ", output " + std::to_string(out) + ")",
                "use explicit padding so that out = (in + pads - kernel) / stride + 1");
}

void check_tables(const Layer& l, ActKind act) {
  if (auto kind = table_kind(act)) table_geometry(*kind, l.tables, 0, l.name);
}

using Check = void (*)(const Model&, const Layer&);

void nothing(const Model&, const Layer&) {}

void dense(const Model&, const Layer& l) {
  check_fusable(l, l.as<DenseParams>().act);
}

void conv(const Model& m, const Layer& l) {
  const auto& p = l.as<ConvParams>();
  check_fusable(l, p.act);
  check_window(l, p.in_h, p.pad_top, p.pad_bottom, p.kernel_h, p.stride_h, p.out_h);
  check_window(l, p.in_w, p.pad_left, p.pad_right, p.kernel_w, p.stride_w, p.out_w);
  // One bit per window position in the encoded instruction words.
  if (m.io_type == IOType::Stream && l.conv_impl == ConvImpl::Encoded &&
      p.kernel_h * p.kernel_w > 64)
    unsupported(l,
                "encoded convolution needs kernel_h * kernel_w <= 64, this kernel is " +
                    std::to_string(p.kernel_h) + "x" + std::to_string(p.kernel_w),
                "use ConvImplementation: LineBuffer for this layer");
}

void pool(const Model&, const Layer& l) {
  const auto& p = l.as<PoolParams>();
  check_window(l, p.in_h, p.pad_top, p.pad_bottom, p.kernel_h, p.stride_h, p.out_h);
  check_window(l, p.in_w, p.pad_left, p.pad_right, p.kernel_w, p.stride_w, p.out_w);
}

void activation(const Model&, const Layer& l) {
  check_tables(l, l.as<ActivationParams>().act.kind);
}

void softmax(const Model&, const Layer& l) {
  const auto& p = l.as<SoftmaxParams>();
  table_geometry(TableKind::SoftmaxExp, l.tables, p.length, l.name);
  table_geometry(softmax_sum_table(p), l.tables, p.length, l.name);
}

void concat(const Model&, const Layer& l) {
  if (l.inputs.size() > 4)
    unsupported(l, "Concat of " + std::to_string(l.inputs.size()) + " inputs (at most 4)",
                "run split_wide_concats first (the default pipeline does)");
}

void transpose(const Model&, const Layer& l) {
  const std::size_t rank = l.as<TransposeParams>().perm.size();
  if (rank > 4)
    unsupported(l, "Transpose of rank " + std::to_string(rank) + " (at most 4)",
                "keep tensors at rank 4 or less around a Transpose");
}

void slice(const Model&, const Layer& l) {
  const std::size_t rank = l.as<SliceParams>().begin.size();
  if (rank > 4)
    unsupported(l, "Slice of rank " + std::to_string(rank) + " (at most 4)",
                "keep tensors at rank 4 or less around a Slice or Split");
}

void check_rounding(const Layer& l, int from_integer, const std::string& from, const FixedType& to,
                    const std::string& to_role);

// The state and gate arithmetic of recurrent.h beyond the two products.
void recurrent(const Model&, const Layer& l) {
  table_geometry(TableKind::Sigmoid, l.tables, 0, l.name);
  const Precision& p = l.precision;
  const int table = p.table.integer, acc = p.accum.integer, res = p.result.integer;
  check_rounding(l, res + p.weight.integer, "a product of the state and a weight", p.accum,
                 "accum");
  check_rounding(l, table + acc + 1, "a gate times the accumulator", p.accum, "accum");
  check_rounding(l, std::max(2 * table, table + res + 1) + 1, "the gated state", p.result,
                 "result");
}

constexpr auto kCheck = make_enum_table<LayerKind, kNumLayerKinds, Check>({
    {{LayerKind::Dense}, &dense},
    {{LayerKind::Conv}, &conv},
    {{LayerKind::Pool}, &pool},
    {{LayerKind::Activation}, &activation},
    {{LayerKind::Softmax}, &softmax},
    {{LayerKind::Concat}, &concat},
    {{LayerKind::Transpose}, &transpose},
    {{LayerKind::Slice}, &slice},
    {{LayerKind::Recurrent}, &recurrent},
    {{LayerKind::Input, LayerKind::ZeroPad, LayerKind::BatchNorm, LayerKind::Binary,
      LayerKind::MatMul, LayerKind::Resize, LayerKind::Quantize, LayerKind::Reshape,
      LayerKind::Clone},
     &nothing},
});

// Vitis's ap_fixed aborts C simulation ("Attempting to read bit beyond MSB")
// when it rounds (any quantization mode but truncation) a value whose bits
// all lie below the bit under the target's lowest, the one rounding reads:
// source integer bits + target fraction bits < 0 (checked against Xilinx's
// headers: ap_fixed<16,2> to ap_fixed<14,17,AP_RND> aborts, ap_fixed<16,3>
// does not). kiln_fixed.h rounds such values fine, but a project must behave
// the same under both headers, so such formats are refused.
// `from_integer` is the source's integer bits (a product's: the sum).
// (Declared above for the recurrent check.)
void check_rounding(const Layer& l, int from_integer, const std::string& from, const FixedType& to,
                    const std::string& to_role) {
  if (to.quant == numeric::QuantMode::Trn || from_integer + to.frac() >= 0) return;
  unsupported(l,
              "rounding " + from + " (integer bits " + std::to_string(from_integer) + ") to the " +
                  to_role + " type " + to.to_string() +
                  ", whose rounding bit is above all of its bits, makes Vitis's ap_fixed abort",
              "use truncation (AP_TRN) for " + to_role + ", or give it more fraction bits");
}

// The fixed-to-fixed conversions a layer's code makes.
void check_conversions(const Model& m, const Layer& l) {
  const Precision& p = l.precision;
  for (int t : l.inputs) {
    const FixedType& in = m.tensors.at(static_cast<std::size_t>(t)).type;
    check_rounding(l, in.integer, "the input " + in.to_string(), p.result, "result");
    if (product_shape(l)) {
      check_rounding(l, in.integer + p.weight.integer,
                     "a product of " + in.to_string() + " and a weight " + p.weight.to_string(),
                     p.accum, "accum");
    }
  }
  if (product_shape(l)) {
    check_rounding(l, p.bias.integer, "the bias " + p.bias.to_string(), p.accum, "accum");
    check_rounding(l, p.accum.integer, "the accumulator " + p.accum.to_string(), p.result,
                   "result");
  }
}

class CheckSupported final : public LayerPass {
 public:
  std::string_view name() const override { return "check_supported"; }

  bool run(Model& m) override {
    for (const Layer& l : m.layers) {
      kCheck[l.kind()](m, l);
      if (l.kind() != LayerKind::Input) check_conversions(m, l);
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<LayerPass> make_check_supported(const LayerPassContext&) {
  return std::make_unique<CheckSupported>();
}

}  // namespace kiln::hls

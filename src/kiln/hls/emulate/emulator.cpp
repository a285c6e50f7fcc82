// The emulator driver: tensors, the table from layer kind to kernel, and the
// Input layers' quantization. The arithmetic of each layer lives in the family
// kernels (dense_conv.cpp, elementwise.cpp), written against docs/numerics.md.
#include "kiln/hls/emulate/emulator.h"

#include <string>

#include "kiln/hls/emulate/kernels.h"
#include "kiln/hls/layer_kinds.h"
#include "kiln/support/enum_table.h"
#include "kiln/support/error.h"

namespace kiln::hls {

double FixedTensor::at(std::size_t i) const {
  KILN_ASSERT(i < raw.size(), "FixedTensor::at index out of range");
  return numeric::to_double(raw[i], type);
}

const FixedTensor& LayerRun::x(std::size_t i) const {
  KILN_ASSERT(i < in.size() && in[i] != nullptr,
              "layer '" + layer.name + "' lacks input " + std::to_string(i));
  return *in[i];
}

FixedTensor& LayerRun::y() const {
  KILN_ASSERT(out.size() == 1 && out[0] != nullptr,
              "layer '" + layer.name + "' needs exactly one output");
  return *out[0];
}

numeric::Exact exact_of(const FixedTensor& t, std::size_t i) {
  return numeric::to_exact(t.raw[i], t.type);
}

int64_t assign(const numeric::Exact& v, const FixedType& t, OverflowCounts& counts) {
  numeric::OverflowEvent event = numeric::OverflowEvent::None;
  const int64_t raw = numeric::quantize(v, t, &event);
  if (event == numeric::OverflowEvent::Wrapped) ++counts.wrapped;
  if (event == numeric::OverflowEvent::Saturated) ++counts.saturated;
  return raw;
}

// docs/numerics.md, Input: y = Q_result(float input).
void emulate_input(LayerRun& run) {
  KILN_ASSERT(run.input_values != nullptr,
              "Input layer '" + run.layer.name + "' does not feed a model input");
  FixedTensor& out = run.y();
  const std::vector<double>& values = *run.input_values;
  out.raw.assign(values.size(), 0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] != values[i])
      throw_error(ErrorKind::InvalidModel, "input '" + run.layer.name + "'",
                  "value " + std::to_string(i) + " is NaN");
    numeric::OverflowEvent event = numeric::OverflowEvent::None;
    out.raw[i] = numeric::quantize(values[i], out.type, &event);
    if (event == numeric::OverflowEvent::Wrapped) ++run.counts.wrapped;
    if (event == numeric::OverflowEvent::Saturated) ++run.counts.saturated;
  }
}

namespace {

// The emulator kernel of every layer kind; the build fails while a kind has no row.
using EmulateFn = void (*)(LayerRun&);
constexpr auto kEmulate = make_enum_table<LayerKind, kNumLayerKinds, EmulateFn>({
    {{LayerKind::Input}, emulate_input},
    {{LayerKind::Dense}, emulate_dense},
    {{LayerKind::Conv}, emulate_conv},
    {{LayerKind::Pool}, emulate_pool},
    {{LayerKind::ZeroPad}, emulate_zero_pad},
    {{LayerKind::BatchNorm}, emulate_batchnorm},
    {{LayerKind::Activation}, emulate_activation},
    {{LayerKind::Softmax}, emulate_softmax},
    {{LayerKind::Binary}, emulate_binary},
    {{LayerKind::Concat}, emulate_concat},
    {{LayerKind::Transpose}, emulate_transpose},
    {{LayerKind::Slice}, emulate_slice},
    {{LayerKind::Resize}, emulate_resize},
    {{LayerKind::Quantize}, emulate_quantize},
    {{LayerKind::MatMul}, emulate_matmul},
    {{LayerKind::Recurrent}, emulate_recurrent},
    {{LayerKind::Reshape, LayerKind::Clone}, emulate_copy},
});

// Which position in Model::inputs a tensor has, or -1.
int input_position(const Model& model, int tensor) {
  for (std::size_t k = 0; k < model.inputs.size(); ++k)
    if (model.inputs[k] == tensor) return static_cast<int>(k);
  return -1;
}

}  // namespace

OverflowCounts emulate_layer(const Layer& layer, const std::vector<const FixedTensor*>& in,
                             const std::vector<FixedTensor*>& out, const EmulatorOptions& options,
                             bool* fast_path_used) {
  OverflowCounts counts;
  LayerRun run{layer, in, out, counts, options};
  kEmulate[layer.kind()](run);
  if (fast_path_used != nullptr) *fast_path_used = run.fast_path_used;
  return counts;
}

EmulationResult emulate(const Model& model, const std::vector<std::vector<double>>& inputs,
                        const EmulatorOptions& options) {
  if (inputs.size() != model.inputs.size())
    throw_error(ErrorKind::InvalidModel, model.name,
                "expected " + std::to_string(model.inputs.size()) + " input tensor(s), got " +
                    std::to_string(inputs.size()));
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const TensorInfo& t = model.tensors.at(static_cast<std::size_t>(model.inputs[k]));
    if (static_cast<int64_t>(inputs[k].size()) != t.numel())
      throw_error(ErrorKind::InvalidModel, model.name + ": input '" + t.name + "'",
                  "expected " + std::to_string(t.numel()) + " values, got " +
                      std::to_string(inputs[k].size()));
  }

  std::vector<FixedTensor> tensors(model.tensors.size());
  for (std::size_t i = 0; i < model.tensors.size(); ++i) {
    tensors[i].type = model.tensors[i].type;
    tensors[i].shape = model.tensors[i].shape;
    tensors[i].raw.assign(static_cast<std::size_t>(model.tensors[i].numel()), 0);
  }

  EmulationResult result;
  result.per_layer.resize(model.layers.size());
  for (std::size_t li = 0; li < model.layers.size(); ++li) {
    const Layer& layer = model.layers[li];
    std::vector<const FixedTensor*> in;
    in.reserve(layer.inputs.size());
    for (int t : layer.inputs) {
      KILN_ASSERT(t >= 0 && static_cast<std::size_t>(t) < tensors.size(),
                  "layer '" + layer.name + "' reads a missing tensor");
      in.push_back(&tensors[static_cast<std::size_t>(t)]);
    }
    std::vector<FixedTensor*> out;
    for (int t : layer.outputs) {
      KILN_ASSERT(t >= 0 && static_cast<std::size_t>(t) < tensors.size(),
                  "layer '" + layer.name + "' writes a missing tensor");
      out.push_back(&tensors[static_cast<std::size_t>(t)]);
    }
    LayerRun run{layer, in, out, result.per_layer[li], options};
    if (layer.kind() == LayerKind::Input) {
      const int k = input_position(model, layer.output());
      KILN_ASSERT(k >= 0, "Input layer '" + layer.name + "' does not feed a model input");
      run.input_values = &inputs[static_cast<std::size_t>(k)];
    }
    kEmulate[layer.kind()](run);
    if (run.fast_path_used) ++result.fast_path_layers;
  }

  for (int t : model.outputs) result.outputs.push_back(tensors.at(static_cast<std::size_t>(t)));
  return result;
}

}  // namespace kiln::hls

// The emulator driver: tensors, Input quantization and per-layer dispatch.
// The arithmetic of each layer lives in the family kernels (dense_conv.cpp,
// elementwise.cpp), written against docs/numerics.md.
#include "kiln/hls/emulate/emulator.h"

#include <string>

#include "kiln/support/error.h"

namespace kiln::hls {

double FixedTensor::at(std::size_t i) const {
  KILN_ASSERT(i < raw.size(), "FixedTensor::at index out of range");
  return numeric::to_double(raw[i], type);
}

namespace {

void count(numeric::OverflowEvent event, OverflowCounts& counts) {
  if (event == numeric::OverflowEvent::Wrapped) ++counts.wrapped;
  if (event == numeric::OverflowEvent::Saturated) ++counts.saturated;
}

// Which position in Model::inputs a tensor has, or -1.
int input_position(const Model& model, int tensor) {
  for (std::size_t k = 0; k < model.inputs.size(); ++k)
    if (model.inputs[k] == tensor) return static_cast<int>(k);
  return -1;
}

}  // namespace

EmulationResult emulate(const Model& model, const std::vector<std::vector<double>>& inputs) {
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
    KILN_ASSERT(layer.output >= 0 && static_cast<std::size_t>(layer.output) < tensors.size(),
                "layer '" + layer.name + "' has no output tensor");
    FixedTensor& out = tensors[static_cast<std::size_t>(layer.output)];
    OverflowCounts& counts = result.per_layer[li];
    if (layer.kind == LayerKind::Input) {
      // docs/numerics.md, Input: y = Q_result(float input).
      const int k = input_position(model, layer.output);
      KILN_ASSERT(k >= 0, "Input layer '" + layer.name + "' does not feed a model input");
      const std::vector<double>& values = inputs[static_cast<std::size_t>(k)];
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] != values[i])
          throw_error(ErrorKind::InvalidModel, model.name + ": input '" + layer.name + "'",
                      "value " + std::to_string(i) + " is NaN");
        numeric::OverflowEvent event = numeric::OverflowEvent::None;
        out.raw[i] = numeric::quantize(values[i], out.type, &event);
        count(event, counts);
      }
      continue;
    }
    std::vector<const FixedTensor*> in;
    in.reserve(layer.inputs.size());
    for (int t : layer.inputs) {
      KILN_ASSERT(t >= 0 && static_cast<std::size_t>(t) < tensors.size(),
                  "layer '" + layer.name + "' reads a missing tensor");
      in.push_back(&tensors[static_cast<std::size_t>(t)]);
    }
    switch (layer.kind) {
      case LayerKind::Dense:
      case LayerKind::Conv:
      case LayerKind::Pool:
      case LayerKind::ZeroPad: emulate_dense_conv_pool(layer, in, out, counts); break;
      default: emulate_elementwise(layer, in, out, counts); break;
    }
  }

  for (int t : model.outputs) result.outputs.push_back(tensors.at(static_cast<std::size_t>(t)));
  return result;
}

}  // namespace kiln::hls

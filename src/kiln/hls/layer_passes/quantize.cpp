// quantize: weights and biases become raw values of their layer's formats,
// rounded and saturated (or wrapped) by each format's own modes, exactly as
// the generated C++ initializes its constant arrays.
#include "kiln/hls/layer_passes/pipeline.h"

namespace kiln::hls {

namespace {

std::vector<int64_t> to_raw(const std::vector<double>& values, const FixedType& type) {
  std::vector<int64_t> raw;
  raw.reserve(values.size());
  for (double v : values) raw.push_back(numeric::quantize(v, type));
  return raw;
}

class Quantize final : public LayerPass {
 public:
  std::string_view name() const override { return "quantize"; }

  bool run(Model& m) override {
    bool changed = false;
    for (Layer& l : m.layers) {
      if (l.float_weights.empty() && l.float_bias.empty()) continue;
      l.weights = to_raw(l.float_weights, l.precision.weight);
      l.bias = to_raw(l.float_bias, l.precision.bias);
      l.float_weights.clear();
      l.float_bias.clear();
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<LayerPass> make_quantize(const LayerPassContext&) {
  return std::make_unique<Quantize>();
}

}  // namespace kiln::hls

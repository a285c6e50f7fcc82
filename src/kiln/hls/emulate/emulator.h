// kiln's bit-exact emulator of the generated HLS project (docs/numerics.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/hls/model.h"

namespace kiln::hls {

// A tensor of raw fixed-point values in the format `type`, channels-last.
struct FixedTensor {
  FixedType type;
  std::vector<int64_t> shape;
  std::vector<int64_t> raw;
  double at(std::size_t i) const;  // value of element i
};

// Quantization events in one layer's outputs (and accumulators).
struct OverflowCounts {
  int64_t wrapped = 0;    // values that wrapped around (AP_WRAP)
  int64_t saturated = 0;  // values clamped (AP_SAT*)
};

struct EmulationResult {
  std::vector<FixedTensor> outputs;       // in Model::outputs order
  std::vector<OverflowCounts> per_layer;  // in Model::layers order
  int fast_path_layers = 0;               // Dense/Conv layers that used the int64 path
};

struct EmulatorOptions {
  // Dense/Conv accumulate in int64 when the formats make that exact (and in
  // the general 128-bit arithmetic otherwise); tests turn it off to compare
  // the two paths.
  bool fast_path = true;
};

// Runs the model on inputs given as doubles in each input tensor's
// channels-last order (Model::inputs order).
EmulationResult emulate(const Model& model, const std::vector<std::vector<double>>& inputs,
                        const EmulatorOptions& options = {});

// Runs one layer alone on `in`; each output tensor comes with its type (and
// shape) preset. Returns the layer's quantization events; `fast_path_used`
// tells whether Dense/Conv accumulated on the int64 path.
OverflowCounts emulate_layer(const Layer& layer, const std::vector<const FixedTensor*>& in,
                             const std::vector<FixedTensor*>& out,
                             const EmulatorOptions& options = {}, bool* fast_path_used = nullptr);

}  // namespace kiln::hls

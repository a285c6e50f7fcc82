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
};

// Runs the model on inputs given as doubles in each input tensor's
// channels-last order (Model::inputs order).
EmulationResult emulate(const Model& model, const std::vector<std::vector<double>>& inputs);

// Per-family kernels (emulate/dense_conv.cpp, emulate/elementwise.cpp):
// compute `layer` from its input tensors into `out` (shape/type preset),
// adding quantization events to `counts`.
void emulate_dense_conv_pool(const Layer& layer, const std::vector<const FixedTensor*>& in,
                             FixedTensor& out, OverflowCounts& counts);
void emulate_elementwise(const Layer& layer, const std::vector<const FixedTensor*>& in,
                         FixedTensor& out, OverflowCounts& counts);

// Dense/Conv accumulate in int64 when the formats make that exact (and fall
// back to the general 128-bit arithmetic otherwise). On by default; tests turn
// it off to compare the two paths.
void set_emulator_fast_path(bool enabled);
// How many Dense/Conv layer evaluations have used the fast path so far.
int64_t emulator_fast_path_layer_count();

}  // namespace kiln::hls

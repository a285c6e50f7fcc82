// Helpers shared by the emulator's dense/conv tests (include only from *_test.cpp).
#pragma once

#include "kiln/hls/emulate/emulator.h"

namespace kiln::hls::testing {

inline Precision precision(FixedType w, FixedType b, FixedType acc, FixedType res) {
  Precision p;
  p.weight = w;
  p.bias = b;
  p.accum = acc;
  p.result = res;
  return p;
}

// One layer's output and its quantization events.
struct Outcome {
  FixedTensor out;
  OverflowCounts counts;
};

// Runs a one-output layer on its inputs (the output's shape is set by the
// layer's kernel).
inline Outcome run(const Layer& layer, const std::vector<const FixedTensor*>& in,
                   const FixedType& out_type, const EmulatorOptions& options = {},
                   bool* fast_path_used = nullptr) {
  Outcome r;
  r.out.type = out_type;
  r.counts = emulate_layer(layer, in, {&r.out}, options, fast_path_used);
  return r;
}
inline Outcome run(const Layer& layer, const FixedTensor& in, const FixedType& out_type,
                   const EmulatorOptions& options = {}, bool* fast_path_used = nullptr) {
  return run(layer, std::vector<const FixedTensor*>{&in}, out_type, options, fast_path_used);
}

}  // namespace kiln::hls::testing

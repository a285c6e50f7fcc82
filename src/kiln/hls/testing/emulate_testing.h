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

// Runs a Dense/Conv/Pool/ZeroPad layer on one input.
inline Outcome run(const Layer& layer, const FixedTensor& in, const FixedType& out_type) {
  Outcome r;
  r.out.type = out_type;
  emulate_dense_conv_pool(layer, {&in}, r.out, r.counts);
  return r;
}

}  // namespace kiln::hls::testing

// Resize's coordinate mapping, shared by the golden kernel and the HLS
// lowering so that both read the same input pixels for every ONNX mode.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/graph/ops.h"

namespace kiln::ref {

struct ResizeTap {
  int64_t index;  // input coordinate
  double weight;
};

// taps[o]: the input taps of output coordinate o along dimension d of a
// rank-`rank` tensor (input size `in`, output size `out`), weights summing to
// 1; empty means the extrapolation value (tf_crop_and_resize outside the
// input). Nearest gives one tap, linear two, cubic four.
std::vector<std::vector<ResizeTap>> resize_taps(const ResizeAttrs& a, std::size_t d,
                                                std::size_t rank, int64_t in, int64_t out);

}  // namespace kiln::ref

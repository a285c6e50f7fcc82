// Compile-time structures of the encoded convolution (seed 002 §4.4), computed
// by kiln when it writes a project (docs/hls-layers.md "Encoded convolution").
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/hls/model.h"

namespace kiln::hls {

struct EncodedTable {
  // Compressed instruction table, [row class][column class]; bit
  // (kh * kernel_w + kw) of an instruction is set when the pixel feeds the
  // FIFO of window position (kh, kw).
  std::vector<uint64_t> table;
  int64_t n_row_classes = 0;
  int64_t n_col_classes = 0;
  // Largest occupancy any of the kernel_h * kernel_w FIFOs reaches.
  int64_t stream_depth = 1;
};

// Requires kernel_h * kernel_w <= 64 and out = (in + pads - k) / stride + 1.
EncodedTable encoded_table(const ConvParams& p);

}  // namespace kiln::hls

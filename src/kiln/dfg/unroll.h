// Symbolic unrolling: runs each Loop IR kernel with buffers as tables of
// graph nodes instead of numbers, so every loop disappears, a load of what a
// store wrote is the stored node (store-to-load forwarding for free), weights
// become constants and the builder's folding and hash-consing apply. Each
// kernel becomes one Stage: a graph whose inputs are the elements it reads
// from program buffers and whose outputs are the elements it writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/dfg/graph.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::dfg {

// The most operations (loop::dynamic_ops) one layer may unroll to. It admits
// a 3x3 convolution over a 128x128 image (about 0.9 million) with room to
// spare; larger layers are refused (exit 3) until issue 10 keeps them as loops.
inline constexpr int64_t kMaxUnrolledOps = 4'000'000;

struct Stage {
  std::string name;       // the kernel's (layer's) name
  std::string onnx_name;  // for messages
  int64_t loop_ops = 0;   // operations before unrolling (dynamic_ops)
  Graph graph;
};

struct UnrollOptions {
  int64_t max_ops = kMaxUnrolledOps;
  bool balance = true;  // regroup modular sums into balanced trees
};

// Throws kiln::Error(Unsupported) naming the layer and its operation count
// when a kernel is over `max_ops`; Internal when a kernel reads a local
// element before writing it.
std::vector<Stage> unroll(const loop::Program& program, const UnrollOptions& options = {});

}  // namespace kiln::dfg

// Lowers a configured HLS layer model to Loop IR: one kernel per layer, in
// the layer's order, with the emulator's arithmetic and order of operations
// (docs/numerics.md), so interpreting the program gives exactly what
// hls::emulate gives.
#pragma once

#include "kiln/hls/model.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::loop {

// `model` is a built hls::Model (hls/build_model.h): layer passes done,
// constants quantized. Each tensor becomes a buffer (model inputs and outputs
// with the Input and Output roles), each layer's constants a const buffer,
// and Reshape / Clone layers that keep the type become aliases (no kernel).
// Every layer kind has a lowering. The result passes verify().
Program lower_model(const hls::Model& model);

}  // namespace kiln::loop

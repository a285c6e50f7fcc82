// Lowers a configured HLS layer model to Loop IR: one kernel per layer, in
// the layer's order, with the emulator's arithmetic and order of operations
// (docs/numerics.md), so interpreting the program gives exactly what
// hls::emulate gives.
#pragma once

#include <map>
#include <string>

#include "kiln/hls/model.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::loop {

// `model` is a built hls::Model (hls/build_model.h): layer passes done,
// constants quantized. Each tensor becomes a buffer (model inputs and outputs
// with the Input and Output roles), each layer's constants a const buffer,
// and Reshape / Clone layers that keep the type become aliases (no kernel).
// Every layer kind has a lowering. The result passes verify().
Program lower_model(const hls::Model& model);

// Whether kernel `kernel` of a lowered program has a line-buffered form
// (lower_line_buffer.cpp): a convolution with stride 1.
bool can_line_buffer(const Program& program, const hls::Model& model, int kernel);

// Replaces kernel `kernel` (lowered from `model`) by its line-buffered form:
// one iteration per padded input pixel in the loops `oh` x `ow` (a perfect
// nest), the rows before it in line buffers, the window in registers, each
// output pixel written once its window is full. Other buffers keep their
// indices (the new locals come last). Throws kiln::Error(Unsupported) when it
// has none.
void line_buffer(Program& program, const hls::Model& model, int kernel);

// The program a config builds: lower_model, the convolutions
// `line_buffered` names (by layer) true put in that form where they have
// one, every nest made perfect (sink_nests.h: plans and Loop blocks can keep
// the loops inside a pixel loop), then `directives` (the config's Loop and
// Buffer blocks) applied. The RTL backend and the C flow start from it.
Program configured_program(const hls::Model& model,
                           const std::map<std::string, bool>& line_buffered,
                           const hls::ConfiguredDirectives& directives);

}  // namespace kiln::loop

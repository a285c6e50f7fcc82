// Runs a Loop IR program on raw fixed-point inputs with the exact arithmetic
// of numeric/fixed.h. The lowering writes the emulator's operations in the
// emulator's order, so the outputs equal hls::emulate's bit for bit; the
// tests hold it to that on every zoo model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/hls/emulate/emulator.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::loop {

struct InterpretResult {
  std::vector<hls::FixedTensor> outputs;        // Program::outputs order
  std::vector<hls::OverflowCounts> per_kernel;  // Program::kernels order
};

// `inputs` holds each input buffer's raw values (Program::inputs order).
// Throws kiln::Error(InvalidModel) for a wrong count; an index out of a
// buffer's range is an Internal error (verify() cannot see it statically).
InterpretResult interpret(const Program& program, const std::vector<std::vector<int64_t>>& inputs);

}  // namespace kiln::loop

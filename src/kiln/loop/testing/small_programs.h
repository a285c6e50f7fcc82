// Test helpers (include only from *_test.cpp): small hand-built Loop IR
// programs for cases the zoo lacks.
#pragma once

#include "kiln/loop/builder.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::loop::testing {

// A running product, y[0] = 1 and y[i + 1] = Q(y[i] * x[i]) for i < 8: each
// iteration reads what the previous one wrote (a recurrence through memory
// of distance 1).
inline Program scan_program() {
  Program p;
  p.name = "scan";
  const ScalarType t{8, 0, true};
  const int x = add_buffer(p, "x", BufferRole::Input, t, {8});
  const int y = add_buffer(p, "y", BufferRole::Output, t, {9});
  p.inputs = {x};
  p.outputs = {y};
  KernelBuilder k(p, "scan", "scan");
  k.store(y, {Affine::of(0)}, k.constant(1, t));
  const numeric::FixedType q{8, 8};
  k.loop("i", 8, [&](const Affine& i) {
    const int prod = k.mul(k.load(y, {i}), k.load(x, {i}));
    k.store(y, {i + 1}, k.quantize(prod, q));
  });
  k.finish({x}, {y});
  verify(p);
  return p;
}

}  // namespace kiln::loop::testing

// Test helpers (include only from *_test.cpp): small hand-built Loop IR
// programs for cases the zoo lacks.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

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

// A one-kernel program y[j] = Q_acc(sum_i x[i] * w[i][j]) in the emulator's
// order, assigned to `result` when given (else y is the accumulator).
inline Program dot_program(const std::vector<int64_t>& w, int64_t n_in, int64_t n_out,
                           numeric::OverflowMode acc_overflow,
                           std::optional<numeric::FixedType> result = std::nullopt) {
  Program p;
  p.name = "dot";
  const ScalarType t16{16, 10, true};
  numeric::FixedType acc{32, 12};
  acc.overflow = acc_overflow;
  const int x = add_buffer(p, "x", BufferRole::Input, t16, {n_in});
  const int wb = add_buffer(p, "w", BufferRole::Const, t16, {n_in, n_out}, w);
  const int y = add_buffer(p, "y", BufferRole::Output, scalar_of(result.value_or(acc)), {n_out});
  p.inputs = {x};
  p.outputs = {y};
  KernelBuilder k(p, "dot", "dot");
  const int a = k.local("acc", scalar_of(acc), {n_out});
  k.loop("j0", n_out, [&](const Affine& j) { k.store(a, {j}, k.constant(0, scalar_of(acc))); });
  k.loop("i", n_in, [&](const Affine& i) {
    k.loop("j", n_out, [&](const Affine& j) {
      const int s = k.add(k.load(a, {j}), k.mul(k.load(x, {i}), k.load(wb, {i, j})));
      k.store(a, {j}, k.quantize(s, acc));
    });
  });
  k.loop("o", n_out, [&](const Affine& j) {
    const int v = k.load(a, {j});
    k.store(y, {j}, result ? k.quantize(v, *result) : v);
  });
  k.finish({x, wb}, {y});
  verify(p);
  return p;
}

}  // namespace kiln::loop::testing

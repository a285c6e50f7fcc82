// Loop IR of the layers that move data: Concat, Transpose, Slice, and the
// Reshape / Clone layers whose output type differs from the input's (those
// that keep it are views, made by the driver). Each element is assigned to
// the result type, as the emulator's copy kernels do.
#include <string>

#include "kiln/loop/lowering.h"
#include "kiln/support/error.h"

namespace kiln::loop {

void lower_concat(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const int axis = l.as<hls::ConcatParams>().axis;
  const int y = c.out[0];
  KernelBuilder k(c.program, l.name, l.onnx_name);
  int64_t offset = 0;
  for (std::size_t n = 0; n < c.in.size(); ++n) {
    const std::vector<int64_t>& shape = c.buffer(c.in[n]).shape;
    KILN_ASSERT(shape.size() == c.buffer(y).shape.size() && axis < static_cast<int>(shape.size()),
                "concat " + l.name + ": input rank");
    k.for_each(shape, "in" + std::to_string(n) + "_", [&](const std::vector<Affine>& i) {
      std::vector<Affine> o = i;
      o[static_cast<std::size_t>(axis)] = o[static_cast<std::size_t>(axis)] + offset;
      k.store(y, o, k.convert(k.load(c.in[n], i), l.precision.result));
    });
    offset += shape[static_cast<std::size_t>(axis)];
  }
  c.finish(k);
}

// Output coordinate a is input coordinate perm[a].
void lower_transpose(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& perm = l.as<hls::TransposeParams>().perm;
  const int x = c.in[0], y = c.out[0];
  KernelBuilder k(c.program, l.name, l.onnx_name);
  k.for_each(c.buffer(y).shape, "d", [&](const std::vector<Affine>& i) {
    std::vector<Affine> src(i.size());
    for (std::size_t a = 0; a < i.size(); ++a) src.at(static_cast<std::size_t>(perm[a])) = i[a];
    k.store(y, i, k.convert(k.load(x, src), l.precision.result));
  });
  c.finish(k);
}

void lower_slice(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::SliceParams>();
  const int x = c.in[0], y = c.out[0];
  KernelBuilder k(c.program, l.name, l.onnx_name);
  k.for_each(c.buffer(y).shape, "d", [&](const std::vector<Affine>& i) {
    std::vector<Affine> src(i.size());
    for (std::size_t a = 0; a < i.size(); ++a) src[a] = i[a] * p.step.at(a) + p.begin.at(a);
    k.store(y, i, k.convert(k.load(x, src), l.precision.result));
  });
  c.finish(k);
}

// Every output a copy of the input, element by element in row-major order.
void lower_copy(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const int64_t n = c.buffer(c.in[0]).numel();
  const int x = c.view(c.in[0], {n});
  c.in[0] = x;
  KernelBuilder k(c.program, l.name, l.onnx_name);
  for (std::size_t o = 0; o < c.out.size(); ++o) {
    const int y = c.view(c.out[o], {n});
    c.out[o] = y;
    const FixedType& out_type = c.model.tensors.at(static_cast<std::size_t>(l.outputs[o])).type;
    k.loop("i" + std::to_string(o), n,
           [&](const Affine& i) { k.store(y, {i}, k.convert(k.load(x, {i}), out_type)); });
  }
  c.finish(k);
}

}  // namespace kiln::loop

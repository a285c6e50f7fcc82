// Loop IR of the layers that move data: Concat, Transpose, Slice, and the
// Reshape / Clone layers whose output type differs from the input's (those
// that keep it are views, made by the driver). Each element is assigned to
// the result type, as the emulator's copy kernels do.
#include <string>

#include "kiln/loop/lowering.h"
#include "kiln/support/error.h"

namespace kiln::loop {

// One loop nest over the axes before the concatenation's (a pixel of a
// channel concatenation), each input's part of the output written inside it:
// a plan can keep that loop and stream both inputs a pixel at a time (one
// nest per input would be a loop per input, of which a plan keeps one).
void lower_concat(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const int axis = l.as<hls::ConcatParams>().axis;
  const int y = c.out[0];
  const std::vector<int64_t>& out_shape = c.buffer(y).shape;
  KILN_ASSERT(axis < static_cast<int>(out_shape.size()), "concat " + l.name + ": axis");
  const std::vector<int64_t> outer(out_shape.begin(), out_shape.begin() + axis);
  KernelBuilder k(c.program, l.name, l.onnx_name);
  k.for_each(outer, "d", [&](const std::vector<Affine>& at) {
    int64_t offset = 0;
    for (std::size_t n = 0; n < c.in.size(); ++n) {
      const std::vector<int64_t>& shape = c.buffer(c.in[n]).shape;
      KILN_ASSERT(shape.size() == out_shape.size(), "concat " + l.name + ": input rank");
      const std::vector<int64_t> inner(shape.begin() + axis, shape.end());
      k.for_each(inner, "in" + std::to_string(n) + "_", [&](const std::vector<Affine>& i) {
        std::vector<Affine> src = at;
        src.insert(src.end(), i.begin(), i.end());
        std::vector<Affine> o = src;
        o[static_cast<std::size_t>(axis)] = o[static_cast<std::size_t>(axis)] + offset;
        k.store(y, o, k.convert(k.load(c.in[n], src), l.precision.result));
      });
      offset += shape[static_cast<std::size_t>(axis)];
    }
  });
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

// Every output a copy of the input, element by element in row-major order,
// all of them in one loop (a Clone's copies stream together).
void lower_copy(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const int64_t n = c.buffer(c.in[0]).numel();
  const int x = c.view(c.in[0], {n});
  c.in[0] = x;
  KernelBuilder k(c.program, l.name, l.onnx_name);
  for (std::size_t o = 0; o < c.out.size(); ++o) c.out[o] = c.view(c.out[o], {n});
  k.loop("i", n, [&](const Affine& i) {
    const int v = k.load(x, {i});
    for (std::size_t o = 0; o < c.out.size(); ++o) {
      const FixedType& out_type = c.model.tensors.at(static_cast<std::size_t>(l.outputs[o])).type;
      k.store(c.out[o], {i}, k.convert(v, out_type));
    }
  });
  c.finish(k);
}

}  // namespace kiln::loop

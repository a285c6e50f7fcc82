// Activations with more than one operand: PRelu and Clip (the elementwise
// ones are functors in scalar_ops.h).
#include <cmath>
#include <limits>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

Tensor prelu(const Tensor& x, const Tensor& slope, const std::string& where) {
  if (x.dtype() != slope.dtype())
    throw_error(ErrorKind::InvalidModel, where, "slope type differs from X");
  // Unidirectional broadcast: the slope must broadcast to X's shape.
  if (broadcast_two(x.shape(), slope.shape(), where) != x.shape())
    throw_error(ErrorKind::InvalidModel, where,
                "slope [" + shape_to_string(slope.shape()) + "] does not broadcast to X [" +
                    shape_to_string(x.shape()) + "]");
  Tensor y(x.type());
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const Shape shapes[2] = {x.shape(), slope.shape()};
    broadcast_apply(make_broadcast_plan(x.shape(), shapes), x.data<T>().data(),
                    slope.data<T>().data(), y.data<T>().data(),
                    [](T a, T s) { return a < T{0} ? s * a : a; });
  });
  return y;
}

Tensor clip(const Tensor& x, const Tensor* min, const Tensor* max, const std::string& where) {
  for (const Tensor* b : {min, max}) {
    if (b == nullptr) continue;
    if (b->numel() != 1)
      throw_error(ErrorKind::InvalidModel, where,
                  "min/max must be scalars, got shape [" + shape_to_string(b->shape()) + "]");
    if (b->dtype() != x.dtype())
      throw_error(ErrorKind::InvalidModel, where, "min/max type differs from the input");
  }
  Tensor y(x.type());
  visit_numeric_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    // An absent bound must let everything through, infinities included.
    using L = std::numeric_limits<T>;
    const T lo = min ? min->data<T>()[0] : (L::has_infinity ? -L::infinity() : L::lowest());
    const T hi = max ? max->data<T>()[0] : (L::has_infinity ? L::infinity() : L::max());
    // Bounds are applied in spec order (max(min_bound) first, then min(max_bound)),
    // so min > max yields max everywhere, like numpy.clip; NaN passes through.
    map_elements(x.data<T>().data(), y.data<T>().data(), x.numel(), [=](T a) {
      T r = a < lo ? lo : a;
      return r > hi ? hi : r;
    });
  });
  return y;
}

}  // namespace kiln::ref::kernels

// Activation functions: Relu, LeakyRelu, PRelu, Elu, Selu, Sigmoid,
// HardSigmoid, Tanh, Clip.
#include <cmath>
#include <limits>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

// 1 / (1 + e^-x) without overflow: for x < 0 use e^x / (1 + e^x).
template <class T>
T sigmoid(T x) {
  if (x >= T{0}) return T{1} / (T{1} + std::exp(-x));
  const T e = std::exp(x);
  return e / (T{1} + e);
}

template <class T>
void float_activation(const Node& node, const T* in, T* out, int64_t n) {
  switch (node.kind) {
    case OpKind::LeakyRelu: {
      const T alpha = static_cast<T>(node.attr<LeakyReluAttrs>().alpha);
      map_elements(in, out, n, [=](T x) { return x < T{0} ? alpha * x : x; });
      return;
    }
    case OpKind::Elu: {
      const T alpha = static_cast<T>(node.attr<EluAttrs>().alpha);
      map_elements(in, out, n, [=](T x) { return x < T{0} ? alpha * std::expm1(x) : x; });
      return;
    }
    case OpKind::Selu: {
      const auto& a = node.attr<SeluAttrs>();
      const T alpha = static_cast<T>(a.alpha), gamma = static_cast<T>(a.gamma);
      map_elements(in, out, n,
                   [=](T x) { return x <= T{0} ? gamma * alpha * std::expm1(x) : gamma * x; });
      return;
    }
    case OpKind::Sigmoid: map_elements(in, out, n, [](T x) { return sigmoid(x); }); return;
    case OpKind::HardSigmoid: {
      const auto& a = node.attr<HardSigmoidAttrs>();
      const T alpha = static_cast<T>(a.alpha), beta = static_cast<T>(a.beta);
      map_elements(in, out, n,
                   [=](T x) { return std::max(T{0}, std::min(T{1}, alpha * x + beta)); });
      return;
    }
    case OpKind::Tanh: map_elements(in, out, n, [](T x) { return std::tanh(x); }); return;
    default: break;
  }
  KILN_ASSERT(false, "not an activation: " + node.describe());
}

}  // namespace

Tensor activation(const Node& node, const Tensor& x, const std::string& where) {
  Tensor y(x.type());
  const int64_t n = x.numel();
  if (node.kind == OpKind::Relu) {
    visit_numeric_dtype(x.dtype(), where, [&](auto v) {
      using T = decltype(v);
      // NaN stays NaN (x < 0 is false), as in PyTorch.
      map_elements(x.data<T>().data(), y.data<T>().data(), n,
                   [](T a) { return a < T{0} ? T{0} : a; });
    });
    return y;
  }
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    float_activation<T>(node, x.data<T>().data(), y.data<T>().data(), n);
  });
  return y;
}

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

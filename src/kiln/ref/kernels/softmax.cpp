// Softmax and LogSoftmax, numerically stable (the maximum is subtracted
// first), and Hardmax, over the same view of the input.
#include <cmath>
#include <limits>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

// x viewed as [outer, n, inner]; normalizes over n for each (outer, inner).
// Walking k outermost inside a block keeps the inner elements contiguous.
template <class T>
void softmax_typed(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool log) {
#pragma omp parallel for schedule(static) if (outer > 1 && outer * n * inner >= kParallelGrain)
  for (int64_t o = 0; o < outer; ++o) {
    const T* xb = x + o * n * inner;
    T* yb = y + o * n * inner;
    std::vector<T> mx(static_cast<std::size_t>(inner), -std::numeric_limits<T>::infinity());
    std::vector<T> sum(static_cast<std::size_t>(inner), T{0});
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) mx[i] = std::max(mx[i], xb[k * inner + i]);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) {
        const T e = std::exp(xb[k * inner + i] - mx[i]);
        sum[i] += e;
        if (!log) yb[k * inner + i] = e;
      }
    if (log) {
      for (int64_t i = 0; i < inner; ++i) sum[i] = std::log(sum[i]);
      for (int64_t k = 0; k < n; ++k)
        for (int64_t i = 0; i < inner; ++i) yb[k * inner + i] = xb[k * inner + i] - mx[i] - sum[i];
    } else {
      for (int64_t k = 0; k < n; ++k)
        for (int64_t i = 0; i < inner; ++i) yb[k * inner + i] /= sum[i];
    }
  }
}

template <class T>
void hardmax_typed(const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const T* xb = x + o * n * inner + i;
      T* yb = y + o * n * inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k)
        if (xb[k * inner] > xb[best * inner]) best = k;
      for (int64_t k = 0; k < n; ++k) yb[k * inner] = k == best ? T{1} : T{0};
    }
}

// x viewed as [outer, n, inner] around attrs.axis (with coerce_2d, n is
// everything from the axis on).
struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisView axis_view(const Shape& s, const SoftmaxAttrs& attrs, const std::string& where) {
  const auto rank = static_cast<int64_t>(s.size());
  if (attrs.axis < 0 || (rank > 0 && attrs.axis >= rank) || (rank == 0 && attrs.axis != 0))
    throw_error(
        ErrorKind::InvalidModel, where,
        "axis " + std::to_string(attrs.axis) + " is out of range for rank " + std::to_string(rank));
  const auto axis = static_cast<std::size_t>(attrs.axis);
  AxisView v;
  v.outer = dims_product(s, 0, axis);
  if (attrs.coerce_2d) {
    v.n = dims_product(s, axis, s.size());
  } else if (rank > 0) {
    v.n = s[axis];
    v.inner = dims_product(s, axis + 1, s.size());
  }
  return v;
}

}  // namespace

Tensor hardmax(const Tensor& x, const SoftmaxAttrs& attrs, const std::string& where) {
  const AxisView v = axis_view(x.shape(), attrs, where);
  Tensor y(x.type());
  if (x.numel() == 0) return y;
  visit_float_dtype(x.dtype(), where, [&](auto e) {
    using T = decltype(e);
    hardmax_typed<T>(x.data<T>().data(), y.data<T>().data(), v.outer, v.n, v.inner);
  });
  return y;
}

Tensor softmax(const Tensor& x, const SoftmaxAttrs& attrs, bool log, const std::string& where) {
  const AxisView v = axis_view(x.shape(), attrs, where);
  Tensor y(x.type());
  if (x.numel() == 0) return y;
  visit_float_dtype(x.dtype(), where, [&](auto e) {
    using T = decltype(e);
    softmax_typed<T>(x.data<T>().data(), y.data<T>().data(), v.outer, v.n, v.inner, log);
  });
  return y;
}

}  // namespace kiln::ref::kernels

// Softmax and LogSoftmax, numerically stable (the maximum is subtracted first).
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

}  // namespace

Tensor softmax(const Tensor& x, const SoftmaxAttrs& attrs, bool log, const std::string& where) {
  const Shape& s = x.shape();
  const auto rank = static_cast<int64_t>(s.size());
  if (attrs.axis < 0 || (rank > 0 && attrs.axis >= rank) || (rank == 0 && attrs.axis != 0))
    throw_error(
        ErrorKind::InvalidModel, where,
        "axis " + std::to_string(attrs.axis) + " is out of range for rank " + std::to_string(rank));
  const auto axis = static_cast<std::size_t>(attrs.axis);
  const int64_t outer = dims_product(s, 0, axis);
  int64_t n = 1, inner = 1;
  if (attrs.coerce_2d) {
    n = dims_product(s, axis, s.size());
  } else if (rank > 0) {
    n = s[axis];
    inner = dims_product(s, axis + 1, s.size());
  }
  Tensor y(x.type());
  if (x.numel() == 0) return y;
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    softmax_typed<T>(x.data<T>().data(), y.data<T>().data(), outer, n, inner, log);
  });
  return y;
}

}  // namespace kiln::ref::kernels

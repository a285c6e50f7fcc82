// BatchNormalization in inference mode: y = scale * (x - mean) / sqrt(var + eps) + B.
#include <cmath>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

Tensor batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                  const Tensor& var, const BatchNormAttrs& attrs, const std::string& where) {
  if (x.rank() < 2)
    throw_error(ErrorKind::InvalidModel, where,
                "X must have rank >= 2 (N, C, ...), got [" + shape_to_string(x.shape()) + "]");
  const int64_t n = x.shape()[0], c = x.shape()[1];
  const int64_t plane = dims_product(x.shape(), 2, x.shape().size());
  for (const Tensor* p : {&scale, &bias, &mean, &var}) {
    if (p->numel() != c)
      throw_error(ErrorKind::InvalidModel, where,
                  "scale/B/mean/var must have " + std::to_string(c) + " elements, got [" +
                      shape_to_string(p->shape()) + "]");
    if (p->dtype() != x.dtype())
      throw_error(ErrorKind::InvalidModel, where, "scale/B/mean/var type differs from X");
  }
  Tensor y(x.type());
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const T* s = scale.data<T>().data();
    const T* b = bias.data<T>().data();
    const T* m = mean.data<T>().data();
    const T* va = var.data<T>().data();
    const T eps = static_cast<T>(attrs.epsilon);
    // Folded per channel into y = x * k + d.
    std::vector<T> k(static_cast<std::size_t>(c)), d(static_cast<std::size_t>(c));
    for (int64_t i = 0; i < c; ++i) {
      k[i] = s[i] / std::sqrt(va[i] + eps);
      d[i] = b[i] - m[i] * k[i];
    }
    const T* in = x.data<T>().data();
    T* out = y.data<T>().data();
#pragma omp parallel for schedule(static) if (x.numel() >= kParallelGrain && n * c > 1)
    for (int64_t nc = 0; nc < n * c; ++nc) {
      const T kk = k[nc % c], dd = d[nc % c];
      const T* src = in + nc * plane;
      T* dst = out + nc * plane;
      for (int64_t i = 0; i < plane; ++i) dst[i] = src[i] * kk + dd;
    }
  });
  return y;
}

}  // namespace kiln::ref::kernels

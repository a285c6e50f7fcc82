// LayerNormalization, InstanceNormalization and LRN. Statistics are
// accumulated in double.
#include <cmath>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

// Mean and population variance of n values.
template <class T>
std::pair<double, double> moments(const T* x, int64_t n) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]);
  const double mean = n > 0 ? sum / static_cast<double>(n) : 0.0;
  double sq = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    sq += d * d;
  }
  return {mean, n > 0 ? sq / static_cast<double>(n) : 0.0};
}

}  // namespace

std::vector<Tensor> layer_norm(const Tensor& x, const Tensor& scale, const Tensor* bias,
                               const LayerNormAttrs& attrs, std::span<const TensorType> out,
                               const std::string& where) {
  if (attrs.axis < 0 || attrs.axis >= x.rank())
    throw_error(ErrorKind::InvalidModel, where, "axis out of range");
  if (scale.dtype() != x.dtype() || (bias && bias->dtype() != x.dtype()))
    throw_error(ErrorKind::InvalidModel, where, "Scale and B must have X's element type");
  const auto ax = static_cast<std::size_t>(attrs.axis);
  const Shape normalized(x.shape().begin() + attrs.axis, x.shape().end());
  const int64_t rows = dims_product(x.shape(), 0, ax);
  const int64_t n = shape_numel(normalized);
  // Scale and B broadcast to the normalized dims: expand them once.
  const Tensor s = expand(scale, TensorType{x.dtype(), normalized}, where);
  const Tensor b = bias ? expand(*bias, TensorType{x.dtype(), normalized}, where)
                        : Tensor(x.dtype(), normalized);
  Tensor y(out[0]);
  Tensor mean(out.size() > 1 ? out[1] : TensorType{DType::Float32, {rows}});
  Tensor inv(out.size() > 2 ? out[2] : TensorType{DType::Float32, {rows}});
  KILN_ASSERT(mean.numel() == rows && inv.numel() == rows, "LayerNorm statistics shape: " + where);
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const T* in = x.data<T>().data();
    const T* ps = s.data<T>().data();
    const T* pb = b.data<T>().data();
    T* o = y.data<T>().data();
#pragma omp parallel for schedule(static) if (x.numel() >= kParallelGrain && rows > 1)
    for (int64_t r = 0; r < rows; ++r) {
      const auto [m, var] = moments(in + r * n, n);
      const double k = 1.0 / std::sqrt(var + static_cast<double>(attrs.epsilon));
      for (int64_t i = 0; i < n; ++i)
        o[r * n + i] = static_cast<T>((static_cast<double>(in[r * n + i]) - m) * k *
                                          static_cast<double>(ps[i]) +
                                      static_cast<double>(pb[i]));
      mean.data<float>()[static_cast<std::size_t>(r)] = static_cast<float>(m);
      inv.data<float>()[static_cast<std::size_t>(r)] = static_cast<float>(k);
    }
  });
  std::vector<Tensor> r{std::move(y)};
  if (out.size() > 1) r.push_back(std::move(mean));
  if (out.size() > 2) r.push_back(std::move(inv));
  return r;
}

Tensor instance_norm(const Tensor& x, const Tensor& scale, const Tensor& bias,
                     const InstanceNormAttrs& attrs, const std::string& where) {
  if (x.rank() < 3) throw_error(ErrorKind::InvalidModel, where, "X must have rank >= 3");
  const int64_t n = x.shape()[0], c = x.shape()[1];
  const int64_t plane = dims_product(x.shape(), 2, x.shape().size());
  if (scale.numel() != c || bias.numel() != c || scale.dtype() != x.dtype() ||
      bias.dtype() != x.dtype())
    throw_error(ErrorKind::InvalidModel, where, "scale and B must hold one value per channel");
  Tensor y(x.type());
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const T* in = x.data<T>().data();
    const T* ps = scale.data<T>().data();
    const T* pb = bias.data<T>().data();
    T* o = y.data<T>().data();
#pragma omp parallel for schedule(static) if (x.numel() >= kParallelGrain && n * c > 1)
    for (int64_t nc = 0; nc < n * c; ++nc) {
      const auto [m, var] = moments(in + nc * plane, plane);
      const double k =
          static_cast<double>(ps[nc % c]) / std::sqrt(var + static_cast<double>(attrs.epsilon));
      const double d = static_cast<double>(pb[nc % c]) - m * k;
      for (int64_t i = 0; i < plane; ++i)
        o[nc * plane + i] = static_cast<T>(static_cast<double>(in[nc * plane + i]) * k + d);
    }
  });
  return y;
}

Tensor lrn(const Tensor& x, const LrnAttrs& attrs, const std::string& where) {
  if (x.rank() < 3) throw_error(ErrorKind::InvalidModel, where, "X must have rank >= 3");
  const int64_t n = x.shape()[0], c = x.shape()[1];
  const int64_t plane = dims_product(x.shape(), 2, x.shape().size());
  // Window of channel ch: [ch - floor((size-1)/2), ch + ceil((size-1)/2)].
  const int64_t before = (attrs.size - 1) / 2, after = attrs.size - 1 - before;
  Tensor y(x.type());
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const T* in = x.data<T>().data();
    T* o = y.data<T>().data();
    const double k = static_cast<double>(attrs.alpha) / static_cast<double>(attrs.size);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t i = 0; i < plane; ++i) {
          double sq = 0.0;
          for (int64_t j = std::max<int64_t>(0, ch - before); j <= std::min(c - 1, ch + after);
               ++j) {
            const double e = static_cast<double>(in[(b * c + j) * plane + i]);
            sq += e * e;
          }
          const int64_t at = (b * c + ch) * plane + i;
          o[at] = static_cast<T>(
              static_cast<double>(in[at]) /
              std::pow(static_cast<double>(attrs.bias) + k * sq, static_cast<double>(attrs.beta)));
        }
  });
  return y;
}

}  // namespace kiln::ref::kernels

// QuantizeLinear and DequantizeLinear, as the ONNX operators define them:
// float32 arithmetic, rounding half to even, saturation to the integer type.
#include <cmath>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

// Index into the scale / zero point of element i: 0 per tensor, else the
// element's index along the axis.
struct QuantIndex {
  int64_t inner = 1, dim = 1;
  bool per_axis = false;
  QuantIndex(const Shape& shape, const QuantAttrs& a) : per_axis(a.per_axis) {
    if (!per_axis) return;
    dim = shape.at(static_cast<std::size_t>(a.axis));
    for (std::size_t d = static_cast<std::size_t>(a.axis) + 1; d < shape.size(); ++d)
      inner *= shape[d];
  }
  int64_t operator()(int64_t i) const { return per_axis ? (i / inner) % dim : 0; }
};

}  // namespace

Tensor quantize_linear(const Tensor& x, const Tensor& scale, const Tensor* zero_point,
                       const QuantAttrs& attrs, const TensorType& out, const std::string&) {
  const QuantIndex at(x.shape(), attrs);
  const int64_t lo = attrs.to == DType::Int8 ? -128 : 0;
  const int64_t hi = attrs.to == DType::Int8 ? 127 : 255;
  const auto xs = x.data<float>();
  const auto ss = scale.data<float>();
  std::vector<int64_t> q(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const int64_t k = at(static_cast<int64_t>(i));
    const float s = ss[static_cast<std::size_t>(k)];
    // nearbyint rounds half to even in the default rounding mode.
    const double r = std::nearbyint(static_cast<double>(xs[i] / s));
    const int64_t zp = zero_point ? zero_point->as_int64(k) : 0;
    // A zero scale gives +-inf, which saturates; NaN becomes the zero point.
    q[i] = std::isnan(r)
               ? zp
               : std::clamp<int64_t>(static_cast<int64_t>(std::clamp(r, -1e18, 1e18)) + zp, lo, hi);
  }
  return Tensor::from_vector<int64_t>(out.shape, q).cast(out.dtype);
}

Tensor dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor* zero_point,
                         const QuantAttrs& attrs, const TensorType& out) {
  const QuantIndex at(x.shape(), attrs);
  const auto ss = scale.data<float>();
  Tensor y(out);
  auto ys = y.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t k = at(i);
    const float zp = zero_point ? static_cast<float>(zero_point->as_int64(k)) : 0.0f;
    ys[static_cast<std::size_t>(i)] =
        (static_cast<float>(x.as_int64(i)) - zp) * ss[static_cast<std::size_t>(k)];
  }
  return y;
}

}  // namespace kiln::ref::kernels

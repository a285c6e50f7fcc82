// QONNX's quantizers Quant, BipolarQuant and Trunc (graph/ops.h states their
// formulas). All arithmetic is float32 in the order of QONNX's reference
// implementation: x / scale (a division, not a multiplication by 1 / scale),
// then + zeropt; the result is (q - zeropt) * scale. Rounding and clipping
// stay in float, so no value is ever converted to an integer type.
#include <cmath>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

float round_with(RoundingMode mode, float v) {
  switch (mode) {
    case RoundingMode::Round: return std::nearbyint(v);  // ties to even (default FP mode)
    case RoundingMode::Ceil: return std::ceil(v);
    case RoundingMode::Floor: return std::floor(v);
    case RoundingMode::Up: return v < 0.0f ? std::floor(v) : std::ceil(v);
    case RoundingMode::Down: return std::trunc(v);
    case RoundingMode::HalfUp: return std::round(v);  // C's round: ties away from zero
    case RoundingMode::HalfDown: {
      // v - trunc(v) is exact, so the tie test is too.
      const float t = std::trunc(v);
      return std::fabs(v - t) == 0.5f ? t : std::round(v);
    }
  }
  return v;
}

// The integers of `bits` bits as float32 bounds, which is what QONNX's float
// clip compares against (2^b - 1 rounds to 2^b above 24 bits).
struct IntRange {
  float lo = 0.0f, hi = 0.0f;
  IntRange(int64_t bits, bool is_signed, bool narrow) {
    const double half = std::ldexp(1.0, static_cast<int>(bits - 1));
    lo = is_signed ? static_cast<float>(-half + (narrow ? 1.0 : 0.0)) : 0.0f;
    hi = is_signed ? static_cast<float>(half - 1.0)
                   : static_cast<float>(2.0 * half - (narrow ? 2.0 : 1.0));
  }
  // Like QONNX's two np.where steps: NaN passes through.
  float clip(float v) const {
    if (v > hi) v = hi;
    if (v < lo) v = lo;
    return v;
  }
};

// A parameter (scale, zero point) broadcast to x's shape, as float32 data.
Tensor spread(const Tensor& p, const Tensor& x, const std::string& where) {
  return p.shape() == x.shape() ? p : expand(p, x.type(), where);
}

}  // namespace

Tensor int_quant(const Tensor& x, const Tensor& scale, const Tensor& zeropt, const IntQuantAttrs& a,
                 const std::string& where) {
  const Tensor s = spread(scale, x, where), z = spread(zeropt, x, where);
  const IntRange range(a.bitwidth, a.is_signed, a.narrow);
  // QONNX executes signed 1-bit as bipolar: the clip range [-1, 0] would lose +1.
  const bool bipolar = a.is_signed && a.bitwidth == 1;
  const auto xs = x.data<float>(), ss = s.data<float>(), zs = z.data<float>();
  Tensor y(x.type());
  auto ys = y.data<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float v = xs[i] / ss[i] + zs[i];
    const float q = bipolar ? (v >= 0.0f ? 1.0f : -1.0f) : round_with(a.rounding, range.clip(v));
    ys[i] = (q - zs[i]) * ss[i];
  }
  return y;
}

Tensor bipolar_quant(const Tensor& x, const Tensor& scale, const std::string& where) {
  const Tensor s = spread(scale, x, where);
  const auto xs = x.data<float>(), ss = s.data<float>();
  Tensor y(x.type());
  auto ys = y.data<float>();
  // 0 maps to +1 (QONNX: x >= 0); NaN to -1.
  for (std::size_t i = 0; i < xs.size(); ++i) ys[i] = (xs[i] >= 0.0f ? 1.0f : -1.0f) * ss[i];
  return y;
}

Tensor trunc_quant(const Tensor& x, const Tensor& scale, const Tensor& zeropt,
                   const Tensor* out_scale, const TruncAttrs& a, const std::string& where) {
  const Tensor s = spread(scale, x, where), z = spread(zeropt, x, where);
  const bool v2 = a.version == 2;
  if (v2 && !out_scale) throw_error(ErrorKind::InvalidModel, where, "out_scale is missing");
  const Tensor os = v2 ? spread(*out_scale, x, where) : s;
  const IntRange range(a.out_bitwidth, a.is_signed, a.narrow);
  // Opset 1 drops in_bitwidth - out_bitwidth low bits; opset 2 derives the
  // power of two from the scales (rounded to one, as QONNX does).
  const float drop = std::exp2(static_cast<float>(a.in_bitwidth - a.out_bitwidth));
  const auto xs = x.data<float>(), ss = s.data<float>(), zs = z.data<float>();
  const auto oss = os.data<float>();
  Tensor y(x.type());
  auto ys = y.data<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float t = v2 ? std::exp2(std::nearbyint(std::log2(oss[i] / ss[i]))) : drop;
    const float v = std::nearbyint(xs[i] / ss[i] + zs[i]) / t;
    const float q = round_with(a.rounding, v2 ? range.clip(v) : v);
    // Opset 2 moves the zero point to the output grid; opset 1 keeps it.
    const float zo = v2 ? zs[i] / t : zs[i];
    ys[i] = (q - zo) * oss[i];
  }
  return y;
}

}  // namespace kiln::ref::kernels

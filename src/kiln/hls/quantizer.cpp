#include "kiln/hls/quantizer.h"

#include <cmath>

#include "kiln/support/error.h"

namespace kiln::hls {

namespace {

// Bits of a signed (or unsigned) integer type holding lo .. hi.
int bits_for(int64_t lo, int64_t hi, bool is_signed) {
  int b = 1;
  if (is_signed) {
    while (lo < -(int64_t{1} << (b - 1)) || hi > (int64_t{1} << (b - 1)) - 1) ++b;
  } else {
    while (hi > (int64_t{1} << b) - 1) ++b;
  }
  return b;
}

}  // namespace

std::optional<int> power_of_two_exponent(double scale) {
  if (!(scale > 0) || !std::isfinite(scale)) return std::nullopt;
  int e = 0;
  const double m = std::frexp(scale, &e);  // scale = m * 2^e, m in [0.5, 1)
  if (m != 0.5) return std::nullopt;
  return 1 - e;
}

QuantizeParams quantizer_params(double scale, int64_t zero_point, DType dtype) {
  KILN_ASSERT(is_integer(dtype) && dtype_size(dtype) <= 2, "quantizer of a non-8/16-bit type");
  return quantizer_params(scale, zero_point, static_cast<int>(8 * dtype_size(dtype)),
                          is_signed_int(dtype), false, numeric::QuantMode::RndConv);
}

QuantizeParams quantizer_params(double scale, int64_t zero_point, int n, bool s, bool narrow,
                                numeric::QuantMode mode) {
  KILN_ASSERT(n >= 1 && n <= 32, "quantizer of more than 32 bits");
  const int64_t qmin = s ? -(int64_t{1} << (n - 1)) + (narrow ? 1 : 0) : 0;
  const int64_t qmax = s ? (int64_t{1} << (n - 1)) - 1 : (int64_t{1} << n) - 1 - (narrow ? 1 : 0);
  QuantizeParams p;
  p.scale = scale;
  const int64_t lo = qmin - zero_point, hi = qmax - zero_point;  // in units of the scale
  if (const auto k = power_of_two_exponent(scale)) {
    p.exact = true;
    p.min_raw = lo;
    p.max_raw = hi;
    const bool sign = lo < 0;
    const int w = bits_for(lo, hi, sign);
    p.format = FixedType{w, w - *k, sign, mode, numeric::OverflowMode::Sat};
    return p;
  }
  // A grid of 2^-f, f = kInexactExtraBits more than the scale's own bits.
  p.exact = false;
  const int f = static_cast<int>(std::ceil(-std::log2(scale))) + kInexactExtraBits;
  const double unit = std::ldexp(1.0, f);
  p.min_raw = static_cast<int64_t>(std::ceil(static_cast<double>(lo) * scale * unit));
  p.max_raw = static_cast<int64_t>(std::floor(static_cast<double>(hi) * scale * unit));
  const bool sign = p.min_raw < 0;
  const int w = bits_for(p.min_raw, p.max_raw, sign);
  p.format = FixedType{w, w - f, sign, mode, numeric::OverflowMode::Sat};
  return p;
}

std::optional<QuantizeParams> bipolar_params(double scale) {
  const auto k = power_of_two_exponent(scale);
  if (!k) return std::nullopt;
  QuantizeParams p;
  p.scale = scale;
  p.bipolar = true;
  p.min_raw = -1;
  p.max_raw = 1;
  p.format = FixedType{2, 2 - *k, true};
  return p;
}

}  // namespace kiln::hls

// Resize (and Upsample): nearest, linear and cubic interpolation.
//
// All three modes are separable: each output coordinate along a dimension is
// a weighted sum of a few input coordinates along it. The kernel computes
// those (index, weight) taps per dimension and resizes one dimension at a
// time, in double; dimensions whose mapping is the identity are skipped.
#include <cmath>

#include "kiln/ref/kernels/kernels.h"
#include "kiln/ref/resize_taps.h"

namespace kiln::ref {

namespace {

using Tap = ResizeTap;
using DimTaps = std::vector<std::vector<Tap>>;

// Input coordinate of output coordinate `o` along dimension d (output size
// `out`). As in the ONNX definition, align_corners divides by the unfloored
// resized length in * scale, which differs from `out` when the scale does not
// divide evenly.
double source_coord(const ResizeAttrs& a, std::size_t d, std::size_t rank, int64_t o, int64_t in,
                    int64_t out) {
  const double x = static_cast<double>(o), scale = a.scales[d];
  switch (a.coord) {
    case ResizeCoord::HalfPixel: return (x + 0.5) / scale - 0.5;
    case ResizeCoord::PytorchHalfPixel: return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    case ResizeCoord::AlignCorners: {
      double span = static_cast<double>(in) * scale;
      // Sizes-derived scales reproduce the size up to rounding.
      if (std::abs(span - std::round(span)) < 1e-9) span = std::round(span);
      return span > 1.0 ? x * static_cast<double>(in - 1) / (span - 1.0) : 0.0;
    }
    case ResizeCoord::Asymmetric: return x / scale;
    case ResizeCoord::TfHalfPixelForNn: return (x + 0.5) / scale;
    case ResizeCoord::TfCropAndResize: {
      const double start = a.roi[d], end = a.roi[rank + d];
      const double range = static_cast<double>(in - 1);
      if (out > 1) return start * range + x * (end - start) * range / static_cast<double>(out - 1);
      return 0.5 * (start + end) * range;
    }
    case ResizeCoord::HalfPixelSymmetric: {
      // Centres the output grid on the input when floor(in * scale) drops a
      // fraction of a pixel.
      const double length = static_cast<double>(in) * scale;
      const double adjustment = length > 0 ? static_cast<double>(out) / length : 1.0;
      const double offset = static_cast<double>(in) / 2.0 * (1.0 - adjustment);
      return offset + (x + 0.5) / scale - 0.5;
    }
  }
  return x;
}

int64_t nearest_index(NearestMode mode, double x) {
  switch (mode) {
    case NearestMode::RoundPreferFloor: return static_cast<int64_t>(std::ceil(x - 0.5));
    case NearestMode::RoundPreferCeil: return static_cast<int64_t>(std::floor(x + 0.5));
    case NearestMode::Floor: return static_cast<int64_t>(std::floor(x));
    case NearestMode::Ceil: return static_cast<int64_t>(std::ceil(x));
  }
  return 0;
}

// Keys cubic convolution weight at distance |t| with coefficient A.
double cubic_weight(double t, double A) {
  t = std::fabs(t);
  if (t <= 1.0) return ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0;
  if (t < 2.0) return ((A * t - 5.0 * A) * t + 8.0 * A) * t - 4.0 * A;
  return 0.0;
}

}  // namespace

DimTaps resize_taps(const ResizeAttrs& a, std::size_t d, std::size_t rank, int64_t in,
                    int64_t out) {
  DimTaps taps(static_cast<std::size_t>(out));
  auto clamp = [in](int64_t i) { return std::max<int64_t>(0, std::min(in - 1, i)); };
  for (int64_t o = 0; o < out; ++o) {
    double x = source_coord(a, d, rank, o, in, out);
    auto& t = taps[static_cast<std::size_t>(o)];
    if (a.coord == ResizeCoord::TfCropAndResize && (x < 0.0 || x > static_cast<double>(in - 1)))
      continue;  // extrapolated
    // Far outside the input every tap clamps to the edge anyway; bounding x
    // keeps the integer conversions below defined.
    x = std::max(-4.0, std::min(static_cast<double>(in) + 4.0, x));
    if (a.mode == ResizeMode::Nearest) {
      t.push_back({clamp(nearest_index(a.nearest, x)), 1.0});
      continue;
    }
    const double base = std::floor(x), frac = x - base;
    const auto i0 = static_cast<int64_t>(base);
    if (a.mode == ResizeMode::Linear) {
      // Coordinates beyond the edges repeat the edge value.
      t.push_back({clamp(i0), 1.0 - frac});
      t.push_back({clamp(i0 + 1), frac});
      continue;
    }
    const double A = static_cast<double>(a.cubic_coeff_a);
    double sum = 0.0;
    for (int64_t k = -1; k <= 2; ++k) {
      const int64_t i = i0 + k;
      const double wgt = cubic_weight(frac - static_cast<double>(k), A);
      if (a.exclude_outside && (i < 0 || i >= in)) continue;
      t.push_back({clamp(i), wgt});
      sum += wgt;
    }
    if (a.exclude_outside && sum != 0.0)
      for (Tap& tap : t) tap.weight /= sum;
  }
  return taps;
}

namespace kernels {
namespace {

bool is_identity(const DimTaps& taps, int64_t in) {
  if (static_cast<int64_t>(taps.size()) != in) return false;
  for (std::size_t o = 0; o < taps.size(); ++o) {
    double w = 0.0;
    for (const Tap& t : taps[o]) {
      if (t.weight == 0.0) continue;
      if (t.index != static_cast<int64_t>(o)) return false;
      w += t.weight;
    }
    if (w != 1.0) return false;
  }
  return true;
}

}  // namespace

Tensor resize(const Tensor& x, const ResizeAttrs& attrs, const TensorType& out,
              const std::string& where) {
  const std::size_t rank = x.shape().size();
  if (attrs.sizes.size() != rank || attrs.scales.size() != rank || out.shape != attrs.sizes ||
      (attrs.coord == ResizeCoord::TfCropAndResize && attrs.roi.size() != 2 * rank))
    throw_error(ErrorKind::InvalidModel, where, "Resize attributes do not match the input");
  Tensor y(out);
  if (y.numel() == 0) return y;
  if (x.numel() == 0)
    throw_error(ErrorKind::InvalidModel, where, "cannot resize an empty tensor to a non-empty one");
  auto run = [&](auto v) {
    using T = decltype(v);
    std::vector<double> cur(static_cast<std::size_t>(x.numel()));
    for (int64_t i = 0; i < x.numel(); ++i) cur[static_cast<std::size_t>(i)] = x.as_double(i);
    Shape shape = x.shape();
    const double extra = static_cast<double>(attrs.extrapolation_value);
    for (std::size_t d = 0; d < rank; ++d) {
      const int64_t in = shape[d], len = attrs.sizes[d];
      const DimTaps taps = resize_taps(attrs, d, rank, in, len);
      if (is_identity(taps, in)) continue;
      const int64_t outer = dims_product(shape, 0, d), inner = dims_product(shape, d + 1, rank);
      std::vector<double> next(static_cast<std::size_t>(outer * len * inner));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < len; ++j) {
          double* dst = next.data() + (o * len + j) * inner;
          const auto& tj = taps[static_cast<std::size_t>(j)];
          if (tj.empty()) {
            std::fill(dst, dst + inner, extra);
            continue;
          }
          std::fill(dst, dst + inner, 0.0);
          for (const Tap& t : tj) {
            const double* src = cur.data() + (o * in + t.index) * inner;
            for (int64_t i = 0; i < inner; ++i) dst[i] += t.weight * src[i];
          }
        }
      cur.swap(next);
      shape[d] = len;
    }
    T* o = y.data<T>().data();
    for (std::size_t i = 0; i < cur.size(); ++i) {
      if constexpr (std::is_integral_v<T>) {
        o[i] = static_cast<T>(std::nearbyint(cur[i]));
      } else {
        o[i] = static_cast<T>(cur[i]);
      }
    }
  };
  visit_numeric_dtype(x.dtype(), where, run);
  return y;
}

}  // namespace kernels
}  // namespace kiln::ref

// MaxPool, AveragePool (1-D to 3-D windows) and the global pools.
#include <cmath>
#include <limits>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

constexpr std::size_t kMaxPoolDims = 3;

// The windows of one spatial dimension. Inside the input the taps of a window
// are first[o] + j * dilation for j < count[o]; padded_count[o] is how many
// taps lie inside the padded input (for count_include_pad).
struct DimWindows {
  int64_t in = 1, dilation = 1, kernel = 1, stride = 1, pad_begin = 0;
  std::vector<int64_t> first, count, padded_count;  // per output coordinate
  int64_t out() const { return static_cast<int64_t>(first.size()); }
};

DimWindows dim_windows(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad_begin,
                       int64_t pad_end, int64_t dilation) {
  DimWindows w;
  w.in = in;
  w.dilation = dilation;
  w.kernel = kernel;
  w.stride = stride;
  w.pad_begin = pad_begin;
  for (int64_t o = 0; o < out; ++o) {
    int64_t padded = 0, first = 0, count = 0;
    for (int64_t j = 0; j < kernel; ++j) {
      const int64_t i = o * stride - pad_begin + j * dilation;
      // Taps beyond in + pad_end only exist because of ceil_mode: never counted.
      if (i >= -pad_begin && i < in + pad_end) ++padded;
      if (i >= 0 && i < in && count++ == 0) first = i;
    }
    w.first.push_back(first);
    w.count.push_back(count);
    w.padded_count.push_back(padded);
  }
  return w;
}

// Validates ranks and builds the windows of each spatial dim, padded with
// trivial leading dims to exactly kMaxPoolDims so the loops below are fixed.
std::vector<DimWindows> plan_windows(const Tensor& x, const PoolAttrs& a, const TensorType& out,
                                     const std::string& where) {
  const std::size_t rank = x.shape().size();
  if (rank < 3)
    throw_error(ErrorKind::InvalidModel, where,
                "X must be [N, C, spatial...], got [" + shape_to_string(x.shape()) + "]");
  const std::size_t sp = rank - 2;
  if (sp > kMaxPoolDims)
    throw_error(ErrorKind::Unsupported, where,
                "pooling over " + std::to_string(sp) + " spatial dims", "at most 3 are supported");
  if (a.kernel_shape.size() != sp || a.strides.size() != sp || a.dilations.size() != sp ||
      a.pads.size() != 2 * sp)
    throw_error(
        ErrorKind::InvalidModel, where,
        "kernel/strides/dilations/pads do not match " + std::to_string(sp) + " spatial dims");
  if (out.shape.size() != rank || out.shape[0] != x.shape()[0] || out.shape[1] != x.shape()[1])
    throw_error(ErrorKind::Internal, where,
                "output type " + out.to_string() + " does not match X " + x.type().to_string());
  std::vector<DimWindows> dims;
  for (std::size_t d = sp; d < kMaxPoolDims; ++d) dims.push_back(dim_windows(1, 1, 1, 1, 0, 0, 1));
  for (std::size_t d = 0; d < sp; ++d)
    dims.push_back(dim_windows(x.shape()[2 + d], out.shape[2 + d], a.kernel_shape[d], a.strides[d],
                               a.pads[d], a.pads[sp + d], a.dilations[d]));
  return dims;
}

template <class T>
void max_pool_typed(const Tensor& x, const std::vector<DimWindows>& w, Tensor& y,
                    int64_t* indices) {
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const int64_t in_plane = w[0].in * w[1].in * w[2].in;
  const int64_t o0 = w[0].out(), o1 = w[1].out(), o2 = w[2].out();
  const int64_t d0 = w[0].dilation * w[1].in * w[2].in, d1 = w[1].dilation * w[2].in,
                d2 = w[2].dilation;
  const int64_t out_plane = o0 * o1 * o2;
  const T* in = x.data<T>().data();
  T* out = y.data<T>().data();
  using L = std::numeric_limits<T>;
  const T lowest = L::has_infinity ? -L::infinity() : L::lowest();
#pragma omp parallel for schedule(static) if (planes > 1 && y.numel() >= kParallelGrain / 4)
  for (int64_t p = 0; p < planes; ++p) {
    const T* src = in + p * in_plane;
    int64_t oi = p * out_plane;
    for (int64_t a = 0; a < o0; ++a)
      for (int64_t b = 0; b < o1; ++b)
        for (int64_t c = 0; c < o2; ++c, ++oi) {
          T best = lowest;
          int64_t best_at = -1;
          const int64_t start = (w[0].first[a] * w[1].in + w[1].first[b]) * w[2].in + w[2].first[c];
          for (int64_t i = 0; i < w[0].count[a]; ++i)
            for (int64_t j = 0; j < w[1].count[b]; ++j)
              for (int64_t k = 0; k < w[2].count[c]; ++k) {
                const int64_t at = start + i * d0 + j * d1 + k * d2;
                if (src[at] > best || best_at < 0) {
                  best = src[at];
                  best_at = at;
                }
              }
          out[oi] = best_at < 0 ? lowest : best;
          // Flat index into the whole input tensor (storage_order 0).
          if (indices) indices[oi] = best_at < 0 ? -1 : p * in_plane + best_at;
        }
  }
}

// Max (without indices) or average pooling, one output row at a time: for each
// tap of the window along the innermost dim, the output columns that tap
// reaches form one contiguous range, so the inner loop has no branches.
template <class T>
void pool_rows(const Tensor& x, const std::vector<DimWindows>& w, bool is_max, bool include_pad,
               Tensor& y) {
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const int64_t in_plane = w[0].in * w[1].in * w[2].in;
  const int64_t o0 = w[0].out(), o1 = w[1].out(), o2 = w[2].out();
  const DimWindows& last = w[2];
  // For tap kk of the last dim: output columns [lo[kk], hi[kk]) read input
  // column c * stride + off[kk] inside the input.
  std::vector<int64_t> lo(static_cast<std::size_t>(last.kernel)),
      hi(static_cast<std::size_t>(last.kernel)), off(static_cast<std::size_t>(last.kernel));
  for (int64_t kk = 0; kk < last.kernel; ++kk) {
    off[kk] = kk * last.dilation - last.pad_begin;
    int64_t l = off[kk] >= 0 ? 0 : (-off[kk] + last.stride - 1) / last.stride;
    int64_t h = off[kk] >= last.in ? 0 : (last.in - 1 - off[kk]) / last.stride + 1;
    lo[kk] = std::min(l, o2);
    hi[kk] = std::max(lo[kk], std::min(h, o2));
  }
  using L = std::numeric_limits<T>;
  const T init = is_max ? (L::has_infinity ? -L::infinity() : L::lowest()) : T{0};
  const T* in = x.data<T>().data();
  T* out = y.data<T>().data();
  const int64_t rows = planes * o0 * o1;
#pragma omp parallel for schedule(static) if (rows > 1 && y.numel() >= kParallelGrain / 4)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t p = r / (o0 * o1), a = (r / o1) % o0, b = r % o1;
    T* orow = out + r * o2;
    std::fill(orow, orow + o2, init);
    for (int64_t i = 0; i < w[0].count[a]; ++i)
      for (int64_t j = 0; j < w[1].count[b]; ++j) {
        const int64_t i0 = w[0].first[a] + i * w[0].dilation;
        const int64_t i1 = w[1].first[b] + j * w[1].dilation;
        const T* irow = in + p * in_plane + (i0 * w[1].in + i1) * last.in;
        for (int64_t kk = 0; kk < last.kernel; ++kk) {
          const T* src = irow + off[kk];
          const int64_t s = last.stride;
          if (is_max) {
            for (int64_t c = lo[kk]; c < hi[kk]; ++c) orow[c] = std::max(orow[c], src[c * s]);
          } else {
            for (int64_t c = lo[kk]; c < hi[kk]; ++c) orow[c] += src[c * s];
          }
        }
      }
    if (!is_max) {
      for (int64_t c = 0; c < o2; ++c) {
        const int64_t count =
            include_pad ? w[0].padded_count[a] * w[1].padded_count[b] * last.padded_count[c]
                        : w[0].count[a] * w[1].count[b] * last.count[c];
        // A window entirely in the padding averages nothing: 0 rather than NaN.
        orow[c] = count > 0 ? orow[c] / static_cast<T>(count) : T{0};
      }
    }
  }
}

}  // namespace

std::vector<Tensor> max_pool(const Tensor& x, const PoolAttrs& attrs, const TensorType& out,
                             bool want_indices, const std::string& where) {
  const std::vector<DimWindows> w = plan_windows(x, attrs, out, where);
  std::vector<Tensor> result;
  result.emplace_back(out);
  Tensor indices;
  if (want_indices) indices = Tensor(DType::Int64, out.shape);
  if (x.dtype() != out.dtype) throw_error(ErrorKind::Internal, where, "output type differs from X");
  visit_numeric_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    if (want_indices)
      max_pool_typed<T>(x, w, result[0], indices.data<int64_t>().data());
    else
      pool_rows<T>(x, w, true, false, result[0]);
  });
  if (want_indices) result.push_back(std::move(indices));
  return result;
}

Tensor average_pool(const Tensor& x, const PoolAttrs& attrs, const TensorType& out,
                    const std::string& where) {
  const std::vector<DimWindows> w = plan_windows(x, attrs, out, where);
  Tensor y(out);
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    pool_rows<decltype(v)>(x, w, false, attrs.count_include_pad, y);
  });
  return y;
}

Tensor global_pool(const Tensor& x, bool is_max, const TensorType& out, const std::string& where) {
  if (x.rank() < 2)
    throw_error(ErrorKind::InvalidModel, where,
                "X must be [N, C, ...], got [" + shape_to_string(x.shape()) + "]");
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const int64_t plane = dims_product(x.shape(), 2, x.shape().size());
  Tensor y(out);
  KILN_ASSERT(y.numel() == planes, "global pool output must have N*C elements: " + where);
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const T* in = x.data<T>().data();
    T* o = y.data<T>().data();
    for (int64_t p = 0; p < planes; ++p) {
      const T* src = in + p * plane;
      if (is_max) {
        T best = -std::numeric_limits<T>::infinity();
        for (int64_t i = 0; i < plane; ++i)
          if (src[i] > best || std::isnan(src[i])) best = src[i];
        o[p] = best;
      } else {
        double sum = 0;  // double: planes can be large, keep the float result exact-ish
        for (int64_t i = 0; i < plane; ++i) sum += src[i];
        o[p] = static_cast<T>(sum / static_cast<double>(plane));
      }
    }
  });
  return y;
}

}  // namespace kiln::ref::kernels

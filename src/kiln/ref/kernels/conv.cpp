// Convolution as im2col + GEMM (Eigen), per image and group.
//
// For each group g the column matrix holds, for every (input channel, kernel
// tap) row, the input value each output position sees (0 in the padding); the
// output block is then W_g [M/G x K] * col [K x P]. 1-D convs run as 2-D with
// height 1; 1x1 stride-1 unpadded convs use the input itself as the column
// matrix. 2-D column matrices are built in bands of output rows, which bounds
// memory, keeps them in cache and gives the threads independent work. The
// GEMMs are Eigen's (gemm_tiled in matmul.cpp).
#include <cstring>
#include <memory>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

// Upper bound on column-matrix elements per band (16 MiB of float).
constexpr int64_t kColBandElements = int64_t{4} << 20;

// Geometry of one convolution, in elements.
struct ConvGeom {
  int64_t n = 0, c = 0, m = 0, group = 1;
  int64_t cg = 0, mg = 0;                                       // channels per group in and out
  Shape in, out, kernel, stride, pad_begin, pad_end, dilation;  // spatial
  int64_t in_plane = 1, out_plane = 1, taps = 1;
  int64_t k() const { return cg * taps; }  // GEMM depth
};

// 2-D im2col of output rows [oh0, oh1) of one group into col (K x band),
// where band = (oh1 - oh0) * OW and row r = (c, kh, kw).
template <class T>
void im2col_2d(const T* x, const ConvGeom& g, int64_t oh0, int64_t oh1, T* col) {
  const int64_t H = g.in[0], W = g.in[1], OW = g.out[1];
  const int64_t KH = g.kernel[0], KW = g.kernel[1];
  const int64_t sh = g.stride[0], sw = g.stride[1], dh = g.dilation[0], dw = g.dilation[1];
  const int64_t ph = g.pad_begin[0], pw = g.pad_begin[1];
  const int64_t band = (oh1 - oh0) * OW;
  const int64_t rows = g.cg * KH * KW;
#pragma omp parallel for schedule(static) if (rows > 1 && rows * band >= kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t ch = r / (KH * KW), kh = (r / KW) % KH, kw = r % KW;
    const T* plane = x + ch * H * W;
    T* dst = col + r * band;
    const int64_t iw0 = kw * dw - pw;
    // Output columns whose input column is inside [0, W): ow in [lo, hi).
    int64_t lo = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;
    int64_t hi = iw0 >= W ? 0 : (W - 1 - iw0) / sw + 1;
    lo = std::min(lo, OW);
    hi = std::max(lo, std::min(hi, OW));
    for (int64_t oh = oh0; oh < oh1; ++oh, dst += OW) {
      const int64_t ih = oh * sh - ph + kh * dh;
      if (ih < 0 || ih >= H) {
        std::fill(dst, dst + OW, T{0});
        continue;
      }
      const T* src = plane + ih * W + iw0;
      std::fill(dst, dst + lo, T{0});
      if (sw == 1) {
        copy_bytes(dst + lo, src + lo, static_cast<std::size_t>(hi - lo) * sizeof(T));
      } else {
        for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * sw];
      }
      std::fill(dst + hi, dst + OW, T{0});
    }
  }
}

// N-D im2col of one group (any spatial rank), whole output at once.
template <class T>
void im2col_nd(const T* x, const ConvGeom& g, T* col) {
  const std::size_t sp = g.in.size();
  const int64_t P = g.out_plane;
  const int64_t rows = g.k();
  const std::vector<int64_t> in_st = shape_strides(g.in);
#pragma omp parallel for schedule(static) if (rows > 1 && rows * P >= kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t ch = r / g.taps;
    // Kernel tap of this row.
    std::vector<int64_t> tap(sp);
    int64_t rest = r % g.taps;
    for (std::size_t d = sp; d-- > 0;) {
      tap[d] = rest % g.kernel[d];
      rest /= g.kernel[d];
    }
    const T* plane = x + ch * g.in_plane;
    T* dst = col + r * P;
    std::vector<int64_t> o(sp, 0);
    for (int64_t p = 0; p < P; ++p) {
      int64_t off = 0;
      bool inside = true;
      for (std::size_t d = 0; d < sp; ++d) {
        const int64_t i = o[d] * g.stride[d] - g.pad_begin[d] + tap[d] * g.dilation[d];
        inside = inside && i >= 0 && i < g.in[d];
        off += i * in_st[d];
      }
      dst[p] = inside ? plane[off] : T{0};
      for (std::size_t d = sp; d-- > 0;) {
        if (++o[d] < g.out[d]) break;
        o[d] = 0;
      }
    }
  }
}

ConvGeom make_geom(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvAttrs& a,
                   const TensorType& out, const std::string& where) {
  const std::size_t rank = x.shape().size();
  if (rank < 3)
    throw_error(ErrorKind::InvalidModel, where,
                "X must be [N, C, spatial...], got [" + shape_to_string(x.shape()) + "]");
  const std::size_t sp = rank - 2;
  expect_rank(w, rank, "W", where);
  if (a.kernel_shape.size() != sp || a.strides.size() != sp || a.dilations.size() != sp ||
      a.pads.size() != 2 * sp)
    throw_error(
        ErrorKind::InvalidModel, where,
        "kernel/strides/dilations/pads do not match " + std::to_string(sp) + " spatial dims");
  ConvGeom g;
  g.n = x.shape()[0];
  g.c = x.shape()[1];
  g.m = w.shape()[0];
  g.group = a.group;
  g.cg = w.shape()[1];
  if (g.group <= 0 || g.c != g.cg * g.group || g.m % g.group != 0)
    throw_error(ErrorKind::InvalidModel, where,
                "channels do not match: X has " + std::to_string(g.c) + ", W is [" +
                    shape_to_string(w.shape()) + "], group " + std::to_string(g.group));
  g.mg = g.m / g.group;
  if (bias && bias->numel() != g.m)
    throw_error(ErrorKind::InvalidModel, where,
                "B must have " + std::to_string(g.m) + " elements, got [" +
                    shape_to_string(bias->shape()) + "]");
  if (w.dtype() != x.dtype() || (bias && bias->dtype() != x.dtype()))
    throw_error(ErrorKind::InvalidModel, where, "X, W and B must have one element type");
  if (out.shape.size() != rank || out.shape[0] != g.n || out.shape[1] != g.m)
    throw_error(ErrorKind::Internal, where, "output type " + out.to_string() + " is inconsistent");
  for (std::size_t d = 0; d < sp; ++d) {
    g.in.push_back(x.shape()[2 + d]);
    g.out.push_back(out.shape[2 + d]);
    g.kernel.push_back(w.shape()[2 + d]);
    g.stride.push_back(a.strides[d]);
    g.pad_begin.push_back(a.pads[d]);
    g.pad_end.push_back(a.pads[sp + d]);
    g.dilation.push_back(a.dilations[d]);
    if (a.kernel_shape[d] != w.shape()[2 + d])
      throw_error(ErrorKind::InvalidModel, where, "kernel_shape does not match W");
  }
  // 1-D as 2-D with a unit height: one fast path serves both.
  if (sp == 1) {
    for (Shape* s : {&g.in, &g.out, &g.kernel, &g.stride, &g.dilation}) s->insert(s->begin(), 1);
    g.pad_begin.insert(g.pad_begin.begin(), 0);
    g.pad_end.insert(g.pad_end.begin(), 0);
  }
  g.in_plane = shape_numel(g.in);
  g.out_plane = shape_numel(g.out);
  g.taps = shape_numel(g.kernel);
  return g;
}

bool is_pointwise(const ConvGeom& g) {
  for (std::size_t d = 0; d < g.in.size(); ++d)
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.pad_begin[d] != 0 || g.pad_end[d] != 0)
      return false;
  return true;
}

template <class T>
void add_bias_rows(T* y, int64_t ldy, int64_t rows, int64_t cols, const T* bias) {
  for (int64_t r = 0; r < rows; ++r) {
    const T b = bias[r];
    T* row = y + r * ldy;
    for (int64_t i = 0; i < cols; ++i) row[i] += b;
  }
}

// Work decomposition, per (image, group) block of the output [Mg x P]:
//  - many groups (depthwise) or one thread: one whole block per task,
//    everything serial inside;
//  - 2-D with many output positions: bands of output rows, each task builds its
//    own im2col band and multiplies it (no synchronization between tasks);
//  - otherwise: im2col of the whole block in parallel, then a tiled GEMM.
template <class T>
void conv_typed(const Tensor& xt, const Tensor& wt, const Tensor* bt, const ConvGeom& g,
                Tensor& yt) {
  const T* x = xt.data<T>().data();
  const T* w = wt.data<T>().data();
  const T* b = bt ? bt->data<T>().data() : nullptr;
  T* y = yt.data<T>().data();
  const int64_t K = g.k(), P = g.out_plane, OW = g.out.back();
  const int64_t OH = g.out.size() == 2 ? g.out[0] : 1;
  const bool pointwise = is_pointwise(g);
  const bool two_d = g.in.size() == 2;
  const int threads = available_threads();
  auto new_buffer = [](int64_t size) {
    return std::unique_ptr<T[]>(size > 0 ? new T[static_cast<std::size_t>(size)] : nullptr);
  };
  auto x_block = [&](int64_t n, int64_t grp) { return x + (n * g.c + grp * g.cg) * g.in_plane; };
  auto y_block = [&](int64_t n, int64_t grp) { return y + (n * g.m + grp * g.mg) * P; };
  auto w_block = [&](int64_t grp) { return MatArg<T>{w + grp * g.mg * K, K}; };
  auto b_block = [&](int64_t grp) { return b ? b + grp * g.mg : nullptr; };

  // Output rows per band: at most kColBandElements of column matrix, and
  // about 3 bands per thread.
  int64_t band_rows = OH;
  if (two_d && K * OW > 0) {
    const int64_t cap = std::max<int64_t>(1, kColBandElements / (K * OW));
    band_rows = std::clamp<int64_t>((OH + 3 * threads - 1) / (3 * threads), 1, cap);
  }
  const bool banded = !pointwise && two_d && threads > 1 && P >= 512 * threads && OH >= 2;

  if (g.group >= 4 || threads == 1) {
    const int64_t blocks = g.n * g.group;
    const int64_t col_size = pointwise ? 0 : (two_d ? K * band_rows * OW : K * P);
#pragma omp parallel if (blocks > 1 && threads > 1)
    {
      std::unique_ptr<T[]> col = new_buffer(col_size);
#pragma omp for schedule(dynamic)
      for (int64_t i = 0; i < blocks; ++i) {
        const int64_t n = i / g.group, grp = i % g.group;
        T* yg = y_block(n, grp);
        if (pointwise) {
          gemm_tiled(w_block(grp), MatArg<T>{x_block(n, grp), P}, yg, P, g.mg, P, K, T{1});
        } else if (two_d) {
          for (int64_t oh0 = 0; oh0 < OH; oh0 += band_rows) {
            const int64_t oh1 = std::min(OH, oh0 + band_rows), cols = (oh1 - oh0) * OW;
            im2col_2d(x_block(n, grp), g, oh0, oh1, col.get());
            gemm_tiled(w_block(grp), MatArg<T>{col.get(), cols}, yg + oh0 * OW, P, g.mg, cols, K,
                       T{1});
          }
        } else {
          im2col_nd(x_block(n, grp), g, col.get());
          gemm_tiled(w_block(grp), MatArg<T>{col.get(), P}, yg, P, g.mg, P, K, T{1});
        }
        if (b) add_bias_rows(yg, P, g.mg, P, b_block(grp));
      }
    }
    return;
  }

  if (banded) {
    const int64_t bands = (OH + band_rows - 1) / band_rows;
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t grp = 0; grp < g.group; ++grp) {
#pragma omp parallel
        {
          std::unique_ptr<T[]> col = new_buffer(K * band_rows * OW);
#pragma omp for schedule(dynamic)
          for (int64_t i = 0; i < bands; ++i) {
            const int64_t oh0 = i * band_rows, oh1 = std::min(OH, oh0 + band_rows);
            const int64_t cols = (oh1 - oh0) * OW;
            T* yb = y_block(n, grp) + oh0 * OW;
            im2col_2d(x_block(n, grp), g, oh0, oh1, col.get());
            gemm_tiled(w_block(grp), MatArg<T>{col.get(), cols}, yb, P, g.mg, cols, K, T{1});
            if (b) add_bias_rows(yb, P, g.mg, cols, b_block(grp));
          }
        }
      }
    return;
  }

  std::unique_ptr<T[]> col = new_buffer(pointwise ? 0 : K * P);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const T* cols = x_block(n, grp);
      if (!pointwise) {
        if (two_d)
          im2col_2d(cols, g, 0, OH, col.get());
        else
          im2col_nd(cols, g, col.get());
        cols = col.get();
      }
      T* yg = y_block(n, grp);
      gemm_tiled(w_block(grp), MatArg<T>{cols, P}, yg, P, g.mg, P, K, T{1});
      if (b) {
        const T* bg = b_block(grp);
#pragma omp parallel for schedule(static) if (g.mg > 1 && g.mg * P >= kParallelGrain)
        for (int64_t r = 0; r < g.mg; ++r) add_bias_rows(yg + r * P, P, 1, P, bg + r);
      }
    }
}

}  // namespace

Tensor conv(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvAttrs& attrs,
            const TensorType& out, const std::string& where) {
  const ConvGeom g = make_geom(x, w, bias, attrs, out, where);
  Tensor y(out);
  if (y.numel() == 0) return y;
  visit_float_dtype(x.dtype(), where, [&](auto v) { conv_typed<decltype(v)>(x, w, bias, g, y); });
  return y;
}

}  // namespace kiln::ref::kernels

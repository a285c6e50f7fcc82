// ConvTranspose as GEMM + col2im, per image and group.
//
// For group g, col [M/G * taps x P_in] = W_g^T * X_g, where W_g is the
// group's [C/G x M/G * taps] weight block (Eigen GEMM, gemm_tiled). Each
// column entry (m, tap, input position) then adds into output position
// input * stride - pad_begin + tap * dilation when that lies in the output.
// Columns are built for bands of input positions to bound memory.
#include <memory>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

// Upper bound on column-matrix elements per band (16 MiB of float).
constexpr int64_t kColBandElements = int64_t{4} << 20;

template <class T>
void conv_transpose_typed(const Tensor& x, const Tensor& w, const Tensor* bias,
                          const ConvTransposeAttrs& a, Tensor& y) {
  const Shape& xs = x.shape();
  const std::size_t nsp = xs.size() - 2;
  const int64_t n = xs[0], c = xs[1], group = a.group;
  const int64_t cg = c / group, mg = w.shape()[1], m = mg * group;
  const Shape in(xs.begin() + 2, xs.end());
  const Shape out(y.shape().begin() + 2, y.shape().end());
  const int64_t p_in = shape_numel(in), p_out = shape_numel(out);
  const int64_t taps = shape_numel(a.kernel_shape);
  const int64_t rows = mg * taps;
  // Per spatial dim d, tap k and input index i: the output index, or -1.
  std::vector<std::vector<std::vector<int64_t>>> where_to(nsp);
  for (std::size_t d = 0; d < nsp; ++d) {
    where_to[d].assign(static_cast<std::size_t>(a.kernel_shape[d]),
                       std::vector<int64_t>(static_cast<std::size_t>(in[d]), -1));
    for (int64_t k = 0; k < a.kernel_shape[d]; ++k)
      for (int64_t i = 0; i < in[d]; ++i) {
        const int64_t o = i * a.strides[d] - a.pads[d] + k * a.dilations[d];
        if (o >= 0 && o < out[d])
          where_to[d][static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] = o;
      }
  }
  const std::vector<int64_t> out_st = shape_strides(out);
  const std::vector<int64_t> k_st = shape_strides(a.kernel_shape);
  const std::vector<int64_t> in_st = shape_strides(in);
  const T* px = x.data<T>().data();
  const T* pw = w.data<T>().data();
  T* py = y.data<T>().data();
  // The column matrix is built for bands of input positions, which bounds its size.
  const int64_t band = std::max<int64_t>(1, std::min(p_in, kColBandElements / rows));
  std::unique_ptr<T[]> col(new T[static_cast<std::size_t>(rows * band)]);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t g = 0; g < group; ++g) {
      for (int64_t p0 = 0; p0 < p_in; p0 += band) {
        const int64_t len = std::min(band, p_in - p0);
        gemm_tiled(MatArg<T>{pw + g * cg * rows, rows, true},
                   MatArg<T>{px + (b * c + g * cg) * p_in + p0, p_in, false}, col.get(), len, rows,
                   len, cg, T{1});
        // Different output channels write different planes: parallel over them.
#pragma omp parallel for schedule(static) if (mg > 1 && rows * len >= kParallelGrain)
        for (int64_t oc = 0; oc < mg; ++oc) {
          T* plane = py + (b * m + g * mg + oc) * p_out;
          std::vector<int64_t> tap(nsp), idx(nsp);
          for (int64_t t = 0; t < taps; ++t) {
            for (std::size_t d = 0; d < nsp; ++d) tap[d] = (t / k_st[d]) % a.kernel_shape[d];
            const T* src = col.get() + (oc * taps + t) * len;
            for (std::size_t d = 0; d < nsp; ++d) idx[d] = (p0 / in_st[d]) % in[d];
            for (int64_t p = 0; p < len; ++p) {
              int64_t off = 0;
              bool inside = true;
              for (std::size_t d = 0; d < nsp && inside; ++d) {
                const int64_t o =
                    where_to[d][static_cast<std::size_t>(tap[d])][static_cast<std::size_t>(idx[d])];
                inside = o >= 0;
                off += o * out_st[d];
              }
              if (inside) plane[off] += src[p];
              for (std::size_t d = nsp; d-- > 0;) {
                if (++idx[d] < in[d]) break;
                idx[d] = 0;
              }
            }
          }
        }
      }
    }
  }
  if (bias) {
    const T* pb = bias->data<T>().data();
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oc = 0; oc < m; ++oc) {
        T* plane = py + (b * m + oc) * p_out;
        for (int64_t i = 0; i < p_out; ++i) plane[i] += pb[oc];
      }
  }
}

}  // namespace

Tensor conv_transpose(const Tensor& x, const Tensor& w, const Tensor* bias,
                      const ConvTransposeAttrs& attrs, const TensorType& out,
                      const std::string& where) {
  const std::size_t r = x.shape().size();
  if (r < 3 || w.shape().size() != r || out.shape.size() != r || x.dtype() != w.dtype() ||
      attrs.group < 1 || x.shape()[1] != w.shape()[0] || x.shape()[1] % attrs.group != 0 ||
      attrs.kernel_shape.size() != r - 2 || attrs.pads.size() != 2 * (r - 2) ||
      out.shape[1] != w.shape()[1] * attrs.group)
    throw_error(ErrorKind::InvalidModel, where, "ConvTranspose operands do not match");
  for (std::size_t d = 0; d + 2 < r; ++d)
    if (attrs.kernel_shape[d] != w.shape()[2 + d])
      throw_error(ErrorKind::InvalidModel, where, "kernel_shape does not match W");
  if (bias && (bias->numel() != out.shape[1] || bias->dtype() != x.dtype()))
    throw_error(ErrorKind::InvalidModel, where, "B must hold one value per output channel");
  Tensor y(out);  // zero-initialized: col2im accumulates
  visit_float_dtype(x.dtype(), where,
                    [&](auto v) { conv_transpose_typed<decltype(v)>(x, w, bias, attrs, y); });
  return y;
}

}  // namespace kiln::ref::kernels

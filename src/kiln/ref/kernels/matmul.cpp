// Gemm and MatMul through Eigen's GEMM (row-major maps on the tensor memory).
// GCC 12 reports false "(may be) used uninitialized" warnings inside the
// AVX-512 intrinsics that Eigen's GEMM kernels inline (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

template <class T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ConstMap = Eigen::Map<const RowMajor<T>, 0, Eigen::OuterStride<>>;
template <class T>
using MutMap = Eigen::Map<RowMajor<T>, 0, Eigen::OuterStride<>>;

// One tile y[m0:m1, n0:n1] = alpha * op(a)[m0:m1, :] * op(b)[:, n0:n1], serial.
template <class T>
void product_tile(const MatArg<T>& a, const MatArg<T>& b, T* y, int64_t ldy, int64_t m, int64_t n,
                  int64_t k, T alpha, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  const int64_t h = m1 - m0, w = n1 - n0;
  const ConstMap<T> am(a.data, a.trans ? k : m, a.trans ? m : k, Eigen::OuterStride<>(a.ld));
  const ConstMap<T> bm(b.data, b.trans ? n : k, b.trans ? k : n, Eigen::OuterStride<>(b.ld));
  MutMap<T> ym(y + m0 * ldy + n0, h, w, Eigen::OuterStride<>(ldy));
  if (!a.trans && !b.trans) ym.noalias() = alpha * am.middleRows(m0, h) * bm.middleCols(n0, w);
  if (!a.trans && b.trans)
    ym.noalias() = alpha * am.middleRows(m0, h) * bm.middleRows(n0, w).transpose();
  if (a.trans && !b.trans)
    ym.noalias() = alpha * am.middleCols(m0, h).transpose() * bm.middleCols(n0, w);
  if (a.trans && b.trans)
    ym.noalias() = alpha * am.middleCols(m0, h).transpose() * bm.middleRows(n0, w).transpose();
}

void make_eigen_serial() {
  // All parallelism is ours (tiles over OpenMP threads). Eigen's own parallel
  // GEMM synchronizes its threads by spinning, which collapses when the cores
  // are shared with other processes.
  static const bool once = (Eigen::setNbThreads(1), true);
  (void)once;
}

void check_float_pair(const Tensor& a, const Tensor& b, const std::string& where) {
  if (a.dtype() != b.dtype())
    throw_error(ErrorKind::InvalidModel, where,
                std::string("operand types differ: ") + dtype_name(a.dtype()) + " and " +
                    dtype_name(b.dtype()));
}

}  // namespace

int available_threads() {
#ifdef _OPENMP
  if (!omp_in_parallel()) return omp_get_max_threads();
#endif
  return 1;
}

template <class T>
void gemm_tiled(const MatArg<T>& a, const MatArg<T>& b, T* y, int64_t ldy, int64_t m, int64_t n,
                int64_t k, T alpha) {
  make_eigen_serial();
  if (m <= 0 || n <= 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(y + i * ldy, y + i * ldy + n, T{0});
    return;
  }
  const int threads = available_threads();
  if (threads == 1 || m * n * k < (int64_t{1} << 18)) {
    product_tile(a, b, y, ldy, m, n, k, alpha, 0, m, 0, n);
    return;
  }
  // Split the longer side of y into about 3 blocks per thread (multiples of 16)
  // so a thread that the OS delays leaves less work for the others to wait on.
  const bool split_rows = m > n;
  const int64_t len = split_rows ? m : n;
  const int64_t blocks = std::min<int64_t>((len + 15) / 16, 3 * threads);
  const int64_t step = ((len + blocks - 1) / blocks + 15) / 16 * 16;
  const int64_t count = (len + step - 1) / step;
#pragma omp parallel for schedule(dynamic)
  for (int64_t i = 0; i < count; ++i) {
    const int64_t lo = i * step, hi = std::min(len, lo + step);
    if (split_rows)
      product_tile(a, b, y, ldy, m, n, k, alpha, lo, hi, 0, n);
    else
      product_tile(a, b, y, ldy, m, n, k, alpha, 0, m, lo, hi);
  }
}

template void gemm_tiled<float>(const MatArg<float>&, const MatArg<float>&, float*, int64_t,
                                int64_t, int64_t, int64_t, float);
template void gemm_tiled<double>(const MatArg<double>&, const MatArg<double>&, double*, int64_t,
                                 int64_t, int64_t, int64_t, double);

Tensor gemm(const Tensor& a, const Tensor& b, const Tensor* c, const GemmAttrs& attrs,
            const TensorType& out, const std::string& where) {
  expect_rank(a, 2, "A", where);
  expect_rank(b, 2, "B", where);
  check_float_pair(a, b, where);
  const int64_t m = attrs.trans_a ? a.shape()[1] : a.shape()[0];
  const int64_t k = attrs.trans_a ? a.shape()[0] : a.shape()[1];
  const int64_t kb = attrs.trans_b ? b.shape()[1] : b.shape()[0];
  const int64_t n = attrs.trans_b ? b.shape()[0] : b.shape()[1];
  if (k != kb)
    throw_error(ErrorKind::InvalidModel, where,
                "inner dimensions differ: A gives " + std::to_string(k) + ", B gives " +
                    std::to_string(kb));
  const Shape mn{m, n};
  if (out.shape != mn)
    throw_error(ErrorKind::Internal, where, "output type " + out.to_string() + " is not [M, N]");
  if (c) {
    check_float_pair(a, *c, where);
    if (broadcast_two(mn, c->shape(), where) != mn)
      throw_error(ErrorKind::InvalidModel, where,
                  "C [" + shape_to_string(c->shape()) + "] does not broadcast to [" +
                      shape_to_string(mn) + "]");
  }
  Tensor y(out);
  visit_float_dtype(a.dtype(), where, [&](auto v) {
    using T = decltype(v);
    T* yp = y.data<T>().data();
    const MatArg<T> am{a.data<T>().data(), a.shape()[1], attrs.trans_a};
    const MatArg<T> bm{b.data<T>().data(), b.shape()[1], attrs.trans_b};
    gemm_tiled(am, bm, yp, n, m, n, k, static_cast<T>(attrs.alpha));
    if (c && attrs.beta != 0.0f) {
      const T beta = static_cast<T>(attrs.beta);
      const Shape shapes[2] = {mn, c->shape()};
      broadcast_apply(make_broadcast_plan(mn, shapes), yp, c->data<T>().data(), yp,
                      [beta](T acc, T cv) { return acc + beta * cv; });
    }
  });
  return y;
}

Tensor matmul(const Tensor& a, const Tensor& b, const TensorType& out, const std::string& where) {
  check_float_pair(a, b, where);
  if (a.rank() == 0 || b.rank() == 0)
    throw_error(ErrorKind::InvalidModel, where, "MatMul operands must have rank >= 1");
  // 1-D operands are promoted: A [K] -> [1, K], B [K] -> [K, 1].
  Shape as = a.shape(), bs = b.shape();
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back();
  const int64_t kb = bs[bs.size() - 2], n = bs.back();
  if (k != kb)
    throw_error(ErrorKind::InvalidModel, where,
                "inner dimensions differ: [" + shape_to_string(a.shape()) + "] x [" +
                    shape_to_string(b.shape()) + "]");
  const Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  const Shape batch = broadcast_two(a_batch, b_batch, where);
  const int64_t batches = shape_numel(batch);
  if (out.numel() != batches * m * n)
    throw_error(ErrorKind::Internal, where, "output type " + out.to_string() + " is inconsistent");
  Tensor y(out);
  visit_float_dtype(a.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const T* ap = a.data<T>().data();
    const T* bp = b.data<T>().data();
    T* yp = y.data<T>().data();
    if (shape_numel(b_batch) == 1 && a_batch == batch) {
      // One shared B (a weight matrix): all of A's rows in one product.
      gemm_tiled(MatArg<T>{ap, k}, MatArg<T>{bp, n}, yp, n, batches * m, n, k, T{1});
      return;
    }
    // Offsets of each batch's matrices under broadcasting, via a plan whose
    // "elements" are whole matrices.
    const Shape shapes[2] = {a_batch, b_batch};
    const BroadcastPlan plan = make_broadcast_plan(batch, shapes);
    std::vector<std::pair<int64_t, int64_t>> offs(static_cast<std::size_t>(batches));
    for_each_broadcast_run(
        plan, [&](int64_t oo, int64_t ao, int64_t bo, int64_t cnt, int64_t sa, int64_t sb) {
          for (int64_t i = 0; i < cnt; ++i)
            offs[oo + i] = {(ao + i * sa) * m * k, (bo + i * sb) * k * n};
        });
    for (int64_t i = 0; i < batches; ++i)
      gemm_tiled(MatArg<T>{ap + offs[i].first, k}, MatArg<T>{bp + offs[i].second, n},
                 yp + i * m * n, n, m, n, k, T{1});
  });
  return y;
}

}  // namespace kiln::ref::kernels

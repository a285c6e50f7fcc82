// kiln layer library: matrix product of two activations. Shipped into each
// project.
//
// Arithmetic (docs/numerics.md "MatMul"): out[b][m][n]: a = 0; for k
// ascending a = a + A[b][m][k] * B[b][k][n] assigned to accum_t; the result
// is a assigned to the output type. CONFIG carries batch, m, k, n and typedef
// accum_t. io_parallel: row-major arrays; io_stream: A arrives as rows of k
// (kiln::array<T, k>), B as rows of n, the output leaves as rows of n; both
// operands are buffered whole before the first product. C++14.
#ifndef KILN_MATMUL_H_
#define KILN_MATMUL_H_

#include "kiln_common.h"

namespace kiln {
namespace matmul_detail {

template <class CONFIG, class A, class B, class R>
void product(const A a[], const B b[], R out[]) {
  KILN_PRAGMA(HLS INLINE)
  for (unsigned t = 0; t < CONFIG::batch; t++) {
    for (unsigned i = 0; i < CONFIG::m; i++) {
      for (unsigned j = 0; j < CONFIG::n; j++) {
        KILN_PRAGMA(HLS PIPELINE II = 1)
        typename CONFIG::accum_t acc = 0;
        for (unsigned q = 0; q < CONFIG::k; q++) {
          acc =
              acc + a[(t * CONFIG::m + i) * CONFIG::k + q] * b[(t * CONFIG::k + q) * CONFIG::n + j];
        }
        out[(t * CONFIG::m + i) * CONFIG::n + j] = acc;
      }
    }
  }
}

// Reads `rows` stream elements into a flat buffer.
template <class data_T>
void buffer_rows(stream<data_T>& in, typename data_T::value_type buf[], unsigned rows) {
  KILN_PRAGMA(HLS INLINE)
  for (unsigned r = 0; r < rows; r++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const data_T x = in.read();
    for (unsigned c = 0; c < data_T::size; c++) {
      KILN_PRAGMA(HLS UNROLL)
      buf[r * data_T::size + c] = x[c];
    }
  }
}

}  // namespace matmul_detail

template <class CONFIG, class in0_T, class in1_T, class res_T>
void matmul(const in0_T a[CONFIG::batch * CONFIG::m * CONFIG::k],
            const in1_T b[CONFIG::batch * CONFIG::k * CONFIG::n],
            res_T out[CONFIG::batch * CONFIG::m * CONFIG::n]) {
  matmul_detail::product<CONFIG>(a, b, out);
}

template <class CONFIG, class in0_T, class in1_T, class res_T>
void matmul(stream<in0_T>& a, stream<in1_T>& b, stream<res_T>& out) {
  typename in0_T::value_type abuf[CONFIG::batch * CONFIG::m * CONFIG::k];
  typename in1_T::value_type bbuf[CONFIG::batch * CONFIG::k * CONFIG::n];
  typename res_T::value_type obuf[CONFIG::batch * CONFIG::m * CONFIG::n];
  matmul_detail::buffer_rows(a, abuf, CONFIG::batch * CONFIG::m);
  matmul_detail::buffer_rows(b, bbuf, CONFIG::batch * CONFIG::k);
  matmul_detail::product<CONFIG>(abuf, bbuf, obuf);
  for (unsigned r = 0; r < CONFIG::batch * CONFIG::m; r++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    res_T y;
    for (unsigned c = 0; c < res_T::size; c++) {
      KILN_PRAGMA(HLS UNROLL)
      y[c] = obuf[r * res_T::size + c];
    }
    out.write(y);
  }
}

}  // namespace kiln

#endif  // KILN_MATMUL_H_

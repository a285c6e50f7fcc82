// kiln layer library: softmax over the last axis. Shipped into each project.
//
// Arithmetic (docs/numerics.md "Softmax"), per row of `length` values:
//   m = max x_i; d_i = m - x_i (exact, >= 0);
//   e_i = E[min(floor(d_i * 2^table_shift), table_size - 1)]  (table_t);
//   sum = sum + e_i, assigned to accum_t, i ascending from 0;
//   inv = V[clamp(floor(sum * 2^inv_table_shift), 0, inv_table_size - 1)];
//   y_i = e_i * inv (exact), assigned to the result type.
// E[k] = exp(-k / 2^table_shift) (left bin edges, so the maximum maps to
// exactly 1) and V[j] = 1 / ((j + 0.5) / 2^inv_table_shift) are computed by
// kiln and written into the project.
//
// CONFIG carries: rows, length, table_size, table_shift, inv_table_size,
// inv_table_shift, typedefs table_t, inv_table_t, accum_t.
// io_parallel: arrays of rows * length values, row-major. io_stream: one
// kiln::array<T, length> per row. C++14.
#ifndef KILN_SOFTMAX_H_
#define KILN_SOFTMAX_H_

#include "kiln_common.h"

namespace kiln {
namespace softmax_detail {

// One row: `in` and `out` are indexable (arrays or kiln::array).
template <class CONFIG, class data_T, class res_T, class IN, class OUT>
void softmax_row(const IN& in, OUT& out, const typename CONFIG::table_t exp_table[],
                 const typename CONFIG::inv_table_t inv_table[]) {
  KILN_PRAGMA(HLS INLINE)
  data_T m = in[0];
  for (unsigned i = 1; i < CONFIG::length; i++) {
    KILN_PRAGMA(HLS UNROLL)
    if (m < in[i]) m = in[i];
  }
  typename CONFIG::table_t e[CONFIG::length];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = e complete)
  typename CONFIG::accum_t sum = 0;
  for (unsigned i = 0; i < CONFIG::length; i++) {
    KILN_PRAGMA(HLS UNROLL)
    // m - in[i] is exact and non-negative.
    long long k = floor_scaled<CONFIG::table_shift>(m - in[i]);
    if (k > static_cast<long long>(CONFIG::table_size - 1)) k = CONFIG::table_size - 1;
    e[i] = exp_table[k];
    sum = sum + e[i];
  }
  long long j = floor_scaled<CONFIG::inv_table_shift>(sum);
  if (j < 0) j = 0;
  if (j > static_cast<long long>(CONFIG::inv_table_size - 1)) j = CONFIG::inv_table_size - 1;
  const typename CONFIG::inv_table_t inv = inv_table[j];
  for (unsigned i = 0; i < CONFIG::length; i++) {
    KILN_PRAGMA(HLS UNROLL)
    out[i] = e[i] * inv;
  }
}

// A row inside a flat array, indexable like an array.
template <class T>
struct row_view {
  T* base;
  T& operator[](unsigned i) const { return base[i]; }
};

}  // namespace softmax_detail

template <class CONFIG, class data_T, class res_T>
void softmax(const data_T in[CONFIG::rows * CONFIG::length],
             const typename CONFIG::table_t exp_table[CONFIG::table_size],
             const typename CONFIG::inv_table_t inv_table[CONFIG::inv_table_size],
             res_T out[CONFIG::rows * CONFIG::length]) {
  for (unsigned r = 0; r < CONFIG::rows; r++) {
    KILN_PRAGMA(HLS PIPELINE)
    const softmax_detail::row_view<const data_T> x = {in + r * CONFIG::length};
    softmax_detail::row_view<res_T> y = {out + r * CONFIG::length};
    softmax_detail::softmax_row<CONFIG, data_T, res_T>(x, y, exp_table, inv_table);
  }
}

template <class CONFIG, class data_T, class res_T>
void softmax(stream<data_T>& in, const typename CONFIG::table_t exp_table[CONFIG::table_size],
             const typename CONFIG::inv_table_t inv_table[CONFIG::inv_table_size],
             stream<res_T>& out) {
  for (unsigned r = 0; r < CONFIG::rows; r++) {
    KILN_PRAGMA(HLS PIPELINE)
    const data_T x = in.read();
    res_T y;
    softmax_detail::softmax_row<CONFIG, typename data_T::value_type, typename res_T::value_type>(
        x, y, exp_table, inv_table);
    out.write(y);
  }
}

}  // namespace kiln

#endif  // KILN_SOFTMAX_H_

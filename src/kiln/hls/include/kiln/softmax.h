// kiln layer library: softmax and log-softmax over the last axis. Shipped
// into each project.
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
// log_softmax: the same m, e_i and sum; then
//   lg = G[clamp(floor(sum * 2^log_table_shift), 0, log_table_size - 1)];
//   y_i = (x_i - m) - lg (exact), assigned to the result type,
// with G[j] = log((j + 0.5) / 2^log_table_shift).
//
// CONFIG carries: rows, length, table_size, table_shift, inv_table_size,
// inv_table_shift, typedefs table_t, inv_table_t, accum_t (log_softmax:
// log_table_size, log_table_shift, log_table_t in place of the inv_ ones).
// io_parallel: arrays of rows * length values, row-major. io_stream: one
// kiln::array<T, length> per row. C++14.
#ifndef KILN_SOFTMAX_H_
#define KILN_SOFTMAX_H_

#include "kiln_common.h"

namespace kiln {
namespace softmax_detail {

// The bin of v in a table of SIZE entries of step 2^-SHIFT: floor(v * 2^SHIFT),
// clamped to the table.
template <int SHIFT, unsigned long long SIZE, class T>
long long table_bin(const T& v) {
  long long k = floor_scaled<SHIFT>(v);
  if (k < 0) k = 0;
  if (k > static_cast<long long>(SIZE - 1)) k = static_cast<long long>(SIZE - 1);
  return k;
}

// A row's maximum and its exp table values e_i = E[bin(m - x_i)] (m - x_i is
// exact and non-negative), summed in accum_t: what softmax and log_softmax
// share. `in` is indexable (an array or kiln::array).
template <class CONFIG, class data_T, class IN>
typename CONFIG::accum_t exp_sum(const IN& in, const typename CONFIG::table_t exp_table[],
                                 data_T& m, typename CONFIG::table_t e[]) {
  KILN_PRAGMA(HLS INLINE)
  m = in[0];
  for (unsigned i = 1; i < CONFIG::length; i++) {
    KILN_PRAGMA(HLS UNROLL)
    if (m < in[i]) m = in[i];
  }
  typename CONFIG::accum_t sum = 0;
  for (unsigned i = 0; i < CONFIG::length; i++) {
    KILN_PRAGMA(HLS UNROLL)
    e[i] = exp_table[table_bin<CONFIG::table_shift, CONFIG::table_size>(m - in[i])];
    sum = sum + e[i];
  }
  return sum;
}

// One row: `in` and `out` are indexable (arrays or kiln::array).
template <class CONFIG, class data_T, class res_T, class IN, class OUT>
void softmax_row(const IN& in, OUT& out, const typename CONFIG::table_t exp_table[],
                 const typename CONFIG::inv_table_t inv_table[]) {
  KILN_PRAGMA(HLS INLINE)
  data_T m;
  typename CONFIG::table_t e[CONFIG::length];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = e complete)
  const typename CONFIG::accum_t sum = exp_sum<CONFIG, data_T>(in, exp_table, m, e);
  const typename CONFIG::inv_table_t inv =
      inv_table[table_bin<CONFIG::inv_table_shift, CONFIG::inv_table_size>(sum)];
  for (unsigned i = 0; i < CONFIG::length; i++) {
    KILN_PRAGMA(HLS UNROLL)
    out[i] = e[i] * inv;
  }
}

// One row of log_softmax.
template <class CONFIG, class data_T, class res_T, class IN, class OUT>
void log_softmax_row(const IN& in, OUT& out, const typename CONFIG::table_t exp_table[],
                     const typename CONFIG::log_table_t log_table[]) {
  KILN_PRAGMA(HLS INLINE)
  data_T m;
  typename CONFIG::table_t e[CONFIG::length];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = e complete)
  const typename CONFIG::accum_t sum = exp_sum<CONFIG, data_T>(in, exp_table, m, e);
  const typename CONFIG::log_table_t lg =
      log_table[table_bin<CONFIG::log_table_shift, CONFIG::log_table_size>(sum)];
  for (unsigned i = 0; i < CONFIG::length; i++) {
    KILN_PRAGMA(HLS UNROLL)
    // Both differences are exact; the assignment is the only rounding.
    out[i] = (in[i] - m) - lg;
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

template <class CONFIG, class data_T, class res_T>
void log_softmax(const data_T in[CONFIG::rows * CONFIG::length],
                 const typename CONFIG::table_t exp_table[CONFIG::table_size],
                 const typename CONFIG::log_table_t log_table[CONFIG::log_table_size],
                 res_T out[CONFIG::rows * CONFIG::length]) {
  for (unsigned r = 0; r < CONFIG::rows; r++) {
    KILN_PRAGMA(HLS PIPELINE)
    const softmax_detail::row_view<const data_T> x = {in + r * CONFIG::length};
    softmax_detail::row_view<res_T> y = {out + r * CONFIG::length};
    softmax_detail::log_softmax_row<CONFIG, data_T, res_T>(x, y, exp_table, log_table);
  }
}

template <class CONFIG, class data_T, class res_T>
void log_softmax(stream<data_T>& in, const typename CONFIG::table_t exp_table[CONFIG::table_size],
                 const typename CONFIG::log_table_t log_table[CONFIG::log_table_size],
                 stream<res_T>& out) {
  for (unsigned r = 0; r < CONFIG::rows; r++) {
    KILN_PRAGMA(HLS PIPELINE)
    const data_T x = in.read();
    res_T y;
    softmax_detail::log_softmax_row<CONFIG, typename data_T::value_type,
                                    typename res_T::value_type>(x, y, exp_table, log_table);
    out.write(y);
  }
}

}  // namespace kiln

#endif  // KILN_SOFTMAX_H_

// kiln layer library: GRU and LSTM layers over one sequence.
//
// Arithmetic (docs/numerics.md "Recurrent"). The state h (result_t) and,
// for an LSTM, the cell state c (accum_t) start at zero. Per step t:
//   xw = W x_t + Wb, hr = R h + Rb: dense_kernel (Dense's order and
//     rounding) into accum_t, n_gates = gates * n_hidden values each;
//   S[.] the sigmoid table, T[.] the tanh table, idx() the table index of
//     an accum_t value (activation.h);
//   GRU (gate blocks z, r, n; linear_before_reset, PyTorch's form):
//     z = S[idx(accum_t(xw_z + hr_z))], r = S[idx(accum_t(xw_r + hr_r))],
//     n = T[idx(accum_t(xw_n + r * hr_n))],
//     h = result_t(n + z * (h - n))  ((1 - z) n + z h, exact, one rounding);
//   LSTM (gate blocks i, o, f, g):
//     i, o, f = S[idx(accum_t(xw + hr))], g = T[idx(accum_t(xw + hr))],
//     c = accum_t(f * c + i * g), h = result_t(o * T[idx(c)]).
// The output is every step's h (sequences) or the last one.
//
// CONFIG carries: n_steps, n_in, n_hidden, n_gates, cell (kiln::Cell),
//   sequences, table_size, table_shift, typedefs accum_t, table_t, result_t,
//   weight_t, bias_t, and the dense_kernel configs input_config (n_in to
//   n_gates) and state_config (n_hidden to n_gates), whose result_t is
//   accum_t. Weights as Dense's: w[i * n_gates + j], r[k * n_gates + j].
#ifndef KILN_RECURRENT_H_
#define KILN_RECURRENT_H_

#include "activation.h"
#include "dense.h"
#include "kiln_common.h"

namespace kiln {

enum class Cell { Gru, Lstm };

// One step: updates h (and c) from the input vector x.
template <class CONFIG, class data_T>
void recurrent_step(const data_T x[CONFIG::n_in], typename CONFIG::result_t h[CONFIG::n_hidden],
                    typename CONFIG::accum_t c[CONFIG::n_hidden],
                    const typename CONFIG::weight_t w[CONFIG::n_in * CONFIG::n_gates],
                    const typename CONFIG::weight_t r[CONFIG::n_hidden * CONFIG::n_gates],
                    const typename CONFIG::bias_t wb[CONFIG::n_gates],
                    const typename CONFIG::bias_t rb[CONFIG::n_gates],
                    const typename CONFIG::table_t sigmoid[CONFIG::table_size],
                    const typename CONFIG::table_t tanh[CONFIG::table_size]) {
  KILN_PRAGMA(HLS INLINE)
  typedef typename CONFIG::accum_t accum_t;
  typedef typename CONFIG::table_t table_t;
  typedef typename CONFIG::result_t result_t;
  const int H = CONFIG::n_hidden;
  const int S = CONFIG::table_shift;
  const unsigned N = CONFIG::table_size;
  accum_t xw[CONFIG::n_gates];
  accum_t hr[CONFIG::n_gates];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = xw complete)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = hr complete)
  dense_kernel<data_T, accum_t, typename CONFIG::input_config>(x, xw, w, wb);
  dense_kernel<result_t, accum_t, typename CONFIG::state_config>(h, hr, r, rb);
  for (int j = 0; j < H; j++) {
    KILN_PRAGMA(HLS UNROLL)
    if (CONFIG::cell == Cell::Gru) {
      const accum_t pz = xw[j] + hr[j];
      const accum_t pr = xw[H + j] + hr[H + j];
      const table_t z = sigmoid[elementwise_detail::table_index<S, N>(pz)];
      const table_t rg = sigmoid[elementwise_detail::table_index<S, N>(pr)];
      const accum_t pn = xw[2 * H + j] + rg * hr[2 * H + j];
      const table_t n = tanh[elementwise_detail::table_index<S, N>(pn)];
      h[j] = result_t(n + z * (h[j] - n));
    } else {
      const accum_t pi = xw[j] + hr[j];
      const accum_t po = xw[H + j] + hr[H + j];
      const accum_t pf = xw[2 * H + j] + hr[2 * H + j];
      const accum_t pg = xw[3 * H + j] + hr[3 * H + j];
      const table_t i = sigmoid[elementwise_detail::table_index<S, N>(pi)];
      const table_t o = sigmoid[elementwise_detail::table_index<S, N>(po)];
      const table_t f = sigmoid[elementwise_detail::table_index<S, N>(pf)];
      const table_t g = tanh[elementwise_detail::table_index<S, N>(pg)];
      c[j] = accum_t(f * c[j] + i * g);
      h[j] = result_t(o * tanh[elementwise_detail::table_index<S, N>(c[j])]);
    }
  }
}

// The zero initial state.
template <class CONFIG>
void recurrent_reset(typename CONFIG::result_t h[CONFIG::n_hidden],
                     typename CONFIG::accum_t c[CONFIG::n_hidden]) {
  KILN_PRAGMA(HLS INLINE)
  for (int j = 0; j < CONFIG::n_hidden; j++) {
    KILN_PRAGMA(HLS UNROLL)
    h[j] = 0;
    c[j] = 0;
  }
}

// io_parallel: data [n_steps][n_in]; res [n_steps][n_hidden] or [n_hidden].
template <class CONFIG, class data_T, class res_T>
void recurrent(const data_T data[CONFIG::n_steps * CONFIG::n_in],
               res_T res[(CONFIG::sequences ? CONFIG::n_steps : 1) * CONFIG::n_hidden],
               const typename CONFIG::weight_t w[CONFIG::n_in * CONFIG::n_gates],
               const typename CONFIG::weight_t r[CONFIG::n_hidden * CONFIG::n_gates],
               const typename CONFIG::bias_t wb[CONFIG::n_gates],
               const typename CONFIG::bias_t rb[CONFIG::n_gates],
               const typename CONFIG::table_t sigmoid[CONFIG::table_size],
               const typename CONFIG::table_t tanh[CONFIG::table_size]) {
  typename CONFIG::result_t h[CONFIG::n_hidden];
  typename CONFIG::accum_t c[CONFIG::n_hidden];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = h complete)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = c complete)
  recurrent_reset<CONFIG>(h, c);
  for (int t = 0; t < CONFIG::n_steps; t++) {
    recurrent_step<CONFIG, data_T>(data + t * CONFIG::n_in, h, c, w, r, wb, rb, sigmoid, tanh);
    if (CONFIG::sequences || t == CONFIG::n_steps - 1) {
      const int o = CONFIG::sequences ? t : 0;
      for (int j = 0; j < CONFIG::n_hidden; j++) {
        KILN_PRAGMA(HLS UNROLL)
        res[o * CONFIG::n_hidden + j] = h[j];
      }
    }
  }
}

// io_stream: one element of n_in values per step in; one element of
// n_hidden values per step (sequences) or one at the end out.
template <class CONFIG, class data_T, class res_T>
void recurrent(stream<data_T>& data, stream<res_T>& res,
               const typename CONFIG::weight_t w[CONFIG::n_in * CONFIG::n_gates],
               const typename CONFIG::weight_t r[CONFIG::n_hidden * CONFIG::n_gates],
               const typename CONFIG::bias_t wb[CONFIG::n_gates],
               const typename CONFIG::bias_t rb[CONFIG::n_gates],
               const typename CONFIG::table_t sigmoid[CONFIG::table_size],
               const typename CONFIG::table_t tanh[CONFIG::table_size]) {
  typedef typename data_T::value_type in_t;
  typename CONFIG::result_t h[CONFIG::n_hidden];
  typename CONFIG::accum_t c[CONFIG::n_hidden];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = h complete)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = c complete)
  recurrent_reset<CONFIG>(h, c);
  for (int t = 0; t < CONFIG::n_steps; t++) {
    const data_T px = data.read();
    in_t x[CONFIG::n_in];
    KILN_PRAGMA(HLS ARRAY_PARTITION variable = x complete)
    for (int i = 0; i < CONFIG::n_in; i++) {
      KILN_PRAGMA(HLS UNROLL)
      x[i] = px[i];
    }
    recurrent_step<CONFIG, in_t>(x, h, c, w, r, wb, rb, sigmoid, tanh);
    if (CONFIG::sequences || t == CONFIG::n_steps - 1) {
      res_T out;
      for (int j = 0; j < CONFIG::n_hidden; j++) {
        KILN_PRAGMA(HLS UNROLL)
        out[j] = h[j];
      }
      res.write(out);
    }
  }
}

}  // namespace kiln

#endif  // KILN_RECURRENT_H_

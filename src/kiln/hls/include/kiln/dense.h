// kiln layer library: dense (fully connected) layers and the shared
// matrix-vector kernel that convolutions call on each gathered window.
//
// Arithmetic (docs/numerics.md "Dense"): per output j, a = bias[j] assigned to
// accum_t; for i ascending, a = a + x[i] * w[i][j] (exact product and sum,
// assigned to accum_t); y[j] = act(a) assigned to result_t. Strategy and reuse
// factor change the schedule, never this order.
//
// CONFIG carries:
//   n_in, n_out, n_rows (independent input vectors; 1 for a plain dense),
//   reuse_factor, block_factor (= ceil(n_in * n_out / reuse_factor)),
//   multiplier_limit, strategy (kiln::Strategy), activation (kiln::Act) with
//   act_alpha()/act_lo()/act_hi() (values exact in param_t),
//   typedefs weight_t, bias_t, accum_t, result_t.
// Weights are stored w[i * n_out + j], C++14.
#ifndef KILN_DENSE_H_
#define KILN_DENSE_H_

#include "kiln_common.h"

namespace kiln {

enum class Strategy { Latency, Resource };
enum class Act { None, Relu, LeakyRelu, Clip };

// act(a) on the exact accumulator, then the single rounding to result_t.
template <class CONFIG>
inline typename CONFIG::result_t fused_activation(const typename CONFIG::accum_t& a) {
  KILN_PRAGMA(HLS INLINE)
  typedef typename CONFIG::result_t result_t;
  typedef typename CONFIG::accum_t accum_t;
  if (CONFIG::activation == Act::Relu) {
    if (a < accum_t(0)) return result_t(0);
    return result_t(a);
  }
  if (CONFIG::activation == Act::LeakyRelu) {
    if (a >= accum_t(0)) return result_t(a);
    const param_t alpha = CONFIG::act_alpha();
    return result_t(a * alpha);  // exact product, one rounding
  }
  if (CONFIG::activation == Act::Clip) {
    const param_t lo = CONFIG::act_lo();
    const param_t hi = CONFIG::act_hi();
    // min(max(a, lo), hi), literally (hi wins if lo > hi).
    if (exact_less(a, lo)) {
      if (hi < lo) return result_t(hi);
      return result_t(lo);
    }
    if (exact_less(hi, a)) return result_t(hi);
    return result_t(a);
  }
  return result_t(a);
}

// Latency strategy: every product unrolled; the allocation limits the
// multipliers to n_in * n_out / reuse_factor so the function can be pipelined
// at II = reuse_factor.
template <class data_T, class res_T, class CONFIG>
void dense_latency(const data_T data[CONFIG::n_in], res_T res[CONFIG::n_out],
                   const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
                   const typename CONFIG::bias_t biases[CONFIG::n_out]) {
  KILN_PRAGMA(HLS INLINE)
  KILN_PRAGMA(HLS ALLOCATION operation instances = mul limit = CONFIG::multiplier_limit)
  typename CONFIG::accum_t acc[CONFIG::n_out];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = acc complete)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = weights complete)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = biases complete)
  for (int j = 0; j < CONFIG::n_out; j++) {
    KILN_PRAGMA(HLS UNROLL)
    acc[j] = biases[j];
  }
  // i outer, j inner: each output's sum runs over i ascending.
  for (int i = 0; i < CONFIG::n_in; i++) {
    KILN_PRAGMA(HLS UNROLL)
    for (int j = 0; j < CONFIG::n_out; j++) {
      KILN_PRAGMA(HLS UNROLL)
      acc[j] = acc[j] + data[i] * weights[i * CONFIG::n_out + j];
    }
  }
  for (int j = 0; j < CONFIG::n_out; j++) {
    KILN_PRAGMA(HLS UNROLL)
    res[j] = fused_activation<CONFIG>(acc[j]);
  }
}

// Resource strategy: the reuse loop. Flat weight index k = i * n_out + j runs
// 0 .. n_in*n_out-1 in order: reuse_factor outer iterations (II = 1), each an
// unrolled block of block_factor consecutive k, so each output still sums its
// inputs in ascending order and block_factor multipliers are shared.
template <class data_T, class res_T, class CONFIG>
void dense_resource(const data_T data[CONFIG::n_in], res_T res[CONFIG::n_out],
                    const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
                    const typename CONFIG::bias_t biases[CONFIG::n_out]) {
  KILN_PRAGMA(HLS INLINE)
  const int n_total = CONFIG::n_in * CONFIG::n_out;
  typename CONFIG::accum_t acc[CONFIG::n_out];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = acc complete)
  KILN_PRAGMA(HLS ARRAY_RESHAPE variable = weights cyclic factor = CONFIG::block_factor)
  for (int j = 0; j < CONFIG::n_out; j++) {
    KILN_PRAGMA(HLS UNROLL)
    acc[j] = biases[j];
  }
  for (int ir = 0; ir < CONFIG::reuse_factor; ir++) {
    KILN_PRAGMA(HLS PIPELINE II = 1 rewind)
    for (int im = 0; im < CONFIG::block_factor; im++) {
      KILN_PRAGMA(HLS UNROLL)
      const int k = ir * CONFIG::block_factor + im;
      if (k < n_total) {
        const int i = k / CONFIG::n_out;
        const int j = k % CONFIG::n_out;
        acc[j] = acc[j] + data[i] * weights[k];
      }
    }
  }
  for (int j = 0; j < CONFIG::n_out; j++) {
    KILN_PRAGMA(HLS UNROLL)
    res[j] = fused_activation<CONFIG>(acc[j]);
  }
}

// One matrix-vector product with the layer's strategy.
template <class data_T, class res_T, class CONFIG>
void dense_kernel(const data_T data[CONFIG::n_in], res_T res[CONFIG::n_out],
                  const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
                  const typename CONFIG::bias_t biases[CONFIG::n_out]) {
  KILN_PRAGMA(HLS INLINE)
  if (CONFIG::strategy == Strategy::Resource) {
    dense_resource<data_T, res_T, CONFIG>(data, res, weights, biases);
  } else {
    dense_latency<data_T, res_T, CONFIG>(data, res, weights, biases);
  }
}

// io_parallel: n_rows vectors of n_in, row-major.
template <class CONFIG, class data_T, class res_T>
void dense(const data_T data[CONFIG::n_rows * CONFIG::n_in],
           res_T res[CONFIG::n_rows * CONFIG::n_out],
           const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
           const typename CONFIG::bias_t biases[CONFIG::n_out]) {
  for (int r = 0; r < CONFIG::n_rows; r++) {
    KILN_PRAGMA(HLS PIPELINE II = CONFIG::reuse_factor)
    dense_kernel<data_T, res_T, CONFIG>(data + r * CONFIG::n_in, res + r * CONFIG::n_out, weights,
                                        biases);
  }
}

// io_stream: each row arrives as n_in / data_T::size elements (normally one
// element of n_in) and leaves as one element of n_out.
template <class CONFIG, class data_T, class res_T>
void dense(stream<data_T>& data, stream<res_T>& res,
           const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
           const typename CONFIG::bias_t biases[CONFIG::n_out]) {
  typedef typename data_T::value_type in_t;
  typedef typename res_T::value_type out_t;
  const int in_elems = CONFIG::n_in / data_T::size;
  for (int r = 0; r < CONFIG::n_rows; r++) {
    KILN_PRAGMA(HLS PIPELINE II = CONFIG::reuse_factor)
    in_t x[CONFIG::n_in];
    KILN_PRAGMA(HLS ARRAY_PARTITION variable = x complete)
    for (int e = 0; e < in_elems; e++) {
      const data_T px = data.read();
      for (int c = 0; c < static_cast<int>(data_T::size); c++) {
        KILN_PRAGMA(HLS UNROLL)
        x[e * data_T::size + c] = px[c];
      }
    }
    out_t y[CONFIG::n_out];
    KILN_PRAGMA(HLS ARRAY_PARTITION variable = y complete)
    dense_kernel<in_t, out_t, CONFIG>(x, y, weights, biases);
    res_T out;
    for (int j = 0; j < CONFIG::n_out; j++) {
      KILN_PRAGMA(HLS UNROLL)
      out[j] = y[j];
    }
    res.write(out);
  }
}

}  // namespace kiln

#endif  // KILN_DENSE_H_

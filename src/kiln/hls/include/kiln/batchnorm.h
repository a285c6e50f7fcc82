// kiln layer library: batch normalization that was not folded into a
// convolution or dense layer. Shipped into each project.
//
// Arithmetic (docs/numerics.md "BatchNorm"): y = x * scale[c] + bias[c],
// exact, assigned once to the result type; c is the channel (last axis).
// CONFIG carries n (elements), channels, typedefs weight_t (scale) and bias_t.
// io_parallel: arrays of n values; io_stream: kiln::array<T, channels> per
// pixel. C++14.
#ifndef KILN_BATCHNORM_H_
#define KILN_BATCHNORM_H_

#include "kiln_common.h"

namespace kiln {

template <class CONFIG, class data_T, class res_T>
void batchnorm(const data_T in[CONFIG::n], const typename CONFIG::weight_t scale[CONFIG::channels],
               const typename CONFIG::bias_t bias[CONFIG::channels], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = scale complete)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = bias complete)
  for (unsigned i = 0; i < CONFIG::n; i++) {
    KILN_PRAGMA(HLS UNROLL)
    const unsigned c = i % CONFIG::channels;
    out[i] = in[i] * scale[c] + bias[c];
  }
}

template <class CONFIG, class data_T, class res_T>
void batchnorm(stream<data_T>& in, const typename CONFIG::weight_t scale[CONFIG::channels],
               const typename CONFIG::bias_t bias[CONFIG::channels], stream<res_T>& out) {
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = scale complete)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = bias complete)
  for (unsigned p = 0; p < CONFIG::n / CONFIG::channels; p++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const data_T x = in.read();
    res_T y;
    for (unsigned c = 0; c < res_T::size; c++) {
      KILN_PRAGMA(HLS UNROLL)
      y[c] = x[c] * scale[c] + bias[c];
    }
    out.write(y);
  }
}

}  // namespace kiln

#endif  // KILN_BATCHNORM_H_

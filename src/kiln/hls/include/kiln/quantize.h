// kiln layer library: the model's own quantizer (an ONNX QuantizeLinear /
// DequantizeLinear pair). Shipped into each project.
//
// y = x assigned to the output type (which rounds and saturates as the
// quantizer does), then, with CONFIG::clamp, kept within lo() .. hi() (the
// integer range less the zero point; docs/numerics.md "Quantize"). A
// bipolar quantizer (QONNX BipolarQuant) gives hi() for x >= 0, else lo().
// CONFIG carries n, channels, clamp, bipolar, lo(), hi(). C++14.
#ifndef KILN_QUANTIZE_H_
#define KILN_QUANTIZE_H_

#include "kiln_common.h"

namespace kiln {
namespace quantize_detail {

template <class CONFIG, class data_T, class res_T>
res_T quantize_value(const data_T& x) {
  KILN_PRAGMA(HLS INLINE)
  if (CONFIG::bipolar) return raw_bits(x) >= 0 ? res_T(CONFIG::hi()) : res_T(CONFIG::lo());
  res_T y = x;
  if (CONFIG::clamp) {
    const res_T lo = CONFIG::lo();
    const res_T hi = CONFIG::hi();
    if (y < lo) y = lo;
    if (y > hi) y = hi;
  }
  return y;
}

}  // namespace quantize_detail

template <class CONFIG, class data_T, class res_T>
void quantize(const data_T in[CONFIG::n], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  for (unsigned i = 0; i < CONFIG::n; i++) {
    KILN_PRAGMA(HLS UNROLL)
    out[i] = quantize_detail::quantize_value<CONFIG, data_T, res_T>(in[i]);
  }
}

template <class CONFIG, class data_T, class res_T>
void quantize(stream<data_T>& in, stream<res_T>& out) {
  for (unsigned p = 0; p < CONFIG::n / CONFIG::channels; p++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const data_T x = in.read();
    res_T y;
    for (unsigned c = 0; c < CONFIG::channels; c++) {
      KILN_PRAGMA(HLS UNROLL)
      y[c] = quantize_detail::quantize_value<CONFIG, typename data_T::value_type,
                                             typename res_T::value_type>(x[c]);
    }
    out.write(y);
  }
}

}  // namespace kiln

#endif  // KILN_QUANTIZE_H_

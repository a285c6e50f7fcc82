// kiln layer library: zero padding of a channels-last feature map (1-D maps
// have in_height = 1 and no top/bottom padding). y = x assigned to the output
// type, zeros around it and, with strides above 1, stride - 1 zeros between
// its pixels (a transposed convolution's input; docs/numerics.md "ZeroPad").
//
// CONFIG: in_height, in_width, n_chan, out_height, out_width, pad_top,
//   pad_bottom, pad_left, pad_right, stride_height, stride_width.
#ifndef KILN_ZERO_PAD_H_
#define KILN_ZERO_PAD_H_

#include "kiln_common.h"

namespace kiln {
namespace zero_pad_detail {

// Whether output position o (before the leading padding is removed) holds
// an input pixel along an axis: o = pad + i * stride with i < n.
inline bool holds_input(int o, int pad, int stride, int n) {
  const int i = o - pad;
  return i >= 0 && i % stride == 0 && i / stride < n;
}

}  // namespace zero_pad_detail

template <class CONFIG, class data_T, class res_T>
void zero_pad_2d(const data_T data[CONFIG::in_height * CONFIG::in_width * CONFIG::n_chan],
                 res_T res[CONFIG::out_height * CONFIG::out_width * CONFIG::n_chan]) {
  for (int oh = 0; oh < CONFIG::out_height; oh++) {
    for (int ow = 0; ow < CONFIG::out_width; ow++) {
      KILN_PRAGMA(HLS PIPELINE)
      const bool inside = zero_pad_detail::holds_input(oh, CONFIG::pad_top, CONFIG::stride_height,
                                                       CONFIG::in_height) &&
                          zero_pad_detail::holds_input(ow, CONFIG::pad_left, CONFIG::stride_width,
                                                       CONFIG::in_width);
      const int ih = (oh - CONFIG::pad_top) / CONFIG::stride_height;
      const int iw = (ow - CONFIG::pad_left) / CONFIG::stride_width;
      for (int c = 0; c < CONFIG::n_chan; c++) {
        res[(oh * CONFIG::out_width + ow) * CONFIG::n_chan + c] =
            inside ? res_T(data[(ih * CONFIG::in_width + iw) * CONFIG::n_chan + c]) : res_T(0);
      }
    }
  }
}

template <class CONFIG, class data_T, class res_T>
void zero_pad_2d(stream<data_T>& data, stream<res_T>& res) {
  typedef typename res_T::value_type out_t;
  for (int oh = 0; oh < CONFIG::out_height; oh++) {
    for (int ow = 0; ow < CONFIG::out_width; ow++) {
      KILN_PRAGMA(HLS PIPELINE)
      const bool inside = zero_pad_detail::holds_input(oh, CONFIG::pad_top, CONFIG::stride_height,
                                                       CONFIG::in_height) &&
                          zero_pad_detail::holds_input(ow, CONFIG::pad_left, CONFIG::stride_width,
                                                       CONFIG::in_width);
      res_T out;
      if (inside) {
        const data_T px = data.read();
        for (int c = 0; c < CONFIG::n_chan; c++) {
          KILN_PRAGMA(HLS UNROLL)
          out[c] = px[c];
        }
      } else {
        for (int c = 0; c < CONFIG::n_chan; c++) {
          KILN_PRAGMA(HLS UNROLL)
          out[c] = out_t(0);
        }
      }
      res.write(out);
    }
  }
}

}  // namespace kiln

#endif  // KILN_ZERO_PAD_H_

// kiln layer library: zero padding of a channels-last feature map (1-D maps
// have in_height = 1 and no top/bottom padding). y = x assigned to the output
// type, zeros around it (docs/numerics.md "ZeroPad").
//
// CONFIG: in_height, in_width, n_chan, out_height, out_width, pad_top,
//   pad_bottom, pad_left, pad_right.
#ifndef KILN_ZERO_PAD_H_
#define KILN_ZERO_PAD_H_

#include "kiln_common.h"

namespace kiln {

template <class CONFIG, class data_T, class res_T>
void zero_pad_2d(const data_T data[CONFIG::in_height * CONFIG::in_width * CONFIG::n_chan],
                 res_T res[CONFIG::out_height * CONFIG::out_width * CONFIG::n_chan]) {
  for (int oh = 0; oh < CONFIG::out_height; oh++) {
    for (int ow = 0; ow < CONFIG::out_width; ow++) {
      KILN_PRAGMA(HLS PIPELINE)
      const int ih = oh - CONFIG::pad_top, iw = ow - CONFIG::pad_left;
      const bool inside = ih >= 0 && ih < CONFIG::in_height && iw >= 0 && iw < CONFIG::in_width;
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
      const int ih = oh - CONFIG::pad_top, iw = ow - CONFIG::pad_left;
      const bool inside = ih >= 0 && ih < CONFIG::in_height && iw >= 0 && iw < CONFIG::in_width;
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

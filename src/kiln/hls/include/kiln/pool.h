// kiln layer library: max and average pooling, 1-D and 2-D, with stride and
// padding, and global pooling; io_parallel and io_stream (line buffer).
//
// Arithmetic (docs/numerics.md "Pool"): windows never see padding. Max:
// y = max over the real pixels, assigned to result_t. Average: a = 0 in
// accum_t, a = a + x over the real pixels in (kh, kw) order, y = a * r with
// r = 1 / count in param_t (count = real pixels, or the whole window when
// count_include_pad), one rounding to result_t.
//
// CONFIG: in_height, in_width, n_chan, out_height, out_width, pool_height,
//   pool_width, stride_height, stride_width, pad_top, pad_bottom, pad_left,
//   pad_right, pool_op (kiln::PoolOp), count_include_pad; typedefs accum_t,
//   result_t. A 1-D pool has in_height = pool_height = 1.
#ifndef KILN_POOL_H_
#define KILN_POOL_H_

#include "conv_line_buffer.h"
#include "kiln_common.h"

namespace kiln {

enum class PoolOp { Max, Average };

// Pools one channel of a window whose top-left padded position is
// (top, left); win[kh * pool_width + kw] holds the pixel at (top + kh,
// left + kw), whatever it is when that position is padding.
template <class CONFIG, class T>
typename CONFIG::result_t pool_window(const T win[CONFIG::pool_height * CONFIG::pool_width],
                                      int top, int left) {
  KILN_PRAGMA(HLS INLINE)
  typedef typename CONFIG::result_t result_t;
  T best = T(0);
  bool any = false;
  typename CONFIG::accum_t a = 0;
  int count = 0;
  for (int kh = 0; kh < CONFIG::pool_height; kh++) {
    for (int kw = 0; kw < CONFIG::pool_width; kw++) {
      KILN_PRAGMA(HLS UNROLL)
      const int ph = top + kh, pw = left + kw;
      const bool real = ph >= CONFIG::pad_top && ph < CONFIG::pad_top + CONFIG::in_height &&
                        pw >= CONFIG::pad_left && pw < CONFIG::pad_left + CONFIG::in_width;
      if (!real) continue;
      const T x = win[kh * CONFIG::pool_width + kw];
      if (!any || x > best) best = x;
      any = true;
      a = a + x;
      count++;
    }
  }
  if (CONFIG::pool_op == PoolOp::Max) return result_t(best);
  if (CONFIG::count_include_pad) count = CONFIG::pool_height * CONFIG::pool_width;
  if (count == 0) return result_t(0);
  // A constant when the window never overlaps padding.
  const param_t r = 1.0 / count;
  return result_t(a * r);
}

// io_parallel.
template <class CONFIG, class data_T, class res_T>
void pool_2d(const data_T data[CONFIG::in_height * CONFIG::in_width * CONFIG::n_chan],
             res_T res[CONFIG::out_height * CONFIG::out_width * CONFIG::n_chan]) {
  const int KH = CONFIG::pool_height, KW = CONFIG::pool_width;
  for (int oh = 0; oh < CONFIG::out_height; oh++) {
    for (int ow = 0; ow < CONFIG::out_width; ow++) {
      KILN_PRAGMA(HLS PIPELINE)
      const int top = oh * CONFIG::stride_height, left = ow * CONFIG::stride_width;
      for (int c = 0; c < CONFIG::n_chan; c++) {
        data_T win[KH * KW];
        KILN_PRAGMA(HLS ARRAY_PARTITION variable = win complete)
        for (int kh = 0; kh < KH; kh++) {
          for (int kw = 0; kw < KW; kw++) {
            const int ih = top + kh - CONFIG::pad_top, iw = left + kw - CONFIG::pad_left;
            const bool inside =
                ih >= 0 && ih < CONFIG::in_height && iw >= 0 && iw < CONFIG::in_width;
            win[kh * KW + kw] =
                inside ? data[(ih * CONFIG::in_width + iw) * CONFIG::n_chan + c] : data_T(0);
          }
        }
        res[(oh * CONFIG::out_width + ow) * CONFIG::n_chan + c] =
            pool_window<CONFIG, data_T>(win, top, left);
      }
    }
  }
}

// io_stream: the line buffer of conv_line_buffer.h over the padded image.
template <class CONFIG, class data_T, class res_T>
void pool_2d(stream<data_T>& data, stream<res_T>& res) {
  typedef typename data_T::value_type in_t;
  const int HP = CONFIG::in_height + CONFIG::pad_top + CONFIG::pad_bottom;
  const int WP = CONFIG::in_width + CONFIG::pad_left + CONFIG::pad_right;
  const int KH = CONFIG::pool_height, KW = CONFIG::pool_width, C = CONFIG::n_chan;
  static LineBuffer<in_t, C, KH, KW, WP> lb;
  lb.clear();
  for (int ph = 0; ph < HP; ph++) {
    for (int pw = 0; pw < WP; pw++) {
      KILN_PRAGMA(HLS PIPELINE)
      const data_T px = read_padded_pixel<CONFIG>(data, ph, pw);
      lb.push(px, pw);
      if (window_ends_at<CONFIG, KH, KW>(ph, pw)) {
        const int top = ph - (KH - 1), left = pw - (KW - 1);  // window origin, padded
        res_T out;
        for (int c = 0; c < C; c++) {
          KILN_PRAGMA(HLS UNROLL)
          in_t win[KH * KW];
          for (int kh = 0; kh < KH; kh++) {
            for (int kw = 0; kw < KW; kw++) win[kh * KW + kw] = lb.window[kh][kw][c];
          }
          out[c] = pool_window<CONFIG, in_t>(win, top, left);
        }
        res.write(out);
      }
    }
  }
}

// Global pooling over the whole map (no padding): one running value per
// channel; pixels arrive in (kh, kw) order, as the contract sums them.
template <class CONFIG, class data_T, class res_T>
void global_pool_2d(const data_T data[CONFIG::in_height * CONFIG::in_width * CONFIG::n_chan],
                    res_T res[CONFIG::n_chan]) {
  const int N = CONFIG::in_height * CONFIG::in_width;
  for (int c = 0; c < CONFIG::n_chan; c++) {
    KILN_PRAGMA(HLS PIPELINE)
    data_T best = data[c];
    typename CONFIG::accum_t acc = 0;
    for (int p = 0; p < N; p++) {
      const data_T x = data[p * CONFIG::n_chan + c];
      if (x > best) best = x;
      acc = acc + x;
    }
    if (CONFIG::pool_op == PoolOp::Max) {
      res[c] = best;
    } else {
      const param_t r = 1.0 / N;
      res[c] = acc * r;
    }
  }
}

template <class CONFIG, class data_T, class res_T>
void global_pool_2d(stream<data_T>& data, stream<res_T>& res) {
  typedef typename data_T::value_type in_t;
  const int N = CONFIG::in_height * CONFIG::in_width;
  in_t best[CONFIG::n_chan];
  typename CONFIG::accum_t acc[CONFIG::n_chan];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = best complete)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = acc complete)
  for (int c = 0; c < CONFIG::n_chan; c++) {
    KILN_PRAGMA(HLS UNROLL)
    best[c] = 0;
    acc[c] = 0;
  }
  for (int p = 0; p < N; p++) {
    KILN_PRAGMA(HLS PIPELINE)
    const data_T px = data.read();
    for (int c = 0; c < CONFIG::n_chan; c++) {
      KILN_PRAGMA(HLS UNROLL)
      if (p == 0 || px[c] > best[c]) best[c] = px[c];
      acc[c] = acc[c] + px[c];
    }
  }
  res_T out;
  const param_t r = 1.0 / N;
  for (int c = 0; c < CONFIG::n_chan; c++) {
    KILN_PRAGMA(HLS UNROLL)
    if (CONFIG::pool_op == PoolOp::Max) {
      out[c] = best[c];
    } else {
      out[c] = acc[c] * r;
    }
  }
  res.write(out);
}

}  // namespace kiln

#endif  // KILN_POOL_H_

// kiln layer library: 1-D and 2-D convolution, channels-last, with zero
// padding, stride and groups (1 or depthwise; any groups in fact).
//
// Arithmetic (docs/numerics.md "Conv"): per output pixel and channel co,
// a = bias[co] in accum_t, then over kh, kw, ci ascending a = a + x * w
// (weights [kh][kw][ci][co]); y = act(a) in result_t. Padded positions
// enter the window as exact zeros, which leave a unchanged (a is already in
// accum_t), so they are skipped exactly as the contract asks.
//
// A 1-D convolution is the 2-D one with in_height = filt_height = 1.
//
// CONFIG (besides the dense fields of dense.h with n_in = filt_height *
// filt_width * n_chan / groups, n_out = n_filt):
//   in_height, in_width, n_chan, out_height, out_width, n_filt,
//   filt_height, filt_width, stride_height, stride_width,
//   pad_top, pad_bottom, pad_left, pad_right, groups, implementation.
// Encoded (io_stream) adds stream_depth, n_row_classes, n_col_classes and
//   instruction(index): the compressed instruction table.
#ifndef KILN_CONV_H_
#define KILN_CONV_H_

#include "conv_line_buffer.h"
#include "dense.h"
#include "kiln_common.h"

namespace kiln {

enum class ConvImpl { LineBuffer, Encoded };

// Grouped product on one window (layout [kh][kw][ci] flattened): output co of
// group g sums over channels g * cin_g .. (g + 1) * cin_g - 1.
template <class data_T, class res_T, class CONFIG>
void conv_grouped_product(
    const data_T win[CONFIG::filt_height * CONFIG::filt_width * CONFIG::n_chan],
    res_T res[CONFIG::n_filt],
    const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
    const typename CONFIG::bias_t biases[CONFIG::n_filt]) {
  KILN_PRAGMA(HLS INLINE)
  KILN_PRAGMA(HLS ALLOCATION operation instances = mul limit = CONFIG::multiplier_limit)
  const int npos = CONFIG::filt_height * CONFIG::filt_width;
  const int cin_g = CONFIG::n_chan / CONFIG::groups;
  const int cout_g = CONFIG::n_filt / CONFIG::groups;
  for (int co = 0; co < CONFIG::n_filt; co++) {
    KILN_PRAGMA(HLS UNROLL)
    const int g = co / cout_g;
    typename CONFIG::accum_t a = biases[co];
    for (int p = 0; p < npos; p++) {
      for (int cl = 0; cl < cin_g; cl++) {
        a = a + win[p * CONFIG::n_chan + g * cin_g + cl] *
                    weights[(p * cin_g + cl) * CONFIG::n_filt + co];
      }
    }
    res[co] = fused_activation<CONFIG>(a);
  }
}

template <class data_T, class res_T, class CONFIG>
void conv_window_product(
    const data_T win[CONFIG::filt_height * CONFIG::filt_width * CONFIG::n_chan],
    res_T res[CONFIG::n_filt],
    const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
    const typename CONFIG::bias_t biases[CONFIG::n_filt]) {
  KILN_PRAGMA(HLS INLINE)
  if (CONFIG::groups == 1) {
    dense_kernel<data_T, res_T, CONFIG>(win, res, weights, biases);
  } else {
    conv_grouped_product<data_T, res_T, CONFIG>(win, res, weights, biases);
  }
}

// io_parallel: loops over output pixels, gathering each (zero-padded) window.
template <class CONFIG, class data_T, class res_T>
void conv_2d(const data_T data[CONFIG::in_height * CONFIG::in_width * CONFIG::n_chan],
             res_T res[CONFIG::out_height * CONFIG::out_width * CONFIG::n_filt],
             const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
             const typename CONFIG::bias_t biases[CONFIG::n_filt]) {
  const int win_size = CONFIG::filt_height * CONFIG::filt_width * CONFIG::n_chan;
  for (int oh = 0; oh < CONFIG::out_height; oh++) {
    for (int ow = 0; ow < CONFIG::out_width; ow++) {
      KILN_PRAGMA(HLS PIPELINE II = CONFIG::reuse_factor)
      data_T win[win_size];
      KILN_PRAGMA(HLS ARRAY_PARTITION variable = win complete)
      for (int kh = 0; kh < CONFIG::filt_height; kh++) {
        for (int kw = 0; kw < CONFIG::filt_width; kw++) {
          const int ih = oh * CONFIG::stride_height + kh - CONFIG::pad_top;
          const int iw = ow * CONFIG::stride_width + kw - CONFIG::pad_left;
          const bool inside = ih >= 0 && ih < CONFIG::in_height && iw >= 0 && iw < CONFIG::in_width;
          for (int c = 0; c < CONFIG::n_chan; c++) {
            win[(kh * CONFIG::filt_width + kw) * CONFIG::n_chan + c] =
                inside ? data[(ih * CONFIG::in_width + iw) * CONFIG::n_chan + c] : data_T(0);
          }
        }
      }
      conv_window_product<data_T, res_T, CONFIG>(
          win, res + (oh * CONFIG::out_width + ow) * CONFIG::n_filt, weights, biases);
    }
  }
}

// Computes one output pixel from a gathered window and writes it.
template <class CONFIG, class in_t, class res_T>
void conv_emit_pixel(const in_t win[CONFIG::filt_height * CONFIG::filt_width * CONFIG::n_chan],
                     stream<res_T>& res,
                     const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
                     const typename CONFIG::bias_t biases[CONFIG::n_filt]) {
  KILN_PRAGMA(HLS INLINE)
  typedef typename res_T::value_type out_t;
  out_t y[CONFIG::n_filt];
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = y complete)
  conv_window_product<in_t, out_t, CONFIG>(win, y, weights, biases);
  res_T out;
  for (int co = 0; co < CONFIG::n_filt; co++) {
    KILN_PRAGMA(HLS UNROLL)
    out[co] = y[co];
  }
  res.write(out);
}

// io_stream, line buffer (seed 002 §4.3). Walks the padded image; padding
// pixels are zeros made here, real pixels are read from the stream.
template <class CONFIG, class data_T, class res_T>
void conv_2d_line_buffer(stream<data_T>& data, stream<res_T>& res,
                         const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
                         const typename CONFIG::bias_t biases[CONFIG::n_filt]) {
  typedef typename data_T::value_type in_t;
  const int HP = CONFIG::in_height + CONFIG::pad_top + CONFIG::pad_bottom;
  const int WP = CONFIG::in_width + CONFIG::pad_left + CONFIG::pad_right;
  const int KH = CONFIG::filt_height, KW = CONFIG::filt_width, C = CONFIG::n_chan;
  static LineBuffer<in_t, C, KH, KW, WP> lb;
  lb.clear();
  for (int ph = 0; ph < HP; ph++) {
    for (int pw = 0; pw < WP; pw++) {
      KILN_PRAGMA(HLS PIPELINE II = CONFIG::reuse_factor)
      const data_T px = read_padded_pixel<CONFIG>(data, ph, pw);
      lb.push(px, pw);
      if (window_ends_at<CONFIG, KH, KW>(ph, pw)) {
        in_t win[KH * KW * C];
        KILN_PRAGMA(HLS ARRAY_PARTITION variable = win complete)
        for (int kh = 0; kh < KH; kh++) {
          for (int kw = 0; kw < KW; kw++) {
            for (int c = 0; c < C; c++) win[(kh * KW + kw) * C + c] = lb.window[kh][kw][c];
          }
        }
        conv_emit_pixel<CONFIG, in_t, res_T>(win, res, weights, biases);
      }
    }
  }
}

// Encoded convolution's compressed coordinates (seed 002 §4.4, Figure 14):
// rows above the first full window row keep their own class, rows inside
// repeat with the stride, rows below the last window row keep their own. The
// same for columns. kiln evaluates the instruction of each class when it
// writes the project (CONFIG::instruction).
template <int K, int S, int OUT>
inline int encoded_class(int p) {
  const int top = K - 1;           // first padded index that ends a window
  const int last = (OUT - 1) * S;  // last padded index that starts a window
  if (p < top) return p;
  if (p <= last) return top + (p - top) % S;
  return top + S + (p - last - 1);
}

// io_stream, encoded (seed 002 §4.4): one FIFO per window position (kh, kw);
// each pixel's K*K-bit instruction (bit kh * KW + kw) says which FIFOs it
// feeds. When the last position's bit is set a window is complete: one element
// is popped from every FIFO and the product computed.
template <class CONFIG, class data_T, class res_T>
void conv_2d_encoded(stream<data_T>& data, stream<res_T>& res,
                     const typename CONFIG::weight_t weights[CONFIG::n_in * CONFIG::n_out],
                     const typename CONFIG::bias_t biases[CONFIG::n_filt]) {
  typedef typename data_T::value_type in_t;
  const int HP = CONFIG::in_height + CONFIG::pad_top + CONFIG::pad_bottom;
  const int WP = CONFIG::in_width + CONFIG::pad_left + CONFIG::pad_right;
  const int KH = CONFIG::filt_height, KW = CONFIG::filt_width, C = CONFIG::n_chan;
  const int NPOS = KH * KW;
  stream<data_T> buffers[NPOS];
  KILN_PRAGMA(HLS STREAM variable = buffers depth = CONFIG::stream_depth)
  for (int ph = 0; ph < HP; ph++) {
    for (int pw = 0; pw < WP; pw++) {
      KILN_PRAGMA(HLS PIPELINE II = CONFIG::reuse_factor)
      const data_T px = read_padded_pixel<CONFIG>(data, ph, pw);
      const int rc = encoded_class<KH, CONFIG::stride_height, CONFIG::out_height>(ph);
      const int cc = encoded_class<KW, CONFIG::stride_width, CONFIG::out_width>(pw);
      const unsigned long long instr = CONFIG::instruction(rc * CONFIG::n_col_classes + cc);
      for (int p = 0; p < NPOS; p++) {
        KILN_PRAGMA(HLS UNROLL)
        if ((instr >> p) & 1ULL) buffers[p].write(px);
      }
      if ((instr >> (NPOS - 1)) & 1ULL) {
        in_t win[NPOS * C];
        KILN_PRAGMA(HLS ARRAY_PARTITION variable = win complete)
        for (int p = 0; p < NPOS; p++) {
          KILN_PRAGMA(HLS UNROLL)
          const data_T e = buffers[p].read();
          for (int c = 0; c < C; c++) win[p * C + c] = e[c];
        }
        conv_emit_pixel<CONFIG, in_t, res_T>(win, res, weights, biases);
      }
    }
  }
}

}  // namespace kiln

#endif  // KILN_CONV_H_

// kiln layer library: resize of the spatial axes of a channels-last map
// (ONNX Resize / Upsample, nearest or linear). Shipped into each project.
//
// Output row o reads input rows CONFIG::row(o * taps + t), t < taps (1 for
// nearest, 2 for linear), and output column o reads columns
// CONFIG::col(o * taps + t). Nearest copies the value (assigned to the output
// type). Linear (docs/numerics.md "Resize") weighs the two rows by
// w[o * 2 + t] into accum_t at each of the two columns, then those two by
// w[2 * out_h + o * 2 + t] into the output type. CONFIG carries in_h, in_w,
// channels, out_h, out_w, taps, row(), col(), weight_t and accum_t (linear).
// io_stream keeps the last two input rows it read: kiln's lowering checks
// that each output row reads only those (rows never go back). C++14.
#ifndef KILN_RESIZE_H_
#define KILN_RESIZE_H_

#include "kiln_common.h"

namespace kiln {
namespace resize_detail {

// Linear: the value at output (orow, ocol) from `get(row, col)`.
template <class CONFIG, class res_T, class GET>
res_T linear(const typename CONFIG::weight_t w[], unsigned orow, unsigned ocol, const GET& get) {
  KILN_PRAGMA(HLS INLINE)
  typename CONFIG::accum_t v[2];
  for (unsigned t = 0; t < 2; t++) {
    KILN_PRAGMA(HLS UNROLL)
    const unsigned x = CONFIG::col(ocol * 2 + t);
    v[t] = w[orow * 2] * get(CONFIG::row(orow * 2), x) +
           w[orow * 2 + 1] * get(CONFIG::row(orow * 2 + 1), x);
  }
  res_T y = w[2 * CONFIG::out_h + ocol * 2] * v[0] + w[2 * CONFIG::out_h + ocol * 2 + 1] * v[1];
  return y;
}

// Reads of an io_parallel input array at one channel.
template <class CONFIG, class data_T>
struct array_reader {
  const data_T* in;
  unsigned c;
  data_T operator()(unsigned row, unsigned col) const {
    return in[(row * CONFIG::in_w + col) * CONFIG::channels + c];
  }
};

// Reads of the io_stream row buffer at one channel.
template <class CONFIG, class value_T>
struct buffer_reader {
  const value_T (*buf)[CONFIG::in_w][CONFIG::channels];
  unsigned c;
  value_T operator()(unsigned row, unsigned col) const { return buf[row % 2][col][c]; }
};

// Reads input rows into the two-row buffer until row `need` is in it.
template <class CONFIG, class data_T>
void read_rows(stream<data_T>& in,
               typename data_T::value_type buf[2][CONFIG::in_w][CONFIG::channels], int& last,
               int need) {
  while (last < need) {
    last++;
    for (unsigned x = 0; x < CONFIG::in_w; x++) {
      KILN_PRAGMA(HLS PIPELINE II = 1)
      const data_T p = in.read();
      for (unsigned c = 0; c < CONFIG::channels; c++) {
        KILN_PRAGMA(HLS UNROLL)
        buf[last % 2][x][c] = p[c];
      }
    }
  }
}

template <class CONFIG, bool LINEAR, class data_T, class res_T>
void resize_array(const data_T in[], const typename CONFIG::weight_t w[], res_T out[]) {
  KILN_PRAGMA(HLS PIPELINE)
  unsigned i = 0;
  for (unsigned oy = 0; oy < CONFIG::out_h; oy++) {
    for (unsigned ox = 0; ox < CONFIG::out_w; ox++) {
      for (unsigned c = 0; c < CONFIG::channels; c++) {
        KILN_PRAGMA(HLS UNROLL)
        array_reader<CONFIG, data_T> get = {in, c};
        if (LINEAR) {
          out[i++] = linear<CONFIG, res_T>(w, oy, ox, get);
        } else {
          out[i++] = get(CONFIG::row(oy), CONFIG::col(ox));
        }
      }
    }
  }
}

template <class CONFIG, bool LINEAR, class data_T, class res_T>
void resize_stream(stream<data_T>& in, const typename CONFIG::weight_t w[], stream<res_T>& out) {
  typedef typename data_T::value_type value_T;
  value_T buf[2][CONFIG::in_w][CONFIG::channels];
  int last = -1;  // the last input row read
  for (unsigned oy = 0; oy < CONFIG::out_h; oy++) {
    int need = 0;
    for (unsigned t = 0; t < CONFIG::taps; t++) {
      const int r = static_cast<int>(CONFIG::row(oy * CONFIG::taps + t));
      need = r > need ? r : need;
    }
    read_rows<CONFIG>(in, buf, last, need);
    for (unsigned ox = 0; ox < CONFIG::out_w; ox++) {
      KILN_PRAGMA(HLS PIPELINE II = 1)
      res_T y;
      for (unsigned c = 0; c < CONFIG::channels; c++) {
        KILN_PRAGMA(HLS UNROLL)
        buffer_reader<CONFIG, value_T> get = {buf, c};
        if (LINEAR) {
          y[c] = linear<CONFIG, typename res_T::value_type>(w, oy, ox, get);
        } else {
          y[c] = get(CONFIG::row(oy), CONFIG::col(ox));
        }
      }
      out.write(y);
    }
  }
  read_rows<CONFIG>(in, buf, last, static_cast<int>(CONFIG::in_h) - 1);  // rows no output reads
}

}  // namespace resize_detail

template <class CONFIG, class data_T, class res_T>
void resize_nearest(const data_T in[], res_T out[]) {
  resize_detail::resize_array<CONFIG, false>(in, static_cast<const typename CONFIG::weight_t*>(0),
                                             out);
}

template <class CONFIG, class data_T, class res_T>
void resize_linear(const data_T in[], const typename CONFIG::weight_t w[], res_T out[]) {
  resize_detail::resize_array<CONFIG, true>(in, w, out);
}

template <class CONFIG, class data_T, class res_T>
void resize_nearest(stream<data_T>& in, stream<res_T>& out) {
  resize_detail::resize_stream<CONFIG, false>(in, static_cast<const typename CONFIG::weight_t*>(0),
                                              out);
}

template <class CONFIG, class data_T, class res_T>
void resize_linear(stream<data_T>& in, const typename CONFIG::weight_t w[], stream<res_T>& out) {
  resize_detail::resize_stream<CONFIG, true>(in, w, out);
}

}  // namespace kiln

#endif  // KILN_RESIZE_H_

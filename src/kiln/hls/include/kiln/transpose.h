// kiln layer library: transpose (a permutation of the axes). Shipped into
// each project.
//
// The output, seen as up to 4 axes d0..d3 (leading ones 1), takes element
// (o0, o1, o2, o3) from input position o0*s0 + o1*s1 + o2*s2 + o3*s3: s_a is
// the input stride of the axis that output axis a came from. Values are
// assigned to the output type. CONFIG carries n, d0..d3, s0..s3.
// io_stream buffers the whole input tensor, then writes the output in order.
// C++14.
#ifndef KILN_TRANSPOSE_H_
#define KILN_TRANSPOSE_H_

#include "kiln_common.h"

namespace kiln {
namespace transpose_detail {

// Visits the output positions in order; `get(src)` is the input value.
template <class CONFIG, class SRC, class SINK>
void permute(const SRC& src, SINK& sink) {
  KILN_PRAGMA(HLS INLINE)
  unsigned i = 0;
  for (unsigned a = 0; a < CONFIG::d0; a++) {
    for (unsigned b = 0; b < CONFIG::d1; b++) {
      for (unsigned c = 0; c < CONFIG::d2; c++) {
        for (unsigned d = 0; d < CONFIG::d3; d++) {
          KILN_PRAGMA(HLS PIPELINE II = 1)
          sink.put(i, src[a * CONFIG::s0 + b * CONFIG::s1 + c * CONFIG::s2 + d * CONFIG::s3]);
          i++;
        }
      }
    }
  }
}

template <class res_T>
struct array_sink {
  res_T* out;
  template <class T>
  void put(unsigned i, const T& v) {
    out[i] = v;
  }
};

// Packs output values into stream elements of res_T::size.
template <class res_T>
struct stream_sink {
  stream<res_T>* out;
  res_T y;
  template <class T>
  void put(unsigned i, const T& v) {
    const unsigned c = i % res_T::size;
    y[c] = v;
    if (c + 1 == res_T::size) out->write(y);
  }
};

}  // namespace transpose_detail

template <class CONFIG, class data_T, class res_T>
void transpose(const data_T in[CONFIG::n], res_T out[CONFIG::n]) {
  transpose_detail::array_sink<res_T> sink = {out};
  transpose_detail::permute<CONFIG>(in, sink);
}

template <class CONFIG, class data_T, class res_T>
void transpose(stream<data_T>& in, stream<res_T>& out) {
  typename data_T::value_type buf[CONFIG::n];
  for (unsigned p = 0; p < CONFIG::n / data_T::size; p++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const data_T x = in.read();
    for (unsigned c = 0; c < data_T::size; c++) {
      KILN_PRAGMA(HLS UNROLL)
      buf[p * data_T::size + c] = x[c];
    }
  }
  transpose_detail::stream_sink<res_T> sink;
  sink.out = &out;
  transpose_detail::permute<CONFIG>(buf, sink);
}

}  // namespace kiln

#endif  // KILN_TRANSPOSE_H_

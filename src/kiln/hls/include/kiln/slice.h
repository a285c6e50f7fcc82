// kiln layer library: slice (ONNX Slice with constant bounds, each output of
// a Split). Shipped into each project.
//
// The input, seen as up to 4 axes d0..d3 (leading ones 1, d3 the channels),
// gives output element (o0, o1, o2, o3) from input position
// (b0 + o0*s0, ..., b3 + o3*s3); the output has o0..o3 positions per axis.
// Values are assigned to the output type. CONFIG carries d1..d3, b0..b3,
// s0..s3 (all > 0) and o0..o3. io_stream reads every input pixel (d3
// channels) once and writes the kept ones, each with its kept channels. C++14.
#ifndef KILN_SLICE_H_
#define KILN_SLICE_H_

#include "kiln_common.h"

namespace kiln {
namespace slice_detail {

// Whether input coordinate x along an axis is kept: b <= x < b + o*s on the
// step grid.
inline bool kept(unsigned x, unsigned b, unsigned s, unsigned o) {
  return x >= b && (x - b) % s == 0 && (x - b) / s < o;
}

}  // namespace slice_detail

template <class CONFIG, class data_T, class res_T>
void slice(const data_T in[], res_T out[]) {
  KILN_PRAGMA(HLS PIPELINE)
  unsigned i = 0;
  for (unsigned a = 0; a < CONFIG::o0; a++) {
    for (unsigned b = 0; b < CONFIG::o1; b++) {
      for (unsigned c = 0; c < CONFIG::o2; c++) {
        for (unsigned d = 0; d < CONFIG::o3; d++) {
          KILN_PRAGMA(HLS UNROLL)
          const unsigned src =
              ((((CONFIG::b0 + a * CONFIG::s0) * CONFIG::d1 + CONFIG::b1 + b * CONFIG::s1) *
                    CONFIG::d2 +
                CONFIG::b2 + c * CONFIG::s2) *
                   CONFIG::d3 +
               CONFIG::b3 + d * CONFIG::s3);
          out[i++] = in[src];
        }
      }
    }
  }
}

template <class CONFIG, class data_T, class res_T>
void slice(stream<data_T>& in, stream<res_T>& out) {
  for (unsigned a = 0; a < CONFIG::d0; a++) {
    for (unsigned b = 0; b < CONFIG::d1; b++) {
      for (unsigned c = 0; c < CONFIG::d2; c++) {
        KILN_PRAGMA(HLS PIPELINE II = 1)
        const data_T x = in.read();
        if (slice_detail::kept(a, CONFIG::b0, CONFIG::s0, CONFIG::o0) &&
            slice_detail::kept(b, CONFIG::b1, CONFIG::s1, CONFIG::o1) &&
            slice_detail::kept(c, CONFIG::b2, CONFIG::s2, CONFIG::o2)) {
          res_T y;
          for (unsigned d = 0; d < CONFIG::o3; d++) {
            KILN_PRAGMA(HLS UNROLL)
            y[d] = x[CONFIG::b3 + d * CONFIG::s3];
          }
          out.write(y);
        }
      }
    }
  }
}

}  // namespace kiln

#endif  // KILN_SLICE_H_

// kiln layer library: reshape / flatten, a change of shape that keeps the
// row-major (channels-last) order of the values. Shipped into each project.
//
// Values are assigned to the output type (docs/numerics.md "Reshape").
// CONFIG carries n (elements). io_parallel copies the array; io_stream repacks
// the elements when the last axis changes, e.g. H*W pixels of C channels into
// one element of H*W*C (flatten) or the reverse. C++14.
#ifndef KILN_RESHAPE_H_
#define KILN_RESHAPE_H_

#include "kiln_common.h"

namespace kiln {

template <class CONFIG, class data_T, class res_T>
void reshape(const data_T in[CONFIG::n], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  for (unsigned i = 0; i < CONFIG::n; i++) {
    KILN_PRAGMA(HLS UNROLL)
    out[i] = in[i];
  }
}

// Value i of the tensor is channel i % width of element i / width on both
// sides; read an input element when its first value is needed and write an
// output element once its last value is set.
template <class CONFIG, class data_T, class res_T>
void reshape(stream<data_T>& in, stream<res_T>& out) {
  data_T x;
  res_T y;
  unsigned ci = 0, co = 0;
  for (unsigned i = 0; i < CONFIG::n; i++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    if (ci == 0) x = in.read();
    y[co] = x[ci];
    ci = ci + 1 == data_T::size ? 0 : ci + 1;
    if (co + 1 == res_T::size) {
      out.write(y);
      co = 0;
    } else {
      co++;
    }
  }
}

}  // namespace kiln

#endif  // KILN_RESHAPE_H_

// kiln layer library: stream plumbing for io_stream projects. Shipped into each
// project. C++14.
//
// clone: a stream read by several layers is copied once per reader (a stream
//   element can be read only once).
// array_to_stream / stream_to_array: the testbench's conversion between the
//   flat channels-last arrays it reads and writes and the top function's
//   streams of pixels.
#ifndef KILN_STREAM_UTILS_H_
#define KILN_STREAM_UTILS_H_

#include "kiln_common.h"

namespace kiln {

// Copies N elements of `in` to both outputs.
template <int N, class T, unsigned C>
void clone(stream<array<T, C> >& in, stream<array<T, C> >& out0, stream<array<T, C> >& out1) {
  for (int i = 0; i < N; ++i) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const array<T, C> v = in.read();
    out0.write(v);
    out1.write(v);
  }
}

// Copies N elements of `in` to three outputs.
template <int N, class T, unsigned C>
void clone(stream<array<T, C> >& in, stream<array<T, C> >& out0, stream<array<T, C> >& out1,
           stream<array<T, C> >& out2) {
  for (int i = 0; i < N; ++i) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const array<T, C> v = in.read();
    out0.write(v);
    out1.write(v);
    out2.write(v);
  }
}

// Writes data[0 .. n*C) to `out` as n elements of C channels.
template <class T, unsigned C>
void array_to_stream(const T* data, int n, stream<array<T, C> >& out) {
  for (int i = 0; i < n; ++i) {
    array<T, C> v;
    for (unsigned c = 0; c < C; ++c) v[c] = data[i * static_cast<int>(C) + static_cast<int>(c)];
    out.write(v);
  }
}

// Reads n elements of C channels from `in` into data[0 .. n*C).
template <class T, unsigned C>
void stream_to_array(stream<array<T, C> >& in, T* data, int n) {
  for (int i = 0; i < n; ++i) {
    const array<T, C> v = in.read();
    for (unsigned c = 0; c < C; ++c) data[i * static_cast<int>(C) + static_cast<int>(c)] = v[c];
  }
}

}  // namespace kiln

#endif  // KILN_STREAM_UTILS_H_

// kiln layer library: layers that merge tensors. Shipped into each project.
//
// Add / Sub / Mul / ReverseSub (docs/numerics.md "Binary"): y = a op b
// (ReverseSub: b - a), exact, assigned once to the result type. CONFIG
// carries n (output elements), channels (the output's last axis, the
// io_stream element width) and broadcast: how b maps onto the output, which
// `a` has the shape of. None: b has it too. PerChannel: b is one value per
// channel (C values; in io_stream one element, read before the map, so the
// map's FIFO must hold the whole map, docs/hls-layers.md). PerPixel: b is one
// value per pixel (n / channels values; in io_stream one 1-wide element per
// pixel, read alongside the map).
//
// Concat of 2, 3 or 4 inputs along one axis of the channels-last shape. The
// output is `outer` blocks; block o holds block o of input 0 (in0_inner
// values), then of input 1, ... CONFIG carries outer, in0_inner .. in3_inner
// (unused ones 0) and last_axis. In io_stream every element is one pixel:
// along the last axis the inputs' pixels are packed into one output pixel;
// along another axis (all widths equal) whole pixels pass through in output
// order, in0_inner / width of them from each input per block. Values are
// assigned to the output type (docs/numerics.md "Concat"). C++14.
#ifndef KILN_MERGE_H_
#define KILN_MERGE_H_

#include "kiln_common.h"

namespace kiln {

enum class Broadcast { None, PerChannel, PerPixel };

namespace merge_detail {

struct Add {
  template <class A, class B, class R>
  static void apply(const A& a, const B& b, R& y) {
    y = a + b;
  }
};
struct Sub {
  template <class A, class B, class R>
  static void apply(const A& a, const B& b, R& y) {
    y = a - b;
  }
};
struct Mul {
  template <class A, class B, class R>
  static void apply(const A& a, const B& b, R& y) {
    y = a * b;
  }
};
struct ReverseSub {
  template <class A, class B, class R>
  static void apply(const A& a, const B& b, R& y) {
    y = b - a;
  }
};

template <Broadcast B>
struct broadcast_tag {};

// io_parallel: the element of b that output i reads.
template <class CONFIG>
unsigned b_index(unsigned i, broadcast_tag<Broadcast::None>) {
  return i;
}
template <class CONFIG>
unsigned b_index(unsigned i, broadcast_tag<Broadcast::PerChannel>) {
  return i % CONFIG::channels;
}
template <class CONFIG>
unsigned b_index(unsigned i, broadcast_tag<Broadcast::PerPixel>) {
  return i / CONFIG::channels;
}

template <class CONFIG, class OP, class in0_T, class in1_T, class res_T>
void binary_array(const in0_T a[], const in1_T b[], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  for (unsigned i = 0; i < CONFIG::n; i++) {
    KILN_PRAGMA(HLS UNROLL)
    OP::apply(a[i], b[b_index<CONFIG>(i, broadcast_tag<CONFIG::broadcast>())], out[i]);
  }
}

// io_stream: one pixel of `a` per cycle; `b` read with it (None, PerPixel)
// or once before the map (PerChannel).
template <class CONFIG, class OP, class in0_T, class in1_T, class res_T>
void binary_stream(stream<in0_T>& a, stream<in1_T>& b, stream<res_T>& out,
                   broadcast_tag<Broadcast::PerChannel>) {
  const in1_T gate = b.read();
  for (unsigned p = 0; p < CONFIG::n / CONFIG::channels; p++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const in0_T x = a.read();
    res_T y;
    for (unsigned c = 0; c < res_T::size; c++) {
      KILN_PRAGMA(HLS UNROLL)
      OP::apply(x[c], gate[c], y[c]);
    }
    out.write(y);
  }
}

template <class CONFIG, class OP, class in0_T, class in1_T, class res_T, Broadcast B>
void binary_stream(stream<in0_T>& a, stream<in1_T>& b, stream<res_T>& out, broadcast_tag<B>) {
  for (unsigned p = 0; p < CONFIG::n / CONFIG::channels; p++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const in0_T x = a.read();
    const in1_T z = b.read();
    res_T y;
    for (unsigned c = 0; c < res_T::size; c++) {
      KILN_PRAGMA(HLS UNROLL)
      // PerPixel: b's element is one value for every channel.
      OP::apply(x[c], z[B == Broadcast::PerPixel ? 0 : c], y[c]);
    }
    out.write(y);
  }
}

template <bool B>
struct bool_tag {};

// io_parallel: copies input block o (INNER values) to output block o at OFFSET.
template <class CONFIG, unsigned INNER, unsigned OFFSET, class data_T, class res_T>
void concat_array_part(const data_T in[], res_T out[]) {
  KILN_PRAGMA(HLS INLINE)
  const unsigned out_inner =
      CONFIG::in0_inner + CONFIG::in1_inner + CONFIG::in2_inner + CONFIG::in3_inner;
  for (unsigned o = 0; o < CONFIG::outer; o++) {
    KILN_PRAGMA(HLS UNROLL)
    for (unsigned j = 0; j < INNER; j++) {
      KILN_PRAGMA(HLS UNROLL)
      out[o * out_inner + OFFSET + j] = in[o * INNER + j];
    }
  }
}

// io_stream, last axis: one pixel of an input into its place in the output pixel.
template <unsigned OFFSET, class data_T, class res_T>
void pack_pixel(stream<data_T>& in, res_T& y) {
  KILN_PRAGMA(HLS INLINE)
  const data_T x = in.read();
  for (unsigned c = 0; c < data_T::size; c++) {
    KILN_PRAGMA(HLS UNROLL)
    y[OFFSET + c] = x[c];
  }
}

// io_stream, other axes: the COUNT pixels an input contributes to one block.
template <unsigned COUNT, class data_T, class res_T>
void pass_pixels(stream<data_T>& in, stream<res_T>& out) {
  KILN_PRAGMA(HLS INLINE)
  for (unsigned p = 0; p < COUNT; p++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const data_T x = in.read();
    res_T y;
    for (unsigned c = 0; c < res_T::size; c++) {
      KILN_PRAGMA(HLS UNROLL)
      y[c] = x[c];
    }
    out.write(y);
  }
}

// An input that is not there (concat of fewer than four inputs).
struct none {
  static const unsigned size = 0;
};
template <unsigned OFFSET, class res_T>
void pack_pixel(stream<none>&, res_T&) {}
template <unsigned COUNT, class res_T>
void pass_pixels(stream<none>&, stream<res_T>&) {}

template <class CONFIG, class in0_T, class in1_T, class in2_T, class in3_T, class res_T>
void concat_stream(stream<in0_T>& in0, stream<in1_T>& in1, stream<in2_T>& in2, stream<in3_T>& in3,
                   stream<res_T>& out, bool_tag<true>) {
  for (unsigned o = 0; o < CONFIG::outer; o++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    res_T y;
    pack_pixel<0>(in0, y);
    pack_pixel<CONFIG::in0_inner>(in1, y);
    pack_pixel<CONFIG::in0_inner + CONFIG::in1_inner>(in2, y);
    pack_pixel<CONFIG::in0_inner + CONFIG::in1_inner + CONFIG::in2_inner>(in3, y);
    out.write(y);
  }
}

template <class CONFIG, class in0_T, class in1_T, class in2_T, class in3_T, class res_T>
void concat_stream(stream<in0_T>& in0, stream<in1_T>& in1, stream<in2_T>& in2, stream<in3_T>& in3,
                   stream<res_T>& out, bool_tag<false>) {
  for (unsigned o = 0; o < CONFIG::outer; o++) {
    pass_pixels<CONFIG::in0_inner / res_T::size>(in0, out);
    pass_pixels<CONFIG::in1_inner / res_T::size>(in1, out);
    pass_pixels<CONFIG::in2_inner / res_T::size>(in2, out);
    pass_pixels<CONFIG::in3_inner / res_T::size>(in3, out);
  }
}

}  // namespace merge_detail

// ---- Add / Sub / Mul / ReverseSub -------------------------------------------

#define KILN_BINARY_LAYER(name, OP)                                            \
  template <class CONFIG, class in0_T, class in1_T, class res_T>               \
  void name(const in0_T a[CONFIG::n], const in1_T b[], res_T out[CONFIG::n]) { \
    merge_detail::binary_array<CONFIG, merge_detail::OP>(a, b, out);           \
  }                                                                            \
  template <class CONFIG, class in0_T, class in1_T, class res_T>               \
  void name(stream<in0_T>& a, stream<in1_T>& b, stream<res_T>& out) {          \
    merge_detail::binary_stream<CONFIG, merge_detail::OP>(                     \
        a, b, out, merge_detail::broadcast_tag<CONFIG::broadcast>());          \
  }
KILN_BINARY_LAYER(add, Add)
KILN_BINARY_LAYER(sub, Sub)
KILN_BINARY_LAYER(mul, Mul)
KILN_BINARY_LAYER(reverse_sub, ReverseSub)
#undef KILN_BINARY_LAYER

// ---- Concat ---------------------------------------------------------------

template <class CONFIG, class in0_T, class in1_T, class res_T>
void concat(const in0_T in0[], const in1_T in1[], res_T out[]) {
  KILN_PRAGMA(HLS PIPELINE)
  merge_detail::concat_array_part<CONFIG, CONFIG::in0_inner, 0>(in0, out);
  merge_detail::concat_array_part<CONFIG, CONFIG::in1_inner, CONFIG::in0_inner>(in1, out);
}

template <class CONFIG, class in0_T, class in1_T, class in2_T, class res_T>
void concat(const in0_T in0[], const in1_T in1[], const in2_T in2[], res_T out[]) {
  KILN_PRAGMA(HLS PIPELINE)
  merge_detail::concat_array_part<CONFIG, CONFIG::in0_inner, 0>(in0, out);
  merge_detail::concat_array_part<CONFIG, CONFIG::in1_inner, CONFIG::in0_inner>(in1, out);
  merge_detail::concat_array_part<CONFIG, CONFIG::in2_inner, CONFIG::in0_inner + CONFIG::in1_inner>(
      in2, out);
}

template <class CONFIG, class in0_T, class in1_T, class in2_T, class in3_T, class res_T>
void concat(const in0_T in0[], const in1_T in1[], const in2_T in2[], const in3_T in3[],
            res_T out[]) {
  KILN_PRAGMA(HLS PIPELINE)
  merge_detail::concat_array_part<CONFIG, CONFIG::in0_inner, 0>(in0, out);
  merge_detail::concat_array_part<CONFIG, CONFIG::in1_inner, CONFIG::in0_inner>(in1, out);
  merge_detail::concat_array_part<CONFIG, CONFIG::in2_inner, CONFIG::in0_inner + CONFIG::in1_inner>(
      in2, out);
  merge_detail::concat_array_part<CONFIG, CONFIG::in3_inner,
                                  CONFIG::in0_inner + CONFIG::in1_inner + CONFIG::in2_inner>(in3,
                                                                                             out);
}

template <class CONFIG, class in0_T, class in1_T, class res_T>
void concat(stream<in0_T>& in0, stream<in1_T>& in1, stream<res_T>& out) {
  stream<merge_detail::none> none2, none3;
  merge_detail::concat_stream<CONFIG>(in0, in1, none2, none3, out,
                                      merge_detail::bool_tag<CONFIG::last_axis>());
}

template <class CONFIG, class in0_T, class in1_T, class in2_T, class res_T>
void concat(stream<in0_T>& in0, stream<in1_T>& in1, stream<in2_T>& in2, stream<res_T>& out) {
  stream<merge_detail::none> none3;
  merge_detail::concat_stream<CONFIG>(in0, in1, in2, none3, out,
                                      merge_detail::bool_tag<CONFIG::last_axis>());
}

template <class CONFIG, class in0_T, class in1_T, class in2_T, class in3_T, class res_T>
void concat(stream<in0_T>& in0, stream<in1_T>& in1, stream<in2_T>& in2, stream<in3_T>& in3,
            stream<res_T>& out) {
  merge_detail::concat_stream<CONFIG>(in0, in1, in2, in3, out,
                                      merge_detail::bool_tag<CONFIG::last_axis>());
}

}  // namespace kiln

#endif  // KILN_MERGE_H_

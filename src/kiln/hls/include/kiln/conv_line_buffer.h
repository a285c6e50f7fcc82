// kiln layer library: the line buffer of streaming convolution and pooling
// (seed 002 §4.3).
//
// Pixels arrive one per call in raster order over the padded image
// (width WP). KH - 1 row buffers of depth WP hold the rows above the current
// one; together with the new pixel they form the column that is shifted into a
// KH x KW window ("shift line buffer" + "kernel shift" in one step). The row
// buffers are the seed's chain of shift registers addressed by column: entry
// rows[r][pw] holds the pixel of padded row (ph - (KH - 1) + r) at column pw
// until it is popped into rows[r - 1]. Memory: (KH - 1) * WP pixels of C
// channels plus KH * KW in the window.
#ifndef KILN_CONV_LINE_BUFFER_H_
#define KILN_CONV_LINE_BUFFER_H_

#include "kiln_common.h"

namespace kiln {

// The pixel at padded position (ph, pw) of a stream walked in padded raster
// order: read from the stream inside the image, zeros in the padding.
template <class CONFIG, class data_T>
inline data_T read_padded_pixel(stream<data_T>& data, int ph, int pw) {
  KILN_PRAGMA(HLS INLINE)
  const bool inside = ph >= CONFIG::pad_top && ph < CONFIG::pad_top + CONFIG::in_height &&
                      pw >= CONFIG::pad_left && pw < CONFIG::pad_left + CONFIG::in_width;
  data_T px;
  if (inside) {
    px = data.read();
  } else {
    for (unsigned c = 0; c < data_T::size; c++) px[c] = typename data_T::value_type(0);
  }
  return px;
}

// True when padded pixel (ph, pw) is the bottom-right corner of a KH x KW
// window that the stride selects for an output pixel.
template <class CONFIG, int KH, int KW>
inline bool window_ends_at(int ph, int pw) {
  KILN_PRAGMA(HLS INLINE)
  const int top = ph - (KH - 1), left = pw - (KW - 1);
  return top >= 0 && left >= 0 && top % CONFIG::stride_height == 0 &&
         left % CONFIG::stride_width == 0 && top / CONFIG::stride_height < CONFIG::out_height &&
         left / CONFIG::stride_width < CONFIG::out_width;
}

template <class T, int C, int KH, int KW, int WP>
struct LineBuffer {
  // One row buffer even when KH == 1, so the array is never empty.
  T rows[KH > 1 ? KH - 1 : 1][WP][C];
  T window[KH][KW][C];

  void clear() {
    KILN_PRAGMA(HLS INLINE)
    for (int r = 0; r < (KH > 1 ? KH - 1 : 1); r++) {
      for (int w = 0; w < WP; w++) {
        for (int c = 0; c < C; c++) rows[r][w][c] = T(0);
      }
    }
    for (int r = 0; r < KH; r++) {
      for (int k = 0; k < KW; k++) {
        for (int c = 0; c < C; c++) window[r][k][c] = T(0);
      }
    }
  }

  // Shifts in the pixel at padded column pw; afterwards window[kh][kw] holds
  // padded pixel (ph - KH + 1 + kh, pw - KW + 1 + kw).
  template <class P>
  void push(const P& px, int pw) {
    KILN_PRAGMA(HLS INLINE)
    KILN_PRAGMA(HLS ARRAY_PARTITION variable = window complete dim = 0)
    KILN_PRAGMA(HLS ARRAY_PARTITION variable = rows complete dim = 1)
    KILN_PRAGMA(HLS ARRAY_PARTITION variable = rows complete dim = 3)
    T col[KH][C];
    KILN_PRAGMA(HLS ARRAY_PARTITION variable = col complete dim = 0)
    for (int c = 0; c < C; c++) {
      KILN_PRAGMA(HLS UNROLL)
      col[KH - 1][c] = px[c];
      for (int r = 0; r < KH - 1; r++) col[r][c] = rows[r][pw][c];
      // Each row buffer passes its popped pixel up the chain.
      for (int r = 0; r < KH - 1; r++) rows[r][pw][c] = col[r + 1][c];
    }
    for (int r = 0; r < KH; r++) {
      KILN_PRAGMA(HLS UNROLL)
      for (int c = 0; c < C; c++) {
        for (int k = 0; k < KW - 1; k++) window[r][k][c] = window[r][k + 1][c];
        window[r][KW - 1][c] = col[r][c];
      }
    }
  }
};

}  // namespace kiln

#endif  // KILN_CONV_LINE_BUFFER_H_

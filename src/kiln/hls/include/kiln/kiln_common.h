// kiln layer library: what every layer header needs. Shipped into each project.
//
// Under Vitis HLS (KILN_VITIS, implied by __SYNTHESIS__) the library computes
// with the vendor's ap_fixed and hls::stream; everywhere else with kiln's own
// kiln_fixed.h and a std::deque stream, so C simulation needs no vendor file.
// The arithmetic is specified in kiln's docs/numerics.md. C++14.
#ifndef KILN_COMMON_H_
#define KILN_COMMON_H_

#if defined(__SYNTHESIS__) && !defined(KILN_VITIS)
#define KILN_VITIS
#endif

#ifdef KILN_VITIS
#include <ap_fixed.h>
#include <ap_int.h>
#include <hls_stream.h>
#else
#include <cstddef>
#include <deque>

#include "kiln_fixed.h"
#endif

// Pragmas are spelled once here so library code reads the same under both
// compilers (g++ ignores unknown pragmas only with -Wno-unknown-pragmas, and
// the projects build with -Wall -Wextra).
#ifdef KILN_VITIS
#define KILN_PRAGMA(x) _Pragma(#x)
#else
#define KILN_PRAGMA(x)
#endif

namespace kiln {

#ifdef KILN_VITIS
template <class T>
using stream = hls::stream<T>;
typedef ap_fixed<24, 8, AP_RND, AP_SAT> param_t;

template <class T>
struct fixed_traits;
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N>
struct fixed_traits<ap_fixed<W, I, Q, O, N> > {
  static const int width = W, frac = W - I;
  static const bool is_signed = true;
};
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N>
struct fixed_traits<ap_ufixed<W, I, Q, O, N> > {
  static const int width = W, frac = W - I;
  static const bool is_signed = false;
};
template <int W>
struct fixed_traits<ap_int<W> > {
  static const int width = W, frac = 0;
  static const bool is_signed = true;
};
template <int W>
struct fixed_traits<ap_uint<W> > {
  static const int width = W, frac = 0;
  static const bool is_signed = false;
};

template <int W, int I>
struct signed_fixed {
  typedef ap_fixed<W, I> type;
};

// Two's complement raw bits of x, sign-extended to 64 bits.
template <class T>
inline long long raw_bits(const T& x) {
  const int w = fixed_traits<T>::width;
  ap_uint<w> u = x.range(w - 1, 0);
  unsigned long long v = u.to_uint64();
  if (fixed_traits<T>::is_signed && w < 64 && ((v >> (w - 1)) & 1ULL)) v |= ~0ULL << w;
  return static_cast<long long>(v);
}

// The value of type T whose raw bits are the low W bits of r (W <= 64).
template <class T>
inline T from_raw_bits(long long r) {
  T x;
  x.range(fixed_traits<T>::width - 1, 0) = ap_uint<64>(static_cast<unsigned long long>(r));
  return x;
}

// a < b for values of any two fixed types, exactly. ap_private compares an
// unsigned operand of 32 or more bits with a signed one the way C compares
// unsigned integers (a negative bound then compares greater than everything),
// so both are first converted, exactly, to one signed type holding each.
template <class A, class B>
struct common_signed {
  static const int fa = fixed_traits<A>::frac, fb = fixed_traits<B>::frac;
  static const int ia = fixed_traits<A>::width - fa + (fixed_traits<A>::is_signed ? 0 : 1);
  static const int ib = fixed_traits<B>::width - fb + (fixed_traits<B>::is_signed ? 0 : 1);
  static const int f = fa > fb ? fa : fb, i = ia > ib ? ia : ib;
  typedef ap_fixed<(i + f > 1 ? i + f : 1), i> type;
};
template <class A, class B>
inline bool exact_less(const A& a, const B& b) {
  typedef typename common_signed<A, B>::type C;
  return C(a) < C(b);
}
#else
// The library's stream: FIFO semantics of hls::stream (read blocks on empty;
// here reading an empty stream is a bug and aborts C simulation loudly).
template <class T>
class stream {
 public:
  stream() {}
  explicit stream(const char*) {}
  void write(const T& v) { q_.push_back(v); }
  T read() {
    if (q_.empty()) kiln::detail::fail("read from an empty stream");
    T v = q_.front();
    q_.pop_front();
    return v;
  }
  bool empty() const { return q_.empty(); }
  std::size_t size() const { return q_.size(); }

 private:
  std::deque<T> q_;
};
typedef fixed<24, 8, RND, SAT> param_t;

// A signed W-bit type with I integer bits (truncating, wrapping).
template <int W, int I>
struct signed_fixed {
  typedef fixed<W, I> type;
};

template <class T>
struct fixed_traits {
  static const int width = T::width, frac = T::width - T::iwidth;
  static const bool is_signed = T::is_signed;
};

template <class T>
inline long long raw_bits(const T& x) {
  return static_cast<long long>(x.raw());
}

template <class T>
inline T from_raw_bits(long long r) {
  return T::from_raw(static_cast<typename T::raw_type>(r));
}

// a < b exactly: kiln_fixed.h compares any two fixed types by value
// (docs/numerics.md); the Vitis branch above needs a conversion first.
template <class A, class B>
inline bool exact_less(const A& a, const B& b) {
  return a < b;
}
#endif

// floor(x * 2^S) as an integer: an arithmetic shift of the raw bits, exact.
template <int S, class T>
inline long long floor_scaled(const T& x) {
  const int f = fixed_traits<T>::frac;
  const long long r = raw_bits(x);
  return f >= S ? (r >> (f >= S ? f - S : 0)) : (r * (1LL << (f < S ? S - f : 0)));
}

// One stream element: all channels of one pixel (hls4ml users know this as
// nnet::array).
template <class T, unsigned N>
struct array {
  typedef T value_type;
  static const unsigned size = N;
  T data[N];
  T& operator[](unsigned i) { return data[i]; }
  const T& operator[](unsigned i) const { return data[i]; }
};

}  // namespace kiln

#endif  // KILN_COMMON_H_

// kiln fixed point: the semantics of Vitis HLS ap_fixed<W,I,Q,O> / ap_ufixed /
// ap_int<W> / ap_uint<W> (W <= 64) for C simulation without vendor headers.
// Shipped into every project kiln writes. C++14, standard headers only.
//
//   kiln::fixed<W, I, Q = kiln::TRN, O = kiln::WRAP>   signed, like ap_fixed
//   kiln::ufixed<W, I, Q, O>                           unsigned, like ap_ufixed
//   kiln::integer<W>, kiln::uinteger<W>                fixed<W, W>, ufixed<W, W>
//
// A value is raw * 2^-(W - I) with raw a W-bit two's complement (or unsigned)
// integer. + - * and unary - are exact: the result type has enough bits. A value
// is rounded (Q) and then fitted (O) only when it is assigned to a type, from
// another fixed type, an integer (as ap_int<32> etc.) or a double (exactly).
// The arithmetic is specified in kiln's docs/numerics.md; kiln's own emulator
// implements it independently and the two are tested against each other.
#ifndef KILN_FIXED_H_
#define KILN_FIXED_H_

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace kiln {

// Quantization modes (AP_TRN, ...): what happens to dropped fraction bits.
enum qmode {
  TRN,          // toward minus infinity
  TRN_ZERO,     // toward zero
  RND,          // to nearest, ties toward plus infinity
  RND_ZERO,     // to nearest, ties toward zero
  RND_MIN_INF,  // to nearest, ties toward minus infinity
  RND_INF,      // to nearest, ties away from zero
  RND_CONV      // to nearest, ties to even
};

// Overflow modes (AP_WRAP, ...): what happens to a value outside the range.
enum omode {
  WRAP,      // keep the low W bits
  SAT,       // clamp to min / max
  SAT_ZERO,  // become zero
  SAT_SYM    // clamp to -max / max (for signed W > 1, min itself becomes -max)
};

namespace detail {

// Reports a C simulation bug (empty stream read, NaN input) and stops.
[[noreturn]] inline void fail(const char* msg) {
  std::fprintf(stderr, "kiln: %s\n", msg);
  std::abort();
}

// 128-bit integers hold exact intermediates wider than 64 bits.
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// unsigned_of / signed_of: std::make_(un)signed without relying on the
// library's __int128 support (absent under -std=c++14).
template <class T>
struct unsigned_of {
  typedef unsigned long long type;
};
template <>
struct unsigned_of<i128> {
  typedef u128 type;
};
template <>
struct unsigned_of<u128> {
  typedef u128 type;
};
template <class T>
struct signed_of {
  typedef long long type;
};
template <>
struct signed_of<i128> {
  typedef i128 type;
};
template <>
struct signed_of<u128> {
  typedef i128 type;
};

// Raw storage: 64 bits up to W = 64; wider types exist only as exact results.
template <int W, bool S, bool Wide = (W > 64)>
struct storage;
template <int W>
struct storage<W, true, false> {
  typedef long long type;
};
template <int W>
struct storage<W, false, false> {
  typedef unsigned long long type;
};
template <int W>
struct storage<W, true, true> {
  typedef i128 type;
};
template <int W>
struct storage<W, false, true> {
  typedef u128 type;
};

// Signed type that holds a source of SW signed bits with room for a rounding
// carry and shifts; anything over 62 bits computes in 128 bits.
template <int SW>
struct compute {
  typedef typename std::conditional<(SW <= 62), long long, i128>::type type;
};

// Keeps the low W bits of r, sign- or zero-extended (raw values are normalized).
template <int W, bool S, class R>
inline R normalize(R r) {
  typedef typename unsigned_of<R>::type U;
  typedef typename signed_of<R>::type SR;
  const int shift = 8 * static_cast<int>(sizeof(R)) - W;
  const U u = static_cast<U>(r) << shift;
  // The arithmetic right shift of the signed type sign-extends.
  return S ? static_cast<R>(static_cast<SR>(u) >> shift) : static_cast<R>(u >> shift);
}

struct raw_tag {};

// Rounds and fits a value into a target of W <= 64 bits, F fraction bits.
template <int W, int F, bool S, qmode Q, omode O>
struct quantizer {
  typedef typename storage<W, S>::type R;
  static const unsigned long long kMax =
      S ? (1ULL << (W - 1)) - 1 : (W == 64 ? ~0ULL : (1ULL << (W < 64 ? W : 0)) - 1);
  static const long long kMin = S ? -static_cast<long long>(kMax) - 1 : 0;

  static R wrap(unsigned long long low) { return normalize<W, S>(static_cast<R>(low)); }

  // An out-of-range value: its sign and low 64 bits decide.
  static R overflow(bool negative, unsigned long long low) {
    switch (O) {
      case WRAP: return wrap(low);
      case SAT: return negative ? static_cast<R>(kMin) : static_cast<R>(kMax);
      case SAT_ZERO: return 0;
      case SAT_SYM:
        return negative ? static_cast<R>(S && W > 1 ? kMin + 1 : kMin) : static_cast<R>(kMax);
    }
    return 0;
  }

  // v is an exact count of target LSBs.
  template <class T>
  static R fit(T v) {
    typedef typename unsigned_of<T>::type U;
    if (O == WRAP) return wrap(static_cast<unsigned long long>(v));
    if (v < 0 ? (!S || v < static_cast<T>(kMin)) : static_cast<U>(v) > static_cast<U>(kMax))
      return overflow(v < 0, static_cast<unsigned long long>(v));
    if (O == SAT_SYM && S && W > 1 && v == static_cast<T>(kMin)) return static_cast<R>(kMin + 1);
    return static_cast<R>(v);
  }

  // Assigns x * 2^-(F + d), x a signed integer of at most sw bits.
  template <class T>
  static R from(T x, int sw, int d) {
    typedef typename unsigned_of<T>::type U;
    const int bits = 8 * static_cast<int>(sizeof(T));
    if (d <= 0) {  // no bits dropped: shift left, watching for overflow
      const int s = -d;
      if (x == 0) return fit(T(0));
      if (sw + s > bits - 1) {
        const T hi = static_cast<T>(~U(0) >> 1), lo = -hi - 1;
        if (s >= bits - 1 || x > (hi >> s) || x < (lo >> s))
          return overflow(x < 0, s >= 64 ? 0ULL : static_cast<unsigned long long>(x) << s);
      }
      return fit(static_cast<T>(static_cast<U>(x) << s));
    }
    // |x| <= 2^(sw-1): with d > sw the value is within a quarter LSB of 0.
    if (d > sw) return fit(T(Q == TRN && x < 0 ? -1 : 0));
    // q = floor(x / 2^d); rem = x - q * 2^d in [0, 2^d), compared to half.
    const T q = d >= bits ? T(x < 0 ? -1 : 0) : T(x >> d);
    const U rem = static_cast<U>(x) & (d >= bits ? ~U(0) : (U(1) << (d < bits ? d : 0)) - 1);
    const U half = U(1) << (d - 1);
    bool up = false;
    switch (Q) {
      case TRN: break;
      case TRN_ZERO: up = x < 0 && rem != 0; break;
      case RND: up = rem >= half; break;
      case RND_ZERO: up = rem > half || (rem == half && x < 0); break;
      case RND_MIN_INF: up = rem > half; break;
      case RND_INF: up = rem > half || (rem == half && x >= 0); break;
      case RND_CONV: up = rem > half || (rem == half && (q & 1) != 0); break;
    }
    return fit(static_cast<T>(q + (up ? 1 : 0)));
  }
};

template <int W, int F, bool S, qmode Q, omode O>
const unsigned long long quantizer<W, F, S, Q, O>::kMax;
template <int W, int F, bool S, qmode Q, omode O>
const long long quantizer<W, F, S, Q, O>::kMin;

}  // namespace detail

template <int W, int I, bool S, qmode Q, omode O>
class fixed_base;

namespace detail {

// Raw of a (W2, I2, S2) value assigned to a (W, I, S, Q, O) type.
template <int W, int I, bool S, qmode Q, omode O, int W2, int I2, bool S2, class R2>
inline typename storage<W, S>::type convert_raw(R2 raw) {
  typedef typename compute<W2 + (S2 ? 0 : 1)>::type T;
  return quantizer<W, W - I, S, Q, O>::from(static_cast<T>(raw), W2 + (S2 ? 0 : 1),
                                            (W2 - I2) - (W - I));
}

}  // namespace detail

template <int W, int I, bool S, qmode Q = TRN, omode O = WRAP>
class fixed_base {
  static_assert(W >= 1, "kiln fixed: width must be at least 1");
  // Wider types arise only as exact results of + - *; an unsigned one keeps a
  // spare bit so it converts to a signed 128-bit intermediate.
  static_assert(S ? W <= 128 : W <= 127,
                "kiln fixed: exact result needs more than 128 bits (operands too wide)");

 public:
  typedef typename detail::storage<W, S>::type raw_type;
  static const int width = W;
  static const int iwidth = I;
  static const bool is_signed = S;
  static const qmode qmode_value = Q;
  static const omode omode_value = O;

  fixed_base() : v_(0) {}
  fixed_base(detail::raw_tag, raw_type r) : v_(r) {}

  template <int W2, int I2, bool S2, qmode Q2, omode O2>
  fixed_base(const fixed_base<W2, I2, S2, Q2, O2>& x)
      : v_(detail::convert_raw<W, I, S, Q, O, W2, I2, S2>(x.raw())) {
    static_assert(W <= 64, "kiln fixed: assignment targets have W <= 64");
  }

  // Integers convert as ap_int<8 * sizeof(T)> / ap_uint<...> would.
  template <class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
  fixed_base(T x)
      : v_(detail::convert_raw<W, I, S, Q, O, 8 * sizeof(T), 8 * sizeof(T),
                               std::is_signed<T>::value>(x)) {
    static_assert(W <= 64, "kiln fixed: assignment targets have W <= 64");
  }

  // A double is exact: mantissa * 2^exponent, quantized like any fixed value.
  fixed_base(double x) : v_(0) {
    static_assert(W <= 64, "kiln fixed: assignment targets have W <= 64");
    typedef detail::quantizer<W, W - I, S, Q, O> quant;
    if (x != x) detail::fail("NaN assigned to a fixed-point value");
    if (std::isinf(x)) {
      v_ = quant::overflow(x < 0, 0);  // infinitely many zero low bits
      return;
    }
    int e = 0;
    const double m = std::frexp(x, &e);  // x = m * 2^e, 0.5 <= |m| < 1
    const long long mantissa = static_cast<long long>(std::ldexp(m, 53));
    v_ = quant::from(mantissa, 54, (53 - e) - (W - I));
  }
  fixed_base(float x) : fixed_base(static_cast<double>(x)) {}

  raw_type raw() const { return v_; }
  // Keeps the low W bits of r.
  static fixed_base from_raw(raw_type r) {
    return fixed_base(detail::raw_tag(), detail::normalize<W, S>(r));
  }

  double to_double() const { return std::ldexp(static_cast<double>(v_), I - W); }
  float to_float() const { return static_cast<float>(to_double()); }

  fixed_base operator+() const { return *this; }

  template <class X>
  fixed_base& operator+=(const X& x) {
    return *this = *this + x;
  }
  template <class X>
  fixed_base& operator-=(const X& x) {
    return *this = *this - x;
  }
  template <class X>
  fixed_base& operator*=(const X& x) {
    return *this = *this * x;
  }

 private:
  raw_type v_;
};

template <int W, int I, bool S, qmode Q, omode O>
const int fixed_base<W, I, S, Q, O>::width;
template <int W, int I, bool S, qmode Q, omode O>
const int fixed_base<W, I, S, Q, O>::iwidth;
template <int W, int I, bool S, qmode Q, omode O>
const bool fixed_base<W, I, S, Q, O>::is_signed;
template <int W, int I, bool S, qmode Q, omode O>
const qmode fixed_base<W, I, S, Q, O>::qmode_value;
template <int W, int I, bool S, qmode Q, omode O>
const omode fixed_base<W, I, S, Q, O>::omode_value;

template <int W, int I, qmode Q = TRN, omode O = WRAP>
using fixed = fixed_base<W, I, true, Q, O>;
template <int W, int I, qmode Q = TRN, omode O = WRAP>
using ufixed = fixed_base<W, I, false, Q, O>;
template <int W>
using integer = fixed_base<W, W, true, TRN, WRAP>;
template <int W>
using uinteger = fixed_base<W, W, false, TRN, WRAP>;

namespace detail {

constexpr int max_int(int a, int b) {
  return a > b ? a : b;
}

// Exact result formats, as ap_fixed: a signed/unsigned mix is signed and the
// unsigned operand gains an integer bit; a difference is always signed.
template <int W1, int I1, bool S1, int W2, int I2, bool S2>
struct sum_format {
  static const int F = max_int(W1 - I1, W2 - I2);
  static const int I = max_int(I1 + (S2 && !S1 ? 1 : 0), I2 + (S1 && !S2 ? 1 : 0)) + 1;
  typedef fixed_base<I + F, I, S1 || S2, TRN, WRAP> add_type;
  typedef fixed_base<I + F, I, true, TRN, WRAP> sub_type;
};
template <int W1, int I1, bool S1, int W2, int I2, bool S2>
struct product_format {
  typedef fixed_base<W1 + W2, I1 + I2, S1 || S2, TRN, WRAP> type;
};

// An integer operand is an ap_int<8 * sizeof(T)> (ap_uint if unsigned).
template <class T>
struct int_format {
  typedef fixed_base<8 * sizeof(T), 8 * sizeof(T), std::is_signed<T>::value, TRN, WRAP> type;
};

// x (a raw with `from` fraction bits) as a raw of type T with `to` >= from.
template <class T, class X>
inline T align(X x, int shift) {
  typedef typename unsigned_of<T>::type U;
  return static_cast<T>(static_cast<U>(static_cast<T>(x)) << shift);
}

}  // namespace detail

#define KILN_FIXED_ARGS1 int W1, int I1, bool S1, qmode Q1, omode O1
#define KILN_FIXED_ARGS2 int W2, int I2, bool S2, qmode Q2, omode O2
#define KILN_FIXED_T1 fixed_base<W1, I1, S1, Q1, O1>
#define KILN_FIXED_T2 fixed_base<W2, I2, S2, Q2, O2>
#define KILN_FIXED_INT_T class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0

template <KILN_FIXED_ARGS1, KILN_FIXED_ARGS2>
inline typename detail::sum_format<W1, I1, S1, W2, I2, S2>::add_type operator+(
    const KILN_FIXED_T1& a, const KILN_FIXED_T2& b) {
  typedef typename detail::sum_format<W1, I1, S1, W2, I2, S2>::add_type R;
  typedef typename R::raw_type T;
  const int f = R::width - R::iwidth;
  return R(detail::raw_tag(),
           detail::align<T>(a.raw(), f - (W1 - I1)) + detail::align<T>(b.raw(), f - (W2 - I2)));
}

template <KILN_FIXED_ARGS1, KILN_FIXED_ARGS2>
inline typename detail::sum_format<W1, I1, S1, W2, I2, S2>::sub_type operator-(
    const KILN_FIXED_T1& a, const KILN_FIXED_T2& b) {
  typedef typename detail::sum_format<W1, I1, S1, W2, I2, S2>::sub_type R;
  typedef typename R::raw_type T;
  const int f = R::width - R::iwidth;
  return R(detail::raw_tag(),
           detail::align<T>(a.raw(), f - (W1 - I1)) - detail::align<T>(b.raw(), f - (W2 - I2)));
}

template <KILN_FIXED_ARGS1, KILN_FIXED_ARGS2>
inline typename detail::product_format<W1, I1, S1, W2, I2, S2>::type operator*(
    const KILN_FIXED_T1& a, const KILN_FIXED_T2& b) {
  typedef typename detail::product_format<W1, I1, S1, W2, I2, S2>::type R;
  typedef typename R::raw_type T;
  return R(detail::raw_tag(), static_cast<T>(a.raw()) * static_cast<T>(b.raw()));
}

template <KILN_FIXED_ARGS1>
inline fixed_base<W1 + 1, I1 + 1, true, TRN, WRAP> operator-(const KILN_FIXED_T1& a) {
  typedef fixed_base<W1 + 1, I1 + 1, true, TRN, WRAP> R;
  typedef typename R::raw_type T;
  return R(detail::raw_tag(), -static_cast<T>(a.raw()));
}

// Comparisons are exact: the sign of the exact difference.
#define KILN_FIXED_COMPARE(OP)                                              \
  template <KILN_FIXED_ARGS1, KILN_FIXED_ARGS2>                             \
  inline bool operator OP(const KILN_FIXED_T1& a, const KILN_FIXED_T2& b) { \
    return (a - b).raw() OP 0;                                              \
  }                                                                         \
  template <KILN_FIXED_ARGS1, KILN_FIXED_INT_T>                             \
  inline bool operator OP(const KILN_FIXED_T1& a, T b) {                    \
    return a OP typename detail::int_format<T>::type(b);                    \
  }                                                                         \
  template <KILN_FIXED_ARGS1, KILN_FIXED_INT_T>                             \
  inline bool operator OP(T a, const KILN_FIXED_T1& b) {                    \
    return typename detail::int_format<T>::type(a) OP b;                    \
  }
KILN_FIXED_COMPARE(<)
KILN_FIXED_COMPARE(<=)
KILN_FIXED_COMPARE(>)
KILN_FIXED_COMPARE(>=)
KILN_FIXED_COMPARE(==)
KILN_FIXED_COMPARE(!=)
#undef KILN_FIXED_COMPARE

// fixed op integer: the integer as ap_int<32> (int), ap_int<64> (long long), ...
#define KILN_FIXED_INT_OP(OP)                                    \
  template <KILN_FIXED_ARGS1, KILN_FIXED_INT_T>                  \
  inline auto operator OP(const KILN_FIXED_T1& a, T b)           \
      ->decltype(a OP typename detail::int_format<T>::type(b)) { \
    return a OP typename detail::int_format<T>::type(b);         \
  }                                                              \
  template <KILN_FIXED_ARGS1, KILN_FIXED_INT_T>                  \
  inline auto operator OP(T a, const KILN_FIXED_T1& b)           \
      ->decltype(typename detail::int_format<T>::type(a) OP b) { \
    return typename detail::int_format<T>::type(a) OP b;         \
  }
KILN_FIXED_INT_OP(+)
KILN_FIXED_INT_OP(-)
KILN_FIXED_INT_OP(*)
#undef KILN_FIXED_INT_OP

#undef KILN_FIXED_ARGS1
#undef KILN_FIXED_ARGS2
#undef KILN_FIXED_T1
#undef KILN_FIXED_T2
#undef KILN_FIXED_INT_T

}  // namespace kiln

#endif  // KILN_FIXED_H_

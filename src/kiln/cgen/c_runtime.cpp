#include "kiln/cgen/c_runtime.h"

namespace kiln::cgen {

namespace {

// Written for C99 (gcc -std=c99 -Wall -Wextra -pedantic -Werror) and valid
// C++ too. Signed shifts and out-of-range conversions are avoided: every
// step is defined by the C standard, not by the compiler.
constexpr std::string_view kHeader =
    R"(/* kiln_fixed_c.h: written by kiln. Fixed-point assignment with the rounding
   and overflow modes of ap_fixed, on raw values held in int64_t: a value is
   raw * 2^-frac, and the code that calls these knows frac at compile time.
   Every raw value and intermediate fits in 63 bits. The functions are
   static inline: a program that needs only some of them warns of none. */
#ifndef KILN_FIXED_C_H
#define KILN_FIXED_C_H

#include <math.h>
#include <stdint.h>

enum kiln_quant {
  KILN_TRN, KILN_TRN_ZERO, KILN_RND, KILN_RND_ZERO, KILN_RND_MIN_INF, KILN_RND_INF, KILN_RND_CONV
};
enum kiln_overflow { KILN_WRAP, KILN_SAT, KILN_SAT_ZERO, KILN_SAT_SYM };

/* The int64_t whose two's complement bits are v. */
static inline int64_t kiln_from_bits(uint64_t v) {
  return (v >> 63) ? -(int64_t)(~v) - 1 : (int64_t)v;
}

static inline int64_t kiln_max_raw(int w, int is_signed) {
  return is_signed ? (int64_t)((UINT64_C(1) << (w - 1)) - 1) : (int64_t)((UINT64_C(1) << w) - 1);
}

static inline int64_t kiln_min_raw(int w, int is_signed) {
  return is_signed ? -kiln_max_raw(w, 1) - 1 : 0;
}

/* The least value AP_SAT_SYM keeps: -max for signed formats of 2 bits or more. */
static inline int64_t kiln_sym_min(int w, int is_signed) {
  return is_signed && w > 1 ? -kiln_max_raw(w, 1) : kiln_min_raw(w, is_signed);
}

/* The low w bits of `low`, sign- or zero-extended (AP_WRAP). */
static inline int64_t kiln_wrap(uint64_t low, int w, int is_signed) {
  const uint64_t mask = (UINT64_C(1) << w) - 1;
  uint64_t v = low & mask;
  if (is_signed && ((v >> (w - 1)) & 1)) v |= ~mask;
  return kiln_from_bits(v);
}

/* An out-of-range value of sign `negative` and low 64 bits `low`. */
static inline int64_t kiln_overflowed(int negative, uint64_t low, int w, int is_signed, int overflow) {
  switch (overflow) {
    case KILN_SAT: return negative ? kiln_min_raw(w, is_signed) : kiln_max_raw(w, is_signed);
    case KILN_SAT_ZERO: return 0;
    case KILN_SAT_SYM: return negative ? kiln_sym_min(w, is_signed) : kiln_max_raw(w, is_signed);
    default: return kiln_wrap(low, w, is_signed);
  }
}

/* An integer count of the format's LSBs, as sign and magnitude, fitted. */
static inline int64_t kiln_fit(int negative, uint64_t mag, int w, int is_signed, int overflow) {
  const uint64_t most =
      negative ? (is_signed ? UINT64_C(1) << (w - 1) : 0) : (uint64_t)kiln_max_raw(w, is_signed);
  if (mag == 0) return 0;
  if (mag > most) return kiln_overflowed(negative, negative ? (uint64_t)0 - mag : mag, w, is_signed,
                                         overflow);
  if (negative && overflow == KILN_SAT_SYM && -kiln_sym_min(w, is_signed) < (int64_t)mag)
    return kiln_sym_min(w, is_signed);
  return negative ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
}

/* Whether rounding moves the truncated magnitude q up by one LSB. */
static inline int kiln_round_up(int quant, int negative, uint64_t q, int above, int tie, int inexact) {
  switch (quant) {
    case KILN_TRN_ZERO: return 0;
    case KILN_RND: return above || (tie && !negative);
    case KILN_RND_ZERO: return above;
    case KILN_RND_MIN_INF: return above || (tie && negative);
    case KILN_RND_INF: return above || tie;
    case KILN_RND_CONV: return above || (tie && (q & 1) != 0);
    default: return negative && inexact; /* KILN_TRN: toward minus infinity */
  }
}

/* raw * 2^-from_frac assigned to a format of w bits (w <= 63), frac fraction
   bits, signedness and modes: its raw value. */
static inline int64_t kiln_quantize(int64_t raw, int from_frac, int w, int frac, int is_signed, int quant,
                             int overflow) {
  const int d = from_frac - frac; /* fraction bits dropped (> 0) or added (< 0) */
  const int negative = raw < 0;
  const uint64_t mag = negative ? (uint64_t)0 - (uint64_t)raw : (uint64_t)raw;
  uint64_t q;
  int above, tie, inexact;
  if (d <= 0) {
    const int s = -d;
    if (mag == 0) return 0;
    if (s >= 63 || mag > (UINT64_C(0x7FFFFFFFFFFFFFFF) >> s))
      return kiln_overflowed(negative, s >= 64 ? 0 : (uint64_t)raw << s, w, is_signed, overflow);
    return kiln_fit(negative, mag << s, w, is_signed, overflow);
  }
  if (d >= 64) {
    q = 0;
    above = d == 64 && mag > (UINT64_C(1) << 63);
    tie = d == 64 && mag == (UINT64_C(1) << 63);
    inexact = mag != 0;
  } else {
    const uint64_t half = UINT64_C(1) << (d - 1);
    const uint64_t rem = mag & ((UINT64_C(1) << d) - 1);
    q = mag >> d;
    above = rem > half;
    tie = rem == half;
    inexact = rem != 0;
  }
  if (kiln_round_up(quant, negative, q, above, tie, inexact)) ++q;
  return kiln_fit(negative, q, w, is_signed, overflow);
}

/* A double assigned to the format (exact: a double is a 53-bit integer
   times a power of two). */
static inline int64_t kiln_from_double(double v, int w, int frac, int is_signed, int quant,
                                int overflow) {
  int e = 0;
  double m;
  if (v != v) return 0; /* NaN: kiln's inputs are never NaN */
  if (isinf(v)) return kiln_quantize(v < 0 ? -1 : 1, -100000, w, frac, is_signed, quant, overflow);
  m = frexp(v, &e);
  return kiln_quantize((int64_t)ldexp(m, 53), 53 - e, w, frac, is_signed, quant, overflow);
}

/* floor(x / 2^n) for 0 <= n <= 62. */
static inline int64_t kiln_floor_shr(int64_t x, int n) {
  return x >= 0 ? x >> n : -(((-(x + 1)) >> n) + 1);
}

/* floor(raw * 2^-frac * 2^s), clamped to +-2^62: a lookup's bin. */
static inline int64_t kiln_floor_scaled(int64_t raw, int frac, int s) {
  const int64_t big = INT64_C(1) << 62;
  const int down = frac - s;
  if (down >= 0) return down >= 63 ? (raw < 0 ? -1 : 0) : kiln_floor_shr(raw, down);
  if (-down >= 62) return raw == 0 ? 0 : (raw < 0 ? -big : big);
  if (raw > (big >> -down)) return big;
  if (raw < -(big >> -down)) return -big;
  return raw * (INT64_C(1) << -down);
}

#endif /* KILN_FIXED_C_H */
)";

}  // namespace

std::string_view c_fixed_header() {
  return kHeader;
}

}  // namespace kiln::cgen

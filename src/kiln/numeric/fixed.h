// Fixed-point numbers with the semantics of Vitis HLS ap_fixed<W,I,Q,O> /
// ap_ufixed and ap_int<W> / ap_uint<W>, as runtime values.
//
// kiln's bit-exact emulator computes with these; the projects kiln writes ship
// the template header hls/include/kiln/kiln_fixed.h, an independent compile-time
// implementation of the same semantics. Tests cross-check the two.
//
// Semantics (documented in docs/numerics.md):
//  - A format has W total bits (1..64), I integer bits (any value, may be < 0 or
//    > W), F = W - I fraction bits, signed (two's complement) or unsigned.
//    Value = raw * 2^-F.
//  - + - * of two values are exact (full precision): the result format has
//    enough bits that nothing is lost (see add_format / mul_format).
//  - Quantization and overflow happen only on assignment to a format:
//    quantize() first rounds to F fraction bits with the target's QuantMode,
//    then fits the integer part with its OverflowMode.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/support/enum_table.h"

namespace kiln::numeric {

// 128-bit integers (a GCC/Clang extension; __extension__ keeps -Wpedantic quiet).
__extension__ typedef __int128 int128;

// Vitis HLS quantization modes (AP_RND, AP_TRN, ...).
enum class QuantMode : uint8_t {
  Trn,        // AP_TRN: toward minus infinity (default)
  TrnZero,    // AP_TRN_ZERO: toward zero
  Rnd,        // AP_RND: to nearest, ties toward plus infinity
  RndZero,    // AP_RND_ZERO: to nearest, ties toward zero
  RndMinInf,  // AP_RND_MIN_INF: to nearest, ties toward minus infinity
  RndInf,     // AP_RND_INF: to nearest, ties away from zero
  RndConv,    // AP_RND_CONV: to nearest, ties to even
};

// Vitis HLS overflow modes.
enum class OverflowMode : uint8_t {
  Wrap,     // AP_WRAP: keep the low W bits (default)
  Sat,      // AP_SAT: clamp to the format's min/max
  SatZero,  // AP_SAT_ZERO: overflow gives zero
  SatSym,   // AP_SAT_SYM: clamp to +-max (signed min is -max)
};

}  // namespace kiln::numeric

namespace kiln {
// The spellings without the AP_ prefix ("RND", "SAT"), as kiln's files write them.
template <>
struct EnumNames<numeric::QuantMode> {
  static constexpr std::pair<numeric::QuantMode, std::string_view> kNames[] = {
      {numeric::QuantMode::Trn, "TRN"},
      {numeric::QuantMode::TrnZero, "TRN_ZERO"},
      {numeric::QuantMode::Rnd, "RND"},
      {numeric::QuantMode::RndZero, "RND_ZERO"},
      {numeric::QuantMode::RndMinInf, "RND_MIN_INF"},
      {numeric::QuantMode::RndInf, "RND_INF"},
      {numeric::QuantMode::RndConv, "RND_CONV"}};
};
template <>
struct EnumNames<numeric::OverflowMode> {
  static constexpr std::pair<numeric::OverflowMode, std::string_view> kNames[] = {
      {numeric::OverflowMode::Wrap, "WRAP"},
      {numeric::OverflowMode::Sat, "SAT"},
      {numeric::OverflowMode::SatZero, "SAT_ZERO"},
      {numeric::OverflowMode::SatSym, "SAT_SYM"}};
};
}  // namespace kiln

namespace kiln::numeric {

struct FixedType {
  int width = 16;   // W, 1..64
  int integer = 6;  // I (includes the sign bit when signed)
  bool is_signed = true;
  QuantMode quant = QuantMode::Trn;
  OverflowMode overflow = OverflowMode::Wrap;

  int frac() const { return width - integer; }
  bool operator==(const FixedType&) const = default;

  // Largest and smallest raw values. Raw values are two's complement bit
  // patterns: for ap_ufixed<64,...> int64_t holds the uint64_t pattern.
  int64_t max_raw() const;
  int64_t min_raw() const;
  double max_value() const;
  double min_value() const;
  double lsb() const;  // 2^-F

  // "ap_fixed<16,6>", "ap_ufixed<8,0,AP_RND,AP_SAT>", "ap_int<8>", "ap_uint<4>":
  // the spelling Vitis and hls4ml users write. Default modes are omitted.
  std::string to_string() const;
  // The kiln_fixed.h spelling used in generated code, e.g.
  // "kiln::fixed<16, 6, kiln::RND, kiln::SAT>" / "kiln::ufixed<...>".
  std::string to_kiln_cpp() const;
  // The ap_fixed.h spelling: "ap_fixed<16, 6, AP_RND, AP_SAT>".
  std::string to_ap_cpp() const;
};

// Parses the to_string() spellings (spaces allowed, ap_int<W> = ap_fixed<W,W>,
// also "fixed<16,6>" / "ufixed<...>" / "int<8>" / "uint<8>" without the prefix).
// Returns nullopt with `error` set to a one-line reason on bad input.
std::optional<FixedType> parse_fixed_type(std::string_view text, std::string* error);

// Exact intermediate formats (may exceed 64 bits; see Wide below).
// Signed/unsigned mixes follow ap_fixed: the result is signed and an unsigned
// operand gains one integer bit (in sums and differences; a product keeps
// W1 + W2 bits, I1 + I2 integer bits, which ap_fixed also uses and which is exact).
struct ExactFormat {
  int width;
  int integer;
  bool is_signed;
  int frac() const { return width - integer; }
};
ExactFormat add_format(const FixedType& a, const FixedType& b);  // also for sub
ExactFormat mul_format(const FixedType& a, const FixedType& b);
// Added by the numeric helper: a difference is always signed (ap_fixed's
// operator- on two ap_ufixed gives an ap_fixed); formats of chained exact ops.
ExactFormat sub_format(const FixedType& a, const FixedType& b);
ExactFormat exact_format(const FixedType& t);
ExactFormat add_format(const ExactFormat& a, const ExactFormat& b);
ExactFormat sub_format(const ExactFormat& a, const ExactFormat& b);
ExactFormat mul_format(const ExactFormat& a, const ExactFormat& b);

// An exact intermediate value: raw * 2^-frac, raw held in 128 bits. Products
// of two 64-bit formats and sums of them fit.
struct Exact {
  int128 raw = 0;
  int frac = 0;
};

Exact to_exact(int64_t raw, const FixedType& t);
Exact exact_add(const Exact& a, const Exact& b);
Exact exact_sub(const Exact& a, const Exact& b);
Exact exact_mul(const Exact& a, const Exact& b);
Exact exact_neg(const Exact& a);  // added: unary minus
// The exact ops assert (Internal) if a result needs more than 128 bits, which
// formats of W <= 64 and |I| <= 256 reach only in extreme combinations.

// floor(v * 2^s), saturated at +-2^62 (far outside any table index): the bin
// a lookup table gives v (docs/numerics.md "Lookup tables").
int64_t floor_scaled(const Exact& v, int s);
// The sign of a - b: -1, 0 or 1.
int exact_compare(const Exact& a, const Exact& b);

// What quantize() did to the value, for overflow statistics.
enum class OverflowEvent : uint8_t { None, Wrapped, Saturated };

// Assigns an exact value to format t: rounds to t.frac() fraction bits with
// t.quant, then applies t.overflow. Returns t's raw value.
int64_t quantize(const Exact& v, const FixedType& t, OverflowEvent* event = nullptr);
// Assignment from a double, as ap_fixed's constructor from double does (the
// double is exact, so this is quantize() of its exact value). NaN is an
// Internal error; +-inf saturate or wrap like huge values.
int64_t quantize(double v, const FixedType& t, OverflowEvent* event = nullptr);
// Whether rounding in mode q looks at the sign of the whole value (toward
// zero; ties toward or away from zero), not only at the bits it drops and
// the lowest it keeps.
bool rounds_by_sign(QuantMode q);
// Whether an assignment to t, as raw bits, depends only on the source's low
// bits (those t keeps and those it rounds away): t wraps and rounds blind to
// the sign. A sum assigned to such a t may be computed modulo 2^bits.
bool assignment_reads_low_bits(const FixedType& t);
// Raw value of format `from` assigned to format `to`.
int64_t convert(int64_t raw, const FixedType& from, const FixedType& to,
                OverflowEvent* event = nullptr);

double to_double(int64_t raw, const FixedType& t);  // exact for W <= 53
double to_double(const Exact& v);

}  // namespace kiln::numeric

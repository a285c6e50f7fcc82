#include "kiln/numeric/fixed.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/support/error.h"

namespace kiln::numeric {

namespace {

__extension__ typedef unsigned __int128 uint128;

constexpr int128 kInt128Max = static_cast<int128>(~uint128{0} >> 1);
constexpr int128 kInt128Min = -kInt128Max - 1;

// Range of raw values of a format, as 128-bit integers (exact for every W <= 64,
// also for ap_ufixed<64,...> whose maximum does not fit in int64_t).
int128 range_max(const FixedType& t) {
  return t.is_signed ? (int128{1} << (t.width - 1)) - 1 : (int128{1} << t.width) - 1;
}
int128 range_min(const FixedType& t) {
  return t.is_signed ? -(int128{1} << (t.width - 1)) : 0;
}
// AP_SAT_SYM's lower bound: -max for signed formats of two or more bits. A
// 1-bit signed format has max 0 and ap_fixed keeps its min (-1) there.
int128 sym_min(const FixedType& t) {
  return (t.is_signed && t.width > 1) ? -range_max(t) : range_min(t);
}

// The low W bits of a value (given by its low 64 bits), sign- or
// zero-extended: the raw value under AP_WRAP.
int64_t wrap_bits(uint64_t low, const FixedType& t) {
  if (t.width == 64) return static_cast<int64_t>(low);
  const uint64_t mask = (uint64_t{1} << t.width) - 1;
  uint64_t v = low & mask;
  if (t.is_signed && ((v >> (t.width - 1)) & 1)) v |= ~mask;
  return static_cast<int64_t>(v);
}

// Raw (bit pattern in int64_t) of an in-range 128-bit value.
int64_t to_raw(int128 v) {
  return static_cast<int64_t>(static_cast<uint64_t>(v));
}

// Shifts left by s >= 0, asserting the result is exact in 128 bits.
int128 shift_left_exact(int128 v, int s) {
  if (v == 0) return 0;
  KILN_ASSERT(s < 127 && v <= (kInt128Max >> s) && v >= (kInt128Min >> s),
              "exact fixed-point intermediate exceeds 128 bits");
  return static_cast<int128>(static_cast<uint128>(v) << s);
}

void report(OverflowEvent* event, OverflowEvent e) {
  if (event) *event = e;
}

// What an out-of-range value becomes under t.overflow. `negative` is its sign,
// `low` its low 64 bits (enough for AP_WRAP since W <= 64).
int64_t overflowed(bool negative, uint64_t low, const FixedType& t, OverflowEvent* event) {
  switch (t.overflow) {
    case OverflowMode::Wrap: report(event, OverflowEvent::Wrapped); return wrap_bits(low, t);
    case OverflowMode::Sat:
      report(event, OverflowEvent::Saturated);
      return to_raw(negative ? range_min(t) : range_max(t));
    case OverflowMode::SatZero: report(event, OverflowEvent::Saturated); return 0;
    case OverflowMode::SatSym:
      report(event, OverflowEvent::Saturated);
      return to_raw(negative ? sym_min(t) : range_max(t));
  }
  return 0;
}

// Fits an exact integer count of target LSBs into t's range.
int64_t fit(int128 v, const FixedType& t, OverflowEvent* event) {
  if (v > range_max(t) || v < range_min(t))
    return overflowed(v < 0, static_cast<uint64_t>(static_cast<uint128>(v)), t, event);
  if (t.overflow == OverflowMode::SatSym && v < sym_min(t)) {
    report(event, OverflowEvent::Saturated);
    return to_raw(sym_min(t));
  }
  report(event, OverflowEvent::None);
  return to_raw(v);
}

// Whether the rounding mode moves a magnitude up by one LSB. Works on the sign
// and magnitude: `q` is |value| truncated, `above`/`tie` compare the dropped
// part with half an LSB, `inexact` says whether anything was dropped.
bool round_magnitude_up(QuantMode q_mode, bool negative, uint128 q, bool above, bool tie,
                        bool inexact) {
  switch (q_mode) {
    case QuantMode::Trn: return negative && inexact;  // floor: negatives grow in magnitude
    case QuantMode::TrnZero: return false;
    case QuantMode::Rnd: return above || (tie && !negative);
    case QuantMode::RndZero: return above;
    case QuantMode::RndMinInf: return above || (tie && negative);
    case QuantMode::RndInf: return above || tie;
    case QuantMode::RndConv: return above || (tie && (q & 1) != 0);
  }
  return false;
}

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

const char* quant_name(QuantMode q) {
  return enum_name(q).data();  // string literals: NUL-terminated
}

const char* overflow_name(OverflowMode o) {
  return enum_name(o).data();
}

std::optional<QuantMode> parse_quant(const std::string& s) {
  std::string u = upper(s);
  if (u.rfind("AP_", 0) == 0) u = u.substr(3);
  return enum_from_name<QuantMode>(u);
}

std::optional<OverflowMode> parse_overflow(const std::string& s) {
  std::string u = upper(s);
  if (u.rfind("AP_", 0) == 0) u = u.substr(3);
  return enum_from_name<OverflowMode>(u);
}

// A decimal integer with optional sign, nothing else.
std::optional<int> parse_int(const std::string& s) {
  if (s.empty() || s.size() > 6) return std::nullopt;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  int v = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return s[0] == '-' ? -v : v;
}

bool is_integer_type(const FixedType& t) {
  return t.integer == t.width && t.quant == QuantMode::Trn && t.overflow == OverflowMode::Wrap;
}

}  // namespace

bool rounds_by_sign(QuantMode q) {
  return q == QuantMode::TrnZero || q == QuantMode::RndZero || q == QuantMode::RndInf;
}

bool assignment_reads_low_bits(const FixedType& t) {
  return t.overflow == OverflowMode::Wrap && !rounds_by_sign(t.quant);
}

int64_t FixedType::max_raw() const {
  return to_raw(range_max(*this));
}
int64_t FixedType::min_raw() const {
  return to_raw(range_min(*this));
}
double FixedType::max_value() const {
  return std::ldexp(static_cast<double>(range_max(*this)), -frac());
}
double FixedType::min_value() const {
  return std::ldexp(static_cast<double>(range_min(*this)), -frac());
}
double FixedType::lsb() const {
  return std::ldexp(1.0, -frac());
}

std::string FixedType::to_string() const {
  const char* u = is_signed ? "" : "u";
  if (is_integer_type(*this)) return std::string("ap_") + u + "int<" + std::to_string(width) + ">";
  std::string s =
      std::string("ap_") + u + "fixed<" + std::to_string(width) + "," + std::to_string(integer);
  if (quant != QuantMode::Trn || overflow != OverflowMode::Wrap)
    s += std::string(",AP_") + quant_name(quant);
  if (overflow != OverflowMode::Wrap) s += std::string(",AP_") + overflow_name(overflow);
  return s + ">";
}

// Integer formats are spelled as fixed formats on purpose: Vitis' ap_int
// converts from double by truncating toward zero, ap_fixed<W,W> by AP_TRN.
std::string FixedType::to_kiln_cpp() const {
  std::string s = std::string("kiln::") + (is_signed ? "" : "u") + "fixed<" +
                  std::to_string(width) + ", " + std::to_string(integer);
  if (quant != QuantMode::Trn || overflow != OverflowMode::Wrap)
    s += std::string(", kiln::") + quant_name(quant);
  if (overflow != OverflowMode::Wrap) s += std::string(", kiln::") + overflow_name(overflow);
  return s + ">";
}

std::string FixedType::to_ap_cpp() const {
  std::string s = std::string("ap_") + (is_signed ? "" : "u") + "fixed<" + std::to_string(width) +
                  ", " + std::to_string(integer);
  if (quant != QuantMode::Trn || overflow != OverflowMode::Wrap)
    s += std::string(", AP_") + quant_name(quant);
  if (overflow != OverflowMode::Wrap) s += std::string(", AP_") + overflow_name(overflow);
  return s + ">";
}

std::optional<FixedType> parse_fixed_type(std::string_view text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<FixedType> {
    if (error) *error = "bad fixed-point type '" + std::string(text) + "': " + why;
    return std::nullopt;
  };
  const std::string s = trim(text);
  const size_t lt = s.find('<');
  if (lt == std::string::npos || s.empty() || s.back() != '>')
    return fail("expected e.g. ap_fixed<16,6>, ap_ufixed<8,0>, ap_int<8> or ap_uint<4>");
  std::string kind = trim(s.substr(0, lt));
  if (kind.rfind("ap_", 0) == 0) kind = kind.substr(3);
  const bool is_int = kind == "int" || kind == "uint";
  if (!is_int && kind != "fixed" && kind != "ufixed")
    return fail("unknown kind '" + kind + "' (expected fixed, ufixed, int or uint)");

  std::vector<std::string> args;
  const std::string inner = s.substr(lt + 1, s.size() - lt - 2);
  size_t start = 0;
  while (true) {
    const size_t comma = inner.find(',', start);
    args.push_back(trim(inner.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }

  FixedType t;
  t.is_signed = kind == "fixed" || kind == "int";
  if (is_int ? args.size() != 1 : (args.size() < 2 || args.size() > 4))
    return fail(is_int
                    ? "expected one parameter <W>"
                    : "expected <W,I>, <W,I,Q> or <W,I,Q,O> (saturation bits N are not supported)");
  const auto w = parse_int(args[0]);
  if (!w) return fail("width '" + args[0] + "' is not an integer");
  if (*w < 1 || *w > 64) return fail("width " + args[0] + " is outside 1..64");
  t.width = *w;
  t.integer = t.width;
  if (!is_int) {
    const auto i = parse_int(args[1]);
    if (!i) return fail("integer bits '" + args[1] + "' is not an integer");
    // ap_fixed allows any I; beyond +-256 no exact intermediate fits 128 bits.
    if (*i < -256 || *i > 256) return fail("integer bits " + args[1] + " is outside -256..256");
    t.integer = *i;
    if (args.size() >= 3) {
      const auto q = parse_quant(args[2]);
      if (!q) return fail("unknown quantization mode '" + args[2] + "'");
      t.quant = *q;
    }
    if (args.size() >= 4) {
      const auto o = parse_overflow(args[3]);
      if (!o) return fail("unknown overflow mode '" + args[3] + "'");
      t.overflow = *o;
    }
  }
  return t;
}

ExactFormat exact_format(const FixedType& t) {
  return {t.width, t.integer, t.is_signed};
}

ExactFormat add_format(const ExactFormat& a, const ExactFormat& b) {
  // ap_fixed: an unsigned operand next to a signed one needs one more bit.
  const int ia = a.integer + (b.is_signed && !a.is_signed ? 1 : 0);
  const int ib = b.integer + (a.is_signed && !b.is_signed ? 1 : 0);
  const int integer = std::max(ia, ib) + 1;
  return {integer + std::max(a.frac(), b.frac()), integer, a.is_signed || b.is_signed};
}
ExactFormat sub_format(const ExactFormat& a, const ExactFormat& b) {
  ExactFormat f = add_format(a, b);
  f.is_signed = true;  // a difference of unsigned values may be negative
  return f;
}
ExactFormat mul_format(const ExactFormat& a, const ExactFormat& b) {
  // A signed x unsigned product fits W1 + W2 signed bits; no extra bit.
  return {a.width + b.width, a.integer + b.integer, a.is_signed || b.is_signed};
}
ExactFormat add_format(const FixedType& a, const FixedType& b) {
  return add_format(exact_format(a), exact_format(b));
}
ExactFormat sub_format(const FixedType& a, const FixedType& b) {
  return sub_format(exact_format(a), exact_format(b));
}
ExactFormat mul_format(const FixedType& a, const FixedType& b) {
  return mul_format(exact_format(a), exact_format(b));
}

Exact to_exact(int64_t raw, const FixedType& t) {
  // ap_ufixed<64,...> keeps its raw bit pattern in int64_t.
  const int128 v =
      (!t.is_signed && t.width == 64) ? int128{static_cast<uint64_t>(raw)} : int128{raw};
  return {v, t.frac()};
}

Exact exact_add(const Exact& a, const Exact& b) {
  const int f = std::max(a.frac, b.frac);
  Exact r{0, f};
  const bool overflow = __builtin_add_overflow(shift_left_exact(a.raw, f - a.frac),
                                               shift_left_exact(b.raw, f - b.frac), &r.raw);
  KILN_ASSERT(!overflow, "exact fixed-point sum exceeds 128 bits");
  return r;
}

Exact exact_sub(const Exact& a, const Exact& b) {
  const int f = std::max(a.frac, b.frac);
  Exact r{0, f};
  const bool overflow = __builtin_sub_overflow(shift_left_exact(a.raw, f - a.frac),
                                               shift_left_exact(b.raw, f - b.frac), &r.raw);
  KILN_ASSERT(!overflow, "exact fixed-point difference exceeds 128 bits");
  return r;
}

Exact exact_mul(const Exact& a, const Exact& b) {
  Exact r{0, a.frac + b.frac};
  const bool overflow = __builtin_mul_overflow(a.raw, b.raw, &r.raw);
  KILN_ASSERT(!overflow, "exact fixed-point product exceeds 128 bits");
  return r;
}

Exact exact_neg(const Exact& a) {
  KILN_ASSERT(a.raw != kInt128Min, "exact fixed-point negation exceeds 128 bits");
  return {-a.raw, a.frac};
}

int64_t floor_scaled(const Exact& v, int s) {
  constexpr int128 kBig = int128{1} << 62;
  const int down = v.frac - s;
  int128 r;
  if (down >= 0) {
    r = down >= 126 ? (v.raw < 0 ? -1 : 0) : (v.raw >> down);
  } else if (-down >= 62) {
    r = v.raw == 0 ? 0 : (v.raw < 0 ? -kBig : kBig);
  } else {
    const int up = -down;
    r = v.raw > (kBig >> up) ? kBig : (v.raw < -(kBig >> up) ? -kBig : v.raw * (int128{1} << up));
  }
  return static_cast<int64_t>(std::clamp(r, -kBig, kBig));
}

int exact_compare(const Exact& a, const Exact& b) {
  const int128 d = exact_sub(a, b).raw;
  return d < 0 ? -1 : (d > 0 ? 1 : 0);
}

int64_t quantize(const Exact& v, const FixedType& t, OverflowEvent* event) {
  const int d = v.frac - t.frac();  // fraction bits to drop (> 0) or add (< 0)
  const bool negative = v.raw < 0;
  const uint128 mag =
      negative ? uint128{0} - static_cast<uint128>(v.raw) : static_cast<uint128>(v.raw);
  if (d <= 0) {
    const int s = -d;
    if (mag == 0) return fit(0, t, event);
    if (s >= 127 || v.raw > (kInt128Max >> s) || v.raw < (kInt128Min >> s)) {
      // Far outside any 64-bit format; only the low bits matter (for AP_WRAP).
      const uint64_t low = s >= 64 ? 0 : static_cast<uint64_t>(v.raw) << s;
      return overflowed(negative, low, t, event);
    }
    return fit(static_cast<int128>(static_cast<uint128>(v.raw) << s), t, event);
  }
  // Split |v| into q LSBs of t plus a dropped remainder, compared to half an LSB.
  uint128 q;
  bool above, tie, inexact;
  if (d > 128) {  // |v| <= 2^127 < half an LSB
    q = 0;
    above = tie = false;
    inexact = mag != 0;
  } else {
    const uint128 half = uint128{1} << (d - 1);
    const uint128 rem = d == 128 ? mag : mag & ((uint128{1} << d) - 1);
    q = d == 128 ? 0 : mag >> d;
    above = rem > half;
    tie = rem == half;
    inexact = rem != 0;
  }
  if (round_magnitude_up(t.quant, negative, q, above, tie, inexact)) ++q;
  const int128 r = static_cast<int128>(q);  // q <= 2^127 / 2 + 1
  return fit(negative ? -r : r, t, event);
}

int64_t quantize(double v, const FixedType& t, OverflowEvent* event) {
  KILN_ASSERT(!std::isnan(v), "NaN assigned to fixed-point format " + t.to_string());
  if (std::isinf(v)) {
    // Infinity behaves like a huge power of two: saturates, or wraps to 0.
    return quantize(Exact{v < 0 ? -1 : 1, -100000}, t, event);
  }
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m * 2^e, 0.5 <= |m| < 1
  // m * 2^53 is an integer (53-bit mantissa): v = mantissa * 2^(e - 53), exactly.
  const auto mantissa = static_cast<int64_t>(std::ldexp(m, 53));
  return quantize(Exact{mantissa, 53 - e}, t, event);
}

int64_t convert(int64_t raw, const FixedType& from, const FixedType& to, OverflowEvent* event) {
  return quantize(to_exact(raw, from), to, event);
}

double to_double(int64_t raw, const FixedType& t) {
  return to_double(to_exact(raw, t));
}

double to_double(const Exact& v) {
  return std::ldexp(static_cast<double>(v.raw), -v.frac);
}

}  // namespace kiln::numeric

// The shipped template header kiln_fixed.h: hand-computed cases, a randomized
// differential test against the runtime implementation (fixed.h), and a
// compile test of the shipped headers as generated projects build them.
#include "kiln/kiln_fixed.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kiln/numeric/fixed.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::numeric {
namespace {

template <int W, int I, bool S, kiln::qmode Q = kiln::TRN, kiln::omode O = kiln::WRAP>
using FB = kiln::fixed_base<W, I, S, Q, O>;

// ---------------------------------------------------------------------------
// Hand cases (the same numbers as fixed_test.cpp).

template <kiln::qmode Q>
std::vector<long long> round_all() {
  std::vector<long long> r;
  for (double x : {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -2.25, -2.75, 2.75}) {
    const kiln::fixed<8, 8, Q> from_double = x;
    // The same value from a fixed format with 2 fraction bits.
    const kiln::fixed<8, 8, Q> from_fixed = kiln::fixed<8, 6>(x);
    EXPECT_EQ(from_double.raw(), from_fixed.raw()) << x;
    r.push_back(from_double.raw());
  }
  return r;
}

TEST(KilnFixed, RoundingModes) {
  using V = std::vector<long long>;
  EXPECT_EQ(round_all<kiln::TRN>(), (V{-3, -2, -1, 0, 1, 2, -3, -3, 2}));
  EXPECT_EQ(round_all<kiln::TRN_ZERO>(), (V{-2, -1, 0, 0, 1, 2, -2, -2, 2}));
  EXPECT_EQ(round_all<kiln::RND>(), (V{-2, -1, 0, 1, 2, 3, -2, -3, 3}));
  EXPECT_EQ(round_all<kiln::RND_ZERO>(), (V{-2, -1, 0, 0, 1, 2, -2, -3, 3}));
  EXPECT_EQ(round_all<kiln::RND_MIN_INF>(), (V{-3, -2, -1, 0, 1, 2, -2, -3, 3}));
  EXPECT_EQ(round_all<kiln::RND_INF>(), (V{-3, -2, -1, 1, 2, 3, -2, -3, 3}));
  EXPECT_EQ(round_all<kiln::RND_CONV>(), (V{-2, -2, 0, 0, 2, 2, -2, -3, 3}));
}

TEST(KilnFixed, Saturation) {
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT>(100.0).raw()), 127);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT>(-100.0).raw()), -128);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT_SYM>(-100.0).raw()), -127);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT_SYM>(-8.0).raw()), -127);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT_SYM>(100.0).raw()), 127);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT_ZERO>(100.0).raw()), 0);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT_ZERO>(-100.0).raw()), 0);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT_ZERO>(-8.0).raw()), -128);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::RND, kiln::SAT>(7.96875).raw()), 127);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::RND, kiln::WRAP>(7.96875).raw()), -128);
  EXPECT_EQ((kiln::fixed<1, 1, kiln::TRN, kiln::SAT_SYM>(-5.0).raw()), -1);
  EXPECT_EQ((kiln::ufixed<8, 4, kiln::TRN, kiln::SAT>(-1.0).raw()), 0u);
  EXPECT_EQ((kiln::ufixed<8, 4, kiln::TRN, kiln::SAT>(20.0).raw()), 255u);
  EXPECT_EQ((kiln::ufixed<8, 4, kiln::TRN, kiln::SAT_SYM>(-1.0).raw()), 0u);
  EXPECT_EQ((kiln::ufixed<8, 4, kiln::TRN, kiln::SAT_ZERO>(20.0).raw()), 0u);
  EXPECT_EQ((kiln::ufixed<8, 4>(-1.0).raw()), 240u);
  EXPECT_EQ((kiln::ufixed<8, 4, kiln::TRN, kiln::WRAP>(-0.01).raw()), 255u);
  EXPECT_EQ((kiln::ufixed<8, 4, kiln::RND, kiln::WRAP>(-0.01).raw()), 0u);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ((kiln::fixed<16, 6, kiln::RND, kiln::SAT>(inf).raw()), 32767);
  EXPECT_EQ((kiln::fixed<16, 6, kiln::RND, kiln::SAT_SYM>(-inf).raw()), -32767);
  EXPECT_EQ((kiln::fixed<16, 6>(1e300).raw()), 0);
  EXPECT_EQ((kiln::fixed<16, 6>(-1e-300).raw()), -1);
  EXPECT_EQ((kiln::fixed<16, 6, kiln::TRN_ZERO>(-1e-300).raw()), 0);
  EXPECT_EQ((kiln::integer<64>(-std::ldexp(1.0, 63)).raw()), std::numeric_limits<long long>::min());
  EXPECT_EQ((kiln::uinteger<64>(std::ldexp(1.0, 63)).raw()), 1ULL << 63);
  EXPECT_EQ((kiln::fixed_base<64, 64, false, kiln::TRN, kiln::SAT>(1e30).raw()), ~0ULL);
}

TEST(KilnFixed, WrapAround) {
  EXPECT_EQ(kiln::integer<4>(8.0).raw(), -8);
  EXPECT_EQ(kiln::integer<4>(9).raw(), -7);
  EXPECT_EQ(kiln::integer<4>(-9).raw(), 7);
  EXPECT_EQ(kiln::integer<4>(16).raw(), 0);
  EXPECT_EQ(kiln::uinteger<8>(300).raw(), 44u);
  EXPECT_EQ(kiln::integer<8>(-300.0).raw(), -44);
  EXPECT_EQ(kiln::integer<16>(std::ldexp(1.0, 40) + 1024.0).raw(), 1024);
  // Integers are ap_int<32> / ap_uint<32> / ap_int<64>.
  EXPECT_EQ(kiln::uinteger<8>(-1).raw(), 255u);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT>(4000000000u).raw()), 127);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT>(-5000000000LL).raw()), -128);
}

TEST(KilnFixed, MixedWidths) {
  const kiln::fixed<8, 3> a = -2.625;
  const kiln::ufixed<6, 2> b = 3.25;
  EXPECT_EQ(a.raw(), -84);
  EXPECT_EQ(b.raw(), 52u);
  const auto p = a * b;
  static_assert(decltype(p)::width == 14 && decltype(p)::iwidth == 5 && decltype(p)::is_signed,
                "ap_fixed<8,3> * ap_ufixed<6,2> is ap_fixed<14,5>");
  EXPECT_EQ(p.raw(), -4368);
  EXPECT_EQ(p.to_double(), -8.53125);
  const auto s = a + b;
  static_assert(decltype(s)::width == 9 && decltype(s)::iwidth == 4 && decltype(s)::is_signed,
                "ap_fixed<8,3> + ap_ufixed<6,2> is ap_fixed<9,4>");
  EXPECT_EQ(s.raw(), 20);
  const auto d = kiln::ufixed<8, 4>(1.0) - kiln::ufixed<6, 6>(3.0);
  static_assert(decltype(d)::width == 11 && decltype(d)::iwidth == 7 && decltype(d)::is_signed,
                "a difference of unsigned values is signed");
  EXPECT_EQ(d.to_double(), -2.0);
  const auto uu = kiln::ufixed<8, 4>(1.0) + kiln::ufixed<6, 6>(3.0);
  static_assert(!decltype(uu)::is_signed, "unsigned + unsigned is unsigned");
  EXPECT_EQ(uu.to_double(), 4.0);
  EXPECT_EQ((kiln::fixed<16, 6>(p).raw()), -8736);
  EXPECT_EQ((kiln::fixed<12, 8, kiln::RND>(p).raw()), -136);
  EXPECT_EQ((kiln::fixed<12, 8, kiln::RND_INF>(p).raw()), -137);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::RND>(p).raw()), 120);
  EXPECT_EQ((kiln::fixed<8, 4, kiln::TRN, kiln::SAT>(p).raw()), -128);
  // Unary minus has one more bit: -(-128) fits.
  const auto n = -kiln::integer<8>(-128);
  static_assert(decltype(n)::width == 9, "unary minus widens");
  EXPECT_EQ(n.raw(), 128);
  EXPECT_EQ((-kiln::ufixed<4, 4>(15)).raw(), -15);
  // Products of two 64-bit formats are exact in 128 bits.
  const kiln::fixed<64, 32> big = 1.5;
  const auto sq = big * big;
  static_assert(decltype(sq)::width == 128, "exact 128-bit product");
  EXPECT_EQ((kiln::fixed<64, 32>(sq).raw()), 9LL << 30);
  // 0.5 * 2^-63 is half an LSB of ap_fixed<64,1>: a tie in 128 bits.
  const auto half = kiln::fixed<64, 1>::from_raw(1LL << 62);
  const auto lsb = kiln::fixed<64, 1>::from_raw(1);
  const auto neg_half = kiln::fixed<64, 1>::from_raw(-(1LL << 62));
  EXPECT_EQ((kiln::fixed<64, 1, kiln::RND>(half * lsb).raw()), 1);
  EXPECT_EQ((kiln::fixed<64, 1, kiln::RND_ZERO>(half * lsb).raw()), 0);
  EXPECT_EQ((kiln::fixed<64, 1, kiln::RND>(neg_half * lsb).raw()), 0);
  EXPECT_EQ((kiln::fixed<64, 1, kiln::RND_INF>(neg_half * lsb).raw()), -1);
  EXPECT_EQ((kiln::fixed<64, 1>(neg_half * lsb).raw()), -1);
}

TEST(KilnFixed, NegativeAndLargeIntegerBits) {
  EXPECT_EQ((kiln::fixed<4, -2, kiln::TRN, kiln::SAT>(0.05).raw()), 3);
  EXPECT_EQ((kiln::fixed<4, -2, kiln::TRN, kiln::SAT>(-0.05).raw()), -4);
  EXPECT_EQ((kiln::fixed<4, -2, kiln::TRN, kiln::SAT>(0.2).raw()), 7);
  EXPECT_EQ((kiln::fixed<4, -2, kiln::TRN, kiln::SAT>(-0.2).raw()), -8);
  EXPECT_EQ((kiln::fixed<4, 8>(40.0).raw()), 2);
  EXPECT_EQ((kiln::fixed<4, 8, kiln::RND>(40.0).raw()), 3);
  EXPECT_EQ((kiln::fixed<4, 8>(-40.0).raw()), -3);
  EXPECT_EQ((kiln::fixed<4, 8, kiln::RND>(-40.0).raw()), -2);
  EXPECT_EQ((kiln::fixed<4, 8, kiln::TRN, kiln::SAT>(200.0).raw()), 7);
  EXPECT_EQ((kiln::fixed<4, 8>(200.0).raw()), -4);
  EXPECT_EQ((kiln::fixed<4, 8>::from_raw(7).to_double()), 112.0);
  const kiln::fixed<4, -2> small = kiln::fixed<4, -2>::from_raw(-8);
  EXPECT_EQ((kiln::fixed<4, 8>(small).raw()), -1);
  EXPECT_EQ((kiln::fixed<16, 12>(kiln::fixed<4, 8>::from_raw(7)).raw()), 112 * 16);
}

TEST(KilnFixed, IntegerOperandsCompoundOpsAndComparisons) {
  kiln::fixed<16, 6> acc = 0;
  const kiln::fixed<8, 3> a = -2.625;
  const kiln::ufixed<6, 2> b = 3.25;
  acc += a * b;
  EXPECT_EQ(acc.to_double(), -8.53125);
  acc += 3;
  EXPECT_EQ(acc.to_double(), -5.53125);
  acc -= b;
  EXPECT_EQ(acc.to_double(), -8.78125);
  acc *= 2;
  EXPECT_EQ(acc.to_double(), -17.5625);
  acc *= 4;  // -70.25 wraps in 6 integer bits: -70.25 + 64
  EXPECT_EQ(acc.to_double(), -6.25);
  const auto sum = a + 1;
  static_assert(decltype(sum)::width == 38 && decltype(sum)::iwidth == 33,
                "an int operand is ap_int<32>");
  EXPECT_EQ(sum.to_double(), -1.625);
  EXPECT_EQ((2 * a).to_double(), -5.25);
  EXPECT_EQ((1 - a).to_double(), 3.625);
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(a <= b);
  EXPECT_FALSE(a > b);
  EXPECT_TRUE(b >= a);
  EXPECT_TRUE(a != b);
  EXPECT_TRUE((a == kiln::fixed<12, 4>(-2.625)));
  EXPECT_TRUE(a < 0);
  EXPECT_TRUE(a > -3);
  EXPECT_TRUE(-3 < a);
  EXPECT_FALSE(a == -2);
  EXPECT_TRUE((kiln::ufixed<8, 8>(200) > kiln::integer<8>(-100)));  // no unsigned surprise
  EXPECT_TRUE((kiln::ufixed<8, 8>(200) == 200u));
  EXPECT_TRUE((kiln::fixed<8, 4>(0.5) > 0));
  EXPECT_EQ((kiln::fixed<16, 6>(-1.5).to_float()), -1.5f);
  EXPECT_EQ((kiln::fixed<16, 6>(1.25f).raw()), 1280);
}

double assign_nan() {
  return kiln::fixed<8, 4>(std::nan("")).to_double();
}

TEST(KilnFixed, NanStopsSimulation) {
  EXPECT_DEATH(assign_nan(), "kiln: NaN");
}

// ---------------------------------------------------------------------------
// Differential test: the header against the runtime API, bit for bit.

constexpr QuantMode to_runtime(kiln::qmode q) {
  switch (q) {
    case kiln::TRN: return QuantMode::Trn;
    case kiln::TRN_ZERO: return QuantMode::TrnZero;
    case kiln::RND: return QuantMode::Rnd;
    case kiln::RND_ZERO: return QuantMode::RndZero;
    case kiln::RND_MIN_INF: return QuantMode::RndMinInf;
    case kiln::RND_INF: return QuantMode::RndInf;
    case kiln::RND_CONV: return QuantMode::RndConv;
  }
  return QuantMode::Trn;
}
constexpr OverflowMode to_runtime(kiln::omode o) {
  switch (o) {
    case kiln::WRAP: return OverflowMode::Wrap;
    case kiln::SAT: return OverflowMode::Sat;
    case kiln::SAT_ZERO: return OverflowMode::SatZero;
    case kiln::SAT_SYM: return OverflowMode::SatSym;
  }
  return OverflowMode::Wrap;
}

template <class T>
FixedType runtime_type() {
  return FixedType{.width = T::width,
                   .integer = T::iwidth,
                   .is_signed = T::is_signed,
                   .quant = to_runtime(T::qmode_value),
                   .overflow = to_runtime(T::omode_value)};
}

template <class T>
int64_t raw64(const T& x) {
  return static_cast<int64_t>(x.raw());
}

// The value of a (possibly 128-bit) header result as an Exact.
template <class T>
Exact exact_of(const T& x) {
  return Exact{static_cast<int128>(x.raw()), T::width - T::iwidth};
}

bool same_value(const Exact& a, const Exact& b) {
  // Both are exact; compare at the finer scale (formats here stay well in range).
  const int f = std::max(a.frac, b.frac);
  return a.raw * (int128{1} << (f - a.frac)) == b.raw * (int128{1} << (f - b.frac));
}

std::string str(int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  __extension__ unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : v;
  std::string s;
  while (u != 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

// Operand formats: signed and unsigned, I < 0, I > W, 1 bit, 64 bits.
using Sources = std::tuple<FB<8, 3, true>, FB<6, 2, false>, FB<16, 6, true>, FB<16, 8, false>,
                           FB<1, 1, true>, FB<4, -2, true>, FB<5, 9, true>, FB<32, 16, true>,
                           FB<31, 1, false>, FB<64, 32, true>, FB<64, 20, false>, FB<63, 0, true>,
                           FB<12, 12, true>, FB<1, 0, false>>;
// Assignment targets: every mode, W from 1 to 64.
using Targets = std::tuple<
    FB<8, 3, true, kiln::TRN, kiln::WRAP>, FB<16, 6, true, kiln::RND, kiln::SAT>,
    FB<8, 4, false, kiln::RND_CONV, kiln::SAT>, FB<12, 2, true, kiln::RND_ZERO, kiln::SAT_SYM>,
    FB<10, -1, true, kiln::RND_MIN_INF, kiln::SAT_ZERO>,
    FB<12, 14, false, kiln::RND_INF, kiln::WRAP>, FB<24, 8, true, kiln::TRN_ZERO, kiln::SAT>,
    FB<64, 32, true, kiln::RND, kiln::SAT>, FB<64, 10, false, kiln::RND_CONV, kiln::WRAP>,
    FB<1, 1, true, kiln::RND, kiln::SAT_SYM>, FB<33, 17, true, kiln::RND_INF, kiln::SAT_SYM>,
    FB<63, 30, false, kiln::TRN_ZERO, kiln::SAT_ZERO>, FB<62, 60, true, kiln::RND_CONV, kiln::SAT>,
    FB<3, 3, true, kiln::RND, kiln::WRAP>, FB<40, 20, false, kiln::TRN, kiln::SAT_SYM>,
    FB<20, 0, true, kiln::RND_ZERO, kiln::WRAP>>;
constexpr size_t kSources = std::tuple_size_v<Sources>;
constexpr size_t kTargets = std::tuple_size_v<Targets>;

struct Checker {
  std::mt19937_64 rng{20240611};
  long checks = 0;
  int failures = 0;

  void fail(const std::string& what) {
    ++failures;
    if (failures <= 20) ADD_FAILURE() << what;
  }

  // Random raw bits of a random length, so values of every magnitude occur.
  template <class T>
  T random_value() {
    const int len = static_cast<int>(rng() % T::width) + 1;
    const uint64_t bits = len == 64 ? rng() : rng() & ((uint64_t{1} << len) - 1);
    uint64_t v = bits;
    if (T::is_signed && (rng() & 1)) v = ~v;  // negative half of the time
    return T::from_raw(static_cast<typename T::raw_type>(v));
  }

  template <class T>
  void check_assign(const Exact& value, const T& got, const std::string& what) {
    ++checks;
    OverflowEvent event;
    const int64_t want = quantize(value, runtime_type<T>(), &event);
    if (raw64(got) != want)
      fail(what + " -> " + runtime_type<T>().to_string() + ": header raw " +
           std::to_string(raw64(got)) + ", runtime raw " + std::to_string(want) + " (exact " +
           str(value.raw) + " * 2^-" + std::to_string(value.frac) + ")");
  }

  // Checks an exact op result and assigns it to three targets picked by `seed`.
  template <size_t Seed, class R>
  void check_result(const R& got, const Exact& want, const ExactFormat& format,
                    const std::string& what) {
    ++checks;
    if (R::width != format.width || R::iwidth != format.integer || R::is_signed != format.is_signed)
      fail(what + ": header format <" + std::to_string(R::width) + "," + std::to_string(R::iwidth) +
           "," + std::to_string(R::is_signed) + "> runtime <" + std::to_string(format.width) + "," +
           std::to_string(format.integer) + "," + std::to_string(format.is_signed) + ">");
    if (!same_value(exact_of(got), want))
      fail(what + ": header " + str(exact_of(got).raw) + " runtime " + str(want.raw));
    assign_to<R, Seed % kTargets, (Seed + 5) % kTargets, (Seed + 11) % kTargets>(got, want, what);
  }

  template <class R, size_t... Ts>
  void assign_to(const R& got, const Exact& want, const std::string& what) {
    (check_assign(want, std::tuple_element_t<Ts, Targets>(got), what), ...);
  }

  template <class A, class B, size_t Seed>
  void check_pair(int samples) {
    const FixedType ta = runtime_type<A>(), tb = runtime_type<B>();
    for (int n = 0; n < samples; ++n) {
      const A a = random_value<A>();
      const B b = random_value<B>();
      const Exact ea = to_exact(raw64(a), ta), eb = to_exact(raw64(b), tb);
      const std::string what =
          ta.to_string() + " " + str(ea.raw) + ", " + tb.to_string() + " " + str(eb.raw);
      check_result<Seed>(a + b, exact_add(ea, eb), add_format(ta, tb), what + " +");
      check_result<Seed + 1>(a - b, exact_sub(ea, eb), sub_format(ta, tb), what + " -");
      // ap_ufixed<64> x ap_ufixed<64> would need 128 unsigned bits (unsupported).
      if constexpr (A::is_signed || B::is_signed || A::width + B::width <= 127)
        check_result<Seed + 2>(a * b, exact_mul(ea, eb), mul_format(ta, tb), what + " *");
      const int128 diff = exact_sub(ea, eb).raw;
      ++checks;
      if ((a < b) != (diff < 0) || (a <= b) != (diff <= 0) || (a > b) != (diff > 0) ||
          (a >= b) != (diff >= 0) || (a == b) != (diff == 0) || (a != b) != (diff != 0))
        fail(what + ": comparison");
    }
  }

  template <size_t... Is>
  void all_pairs(int samples, std::index_sequence<Is...>) {
    (check_pair<std::tuple_element_t<Is / kSources, Sources>,
                std::tuple_element_t<Is % kSources, Sources>, Is * 3>(samples),
     ...);
  }

  // Direct conversions, negation and integer operands, for every source.
  template <class A, size_t Seed>
  void check_source(int samples) {
    const FixedType ta = runtime_type<A>();
    const FixedType int32 = FixedType{.width = 32, .integer = 32};
    for (int n = 0; n < samples; ++n) {
      const A a = random_value<A>();
      const Exact ea = to_exact(raw64(a), ta);
      const std::string what = ta.to_string() + " " + str(ea.raw);
      assign_all(a, ea, what, std::make_index_sequence<kTargets>());
      check_result<Seed>(-a, exact_neg(ea), ExactFormat{ta.width + 1, ta.integer + 1, true},
                         what + " negated");
      const int k = static_cast<int>(rng() % 2001) - 1000;
      const Exact ek = to_exact(k, int32);
      check_result<Seed + 1>(a + k, exact_add(ea, ek), add_format(ta, int32), what + " + int");
      check_result<Seed + 2>(k * a, exact_mul(ek, ea), mul_format(int32, ta), what + " int *");
    }
  }

  template <class A, size_t... Ts>
  void assign_all(const A& a, const Exact& ea, const std::string& what,
                  std::index_sequence<Ts...>) {
    (check_assign(ea, std::tuple_element_t<Ts, Targets>(a), what), ...);
  }

  template <size_t... Is>
  void all_sources(int samples, std::index_sequence<Is...>) {
    (check_source<std::tuple_element_t<Is, Sources>, Is * 7>(samples), ...);
  }

  // Doubles: exact dyadic values (ties included), arbitrary ones, extremes.
  double random_double() {
    switch (rng() % 4) {
      case 0: {  // k / 2^s: often exactly a tie at some target's precision
        const double k = static_cast<double>(static_cast<int64_t>(rng() % 2000001) - 1000000);
        return std::ldexp(k, -static_cast<int>(rng() % 40));
      }
      case 1: {
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        return std::ldexp(u(rng), static_cast<int>(rng() % 140) - 70);
      }
      case 2: {
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        return std::ldexp(u(rng), static_cast<int>(rng() % 2000) - 1000);
      }
      default: {
        const double special[] = {0.0,
                                  -0.0,
                                  0.5,
                                  -0.5,
                                  1.5,
                                  -1.5,
                                  1e300,
                                  -1e300,
                                  std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::denorm_min(),
                                  -std::numeric_limits<double>::denorm_min(),
                                  std::ldexp(1.0, 63),
                                  -std::ldexp(1.0, 63),
                                  std::ldexp(1.0, 64)};
        return special[rng() % std::size(special)];
      }
    }
  }

  template <class T>
  void check_double(double x) {
    ++checks;
    const int64_t want = quantize(x, runtime_type<T>());
    const int64_t got = raw64(T(x));
    if (got != want)
      fail("double " + std::to_string(x) + " -> " + runtime_type<T>().to_string() + ": header " +
           std::to_string(got) + ", runtime " + std::to_string(want));
  }

  template <size_t... Ts>
  void doubles(int samples, std::index_sequence<Ts...>) {
    for (int n = 0; n < samples; ++n) {
      const double x = random_double();
      (check_double<std::tuple_element_t<Ts, Targets>>(x), ...);
    }
  }
};

TEST(KilnFixed, DifferentialAgainstRuntime) {
  Checker c;
  c.all_pairs(40, std::make_index_sequence<kSources * kSources>());
  c.all_sources(400, std::make_index_sequence<kSources>());
  c.doubles(4000, std::make_index_sequence<kTargets>());
  EXPECT_EQ(c.failures, 0);
  EXPECT_GT(c.checks, 100000);
  std::printf("differential checks: %ld\n", c.checks);
}

// ---------------------------------------------------------------------------
// The shipped headers compile warning-free as C++14 and run, as projects do.

std::string source_dir() {
  return kiln::testing::source_dir().string();
}

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return "popen failed";
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  if (status != 0) out += "\n[exit status " + std::to_string(status) + "]";
  return out;
}

TEST(KilnFixed, ShippedHeadersCompileAsCxx14) {
  const std::string include = source_dir() + "/src/kiln/hls/include";
  ASSERT_TRUE(std::filesystem::exists(include + "/kiln/kiln_fixed.h")) << include;
  testing::TempDir dir;
  testing::write_bytes(dir / "main.cpp", R"(#include "kiln/kiln_common.h"
#include "kiln/kiln_fixed.h"

#include <cstdio>

typedef kiln::fixed<16, 6> data_t;
typedef kiln::fixed<32, 12, kiln::RND, kiln::SAT> acc_t;

int main() {
  data_t x[3] = {1.5, -2.25, 0.125};
  kiln::ufixed<8, 2> w[3] = {0.5, 1.75, 3.0};
  acc_t acc = kiln::param_t(0.5);
  for (int i = 0; i < 3; ++i) acc += x[i] * w[i];
  kiln::stream<kiln::array<data_t, 2> > s;
  kiln::array<data_t, 2> v;
  v[0] = acc;
  v[1] = -acc;
  s.write(v);
  kiln::array<data_t, 2> r = s.read();
  kiln::integer<8> i8 = 300;
  kiln::uinteger<4> u4 = -1;
  const bool neg = r[0] < 0 && r[1] >= 1 && r[0] != r[1] && -r[0] == r[1];
  std::printf("%g %g %lld %lld %lld %d %d %d\n", r[0].to_double(), r[1].to_double(),
              kiln::raw_bits(r[0]), kiln::floor_scaled<2>(r[1]), (long long)i8.raw(),
              (int)u4.raw(), neg ? 1 : 0, kiln::fixed_traits<acc_t>::frac);
  return 0;
}
)");
  const std::string exe = (dir / "main").string();
  const std::string compile = "g++ -std=c++14 -Wall -Wextra -Wpedantic -Werror -I '" + include +
                              "' '" + (dir / "main.cpp").string() + "' -o '" + exe + "'";
  const std::string diagnostics = run(compile);
  ASSERT_EQ(diagnostics, "") << compile;
  // acc = 0.5 + 0.75 - 3.9375 + 0.375 = -2.3125; 2^10 * -2.3125 = -2368;
  // floor(2.3125 * 4) = 9; 300 wraps to 44 in 8 bits; -1 wraps to 15 in 4 bits.
  EXPECT_EQ(run("'" + exe + "'"), "-2.3125 2.3125 -2368 9 44 15 1 20\n");
}

}  // namespace
}  // namespace kiln::numeric

// Hand-computed cases for the runtime ap_fixed semantics (fixed.h).
#include "kiln/numeric/fixed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kiln/support/testing/test_helpers.h"

namespace kiln::numeric {
namespace {

using Q = QuantMode;
using O = OverflowMode;

FixedType fx(int w, int i, Q q = Q::Trn, O o = O::Wrap) {
  return FixedType{.width = w, .integer = i, .is_signed = true, .quant = q, .overflow = o};
}
FixedType ufx(int w, int i, Q q = Q::Trn, O o = O::Wrap) {
  return FixedType{.width = w, .integer = i, .is_signed = false, .quant = q, .overflow = o};
}

// Inputs -2.5 -1.5 -0.5 0.5 1.5 2.5 -2.25 -2.75 2.75 rounded to integers
// (ap_fixed<8,8,Q>), by hand from each mode's definition.
const std::vector<double> kRoundInputs = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -2.25, -2.75, 2.75};
struct RoundCase {
  Q mode;
  std::vector<int64_t> expected;
};
const std::vector<RoundCase> kRoundCases = {
    {Q::Trn, {-3, -2, -1, 0, 1, 2, -3, -3, 2}},       {Q::TrnZero, {-2, -1, 0, 0, 1, 2, -2, -2, 2}},
    {Q::Rnd, {-2, -1, 0, 1, 2, 3, -2, -3, 3}},        {Q::RndZero, {-2, -1, 0, 0, 1, 2, -2, -3, 3}},
    {Q::RndMinInf, {-3, -2, -1, 0, 1, 2, -2, -3, 3}}, {Q::RndInf, {-3, -2, -1, 1, 2, 3, -2, -3, 3}},
    {Q::RndConv, {-2, -2, 0, 0, 2, 2, -2, -3, 3}},
};

TEST(Fixed, RoundingModesFromDouble) {
  for (const RoundCase& c : kRoundCases) {
    const FixedType t = fx(8, 8, c.mode);
    for (size_t k = 0; k < kRoundInputs.size(); ++k)
      EXPECT_EQ(quantize(kRoundInputs[k], t), c.expected[k])
          << t.to_string() << " <- " << kRoundInputs[k];
  }
}

TEST(Fixed, RoundingModesFromFixed) {
  // The same values as raw LSBs of ap_fixed<8,6> (2 fraction bits).
  const FixedType src = fx(8, 6);
  for (const RoundCase& c : kRoundCases) {
    const FixedType t = fx(8, 8, c.mode);
    for (size_t k = 0; k < kRoundInputs.size(); ++k) {
      const auto raw = static_cast<int64_t>(kRoundInputs[k] * 4);
      EXPECT_EQ(convert(raw, src, t), c.expected[k]) << t.to_string() << " <- " << kRoundInputs[k];
    }
  }
}

TEST(Fixed, RoundingAtFractionalPositions) {
  // 0.375 = 3/8 to 2 fraction bits: 1.5 quarters -> tie.
  EXPECT_EQ(quantize(0.375, fx(8, 6, Q::RndConv)), 2);  // 2 (even)
  EXPECT_EQ(quantize(0.625, fx(8, 6, Q::RndConv)), 2);  // 2.5 quarters -> 2
  EXPECT_EQ(quantize(0.625, fx(8, 6, Q::Rnd)), 3);
  EXPECT_EQ(quantize(-0.625, fx(8, 6, Q::Rnd)), -2);
  EXPECT_EQ(quantize(-0.625, fx(8, 6, Q::RndInf)), -3);
  // Not a tie: 0.6 = 2.4 quarters.
  EXPECT_EQ(quantize(0.6, fx(8, 6, Q::RndInf)), 2);
  EXPECT_EQ(quantize(-0.6, fx(8, 6, Q::Trn)), -3);
  EXPECT_EQ(quantize(-0.6, fx(8, 6, Q::TrnZero)), -2);
  // A tie a long way down: 1 + 2^-40 is above the tie at 2^-41 below it.
  EXPECT_EQ(quantize(std::ldexp(1.0, -41), fx(8, 8, Q::Rnd)), 0);
  EXPECT_EQ(quantize(0.5 + std::ldexp(1.0, -41), fx(8, 8, Q::RndZero)), 1);
  EXPECT_EQ(quantize(-0.5 - std::ldexp(1.0, -41), fx(8, 8, Q::Rnd)), -1);
}

TEST(Fixed, SaturationSigned) {
  // ap_fixed<8,4>: raw -128..127, value -8 .. 7.9375.
  EXPECT_EQ(quantize(100.0, fx(8, 4, Q::Trn, O::Sat)), 127);
  EXPECT_EQ(quantize(-100.0, fx(8, 4, Q::Trn, O::Sat)), -128);
  EXPECT_EQ(quantize(-8.0, fx(8, 4, Q::Trn, O::Sat)), -128);
  EXPECT_EQ(quantize(7.9375, fx(8, 4, Q::Trn, O::Sat)), 127);
  EXPECT_EQ(quantize(100.0, fx(8, 4, Q::Trn, O::SatSym)), 127);
  EXPECT_EQ(quantize(-100.0, fx(8, 4, Q::Trn, O::SatSym)), -127);
  EXPECT_EQ(quantize(-8.0, fx(8, 4, Q::Trn, O::SatSym)), -127);  // min itself becomes -max
  EXPECT_EQ(quantize(-7.9375, fx(8, 4, Q::Trn, O::SatSym)), -127);
  EXPECT_EQ(quantize(100.0, fx(8, 4, Q::Trn, O::SatZero)), 0);
  EXPECT_EQ(quantize(-100.0, fx(8, 4, Q::Trn, O::SatZero)), 0);
  EXPECT_EQ(quantize(-8.0, fx(8, 4, Q::Trn, O::SatZero)), -128);  // in range
  for (O o : {O::Wrap, O::Sat, O::SatZero, O::SatSym})
    EXPECT_EQ(quantize(3.5, fx(8, 4, Q::Trn, o)), 56);
  // Rounding carries into overflow: 7.96875 = 127.5 LSBs -> 128 -> clamp.
  EXPECT_EQ(quantize(7.96875, fx(8, 4, Q::Rnd, O::Sat)), 127);
  EXPECT_EQ(quantize(7.96875, fx(8, 4, Q::Rnd, O::Wrap)), -128);
  EXPECT_EQ(quantize(7.96875, fx(8, 4, Q::Trn, O::Wrap)), 127);
  // A 1-bit signed format keeps its min under AP_SAT_SYM (as ap_fixed).
  EXPECT_EQ(quantize(-5.0, fx(1, 1, Q::Trn, O::SatSym)), -1);
  EXPECT_EQ(quantize(5.0, fx(1, 1, Q::Trn, O::SatSym)), 0);
}

TEST(Fixed, SaturationUnsigned) {
  // ap_ufixed<8,4>: raw 0..255, value 0 .. 15.9375.
  EXPECT_EQ(quantize(-1.0, ufx(8, 4, Q::Trn, O::Sat)), 0);
  EXPECT_EQ(quantize(20.0, ufx(8, 4, Q::Trn, O::Sat)), 255);
  EXPECT_EQ(quantize(-1.0, ufx(8, 4, Q::Trn, O::SatSym)), 0);
  EXPECT_EQ(quantize(20.0, ufx(8, 4, Q::Trn, O::SatSym)), 255);
  EXPECT_EQ(quantize(20.0, ufx(8, 4, Q::Trn, O::SatZero)), 0);
  EXPECT_EQ(quantize(-0.01, ufx(8, 4, Q::Trn, O::Sat)), 0);     // floor -> -1 LSB -> 0
  EXPECT_EQ(quantize(-0.01, ufx(8, 4, Q::Trn, O::Wrap)), 255);  // -1 LSB wraps to 255
  EXPECT_EQ(quantize(-0.01, ufx(8, 4, Q::Rnd, O::Wrap)), 0);    // rounds to 0 first
  EXPECT_EQ(quantize(-1.0, ufx(8, 4)), 240);                    // -16 LSBs mod 256
}

TEST(Fixed, WrapAround) {
  EXPECT_EQ(quantize(8.0, fx(4, 4)), -8);
  EXPECT_EQ(quantize(9.0, fx(4, 4)), -7);
  EXPECT_EQ(quantize(-9.0, fx(4, 4)), 7);
  EXPECT_EQ(quantize(16.0, fx(4, 4)), 0);
  EXPECT_EQ(quantize(300.0, ufx(8, 8)), 44);
  EXPECT_EQ(quantize(-300.0, fx(8, 8)), -44);  // -300 + 256 = -44
  OverflowEvent e = OverflowEvent::None;
  quantize(8.0, fx(4, 4), &e);
  EXPECT_EQ(e, OverflowEvent::Wrapped);
  quantize(8.0, fx(4, 4, Q::Trn, O::Sat), &e);
  EXPECT_EQ(e, OverflowEvent::Saturated);
  quantize(7.0, fx(4, 4, Q::Trn, O::Sat), &e);
  EXPECT_EQ(e, OverflowEvent::None);
  quantize(-8.0, fx(4, 4, Q::Trn, O::SatSym), &e);
  EXPECT_EQ(e, OverflowEvent::Saturated);
}

TEST(Fixed, HugeAndTinyDoubles) {
  // 1e300 has only zero bits below 2^900: wraps to 0, saturates to max.
  EXPECT_EQ(quantize(1e300, fx(16, 6)), 0);
  EXPECT_EQ(quantize(1e300, fx(16, 6, Q::Trn, O::Sat)), 32767);
  EXPECT_EQ(quantize(-1e300, fx(16, 6, Q::Trn, O::Sat)), -32768);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(quantize(inf, fx(16, 6, Q::Rnd, O::Sat)), 32767);
  EXPECT_EQ(quantize(-inf, fx(16, 6, Q::Rnd, O::Sat)), -32768);
  EXPECT_EQ(quantize(-inf, fx(16, 6, Q::Rnd, O::SatSym)), -32767);
  EXPECT_EQ(quantize(inf, fx(16, 6)), 0);
  // 2^40 + 2^10 into ap_int<16> wraps to 2^10.
  EXPECT_EQ(quantize(std::ldexp(1.0, 40) + 1024.0, fx(16, 16)), 1024);
  EXPECT_EQ(quantize(1e-300, fx(16, 6)), 0);
  EXPECT_EQ(quantize(-1e-300, fx(16, 6)), -1);  // floor
  EXPECT_EQ(quantize(-1e-300, fx(16, 6, Q::TrnZero)), 0);
  EXPECT_EQ(quantize(-1e-300, fx(16, 6, Q::RndMinInf)), 0);
  EXPECT_EQ(quantize(std::numeric_limits<double>::denorm_min(), ufx(8, 0, Q::RndInf)), 0);
  EXPECT_EQ(quantize(-0.0, fx(8, 4)), 0);
  const Error err = testing::catch_error([] { quantize(std::nan(""), fx(8, 4)); });
  EXPECT_EQ(err.kind(), ErrorKind::Internal);
}

TEST(Fixed, SixtyFourBitFormats) {
  const FixedType i64 = fx(64, 64, Q::Trn, O::Sat);
  EXPECT_EQ(quantize(-std::ldexp(1.0, 63), i64), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(quantize(std::ldexp(1.0, 63), i64), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(quantize(std::ldexp(1.0, 63), fx(64, 64)), std::numeric_limits<int64_t>::min());
  // ap_uint<64>: raw values are uint64_t bit patterns.
  const FixedType u64 = ufx(64, 64, Q::Trn, O::Sat);
  EXPECT_EQ(static_cast<uint64_t>(quantize(1e30, u64)), ~uint64_t{0});
  EXPECT_EQ(static_cast<uint64_t>(quantize(std::ldexp(1.0, 63), u64)), uint64_t{1} << 63);
  EXPECT_EQ(to_double(quantize(std::ldexp(1.0, 63), u64), u64), std::ldexp(1.0, 63));
  EXPECT_EQ(u64.max_value(), std::ldexp(1.0, 64));  // 2^64 - 1 rounds to 2^64 in a double
  EXPECT_EQ(to_exact(-1, u64).raw, (int128{1} << 64) - 1);
  // 1.5 in ap_fixed<64,32> squared, exactly 2.25, back into the same format.
  const FixedType f = fx(64, 32);
  const int64_t r = quantize(1.5, f);
  EXPECT_EQ(r, int64_t{3} << 31);
  EXPECT_EQ(quantize(exact_mul(to_exact(r, f), to_exact(r, f)), f), int64_t{9} << 30);
}

TEST(Fixed, MixedWidthsExactFormats) {
  const FixedType a = fx(8, 3), b = ufx(6, 2);
  const ExactFormat m = mul_format(a, b);
  EXPECT_EQ(m.width, 14);
  EXPECT_EQ(m.integer, 5);
  EXPECT_TRUE(m.is_signed);
  const ExactFormat s = add_format(a, b);  // I = max(3, 2 + 1) + 1, F = max(5, 4)
  EXPECT_EQ(s.width, 9);
  EXPECT_EQ(s.integer, 4);
  EXPECT_TRUE(s.is_signed);
  const ExactFormat uu = add_format(ufx(8, 4), ufx(6, 6));
  EXPECT_EQ(uu.width, 11);
  EXPECT_EQ(uu.integer, 7);
  EXPECT_FALSE(uu.is_signed);
  EXPECT_TRUE(sub_format(ufx(8, 4), ufx(6, 6)).is_signed);

  // -2.625 (raw -84, F=5) * 3.25 (raw 52, F=4) = -8.53125 = -4368 / 2^9.
  const int64_t ra = quantize(-2.625, a), rb = quantize(3.25, b);
  EXPECT_EQ(ra, -84);
  EXPECT_EQ(rb, 52);
  const Exact p = exact_mul(to_exact(ra, a), to_exact(rb, b));
  EXPECT_EQ(p.raw, -4368);
  EXPECT_EQ(p.frac, 9);
  EXPECT_EQ(to_double(p), -8.53125);
  EXPECT_EQ(quantize(p, fx(16, 6)), -8736);            // -8.53125 * 2^10
  EXPECT_EQ(quantize(p, fx(12, 8, Q::Rnd)), -136);     // -136.5 LSBs, tie up
  EXPECT_EQ(quantize(p, fx(12, 8, Q::RndInf)), -137);  // tie away from zero
  EXPECT_EQ(quantize(p, fx(8, 4, Q::Rnd)), 120);       // -136 wraps: -136 + 256
  EXPECT_EQ(quantize(p, fx(8, 4, Q::Trn, O::Sat)), -128);
  // Sum: -2.625 + 3.25 = 0.625 with 5 fraction bits.
  const Exact s2 = exact_add(to_exact(ra, a), to_exact(rb, b));
  EXPECT_EQ(s2.raw, 20);
  EXPECT_EQ(s2.frac, 5);
  const Exact d = exact_sub(to_exact(rb, b), to_exact(ra, a));  // 5.875
  EXPECT_EQ(to_double(d), 5.875);
  EXPECT_EQ(to_double(exact_neg(d)), -5.875);
}

TEST(Fixed, NegativeAndLargeIntegerBits) {
  // ap_fixed<4,-2>: 6 fraction bits, raw -8..7, value -0.125 .. 0.109375.
  const FixedType small = fx(4, -2, Q::Trn, O::Sat);
  EXPECT_EQ(quantize(0.05, small), 3);  // 3.2 LSBs
  EXPECT_EQ(quantize(-0.05, small), -4);
  EXPECT_EQ(quantize(0.2, small), 7);
  EXPECT_EQ(quantize(-0.2, small), -8);
  EXPECT_DOUBLE_EQ(small.max_value(), 0.109375);
  EXPECT_DOUBLE_EQ(small.lsb(), 1.0 / 64);
  // ap_fixed<4,8>: LSB 16, raw -8..7, value -128 .. 112.
  const FixedType big = fx(4, 8);
  EXPECT_EQ(quantize(40.0, big), 2);  // 2.5 LSBs
  EXPECT_EQ(quantize(40.0, fx(4, 8, Q::Rnd)), 3);
  EXPECT_EQ(quantize(-40.0, big), -3);
  EXPECT_EQ(quantize(-40.0, fx(4, 8, Q::Rnd)), -2);
  EXPECT_EQ(quantize(200.0, fx(4, 8, Q::Trn, O::Sat)), 7);
  EXPECT_EQ(quantize(200.0, big), -4);  // 12.5 -> 12 -> low 4 bits 1100
  EXPECT_EQ(to_double(7, big), 112.0);
  EXPECT_EQ(big.min_value(), -128.0);
  // Converting between them: 0.109375 into LSB 16 is 0 (TRN) or 0 (RND).
  EXPECT_EQ(convert(7, small, fx(4, 8, Q::Rnd)), 0);
  EXPECT_EQ(convert(-8, small, big), -1);  // floor(-0.125 / 16)
  EXPECT_EQ(convert(7, big, fx(16, 12)), 112 * 16);
}

TEST(Fixed, FormatLimits) {
  EXPECT_EQ(fx(8, 4).max_raw(), 127);
  EXPECT_EQ(fx(8, 4).min_raw(), -128);
  EXPECT_EQ(ufx(8, 4).max_raw(), 255);
  EXPECT_EQ(ufx(8, 4).min_raw(), 0);
  EXPECT_EQ(fx(8, 4).max_value(), 7.9375);
  EXPECT_EQ(fx(8, 4).min_value(), -8.0);
  EXPECT_EQ(fx(8, 4).lsb(), 0.0625);
  EXPECT_EQ(fx(64, 64).min_raw(), std::numeric_limits<int64_t>::min());
}

TEST(Fixed, ExactOverflowIsInternal) {
  // 2^100 * 2^-100 aligned to one scale needs more than 128 bits.
  const Exact a{1, -100}, b{1, 100};
  EXPECT_EQ(testing::catch_error([&] { exact_add(a, b); }).kind(), ErrorKind::Internal);
  const Exact c{int128{1} << 100, 0};
  EXPECT_EQ(testing::catch_error([&] { exact_mul(c, c); }).kind(), ErrorKind::Internal);
}

TEST(Fixed, ParsePrintRoundTrip) {
  struct Case {
    const char* text;
    FixedType type;
    const char* printed;
  };
  const std::vector<Case> cases = {
      {"ap_fixed<16,6>", fx(16, 6), "ap_fixed<16,6>"},
      {"ap_fixed<16, 6, AP_RND, AP_SAT>", fx(16, 6, Q::Rnd, O::Sat),
       "ap_fixed<16,6,AP_RND,AP_SAT>"},
      {"ap_ufixed<8,0>", ufx(8, 0), "ap_ufixed<8,0>"},
      {"ap_int<8>", fx(8, 8), "ap_int<8>"},
      {"ap_uint<4>", ufx(4, 4), "ap_uint<4>"},
      {"fixed<16,6>", fx(16, 6), "ap_fixed<16,6>"},
      {"ufixed<8,2,RND_CONV>", ufx(8, 2, Q::RndConv), "ap_ufixed<8,2,AP_RND_CONV>"},
      {"int<12>", fx(12, 12), "ap_int<12>"},
      {" uint< 3 > ", ufx(3, 3), "ap_uint<3>"},
      {"ap_fixed<8,-2>", fx(8, -2), "ap_fixed<8,-2>"},
      {"ap_fixed<4,8,AP_TRN,AP_SAT_SYM>", fx(4, 8, Q::Trn, O::SatSym),
       "ap_fixed<4,8,AP_TRN,AP_SAT_SYM>"},
      {"ap_fixed<8,8,AP_TRN,AP_SAT>", fx(8, 8, Q::Trn, O::Sat), "ap_fixed<8,8,AP_TRN,AP_SAT>"},
      {"ap_fixed<64,32,ap_rnd_zero,ap_sat_zero>", fx(64, 32, Q::RndZero, O::SatZero),
       "ap_fixed<64,32,AP_RND_ZERO,AP_SAT_ZERO>"},
      {"ap_fixed<10,4,AP_RND_MIN_INF>", fx(10, 4, Q::RndMinInf), "ap_fixed<10,4,AP_RND_MIN_INF>"},
      {"ap_ufixed<10,4,AP_RND_INF,AP_WRAP>", ufx(10, 4, Q::RndInf), "ap_ufixed<10,4,AP_RND_INF>"},
      {"ap_fixed<10,4,AP_TRN_ZERO>", fx(10, 4, Q::TrnZero), "ap_fixed<10,4,AP_TRN_ZERO>"},
  };
  for (const Case& c : cases) {
    std::string error;
    const auto t = parse_fixed_type(c.text, &error);
    ASSERT_TRUE(t.has_value()) << c.text << ": " << error;
    EXPECT_EQ(*t, c.type) << c.text;
    EXPECT_EQ(t->to_string(), c.printed);
    const auto again = parse_fixed_type(t->to_string(), &error);
    ASSERT_TRUE(again.has_value()) << t->to_string();
    EXPECT_EQ(*again, *t);
    EXPECT_EQ(*parse_fixed_type(t->to_ap_cpp(), &error), *t) << t->to_ap_cpp();
  }
  EXPECT_EQ(fx(16, 6, Q::Rnd, O::Sat).to_ap_cpp(), "ap_fixed<16, 6, AP_RND, AP_SAT>");
  EXPECT_EQ(fx(16, 6, Q::Rnd, O::Sat).to_kiln_cpp(), "kiln::fixed<16, 6, kiln::RND, kiln::SAT>");
  EXPECT_EQ(ufx(8, 0).to_kiln_cpp(), "kiln::ufixed<8, 0>");
  EXPECT_EQ(fx(8, 8, Q::Trn, O::SatSym).to_kiln_cpp(),
            "kiln::fixed<8, 8, kiln::TRN, kiln::SAT_SYM>");
  // Integers keep ap_fixed's rounding in generated code (ap_int truncates toward zero).
  EXPECT_EQ(fx(8, 8).to_ap_cpp(), "ap_fixed<8, 8>");
}

TEST(Fixed, ParseErrors) {
  const std::vector<std::pair<const char*, const char*>> bad = {
      {"ap_fixed<0,0>", "outside 1..64"},
      {"ap_fixed<65,10>", "outside 1..64"},
      {"ap_uint<100>", "outside 1..64"},
      {"ap_int<-3>", "outside 1..64"},
      {"ap_fixed<16>", "expected <W,I>"},
      {"ap_int<8,4>", "one parameter"},
      {"ap_fixed<16,6,AP_RND,AP_SAT,3>", "saturation bits"},
      {"float", "expected e.g."},
      {"", "expected e.g."},
      {"ap_fixed<16,6", "expected e.g."},
      {"ap_float<16,6>", "unknown kind"},
      {"ap_fixed<16,6,AP_FOO>", "unknown quantization mode 'AP_FOO'"},
      {"ap_fixed<16,6,AP_RND,AP_BAR>", "unknown overflow mode 'AP_BAR'"},
      {"ap_fixed<a,6>", "width 'a' is not an integer"},
      {"ap_fixed<16,x>", "integer bits 'x'"},
      {"ap_fixed<16,1000>", "outside -256..256"},
      {"ap_fixed<1 6,6>", "not an integer"},
  };
  for (const auto& [text, reason] : bad) {
    std::string error;
    EXPECT_FALSE(parse_fixed_type(text, &error).has_value()) << text;
    EXPECT_CONTAINS(error, reason);
    EXPECT_EQ(error.find('\n'), std::string::npos);
  }
  EXPECT_FALSE(parse_fixed_type("ap_fixed<0,0>", nullptr).has_value());  // error is optional
}

// assignment_reads_low_bits: an assignment to t gives the same raw bits for
// any two values that differ by a multiple of 2^(W + dropped bits) on the
// source's grid exactly when it says so (a modular sum may feed it). Every
// mode, from a source 5 fraction bits finer, over every value of a 12-bit
// window and its shifts by that modulus.
TEST(Fixed, AssignmentsThatReadOnlyLowBits) {
  const int drop = 5;
  for (Q q : {Q::Trn, Q::TrnZero, Q::Rnd, Q::RndZero, Q::RndMinInf, Q::RndInf, Q::RndConv})
    for (O o : {O::Wrap, O::Sat, O::SatZero, O::SatSym})
      for (bool is_signed : {true, false}) {
        FixedType t = fx(6, 3, q, o);
        t.is_signed = is_signed;
        const int frac = t.frac() + drop;
        const int128 modulus = int128{1} << (t.width + drop);
        bool same = true;
        for (int64_t v = -2048; v < 2048 && same; ++v)
          for (int k : {-3, -1, 1, 2})
            same = same && quantize(Exact{v, frac}, t) == quantize(Exact{v + k * modulus, frac}, t);
        EXPECT_EQ(assignment_reads_low_bits(t), same) << t.to_string();
        EXPECT_EQ(rounds_by_sign(q), q == Q::TrnZero || q == Q::RndZero || q == Q::RndInf);
      }
}

}  // namespace
}  // namespace kiln::numeric

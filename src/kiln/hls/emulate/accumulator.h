// The emulator's multiply-accumulate step, Q_acc(a + x * w), with an int64
// fast path (Dense, Conv and the products of Recurrent layers). Private to
// the emulator.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kiln/hls/emulate/kernels.h"
#include "kiln/numeric/fixed.h"

namespace kiln::hls {

// One accumulation step: Q_acc(a + x * w).
inline int64_t mac(int64_t acc, const FixedType& acc_t, int64_t x, const FixedType& x_t, int64_t w,
                   const FixedType& w_t, OverflowCounts& counts) {
  const numeric::Exact prod =
      numeric::exact_mul(numeric::to_exact(x, x_t), numeric::to_exact(w, w_t));
  return assign(numeric::exact_add(numeric::to_exact(acc, acc_t), prod), acc_t, counts);
}

// Bits of a two's complement integer that holds every raw value of t.
inline int signed_bits(const FixedType& t) {
  return t.width + (t.is_signed ? 0 : 1);
}

// Q_acc(a + x * w) for one layer. When the formats allow, the exact sum is
// formed in int64 on the finer of the accumulator and product grids and
// rounded/fitted there, which gives exactly what quantize() gives (same
// value, same overflow event) at a fraction of the cost. Otherwise it uses
// the general 128-bit path. The choice is made once, from the formats.
class Accumulator {
 public:
  Accumulator(const FixedType& acc_t, const FixedType& x_t, const FixedType& w_t, bool allow_fast)
      : acc_t_(acc_t), x_t_(x_t), w_t_(w_t) {
    const int prod_bits = signed_bits(x_t) + signed_bits(w_t);  // |x * w| < 2^(prod_bits - 1)
    const int prod_frac = x_t.frac() + w_t.frac();
    const int frac = std::max(acc_t.frac(), prod_frac);
    acc_shift_ = frac - acc_t.frac();  // bits the sum has below the accumulator's LSB
    prod_shift_ = frac - prod_frac;
    // Both terms on the common grid, then their sum: |sum| < 2^61 keeps the
    // rounding increments and every shift well inside int64. The shifts are
    // bounded by the bit counts, so the int arithmetic here cannot overflow
    // for the |F| <= a few hundred that formats use.
    const int64_t sum_bits =
        static_cast<int64_t>(std::max(signed_bits(acc_t) + acc_shift_, prod_bits + prod_shift_)) +
        1;
    fast_ = allow_fast && prod_bits <= 62 && signed_bits(acc_t) <= 62 && sum_bits <= 62;
    if (fast_) {
      max_ = acc_t.max_raw();
      min_ = acc_t.min_raw();
      // AP_SAT_SYM: -max for signed formats of two or more bits (as numeric::fit).
      sym_min_ = (acc_t.is_signed && acc_t.width > 1) ? -max_ : min_;
      if (acc_shift_ > 0) {
        drop_mask_ = (int64_t{1} << acc_shift_) - 1;
        half_ = int64_t{1} << (acc_shift_ - 1);
      }
    }
  }

  bool fast() const { return fast_; }

  int64_t step(int64_t acc, int64_t x, int64_t w, OverflowCounts& counts) const {
    if (!fast_) return mac(acc, acc_t_, x, x_t_, w, w_t_, counts);
    // Exact sum, in units of 2^-(the common fraction bits).
    const int64_t sum = (acc << acc_shift_) + ((x * w) << prod_shift_);
    return fit(acc_shift_ > 0 ? round(sum) : sum, counts);
  }

 private:
  // sum rounded to the accumulator's grid (acc_shift_ > 0 bits dropped) with
  // acc_t's mode. Written on floor(sum / 2^s) and the non-negative remainder;
  // numeric::quantize works on sign and magnitude, and the cases below are the
  // same rules re-expressed (e.g. a tie of a negative sum rounded toward zero
  // is floor + 1).
  int64_t round(int64_t sum) const {
    const int64_t q = sum >> acc_shift_;  // floor (arithmetic shift)
    const int64_t r = sum & drop_mask_;   // sum - q * 2^s, in [0, 2^s)
    bool up = false;
    switch (acc_t_.quant) {
      case numeric::QuantMode::Trn: up = false; break;
      case numeric::QuantMode::TrnZero: up = sum < 0 && r != 0; break;
      case numeric::QuantMode::Rnd: up = r >= half_; break;  // ties toward +inf
      case numeric::QuantMode::RndZero: up = r > half_ || (r == half_ && sum < 0); break;
      case numeric::QuantMode::RndMinInf: up = r > half_; break;  // ties toward -inf
      case numeric::QuantMode::RndInf: up = r > half_ || (r == half_ && sum > 0); break;
      case numeric::QuantMode::RndConv: up = r > half_ || (r == half_ && (q & 1) != 0); break;
    }
    return up ? q + 1 : q;
  }

  // A value on the accumulator's grid fitted with acc_t's overflow mode, with
  // the event numeric::quantize would report.
  int64_t fit(int64_t v, OverflowCounts& counts) const {
    if (v > max_ || v < min_) {
      switch (acc_t_.overflow) {
        case numeric::OverflowMode::Wrap: {
          counts.wrapped++;
          const uint64_t mask = (uint64_t{1} << acc_t_.width) - 1;  // width <= 61 here
          uint64_t bits = static_cast<uint64_t>(v) & mask;
          if (acc_t_.is_signed && ((bits >> (acc_t_.width - 1)) & 1)) bits |= ~mask;
          return static_cast<int64_t>(bits);
        }
        case numeric::OverflowMode::Sat: counts.saturated++; return v < 0 ? min_ : max_;
        case numeric::OverflowMode::SatZero: counts.saturated++; return 0;
        case numeric::OverflowMode::SatSym: counts.saturated++; return v < 0 ? sym_min_ : max_;
      }
    }
    if (acc_t_.overflow == numeric::OverflowMode::SatSym && v < sym_min_) {
      counts.saturated++;
      return sym_min_;
    }
    return v;
  }

  FixedType acc_t_, x_t_, w_t_;
  bool fast_ = false;
  int acc_shift_ = 0, prod_shift_ = 0;
  int64_t max_ = 0, min_ = 0, sym_min_ = 0;
  int64_t drop_mask_ = 0, half_ = 0;
};

// One matrix-vector product in Dense's order (docs/numerics.md "Dense"):
// y[j] = Q_acc(b[j]) (0 without biases), then for i ascending
// y[j] = Q_acc(y[j] + x[i] * w[i * n_out + j]): each Dense row, and the
// two products of a Recurrent step.
inline void matrix_vector(const Accumulator& acc, const FixedType& acc_t, const FixedType& bias_t,
                          const int64_t* w, const int64_t* b, const int64_t* x, int64_t n_in,
                          int64_t n_out, std::vector<int64_t>& y, OverflowCounts& counts) {
  y.resize(static_cast<std::size_t>(n_out));
  for (int64_t j = 0; j < n_out; ++j)
    y[j] = assign(numeric::to_exact(b ? b[j] : 0, bias_t), acc_t, counts);
  for (int64_t i = 0; i < n_in; ++i) {
    const int64_t* row = w + i * n_out;
    for (int64_t j = 0; j < n_out; ++j) y[j] = acc.step(y[j], x[i], row[j], counts);
  }
}

}  // namespace kiln::hls

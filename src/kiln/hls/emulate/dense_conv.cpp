// Bit-exact emulator kernels for Dense, Conv, Pool and ZeroPad, written from
// docs/numerics.md with the runtime arithmetic of numeric/fixed.h only (not
// from the layer library headers, which they check).
#include <algorithm>
#include <string>
#include <vector>

#include "kiln/hls/emulate/kernels.h"
#include "kiln/hls/tables.h"
#include "kiln/numeric/fixed.h"
#include "kiln/support/error.h"

namespace kiln::hls {
namespace {

using numeric::Exact;
using numeric::OverflowEvent;
using numeric::OverflowMode;
using numeric::QuantMode;

// Sign of a - b.
int compare(const Exact& a, const Exact& b) {
  const Exact d = numeric::exact_sub(a, b);
  return d.raw < 0 ? -1 : (d.raw > 0 ? 1 : 0);
}

// Fused activation on the exact accumulator value; returns Q_result(act(a)).
int64_t activate(int64_t acc_raw, const FixedType& acc_t, const Activation& act,
                 const FixedType& res_t, OverflowCounts& counts, const Layer& layer) {
  const Exact a = numeric::to_exact(acc_raw, acc_t);
  const Exact zero{};
  const FixedType pt = param_type();
  switch (act.kind) {
    case ActKind::None: return assign(a, res_t, counts);
    case ActKind::Relu: return assign(compare(a, zero) > 0 ? a : zero, res_t, counts);
    case ActKind::LeakyRelu: {
      if (compare(a, zero) >= 0) return assign(a, res_t, counts);
      const Exact alpha = numeric::to_exact(numeric::quantize(act.alpha, pt), pt);
      return assign(numeric::exact_mul(a, alpha), res_t, counts);
    }
    case ActKind::Clip: {
      const Exact lo = numeric::to_exact(numeric::quantize(act.alpha, pt), pt);
      const Exact hi = numeric::to_exact(numeric::quantize(act.beta, pt), pt);
      Exact m = compare(a, lo) >= 0 ? a : lo;  // max(a, lo)
      if (compare(m, hi) > 0) m = hi;          // min(m, hi)
      return assign(m, res_t, counts);
    }
    default:
      KILN_ASSERT(false, "layer '" + layer.name + "': activation " +
                             std::string(enum_name(act.kind)) +
                             " is not fusable (check_supported refuses it)");
      return 0;
  }
}

// One accumulation step: Q_acc(a + x * w).
int64_t mac(int64_t acc, const FixedType& acc_t, int64_t x, const FixedType& x_t, int64_t w,
            const FixedType& w_t, OverflowCounts& counts) {
  const Exact prod = numeric::exact_mul(numeric::to_exact(x, x_t), numeric::to_exact(w, w_t));
  return assign(numeric::exact_add(numeric::to_exact(acc, acc_t), prod), acc_t, counts);
}

// Bits of a two's complement integer that holds every raw value of t.
int signed_bits(const FixedType& t) {
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
      case QuantMode::Trn: up = false; break;
      case QuantMode::TrnZero: up = sum < 0 && r != 0; break;
      case QuantMode::Rnd: up = r >= half_; break;  // ties toward +inf
      case QuantMode::RndZero: up = r > half_ || (r == half_ && sum < 0); break;
      case QuantMode::RndMinInf: up = r > half_; break;  // ties toward -inf
      case QuantMode::RndInf: up = r > half_ || (r == half_ && sum > 0); break;
      case QuantMode::RndConv: up = r > half_ || (r == half_ && (q & 1) != 0); break;
    }
    return up ? q + 1 : q;
  }

  // A value on the accumulator's grid fitted with acc_t's overflow mode, with
  // the event numeric::quantize would report.
  int64_t fit(int64_t v, OverflowCounts& counts) const {
    if (v > max_ || v < min_) {
      switch (acc_t_.overflow) {
        case OverflowMode::Wrap: {
          counts.wrapped++;
          const uint64_t mask = (uint64_t{1} << acc_t_.width) - 1;  // width <= 61 here
          uint64_t bits = static_cast<uint64_t>(v) & mask;
          if (acc_t_.is_signed && ((bits >> (acc_t_.width - 1)) & 1)) bits |= ~mask;
          return static_cast<int64_t>(bits);
        }
        case OverflowMode::Sat: counts.saturated++; return v < 0 ? min_ : max_;
        case OverflowMode::SatZero: counts.saturated++; return 0;
        case OverflowMode::SatSym: counts.saturated++; return v < 0 ? sym_min_ : max_;
      }
    }
    if (acc_t_.overflow == OverflowMode::SatSym && v < sym_min_) {
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

int64_t bias_of(const Layer& layer, int64_t j) {
  return layer.bias.empty() ? 0 : layer.bias.at(j);
}

// Both kernels keep one accumulator per output channel and run the inputs in
// the outer loop, so weights are read contiguously. Each accumulator still
// sees its own terms in the contract's order; the per-output results and the
// event totals are those of the one-output-at-a-time loop.

}  // namespace

void emulate_dense(LayerRun& run) {
  const Layer& layer = run.layer;
  const FixedTensor& in = run.x();
  FixedTensor& out = run.y();
  OverflowCounts& counts = run.counts;
  const auto& p = layer.as<DenseParams>();
  const Precision& pr = layer.precision;
  const int64_t rows = static_cast<int64_t>(in.raw.size()) / p.n_in;
  KILN_ASSERT(static_cast<int64_t>(layer.weights.size()) == p.n_in * p.n_out,
              "dense layer '" + layer.onnx_name + "' has the wrong number of weights");
  out.raw.assign(rows * p.n_out, 0);
  const Accumulator accum(pr.accum, in.type, pr.weight, run.options.fast_path);
  run.fast_path_used = accum.fast();
  std::vector<int64_t> a(p.n_out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < p.n_out; ++j)
      a[j] = assign(numeric::to_exact(bias_of(layer, j), pr.bias), pr.accum, counts);
    for (int64_t i = 0; i < p.n_in; ++i) {
      const int64_t x = in.raw.at(r * p.n_in + i);
      const int64_t* w = layer.weights.data() + i * p.n_out;
      for (int64_t j = 0; j < p.n_out; ++j) a[j] = accum.step(a[j], x, w[j], counts);
    }
    for (int64_t j = 0; j < p.n_out; ++j)
      out.raw[r * p.n_out + j] = activate(a[j], pr.accum, p.act, out.type, counts, layer);
  }
}

void emulate_conv(LayerRun& run) {
  const Layer& layer = run.layer;
  const FixedTensor& in = run.x();
  FixedTensor& out = run.y();
  OverflowCounts& counts = run.counts;
  const auto& p = layer.as<ConvParams>();
  const Precision& pr = layer.precision;
  const int64_t cin_g = p.c_in / p.groups, cout_g = p.c_out / p.groups;
  KILN_ASSERT(
      static_cast<int64_t>(layer.weights.size()) == p.kernel_h * p.kernel_w * cin_g * p.c_out,
      "convolution layer '" + layer.onnx_name + "' has the wrong number of weights");
  out.raw.assign(p.out_h * p.out_w * p.c_out, 0);
  const Accumulator accum(pr.accum, in.type, pr.weight, run.options.fast_path);
  run.fast_path_used = accum.fast();
  std::vector<int64_t> a(p.c_out);
  for (int64_t oh = 0; oh < p.out_h; ++oh) {
    for (int64_t ow = 0; ow < p.out_w; ++ow) {
      for (int64_t co = 0; co < p.c_out; ++co)
        a[co] = assign(numeric::to_exact(bias_of(layer, co), pr.bias), pr.accum, counts);
      for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
        const int64_t ih = oh * p.stride_h + kh - p.pad_top;
        if (ih < 0 || ih >= p.in_h) continue;  // padded: skipped
        for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
          const int64_t iw = ow * p.stride_w + kw - p.pad_left;
          if (iw < 0 || iw >= p.in_w) continue;
          for (int64_t g = 0; g < p.groups; ++g) {
            for (int64_t cl = 0; cl < cin_g; ++cl) {
              const int64_t x = in.raw.at((ih * p.in_w + iw) * p.c_in + g * cin_g + cl);
              // Weights [kh][kw][cl][co] for this group's output channels.
              const int64_t* w =
                  layer.weights.data() + ((kh * p.kernel_w + kw) * cin_g + cl) * p.c_out;
              for (int64_t co = g * cout_g; co < (g + 1) * cout_g; ++co)
                a[co] = accum.step(a[co], x, w[co], counts);
            }
          }
        }
      }
      for (int64_t co = 0; co < p.c_out; ++co)
        out.raw[(oh * p.out_w + ow) * p.c_out + co] =
            activate(a[co], pr.accum, p.act, out.type, counts, layer);
    }
  }
}

void emulate_pool(LayerRun& run) {
  const Layer& layer = run.layer;
  const FixedTensor& in = run.x();
  FixedTensor& out = run.y();
  OverflowCounts& counts = run.counts;
  const auto& p = layer.as<PoolParams>();
  const Precision& pr = layer.precision;
  const FixedType pt = param_type();
  out.raw.assign(p.out_h * p.out_w * p.channels, 0);
  for (int64_t oh = 0; oh < p.out_h; ++oh) {
    for (int64_t ow = 0; ow < p.out_w; ++ow) {
      for (int64_t c = 0; c < p.channels; ++c) {
        bool any = false;
        int64_t best = 0;
        int64_t a = 0;  // raw in accum, starts at exact 0
        int64_t count = 0;
        for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
          const int64_t ih = oh * p.stride_h + kh - p.pad_top;
          if (ih < 0 || ih >= p.in_h) continue;
          for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const int64_t iw = ow * p.stride_w + kw - p.pad_left;
            if (iw < 0 || iw >= p.in_w) continue;
            const int64_t x = in.raw.at((ih * p.in_w + iw) * p.channels + c);
            if (!any || x > best) best = x;  // same format: raw order is value order
            any = true;
            if (p.kind == PoolKind::Average) {
              a = assign(
                  numeric::exact_add(numeric::to_exact(a, pr.accum), numeric::to_exact(x, in.type)),
                  pr.accum, counts);
            }
            count++;
          }
        }
        int64_t y = 0;
        if (p.kind == PoolKind::Max) {
          y = any ? assign(numeric::to_exact(best, in.type), out.type, counts) : 0;
        } else {
          if (p.count_include_pad) count = p.kernel_h * p.kernel_w;
          if (count > 0) {
            const Exact r = numeric::to_exact(numeric::quantize(1.0 / count, pt), pt);
            y = assign(numeric::exact_mul(numeric::to_exact(a, pr.accum), r), out.type, counts);
          }
        }
        out.raw[(oh * p.out_w + ow) * p.channels + c] = y;
      }
    }
  }
}

void emulate_zero_pad(LayerRun& run) {
  const FixedTensor& in = run.x();
  FixedTensor& out = run.y();
  OverflowCounts& counts = run.counts;
  const auto& p = run.layer.as<ZeroPadParams>();
  const int64_t oh_n = p.out_h(), ow_n = p.out_w();
  out.raw.assign(oh_n * ow_n * p.channels, 0);
  for (int64_t h = 0; h < p.in_h; ++h)
    for (int64_t w = 0; w < p.in_w; ++w)
      for (int64_t c = 0; c < p.channels; ++c)
        out.raw[((h * p.stride_h + p.pad_top) * ow_n + (w * p.stride_w + p.pad_left)) * p.channels +
                c] =
            assign(numeric::to_exact(in.raw.at((h * p.in_w + w) * p.channels + c), in.type),
                   out.type, counts);
}

}  // namespace kiln::hls

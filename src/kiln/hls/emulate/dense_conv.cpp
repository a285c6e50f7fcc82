// Bit-exact emulator kernels for Dense, Conv, Pool and ZeroPad, written from
// docs/numerics.md with the runtime arithmetic of numeric/fixed.h only (not
// from the layer library headers, which they check).
#include <algorithm>
#include <string>
#include <vector>

#include "kiln/hls/emulate/accumulator.h"
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
  const int64_t* bias = layer.bias.empty() ? nullptr : layer.bias.data();
  for (int64_t r = 0; r < rows; ++r) {
    matrix_vector(accum, pr.accum, pr.bias, layer.weights.data(), bias, in.raw.data() + r * p.n_in,
                  p.n_in, p.n_out, a, counts);
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

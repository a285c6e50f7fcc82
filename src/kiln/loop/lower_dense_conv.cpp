// Loop IR of the layers that sum products or windows: Dense, Conv, MatMul,
// Pool, and ZeroPad (the pad before a transposed convolution). Each writes the
// emulator's order (hls/emulate/dense_conv.cpp, docs/numerics.md): an
// accumulator per output starts from the bias quantized to accum, then takes
// Q_acc(acc + x * w) term by term.
#include <string>

#include "kiln/hls/tables.h"
#include "kiln/loop/lowering.h"
#include "kiln/numeric/fixed.h"

namespace kiln::loop {

namespace {

// acc[j] = Q_acc(bias[j]) (0 without biases) for j < n.
void init_accumulators(KernelBuilder& k, const LowerContext& c, int acc, int bias, int64_t n,
                       const FixedType& accum) {
  k.loop("init", n, [&](const Affine& j) {
    const int b = bias >= 0 ? k.load(bias, {j}) : k.constant(0, {1, 0, false});
    k.store(acc, {j}, k.quantize(b, accum));
  });
  (void)c;
}

// acc[j] = Q_acc(acc[j] + x * w).
void mac(KernelBuilder& k, int acc, const Affine& j, int x, int w, const FixedType& accum) {
  const int a = k.load(acc, {j});
  k.store(acc, {j}, k.quantize(k.add(a, k.mul(x, w)), accum));
}

// Guards lo <= e < hi for an input coordinate, none when it always holds.
void bound(std::vector<Guard>& g, const Affine& e, int64_t e_min, int64_t e_max, int64_t hi) {
  if (e_min < 0 || e_max >= hi) g.push_back({e, 0, hi});
}

// The guards that keep a window's input coordinates (ih, iw) inside the map:
// none where the padding never reaches.
template <class P>
std::vector<Guard> window_guards(const P& p, const Affine& ih, const Affine& iw) {
  std::vector<Guard> g;
  bound(g, ih, -p.pad_top, (p.out_h - 1) * p.stride_h + p.kernel_h - 1 - p.pad_top, p.in_h);
  bound(g, iw, -p.pad_left, (p.out_w - 1) * p.stride_w + p.kernel_w - 1 - p.pad_left, p.in_w);
  return g;
}

}  // namespace

void lower_dense(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::DenseParams>();
  const hls::Precision& pr = l.precision;
  const int64_t rows = c.buffer(c.in[0]).numel() / p.n_in;
  const int x = c.view(
      c.in[0], rows == 1 ? std::vector<int64_t>{p.n_in} : std::vector<int64_t>{rows, p.n_in});
  const int y = c.view(
      c.out[0], rows == 1 ? std::vector<int64_t>{p.n_out} : std::vector<int64_t>{rows, p.n_out});
  c.in[0] = x;
  c.out[0] = y;
  const int w = c.constant("w", pr.weight, {p.n_in, p.n_out}, l.weights);
  const int b = l.bias.empty() ? -1 : c.constant("b", pr.bias, {p.n_out}, l.bias);
  KernelBuilder k(c.program, l.name, l.onnx_name);
  const int acc = k.local(c.names.unique(l.name + "_acc"), scalar_of(pr.accum), {p.n_out});
  auto row = [&](std::vector<Affine> r) {
    auto at = [&](const Affine& i) {
      std::vector<Affine> idx = r;
      idx.push_back(i);
      return idx;
    };
    init_accumulators(k, c, acc, b, p.n_out, pr.accum);
    k.loop("i", p.n_in, [&](const Affine& i) {
      k.loop("j", p.n_out, [&](const Affine& j) {
        const int xv = k.load(x, at(i));
        mac(k, acc, j, xv, k.load(w, {i, j}), pr.accum);
      });
    });
    k.loop("out", p.n_out, [&](const Affine& j) {
      k.store(y, at(j), fused_activation(k, k.load(acc, {j}), p.act, pr.result, l.name));
    });
  };
  if (rows == 1)
    row({});
  else
    k.loop("r", rows, [&](const Affine& r) { row({r}); });
  c.finish(k);
}

void lower_conv(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::ConvParams>();
  const hls::Precision& pr = l.precision;
  const int64_t cin_g = p.c_in / p.groups, cout_g = p.c_out / p.groups;
  const int x = c.view(c.in[0], {p.in_h, p.in_w, p.c_in});
  const int y = c.view(c.out[0], {p.out_h, p.out_w, p.c_out});
  c.in[0] = x;
  c.out[0] = y;
  const int w = c.constant("w", pr.weight, {p.kernel_h, p.kernel_w, cin_g, p.c_out}, l.weights);
  const int b = l.bias.empty() ? -1 : c.constant("b", pr.bias, {p.c_out}, l.bias);
  KernelBuilder k(c.program, l.name, l.onnx_name);
  const int acc = k.local(c.names.unique(l.name + "_acc"), scalar_of(pr.accum), {p.c_out});
  k.loop("oh", p.out_h, [&](const Affine& oh) {
    k.loop("ow", p.out_w, [&](const Affine& ow) {
      init_accumulators(k, c, acc, b, p.c_out, pr.accum);
      k.loop("kh", p.kernel_h, [&](const Affine& kh) {
        k.loop("kw", p.kernel_w, [&](const Affine& kw) {
          const Affine ih = oh * p.stride_h + kh + (-p.pad_top);
          const Affine iw = ow * p.stride_w + kw + (-p.pad_left);
          const std::vector<Guard> guards = window_guards(p, ih, iw);
          k.when(guards, [&] {
            k.loop("g", p.groups, [&](const Affine& g) {
              k.loop("ci", cin_g, [&](const Affine& ci) {
                const int xv = k.load(x, {ih, iw, g * cin_g + ci});
                k.loop("co", cout_g, [&](const Affine& co) {
                  const Affine o = g * cout_g + co;
                  mac(k, acc, o, xv, k.load(w, {kh, kw, ci, o}), pr.accum);
                });
              });
            });
          });
        });
      });
      k.loop("out", p.c_out, [&](const Affine& co) {
        k.store(y, {oh, ow, co}, fused_activation(k, k.load(acc, {co}), p.act, pr.result, l.name));
      });
    });
  });
  c.finish(k);
}

void lower_matmul(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::MatMulParams>();
  const FixedType& at = l.precision.accum;
  const int a = c.view(c.in[0], {p.batch, p.m, p.k});
  const int b = c.view(c.in[1], {p.batch, p.k, p.n});
  const int y = c.view(c.out[0], {p.batch, p.m, p.n});
  c.in = {a, b};
  c.out = {y};
  KernelBuilder k(c.program, l.name, l.onnx_name);
  const int acc = k.local(c.names.unique(l.name + "_acc"), scalar_of(at), {1});
  k.loop("t", p.batch, [&](const Affine& t) {
    k.loop("i", p.m, [&](const Affine& i) {
      k.loop("j", p.n, [&](const Affine& j) {
        k.store(acc, {Affine::of(0)}, k.constant(0, scalar_of(at)));
        k.loop("q", p.k, [&](const Affine& q) {
          const int av = k.load(a, {t, i, q});
          mac(k, acc, Affine::of(0), av, k.load(b, {t, q, j}), at);
        });
        k.store(y, {t, i, j}, k.convert(k.load(acc, {Affine::of(0)}), l.precision.result));
      });
    });
  });
  c.finish(k);
}

// Max: the largest real pixel of the window (padding never wins), 0 for a
// window of padding only. Average: the sum in accum times Q_param(1/count),
// count the window's real pixels (or all with count_include_pad): a per-
// position table of reciprocals, since the count depends on the position.
void lower_pool(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::PoolParams>();
  const hls::Precision& pr = l.precision;
  const int x = c.view(c.in[0], {p.in_h, p.in_w, p.channels});
  const int y = c.view(c.out[0], {p.out_h, p.out_w, p.channels});
  c.in[0] = x;
  c.out[0] = y;
  const ScalarType xt = c.buffer(x).type;
  const FixedType pt = hls::param_type();
  int recip = -1;
  if (p.kind == hls::PoolKind::Average) {
    std::vector<int64_t> r;
    for (int64_t oh = 0; oh < p.out_h; ++oh)
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        int64_t count = 0;
        for (int64_t kh = 0; kh < p.kernel_h; ++kh)
          for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const int64_t ih = oh * p.stride_h + kh - p.pad_top;
            const int64_t iw = ow * p.stride_w + kw - p.pad_left;
            if (ih >= 0 && ih < p.in_h && iw >= 0 && iw < p.in_w) ++count;
          }
        if (p.count_include_pad) count = p.kernel_h * p.kernel_w;
        r.push_back(count > 0 ? numeric::quantize(1.0 / static_cast<double>(count), pt) : 0);
      }
    recip = c.constant("recip", pt, {p.out_h, p.out_w}, std::move(r));
  }
  KernelBuilder k(c.program, l.name, l.onnx_name);
  const ScalarType state_t = p.kind == hls::PoolKind::Max ? xt : scalar_of(pr.accum);
  const int state = k.local(c.names.unique(l.name + "_acc"), state_t, {1});
  // Max only: whether the window had a real pixel.
  const bool max = p.kind == hls::PoolKind::Max;
  const int any = max ? k.local(c.names.unique(l.name + "_any"), {1, 0, false}, {1}) : -1;
  const std::vector<Affine> at0 = {Affine::of(0)};
  k.loop("oh", p.out_h, [&](const Affine& oh) {
    k.loop("ow", p.out_w, [&](const Affine& ow) {
      k.loop("c", p.channels, [&](const Affine& ch) {
        const FixedType xf = fixed_of(xt);
        k.store(
            state, at0,
            p.kind == hls::PoolKind::Max ? k.constant(xf.min_raw(), xt) : k.constant(0, state_t));
        if (max) k.store(any, at0, k.constant(0, {1, 0, false}));
        k.loop("kh", p.kernel_h, [&](const Affine& kh) {
          k.loop("kw", p.kernel_w, [&](const Affine& kw) {
            const Affine ih = oh * p.stride_h + kh + (-p.pad_top);
            const Affine iw = ow * p.stride_w + kw + (-p.pad_left);
            const std::vector<Guard> guards = window_guards(p, ih, iw);
            k.when(guards, [&] {
              const int v = k.load(x, {ih, iw, ch});
              const int s = k.load(state, at0);
              if (max) {
                k.store(state, at0, k.max(s, v));
                k.store(any, at0, k.constant(1, {1, 0, false}));
              } else {
                k.store(state, at0, k.quantize(k.add(s, v), pr.accum));
              }
            });
          });
        });
        const int s = k.load(state, at0);
        int result;
        if (p.kind == hls::PoolKind::Max) {
          const int seen = k.load(any, at0);
          result = k.convert(k.select(seen, s, k.constant(0, {1, 0, false})), pr.result);
        } else {
          result = k.quantize(k.mul(s, k.load(recip, {oh, ow})), pr.result);
        }
        k.store(y, {oh, ow, ch}, result);
      });
    });
  });
  c.finish(k);
}

// Zeros everywhere, then each input pixel at (pad_top + h * stride_h,
// pad_left + w * stride_w).
void lower_zero_pad(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::ZeroPadParams>();
  const int x = c.view(c.in[0], {p.in_h, p.in_w, p.channels});
  const int y = c.view(c.out[0], {p.out_h(), p.out_w(), p.channels});
  c.in[0] = x;
  c.out[0] = y;
  KernelBuilder k(c.program, l.name, l.onnx_name);
  const ScalarType yt = c.buffer(y).type;
  if (p.stride_h == 1 && p.stride_w == 1) {
    // One nest over the output's pixels, each written once: the input's
    // pixel where it falls, else a zero. A plan keeps the pixel loop and
    // streams it (two nests, zeros then the input, were two loops, of which
    // a plan keeps one, writing every padded pixel twice).
    const int64_t oh = p.out_h(), ow = p.out_w();
    const int64_t rows_end = p.pad_top + p.in_h, cols_end = p.pad_left + p.in_w;
    k.loop("oh", oh, [&](const Affine& r) {
      k.loop("ow", ow, [&](const Affine& col) {
        k.loop("c", p.channels, [&](const Affine& ch) {
          const Guard in_rows{r, p.pad_top, rows_end}, in_cols{col, p.pad_left, cols_end};
          k.when({in_rows, in_cols}, [&] {
            k.store(y, {r, col, ch},
                    k.convert(k.load(x, {r + (-p.pad_top), col + (-p.pad_left), ch}),
                              c.layer.precision.result));
          });
          const auto zero = [&] { k.store(y, {r, col, ch}, k.constant(0, yt)); };
          if (p.pad_top > 0) k.when({Guard{r, 0, p.pad_top}}, zero);
          if (p.pad_bottom > 0) k.when({Guard{r, rows_end, oh}}, zero);
          if (p.pad_left > 0) k.when({in_rows, Guard{col, 0, p.pad_left}}, zero);
          if (p.pad_right > 0) k.when({in_rows, Guard{col, cols_end, ow}}, zero);
        });
      });
    });
    c.finish(k);
    return;
  }
  // Strides (a transposed convolution's spread): zeros everywhere, then the
  // input's pixels.
  k.for_each(c.buffer(y).shape, "z",
             [&](const std::vector<Affine>& i) { k.store(y, i, k.constant(0, yt)); });
  k.for_each(c.buffer(x).shape, "d", [&](const std::vector<Affine>& i) {
    k.store(y, {i[0] * p.stride_h + p.pad_top, i[1] * p.stride_w + p.pad_left, i[2]},
            k.convert(k.load(x, i), c.layer.precision.result));
  });
  c.finish(k);
}

}  // namespace kiln::loop

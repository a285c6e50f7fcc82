// Loop IR of the element-by-element layers: Activation, BatchNorm, Binary,
// Quantize, and Softmax (row by row). Each follows its emulator kernel
// (hls/emulate/elementwise.cpp): exact arithmetic on the operands, one
// quantization into the result at the end.
#include <string>

#include "kiln/hls/tables.h"
#include "kiln/loop/lowering.h"
#include "kiln/numeric/fixed.h"
#include "kiln/support/error.h"

namespace kiln::loop {

namespace {

constexpr ScalarType kBit{1, 0, false};

// A parameter as kiln writes it: quantized to param_t.
int param(KernelBuilder& k, double v) {
  const FixedType pt = hls::param_type();
  return k.constant(numeric::quantize(v, pt), scalar_of(pt));
}

// The table of `kind` as a const buffer, and the bin offset of symmetric
// tables (an input's bin is floor(x * 2^shift) + size / 2).
struct Table {
  int buffer = -1;
  hls::TableGeometry g;
};
Table table(LowerContext& c, hls::TableKind kind, const FixedType& entry, int64_t row_length,
            const std::string& what) {
  Table t;
  t.g = hls::table_geometry(kind, c.layer.tables, row_length, c.layer.name);
  t.buffer = c.constant(what, entry, {t.g.size}, hls::make_table(kind, t.g, entry));
  return t;
}

// The last axis of an elementwise tensor is its channel axis.
Affine channel_of(const std::vector<Affine>& i) {
  return i.back();
}

}  // namespace

void lower_activation(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::ActivationParams>();
  const hls::Activation& act = p.act;
  const FixedType& rt = l.precision.result;
  Table tab;
  if (auto kind = hls::table_kind(act.kind)) tab = table(c, *kind, l.precision.table, 0, "table");
  const int slope = act.kind == hls::ActKind::PRelu
                        ? c.constant("slope", l.precision.weight, {p.channels}, l.weights)
                        : -1;
  const int x = c.in[0], y = c.out[0];
  KernelBuilder k(c.program, l.name, l.onnx_name);
  k.for_each(c.buffer(x).shape, "d", [&](const std::vector<Affine>& i) {
    const int v = k.load(x, i);
    auto zero = [&] { return k.constant(0, kBit); };
    auto one = [&] { return k.constant(1, {2, 0, false}); };
    auto lookup = [&](int a) { return k.lookup(tab.buffer, a, tab.g.shift, tab.g.size / 2); };
    // The operands in the emulator's order, one statement each, so the text
    // does not depend on the compiler's order of argument evaluation.
    auto negative = [&] { return k.lt(v, zero()); };
    auto elu = [&] {  // x < 0 ? alpha * (exp(x) - 1) : x
      const int c = negative();
      const int alpha = param(k, act.alpha);
      const int e = lookup(v);
      return k.select(c, k.mul(alpha, k.sub(e, one())), v);
    };
    int r = v;
    switch (act.kind) {
      case hls::ActKind::None: break;
      case hls::ActKind::Relu: r = k.max(v, zero()); break;
      case hls::ActKind::LeakyRelu: {
        const int c = negative();
        r = k.select(c, k.mul(v, param(k, act.alpha)), v);
        break;
      }
      case hls::ActKind::PRelu: {
        const int c = negative();
        r = k.select(c, k.mul(v, k.load(slope, {channel_of(i)})), v);
        break;
      }
      case hls::ActKind::Clip: {
        const int lo = k.max(v, param(k, act.alpha));
        r = k.min(lo, param(k, act.beta));
        break;
      }
      case hls::ActKind::Elu: r = elu(); break;
      case hls::ActKind::Selu: {
        const int gamma = param(k, act.beta);
        r = k.mul(gamma, elu());
        break;
      }
      case hls::ActKind::Sigmoid:
      case hls::ActKind::Tanh:
      case hls::ActKind::Exp: r = lookup(v); break;
      case hls::ActKind::HardSigmoid:
      case hls::ActKind::HardSwish: {
        const int alpha = param(k, act.alpha);
        const int ax = k.mul(alpha, v);
        const int beta = param(k, act.beta);
        const int sum = k.add(ax, beta);
        const int floor0 = k.max(sum, zero());
        const int h = k.min(floor0, one());
        r = act.kind == hls::ActKind::HardSigmoid ? h : k.mul(v, h);
        break;
      }
    }
    k.store(y, i, k.convert(r, rt));
  });
  c.finish(k);
}

void lower_batchnorm(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::BatchNormParams>();
  const int s = c.constant("scale", l.precision.weight, {p.channels}, l.weights);
  const int b = c.constant("bias", l.precision.bias, {p.channels}, l.bias);
  const int x = c.in[0], y = c.out[0];
  KernelBuilder k(c.program, l.name, l.onnx_name);
  k.for_each(c.buffer(x).shape, "d", [&](const std::vector<Affine>& i) {
    const Affine ch = channel_of(i);
    const int xv = k.load(x, i);
    const int prod = k.mul(xv, k.load(s, {ch}));
    k.store(y, i, k.convert(k.add(prod, k.load(b, {ch})), l.precision.result));
  });
  c.finish(k);
}

// y = Q_result(a op b); b per channel ([1, ..., 1, C]) or per pixel ([..., 1]).
void lower_binary(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::BinaryParams>();
  const std::vector<int64_t> shape = c.buffer(c.out[0]).shape;
  c.in[0] = c.view(c.in[0], shape);
  if (p.broadcast == hls::BinaryBroadcast::None) c.in[1] = c.view(c.in[1], shape);
  const int a = c.in[0], b = c.in[1], y = c.out[0];
  KernelBuilder k(c.program, l.name, l.onnx_name);
  k.for_each(shape, "d", [&](const std::vector<Affine>& i) {
    // Index b by its own shape, aligned at the last axis: size-1 axes at 0.
    const std::vector<int64_t>& bshape = c.buffer(b).shape;
    KILN_ASSERT(bshape.size() <= shape.size(), "binary " + l.name + ": broadcast rank");
    std::vector<Affine> bi(i.end() - static_cast<std::ptrdiff_t>(bshape.size()), i.end());
    for (std::size_t d = 0; d < bshape.size(); ++d)
      if (bshape[d] == 1) bi[d] = Affine::of(0);
    const int u = k.load(a, i), v = k.load(b, bi);
    int r = -1;
    switch (p.op) {
      case hls::BinaryOp::Add: r = k.add(u, v); break;
      case hls::BinaryOp::Sub: r = k.sub(u, v); break;
      case hls::BinaryOp::Mul: r = k.mul(u, v); break;
      case hls::BinaryOp::ReverseSub: r = k.sub(v, u); break;
    }
    k.store(y, i, k.convert(r, l.precision.result));
  });
  c.finish(k);
}

// y = clamp(Q_format(x), min_raw, max_raw); bipolar: x >= 0 ? max : min.
void lower_quantize(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::QuantizeParams>();
  const int x = c.in[0], y = c.out[0];
  const ScalarType ft = scalar_of(p.format);
  KernelBuilder k(c.program, l.name, l.onnx_name);
  k.for_each(c.buffer(x).shape, "d", [&](const std::vector<Affine>& i) {
    const int v = k.load(x, i);
    const int hi = k.constant(p.max_raw, ft), lo = k.constant(p.min_raw, ft);
    int r;
    if (p.bipolar)
      r = k.select(k.lt(v, k.constant(0, kBit)), lo, hi);
    else
      r = k.max(k.min(k.quantize(v, p.format), hi), lo);
    k.store(y, i, k.convert(r, p.format));
  });
  c.finish(k);
}

// Per row: m = max x; e_i = exp_table[clamp(floor((m - x_i) * 2^s), 0, N-1)];
// sum = Q_acc(sum + e_i); v = sum_table[bin of sum]; Softmax:
// y_i = Q_result(e_i * v) (v the reciprocal); LogSoftmax:
// y_i = Q_result((x_i - m) - v) (v the log).
void lower_softmax(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::SoftmaxParams>();
  const hls::Precision& pr = l.precision;
  const Table et = table(c, hls::TableKind::SoftmaxExp, pr.table, p.length, "exp");
  const Table st = table(c, hls::softmax_sum_table(p), hls::softmax_sum_table_type(p, pr), p.length,
                         p.log ? "log" : "inv");
  const int x = c.view(c.in[0], {p.rows, p.length});
  const int y = c.view(c.out[0], {p.rows, p.length});
  c.in[0] = x;
  c.out[0] = y;
  KernelBuilder k(c.program, l.name, l.onnx_name);
  const ScalarType xt = c.buffer(x).type;
  const int m = k.local(c.names.unique(l.name + "_max"), xt, {1});
  const int sum = k.local(c.names.unique(l.name + "_sum"), scalar_of(pr.accum), {1});
  // LogSoftmax needs only the sum of the exps, not each one.
  const int e =
      p.log ? -1 : k.local(c.names.unique(l.name + "_e"), scalar_of(pr.table), {p.length});
  const std::vector<Affine> at0 = {Affine::of(0)};
  k.loop("r", p.rows, [&](const Affine& r) {
    k.store(m, at0, k.load(x, {r, Affine::of(0)}));
    if (p.length > 1)
      k.loop("i", p.length - 1, [&](const Affine& i) {
        const int v = k.load(x, {r, i + 1});
        k.store(m, at0, k.convert(k.max(k.load(m, at0), v), fixed_of(xt)));
      });
    k.store(sum, at0, k.constant(0, scalar_of(pr.accum)));
    k.loop("e", p.length, [&](const Affine& i) {
      const int mv = k.load(m, at0);
      const int d = k.sub(mv, k.load(x, {r, i}));
      const int ev = k.lookup(et.buffer, d, et.g.shift, 0);
      if (!p.log) k.store(e, {i}, ev);
      k.store(sum, at0, k.quantize(k.add(k.load(sum, at0), ev), pr.accum));
    });
    const int v = k.lookup(st.buffer, k.load(sum, at0), st.g.shift, 0);
    k.loop("out", p.length, [&](const Affine& i) {
      const int r_i =
          p.log ? k.sub(k.sub(k.load(x, {r, i}), k.load(m, at0)), v) : k.mul(k.load(e, {i}), v);
      k.store(y, {r, i}, k.quantize(r_i, pr.result));
    });
  });
  c.finish(k);
}

}  // namespace kiln::loop

// Loop IR of the Recurrent layer (GRU, LSTM), following
// hls/emulate/recurrent.cpp and docs/numerics.md "Recurrent": per step, the
// input and hidden matrix-vector products in Dense's order into accum, then
// per hidden unit the gates from the sigmoid and tanh tables, the cell state
// in accum and h in the result format.
#include <functional>
#include <string>

#include "kiln/hls/tables.h"
#include "kiln/loop/lowering.h"
#include "kiln/support/error.h"

namespace kiln::loop {

namespace {

// acc[j] = Q_acc(bias[j]); then acc[j] = Q_acc(acc[j] + x[i] * w[i][j]) for i
// ascending (hls/emulate/accumulator.h matrix_vector).
void matrix_vector(KernelBuilder& k, const std::string& prefix, int acc, int bias, int w,
                   int64_t n_in, int64_t n_out, const FixedType& accum,
                   const std::function<int(const Affine&)>& x) {
  k.loop(prefix + "b", n_out,
         [&](const Affine& j) { k.store(acc, {j}, k.quantize(k.load(bias, {j}), accum)); });
  k.loop(prefix + "i", n_in, [&](const Affine& i) {
    const int xv = x(i);
    k.loop(prefix + "j", n_out, [&](const Affine& j) {
      const int a = k.load(acc, {j});
      k.store(acc, {j}, k.quantize(k.add(a, k.mul(xv, k.load(w, {i, j}))), accum));
    });
  });
}

}  // namespace

void lower_recurrent(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::RecurrentParams>();
  const hls::Precision& pr = l.precision;
  const FixedType& acc_t = pr.accum;
  const int64_t H = p.hidden, G = p.gates() * H;
  KILN_ASSERT(static_cast<int64_t>(l.weights.size()) == (p.n_in + H) * G &&
                  static_cast<int64_t>(l.bias.size()) == 2 * G,
              "recurrent " + l.name + ": constant count");
  const int x = c.view(c.in[0], {p.steps, p.n_in});
  const int64_t out_rows = p.sequences ? p.steps : 1;
  const int y = c.view(c.out[0], {out_rows, H});
  c.in[0] = x;
  c.out[0] = y;
  // h is rounded with the output tensor's own modes.
  const FixedType& h_t = c.model.tensors.at(static_cast<std::size_t>(l.outputs.at(0))).type;
  const auto wmid = l.weights.begin() + p.n_in * G;
  const auto bmid = l.bias.begin() + G;
  const int w = c.constant("w", pr.weight, {p.n_in, G}, {l.weights.begin(), wmid});
  const int r = c.constant("r", pr.weight, {H, G}, {wmid, l.weights.end()});
  const int wb = c.constant("wb", pr.bias, {G}, {l.bias.begin(), bmid});
  const int rb = c.constant("rb", pr.bias, {G}, {bmid, l.bias.end()});
  const hls::TableGeometry sig_g =
      hls::table_geometry(hls::TableKind::Sigmoid, l.tables, 0, l.name);
  const hls::TableGeometry tanh_g = hls::table_geometry(hls::TableKind::Tanh, l.tables, 0, l.name);
  const int sig = c.constant("sigmoid", pr.table, {sig_g.size},
                             hls::make_table(hls::TableKind::Sigmoid, sig_g, pr.table));
  const int tanh = c.constant("tanh", pr.table, {tanh_g.size},
                              hls::make_table(hls::TableKind::Tanh, tanh_g, pr.table));

  KernelBuilder k(c.program, l.name, l.onnx_name);
  const bool lstm = p.cell == hls::CellKind::Lstm;
  const int h = k.local(c.names.unique(l.name + "_h"), scalar_of(h_t), {H});
  const int cell = lstm ? k.local(c.names.unique(l.name + "_c"), scalar_of(acc_t), {H}) : -1;
  const int xw = k.local(c.names.unique(l.name + "_xw"), scalar_of(acc_t), {G});
  const int hr = k.local(c.names.unique(l.name + "_hr"), scalar_of(acc_t), {G});
  // The symmetric tables' bin: floor(v * 2^shift) + size / 2, clamped.
  auto sigmoid = [&](int v) { return k.lookup(sig, v, sig_g.shift, sig_g.size / 2); };
  auto tanh_of = [&](int v) { return k.lookup(tanh, v, tanh_g.shift, tanh_g.size / 2); };

  k.loop("init", H, [&](const Affine& j) {
    k.store(h, {j}, k.constant(0, scalar_of(h_t)));
    if (lstm) k.store(cell, {j}, k.constant(0, scalar_of(acc_t)));
  });
  k.loop("t", p.steps, [&](const Affine& t) {
    matrix_vector(k, "x", xw, wb, w, p.n_in, G, acc_t, [&](const Affine& i) {
      return k.load(x, {t, i});
    });
    matrix_vector(k, "h", hr, rb, r, H, G, acc_t, [&](const Affine& i) { return k.load(h, {i}); });
    k.loop("j", H, [&](const Affine& j) {
      // Gate row g's pre-activation xw + hr, exact, rounded to accum before its table.
      auto pre = [&](int64_t g) {
        const Affine row = j + g * H;
        const int xv = k.load(xw, {row});
        return k.quantize(k.add(xv, k.load(hr, {row})), acc_t);
      };
      int hj;
      if (!lstm) {
        const int z = sigmoid(pre(0));
        const int rg = sigmoid(pre(1));
        const Affine row = j + 2 * H;
        const int xn = k.load(xw, {row});
        const int n = tanh_of(k.quantize(k.add(xn, k.mul(rg, k.load(hr, {row}))), acc_t));
        // (1 - z) n + z h as n + z (h - n): one rounding either way.
        hj = k.quantize(k.add(n, k.mul(z, k.sub(k.load(h, {j}), n))), h_t);
      } else {
        const int i = sigmoid(pre(0));
        const int o = sigmoid(pre(1));
        const int f = sigmoid(pre(2));
        const int g = tanh_of(pre(3));
        const int fc = k.mul(f, k.load(cell, {j}));
        const int cj = k.quantize(k.add(fc, k.mul(i, g)), acc_t);
        k.store(cell, {j}, cj);
        hj = k.quantize(k.mul(o, tanh_of(cj)), h_t);
      }
      k.store(h, {j}, hj);
      if (p.sequences) k.store(y, {t, j}, hj);
    });
  });
  if (!p.sequences)
    k.loop("out", H, [&](const Affine& j) { k.store(y, {Affine::of(0), j}, k.load(h, {j})); });
  c.finish(k);
}

}  // namespace kiln::loop

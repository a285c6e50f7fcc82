// Bit-exact emulator kernel of the Recurrent layer (GRU, LSTM), written from
// docs/numerics.md "Recurrent" with numeric/fixed.h only (not from
// include/kiln/recurrent.h, which it checks).
#include <vector>

#include "kiln/hls/emulate/accumulator.h"
#include "kiln/hls/emulate/kernels.h"
#include "kiln/numeric/fixed.h"
#include "kiln/support/error.h"

namespace kiln::hls {

using numeric::Exact;

void emulate_recurrent(LayerRun& run) {
  const Layer& layer = run.layer;
  const auto& p = layer.as<RecurrentParams>();
  const Precision& pr = layer.precision;
  const FixedTensor& in = run.x();
  FixedTensor& out = run.y();
  OverflowCounts& counts = run.counts;
  const int64_t H = p.hidden, G = p.gates() * H;
  KILN_ASSERT(static_cast<int64_t>(in.raw.size()) == p.steps * p.n_in,
              "recurrent layer '" + layer.name + "': input size is not steps * n_in");
  KILN_ASSERT(static_cast<int64_t>(layer.weights.size()) == (p.n_in + H) * G &&
                  static_cast<int64_t>(layer.bias.size()) == 2 * G,
              "recurrent layer '" + layer.name + "' has the wrong number of constants");
  const FixedType& acc_t = pr.accum;
  const FixedType& h_t = out.type;
  const Accumulator x_acc(acc_t, in.type, pr.weight, run.options.fast_path);
  const Accumulator h_acc(acc_t, h_t, pr.weight, run.options.fast_path);
  const SymTable sigmoid = load_table(layer, TableKind::Sigmoid);
  const SymTable tanh = load_table(layer, TableKind::Tanh);
  const int64_t* w = layer.weights.data();
  const int64_t* r = w + p.n_in * G;
  const int64_t* wb = layer.bias.data();
  const int64_t* rb = wb + G;

  auto exact = [](int64_t raw, const FixedType& t) { return numeric::to_exact(raw, t); };
  // The table entry of Q_acc(v): gate pre-activations are rounded to accum.
  auto lookup = [&](const SymTable& t, const Exact& v) {
    return t.lookup(exact(assign(v, acc_t, counts), acc_t));
  };

  std::vector<int64_t> h(static_cast<std::size_t>(H), 0), c(h.size(), 0), x(p.n_in), xw, hr;
  out.raw.assign(static_cast<std::size_t>((p.sequences ? p.steps : 1) * H), 0);
  for (int64_t t = 0; t < p.steps; ++t) {
    x.assign(in.raw.begin() + t * p.n_in, in.raw.begin() + (t + 1) * p.n_in);
    matrix_vector(x_acc, acc_t, pr.bias, w, wb, x.data(), p.n_in, G, xw, counts);
    matrix_vector(h_acc, acc_t, pr.bias, r, rb, h.data(), H, G, hr, counts);
    auto pre = [&](int64_t g) {  // xw + hr of gate row g, exact
      return numeric::exact_add(exact(xw[g], acc_t), exact(hr[g], acc_t));
    };
    for (int64_t j = 0; j < H; ++j) {
      if (p.cell == CellKind::Gru) {
        const Exact z = lookup(sigmoid, pre(j));
        const Exact rg = lookup(sigmoid, pre(H + j));
        const Exact n =
            lookup(tanh, numeric::exact_add(exact(xw[2 * H + j], acc_t),
                                            numeric::exact_mul(rg, exact(hr[2 * H + j], acc_t))));
        const Exact hj = exact(h[j], h_t);
        // (1 - z) n + z h, as n + z (h - n): one rounding either way.
        h[j] = assign(numeric::exact_add(n, numeric::exact_mul(z, numeric::exact_sub(hj, n))), h_t,
                      counts);
      } else {
        const Exact i = lookup(sigmoid, pre(j));
        const Exact o = lookup(sigmoid, pre(H + j));
        const Exact f = lookup(sigmoid, pre(2 * H + j));
        const Exact g = lookup(tanh, pre(3 * H + j));
        c[j] = assign(
            numeric::exact_add(numeric::exact_mul(f, exact(c[j], acc_t)), numeric::exact_mul(i, g)),
            acc_t, counts);
        h[j] = assign(numeric::exact_mul(o, tanh.lookup(exact(c[j], acc_t))), h_t, counts);
      }
    }
    if (p.sequences || t == p.steps - 1) {
      const int64_t o = p.sequences ? t : 0;
      std::copy(h.begin(), h.end(), out.raw.begin() + o * H);
    }
  }
}

}  // namespace kiln::hls

// Loop IR of the Resize layer (hls/emulate/resample.cpp, docs/numerics.md
// "Resize"). Its source rows and columns are lists, not affine in the output
// coordinate, so each axis is split into phases: output o = b + f * a reads
// index[b] + s * a when the list repeats with period f and step s (f = 2,
// s = 1 for an upsampling by 2; f = the axis length, one output per phase,
// for an irregular list). Every phase pair is its own loop nest.
#include <string>
#include <vector>

#include "kiln/loop/lowering.h"
#include "kiln/support/error.h"

namespace kiln::loop {

namespace {

// The source index of output o (tap t of `taps`) is first[t] + step * a for
// o = phase + period * a, a < count[phase].
struct AxisPlan {
  int64_t period = 1, step = 0;
  std::vector<int64_t> count;  // per phase
};

AxisPlan plan_axis(const std::vector<int64_t>& index, int64_t n, int64_t taps) {
  auto at = [&](int64_t o, int64_t t) { return index.at(static_cast<std::size_t>(o * taps + t)); };
  AxisPlan p;
  for (p.period = 1; p.period < n; ++p.period) {
    p.step = at(p.period, 0) - at(0, 0);
    bool regular = true;
    for (int64_t o = 0; o + p.period < n && regular; ++o)
      for (int64_t t = 0; t < taps; ++t)
        regular = regular && at(o + p.period, t) - at(o, t) == p.step;
    if (regular) break;
  }
  if (p.period == n) p.step = 0;  // one output per phase
  for (int64_t b = 0; b < p.period; ++b) p.count.push_back((n - b + p.period - 1) / p.period);
  return p;
}

}  // namespace

// Nearest: y = Q_result(x[row][col]). Linear: per column tap, the rows' taps
// weighted and summed exactly, rounded to accum; the two columns' weighted
// accumulators summed exactly and rounded to the result.
void lower_resize(LowerContext& c) {
  const hls::Layer& l = c.layer;
  const auto& p = l.as<hls::ResizeParams>();
  const int64_t taps = p.taps();
  const int x = c.view(c.in[0], {p.in_h, p.in_w, p.channels});
  const int y = c.view(c.out[0], {p.out_h, p.out_w, p.channels});
  c.in[0] = x;
  c.out[0] = y;
  const bool linear = p.mode == hls::ResizeKind::Linear;
  int wr = -1, wc = -1;
  if (linear) {
    KILN_ASSERT(static_cast<int64_t>(l.weights.size()) == 2 * (p.out_h + p.out_w),
                "resize " + l.name + ": weight count");
    const auto mid = l.weights.begin() + 2 * p.out_h;
    wr = c.constant("row_w", l.precision.weight, {p.out_h, 2}, {l.weights.begin(), mid});
    wc = c.constant("col_w", l.precision.weight, {p.out_w, 2}, {mid, l.weights.end()});
  }
  const AxisPlan rows = plan_axis(p.row_index, p.out_h, taps);
  const AxisPlan cols = plan_axis(p.col_index, p.out_w, taps);
  KernelBuilder k(c.program, l.name, l.onnx_name);
  for (int64_t br = 0; br < rows.period; ++br) {
    const std::string rs = std::to_string(br);
    k.loop("oy" + rs, rows.count[static_cast<std::size_t>(br)], [&](const Affine& ar) {
      const Affine oy = ar * rows.period + br;
      auto row = [&](int64_t t) {
        return ar * rows.step + p.row_index.at(static_cast<std::size_t>(br * taps + t));
      };
      for (int64_t bc = 0; bc < cols.period; ++bc) {
        const std::string cs = rs + "_" + std::to_string(bc);
        k.loop("ox" + cs, cols.count[static_cast<std::size_t>(bc)], [&](const Affine& ac) {
          const Affine ox = ac * cols.period + bc;
          auto col = [&](int64_t t) {
            return ac * cols.step + p.col_index.at(static_cast<std::size_t>(bc * taps + t));
          };
          k.loop("c" + cs, p.channels, [&](const Affine& ch) {
            if (!linear) {
              k.store(y, {oy, ox, ch},
                      k.convert(k.load(x, {row(0), col(0), ch}), l.precision.result));
              return;
            }
            int sum = -1;
            for (int64_t t = 0; t < 2; ++t) {
              int v = -1;
              for (int64_t s = 0; s < 2; ++s) {
                const int wv = k.load(wr, {oy, Affine::of(s)});
                const int term = k.mul(wv, k.load(x, {row(s), col(t), ch}));
                v = v < 0 ? term : k.add(v, term);
              }
              const int acc = k.quantize(v, l.precision.accum);
              const int term = k.mul(k.load(wc, {ox, Affine::of(t)}), acc);
              sum = sum < 0 ? term : k.add(sum, term);
            }
            k.store(y, {oy, ox, ch}, k.quantize(sum, l.precision.result));
          });
        });
      }
    });
  }
  c.finish(k);
}

}  // namespace kiln::loop

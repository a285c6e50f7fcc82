// Emulator kernels of the layers that pick or interpolate positions: Slice
// and Resize, written from docs/numerics.md with numeric/fixed.h arithmetic
// (independent of include/kiln/slice.h and resize.h).
#include <cstddef>
#include <string>

#include "kiln/hls/emulate/kernels.h"
#include "kiln/numeric/fixed.h"
#include "kiln/support/error.h"

namespace kiln::hls {

namespace {

using numeric::Exact;

// Row-major strides of `shape`.
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (std::size_t a = shape.size(); a-- > 1;) s[a - 1] = s[a] * shape[a];
  return s;
}

}  // namespace

void emulate_slice(LayerRun& run) {
  const auto& p = run.layer.as<SliceParams>();
  const FixedTensor& x = run.x();
  FixedTensor& out = run.y();
  const std::size_t rank = x.shape.size();
  KILN_ASSERT(p.begin.size() == rank && p.step.size() == rank && out.shape.size() == rank,
              "slice " + run.layer.name + ": rank mismatch");
  const std::vector<int64_t> in_stride = strides_of(x.shape);
  int64_t n = 1;
  for (int64_t d : out.shape) n *= d;
  out.raw.assign(static_cast<std::size_t>(n), 0);
  std::vector<int64_t> pos(rank, 0);  // output coordinates, row-major counter
  for (std::size_t i = 0; i < out.raw.size(); ++i) {
    int64_t src = 0;
    for (std::size_t a = 0; a < rank; ++a) src += (p.begin[a] + pos[a] * p.step[a]) * in_stride[a];
    out.raw[i] = assign(exact_of(x, static_cast<std::size_t>(src)), out.type, run.counts);
    for (std::size_t a = rank; a-- > 0;) {
      if (++pos[a] < out.shape[a]) break;
      pos[a] = 0;
    }
  }
}

// docs/numerics.md "Resize": nearest assigns the source value; linear sums
// the two rows' weighted values into the accumulator at each of the two
// source columns, then the two columns' weighted sums into the result.
void emulate_resize(LayerRun& run) {
  const Layer& l = run.layer;
  const auto& p = l.as<ResizeParams>();
  const FixedTensor& x = run.x();
  FixedTensor& out = run.y();
  const int64_t c_n = p.channels;
  auto at = [&](int64_t row, int64_t col, int64_t c) {
    return exact_of(x, static_cast<std::size_t>((row * p.in_w + col) * c_n + c));
  };
  auto weight = [&](int64_t k) {
    return numeric::to_exact(l.weights.at(static_cast<std::size_t>(k)), l.precision.weight);
  };
  out.raw.assign(static_cast<std::size_t>(p.out_h * p.out_w * c_n), 0);
  std::size_t i = 0;
  for (int64_t oy = 0; oy < p.out_h; ++oy)
    for (int64_t ox = 0; ox < p.out_w; ++ox)
      for (int64_t c = 0; c < c_n; ++c) {
        if (p.mode == ResizeKind::Nearest) {
          out.raw[i++] = assign(at(p.row_index[static_cast<std::size_t>(oy)],
                                   p.col_index[static_cast<std::size_t>(ox)], c),
                                out.type, run.counts);
          continue;
        }
        Exact y{};
        for (int64_t t = 0; t < 2; ++t) {
          const int64_t col = p.col_index[static_cast<std::size_t>(ox * 2 + t)];
          Exact v{};
          for (int64_t s = 0; s < 2; ++s) {
            const int64_t row = p.row_index[static_cast<std::size_t>(oy * 2 + s)];
            v = numeric::exact_add(v, numeric::exact_mul(weight(oy * 2 + s), at(row, col, c)));
          }
          const Exact acc =
              numeric::to_exact(assign(v, l.precision.accum, run.counts), l.precision.accum);
          y = numeric::exact_add(y, numeric::exact_mul(weight(2 * p.out_h + ox * 2 + t), acc));
        }
        out.raw[i++] = assign(y, out.type, run.counts);
      }
}

}  // namespace kiln::hls

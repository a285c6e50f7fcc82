// A convolution in streaming form (seed 002's line buffer, as hls4ml's
// io_stream convolutions run): one iteration per padded input pixel, in the
// order a producer writes them, so each input element is read once. The
// K_h - 1 rows before the current one wait in line buffers, the K_h x K_w
// window in registers that shift by one column per pixel, and an output pixel
// is computed from the window and written once the window is full. The sums
// are the emulator's, in its order: a padded tap contributes a product by 0,
// which leaves the accumulator as it is (Q_acc(acc + 0) = acc).
#include <fmt/format.h>

#include <algorithm>

#include "kiln/hls/model.h"
#include "kiln/loop/builder.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/lowering.h"
#include "kiln/support/error.h"
#include "kiln/support/names.h"

namespace kiln::loop {

namespace {

const hls::Layer& layer_of(const hls::Model& model, const Kernel& k) {
  for (const hls::Layer& l : model.layers)
    if (l.name == k.name) return l;
  throw_error(ErrorKind::Internal, "kernel " + k.name, "has no layer in the model");
}

// The buffer among `ids` with `role` and `rank`, in order: the nth one.
int find_read(const Program& p, const std::vector<int>& ids, BufferRole role, std::size_t rank,
              int nth = 0) {
  for (int b : ids) {
    const Buffer& buf = p.buffers[static_cast<std::size_t>(b)];
    if ((buf.role == BufferRole::Const) == (role == BufferRole::Const) &&
        buf.shape.size() == rank && nth-- == 0)
      return b;
  }
  return -1;
}

}  // namespace

bool can_line_buffer(const Program& program, const hls::Model& model, int kernel) {
  const Kernel& k = program.kernels.at(static_cast<std::size_t>(kernel));
  const hls::Layer& l = layer_of(model, k);
  if (l.kind() != hls::LayerKind::Conv) return false;
  const auto& p = l.as<hls::ConvParams>();
  return p.stride_h == 1 && p.stride_w == 1 && !k.locals.empty();
}

void line_buffer(Program& program, const hls::Model& model, int kernel) {
  Kernel& old = program.kernels.at(static_cast<std::size_t>(kernel));
  if (!can_line_buffer(program, model, kernel))
    throw_error(ErrorKind::Unsupported, "layer '" + old.onnx_name + "'",
                "has no line-buffered form (a convolution with stride 1 only)",
                "keep its loops in the direct form");
  const hls::Layer& l = layer_of(model, old);
  const auto& p = l.as<hls::ConvParams>();
  const hls::Precision& pr = l.precision;
  // The direct form's buffers: the input and output views, the weights and
  // biases, and its accumulators (reused, so no buffer is left unowned).
  const int x = find_read(program, old.reads, BufferRole::Tensor, 3);
  const int w = find_read(program, old.reads, BufferRole::Const, 4);
  const int b = find_read(program, old.reads, BufferRole::Const, 1);
  const int y = old.writes.at(0);
  const int acc = old.locals.at(0);
  KILN_ASSERT(x >= 0 && w >= 0, "kernel " + old.name + ": no input or weights");
  const std::vector<int> reads = old.reads, writes = old.writes;
  const std::string name = old.name, onnx_name = old.onnx_name;

  NameTable names;
  for (const Buffer& buf : program.buffers) names.claim(buf.name);
  const ScalarType xt = program.buffers[static_cast<std::size_t>(x)].type;
  const int64_t kh_n = p.kernel_h, kw_n = p.kernel_w, c_n = p.c_in;
  const int64_t cin_g = p.c_in / p.groups, cout_g = p.c_out / p.groups;
  // The padded rows and columns that reach an output.
  const int64_t hp = p.out_h + kh_n - 1, wp = p.out_w + kw_n - 1;

  KernelBuilder k(program, name, onnx_name);
  const int win = k.local(names.unique(name + "_win"), xt, {kh_n, kw_n, c_n});
  const int col = k.local(names.unique(name + "_col"), xt, {kh_n, c_n});
  // One line buffer per row kept and channel, each a column per padded
  // pixel: a memory of its own (a bank), read and written once per column.
  std::vector<std::vector<int>> lines(static_cast<std::size_t>(kh_n - 1));
  for (int64_t r = 0; r + 1 < kh_n; ++r)
    for (int64_t c = 0; c < c_n; ++c)
      lines[static_cast<std::size_t>(r)].push_back(
          k.local(names.unique(fmt::format("{}_line{}_{}", name, r, c)), xt, {wp}));
  // The window starts empty (its first columns shift out before any output).
  k.loop("wh", kh_n, [&](const Affine& i) {
    k.loop("ww", kw_n, [&](const Affine& j) {
      k.loop("wc", c_n, [&](const Affine& c) { k.store(win, {i, j, c}, k.constant(0, xt)); });
    });
  });
  k.loop("oh", hp, [&](const Affine& ph) {
    k.loop("ow", wp, [&](const Affine& pw) {
      const int64_t last = kh_n - 1;
      // The new pixel: the image's, or 0 in the padding.
      const Affine ih = ph + (-p.pad_top), iw = pw + (-p.pad_left);
      std::vector<Guard> inside;
      if (p.pad_top > 0 || hp - p.pad_top > p.in_h) inside.push_back({ih, 0, p.in_h});
      if (p.pad_left > 0 || wp - p.pad_left > p.in_w) inside.push_back({iw, 0, p.in_w});
      k.loop("nc", c_n, [&](const Affine& c) {
        k.store(col, {Affine::of(last), c}, k.constant(0, xt));
        k.when(inside, [&] { k.store(col, {Affine::of(last), c}, k.load(x, {ih, iw, c})); });
      });
      // The rows above it at this column, from the line buffers (read only
      // once this sample has written them), then the line buffers move up.
      for (int64_t r = 0; r + 1 < kh_n; ++r)
        for (int64_t c = 0; c < c_n; ++c) {
          const int line = lines[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
          const std::vector<Affine> at = {Affine::of(r), Affine::of(c)};
          k.store(col, at, k.constant(0, xt));
          k.when({{ph, last - r, hp}}, [&] { k.store(col, at, k.load(line, {pw})); });
        }
      for (int64_t r = 0; r + 1 < kh_n; ++r)
        for (int64_t c = 0; c < c_n; ++c)
          k.store(lines[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)], {pw},
                  k.load(col, {Affine::of(r + 1), Affine::of(c)}));
      // The window moves one column: the new column comes in on the right.
      if (kw_n > 1)
        k.loop("mh", kh_n, [&](const Affine& i) {
          k.loop("mw", kw_n - 1, [&](const Affine& j) {
            k.loop("mc", c_n, [&](const Affine& c) {
              k.store(win, {i, j, c}, k.load(win, {i, j + 1, c}));
            });
          });
        });
      k.loop("nh", kh_n, [&](const Affine& i) {
        k.loop("nw", c_n, [&](const Affine& c) {
          k.store(win, {i, Affine::of(kw_n - 1), c}, k.load(col, {i, c}));
        });
      });
      // The output pixel of this window, in the emulator's order; written
      // once the window holds this sample's pixels only.
      k.loop("init", p.c_out, [&](const Affine& j) {
        const int bv = b >= 0 ? k.load(b, {j}) : k.constant(0, {1, 0, false});
        k.store(acc, {j}, k.quantize(bv, pr.accum));
      });
      k.loop("kh", kh_n, [&](const Affine& kh) {
        k.loop("kw", kw_n, [&](const Affine& kw) {
          k.loop("g", p.groups, [&](const Affine& g) {
            k.loop("ci", cin_g, [&](const Affine& ci) {
              const int xv = k.load(win, {kh, kw, g * cin_g + ci});
              k.loop("co", cout_g, [&](const Affine& co) {
                const Affine o = g * cout_g + co;
                const int a = k.load(acc, {o});
                k.store(acc, {o},
                        k.quantize(k.add(a, k.mul(xv, k.load(w, {kh, kw, ci, o}))), pr.accum));
              });
            });
          });
        });
      });
      std::vector<Guard> full;
      if (kh_n > 1) full.push_back({ph, kh_n - 1, hp});
      if (kw_n > 1) full.push_back({pw, kw_n - 1, wp});
      k.loop("out", p.c_out, [&](const Affine& co) {
        const int v = fused_activation(k, k.load(acc, {co}), p.act, pr.result, name);
        k.when(full, [&] { k.store(y, {ph + (1 - kh_n), pw + (1 - kw_n), co}, v); });
      });
    });
  });
  k.finish(reads, writes);
  // The new kernel replaces the direct one and owns its accumulators too.
  Kernel made = std::move(program.kernels.back());
  program.kernels.pop_back();
  made.locals.push_back(acc);
  made.line_buffered = true;
  program.kernels[static_cast<std::size_t>(kernel)] = std::move(made);
  verify(program);
}

}  // namespace kiln::loop

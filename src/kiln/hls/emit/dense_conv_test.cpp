// The dense/conv/pool family in isolation: random small layers are emitted,
// compiled with the shipped headers into one C++14 program (g++ -Wall -Wextra
// -Werror) and run; every output must equal kiln's emulator bit for bit.
// Also checks of the encoded convolution's instruction table by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/hls/derived.h"
#include "kiln/hls/emit/layer_code.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/testing/snippet.h"
#include "kiln/support/error.h"

namespace kiln::hls {
namespace {

using numeric::OverflowMode;
using numeric::QuantMode;

// ---- the encoded convolution's table, by hand (seed 002 Figures 13-15) ----

TEST(EncodedTable, ThreeByThreeUnitStrideOnSixBySix) {
  ConvParams p;
  p.in_h = p.in_w = 6;
  p.out_h = p.out_w = 4;
  p.kernel_h = p.kernel_w = 3;
  const EncodedTable t = encoded_table(p);
  // Rows 0, 1 | 2, 3 (periodic, one class) | 4, 5: 5 classes per axis.
  EXPECT_EQ(t.n_row_classes, 5);
  EXPECT_EQ(t.n_col_classes, 5);
  ASSERT_EQ(t.table.size(), 25u);
  // Pixel (0, 0) is position (0, 0) of one window only.
  EXPECT_EQ(t.table[0], 1u);
  // An interior pixel is every position of some window: all nine bits.
  EXPECT_EQ(t.table[2 * 5 + 2], 0x1FFu);
  // Pixel (5, 5) is position (2, 2) of the last window only.
  EXPECT_EQ(t.table[4 * 5 + 4], 1u << 8);
  // Pixel (2, 5) (row class 2, column class 4): column offset 2 only, any row
  // offset: bits (0,2), (1,2), (2,2) = 2, 5, 8.
  EXPECT_EQ(t.table[2 * 5 + 4], (1u << 2) | (1u << 5) | (1u << 8));
  // Stream (0, 0) is fullest when pixel (2, 3) is written: rows 0-1 (8) and
  // (2, 0..3) (4) pushed, window (0, 0) popped at (2, 2): 11, within seed 002
  // §4.5's K (W - K + 1) = 12.
  EXPECT_EQ(t.stream_depth, 11);
}

TEST(EncodedTable, StrideLargerThanKernelLeavesPixelsUnused) {
  ConvParams p;
  p.dims = 1;
  p.in_w = 7;
  p.kernel_w = 2;
  p.stride_w = 3;
  p.out_w = 2;  // windows at 0-1 and 3-4; pixels 2, 5, 6 feed nothing
  const EncodedTable t = encoded_table(p);
  // Column classes: 0 | 1, 2, 3 (stride-periodic) | 4, 5, 6.
  EXPECT_EQ(t.n_col_classes, 1 + 3 + 3);
  // Column class of pixel 2 is 1 + (2 - 1) % 3 = 2.
  EXPECT_EQ(t.table[2], 0u);
  EXPECT_EQ(t.table[1], 2u);      // pixel 1: offset 1
  EXPECT_EQ(t.table[4], 2u);      // pixel 4: offset 1
  EXPECT_EQ(t.table[0], 1u);      // pixel 0: offset 0
  EXPECT_EQ(t.table[3], 1u);      // pixel 3 (class 1 + 2 % 3 = 3): offset 0
  EXPECT_EQ(t.table[4 + 1], 0u);  // pixel 5
}

// ---- random layers, compiled ----

FixedType fx(int w, int i, QuantMode q = QuantMode::Trn, OverflowMode o = OverflowMode::Wrap) {
  FixedType t;
  t.width = w;
  t.integer = i;
  t.quant = q;
  t.overflow = o;
  return t;
}

std::string literal(int64_t raw, const FixedType& t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", std::ldexp(static_cast<double>(raw), -t.frac()));
  return buf;
}

struct Case {
  Model model;  // tensors 0 (input) and 1 (output), one layer
  IOType io = IOType::Parallel;
  FixedTensor input;
  std::string description;
};

class Gen {
 public:
  explicit Gen(unsigned seed) : rng_(seed) {}
  int64_t uni(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool coin() { return uni(0, 1) == 1; }

  FixedType type(int wlo, int whi, int ilo, int ihi, bool modes) {
    FixedType t = fx(static_cast<int>(uni(wlo, whi)), static_cast<int>(uni(ilo, ihi)));
    if (modes) {
      static const QuantMode q[] = {QuantMode::Trn, QuantMode::Rnd, QuantMode::RndConv,
                                    QuantMode::TrnZero, QuantMode::RndZero};
      static const OverflowMode o[] = {OverflowMode::Wrap, OverflowMode::Sat, OverflowMode::SatSym};
      t.quant = q[uni(0, 4)];
      t.overflow = o[uni(0, 2)];
    }
    return t;
  }
  std::vector<int64_t> raws(int64_t n, const FixedType& t) {
    std::vector<int64_t> v(n);
    for (int64_t& x : v) x = uni(t.min_raw(), t.max_raw());
    return v;
  }
  Activation act() {
    Activation a;
    switch (uni(0, 3)) {
      case 0: break;
      case 1: a.kind = ActKind::Relu; break;
      case 2:
        a.kind = ActKind::LeakyRelu;
        a.alpha = 0.1 + 0.05 * static_cast<double>(uni(0, 4));
        break;
      default:
        a.kind = ActKind::Clip;
        a.alpha = -1.5;
        a.beta = 2.0 + 0.3 * static_cast<double>(uni(0, 3));
    }
    return a;
  }
  // A reuse factor dividing total.
  int64_t reuse(int64_t total) {
    std::vector<int64_t> d;
    for (int64_t i = 1; i <= total; ++i)
      if (total % i == 0) d.push_back(i);
    return d[uni(0, static_cast<int64_t>(d.size()) - 1)];
  }

 private:
  std::mt19937 rng_;
};

Case make_case(Gen& g, int index, LayerKind kind) {
  Case c;
  // IO type and convolution implementation cycle with the index so every
  // batch covers io_parallel, line buffer and encoded.
  c.io = index % 2 == 1 ? IOType::Stream : IOType::Parallel;
  Model& m = c.model;
  m.io_type = c.io;
  const std::string pre = "c" + std::to_string(index) + "_";
  TensorInfo tin, tout;
  tin.name = pre + "in";
  tout.name = pre + "out";
  tin.type = g.type(6, 14, 2, 5, false);
  Layer l;
  l.name = l.onnx_name = pre + "l";
  l.inputs = {0};
  l.outputs = {1};
  l.strategy = g.coin() ? Strategy::Resource : Strategy::Latency;
  l.conv_impl = (index / 2) % 2 == 1 ? ConvImpl::Encoded : ConvImpl::LineBuffer;
  Precision& pr = l.precision;
  pr.weight = g.type(4, 10, 1, 3, false);
  pr.bias = g.type(8, 12, 3, 5, false);
  // Narrow accumulators sometimes, so wrap and saturation happen.
  pr.accum = g.coin() ? g.type(20, 32, 8, 12, true) : g.type(10, 14, 4, 6, true);
  pr.result = g.type(8, 16, 1, 8, true);
  tout.type = pr.result;
  std::ostringstream d;
  switch (kind) {
    case LayerKind::Dense: {
      DenseParams p;
      p.n_in = g.uni(1, 12);
      p.n_out = g.uni(1, 8);
      p.act = g.act();
      const int64_t rows = g.uni(1, 2);
      tin.shape = rows == 1 ? std::vector<int64_t>{p.n_in} : std::vector<int64_t>{rows, p.n_in};
      tout.shape = rows == 1 ? std::vector<int64_t>{p.n_out} : std::vector<int64_t>{rows, p.n_out};
      l.reuse_factor = g.reuse(p.n_in * p.n_out);
      l.weights = g.raws(p.n_in * p.n_out, pr.weight);
      l.bias = g.raws(p.n_out, pr.bias);
      d << "dense " << p.n_in << "x" << p.n_out << " rows " << rows;
      l.params = p;
      break;
    }
    case LayerKind::Conv: {
      ConvParams p;
      p.dims = g.coin() ? 2 : 1;
      p.kernel_w = g.uni(1, 3);
      p.kernel_h = p.dims == 2 ? g.uni(1, 3) : 1;
      p.stride_w = g.uni(1, 3);
      p.stride_h = p.dims == 2 ? g.uni(1, 3) : 1;
      p.pad_left = g.uni(0, p.kernel_w - 1);
      p.pad_right = g.uni(0, p.kernel_w - 1);
      if (p.dims == 2) {
        p.pad_top = g.uni(0, p.kernel_h - 1);
        p.pad_bottom = g.uni(0, p.kernel_h - 1);
      }
      p.in_w = g.uni(std::max<int64_t>(1, p.kernel_w - p.pad_left - p.pad_right), 7);
      p.in_h =
          p.dims == 2 ? g.uni(std::max<int64_t>(1, p.kernel_h - p.pad_top - p.pad_bottom), 6) : 1;
      const int64_t mode = g.uni(0, 3);
      if (mode == 0) {  // depthwise
        p.c_in = p.c_out = p.groups = g.uni(1, 4);
      } else if (mode == 1) {  // grouped
        p.groups = 2;
        p.c_in = 2 * g.uni(1, 2);
        p.c_out = 2 * g.uni(1, 2);
      } else {
        p.c_in = g.uni(1, 4);
        p.c_out = g.uni(1, 4);
      }
      p.out_h = (p.in_h + p.pad_top + p.pad_bottom - p.kernel_h) / p.stride_h + 1;
      p.out_w = (p.in_w + p.pad_left + p.pad_right - p.kernel_w) / p.stride_w + 1;
      p.act = g.act();
      const int64_t n_in = p.kernel_h * p.kernel_w * (p.c_in / p.groups);
      l.reuse_factor = g.reuse(n_in * p.c_out);
      l.weights = g.raws(n_in * p.c_out, pr.weight);
      l.bias = g.raws(p.c_out, pr.bias);
      tin.shape = p.dims == 2 ? std::vector<int64_t>{p.in_h, p.in_w, p.c_in}
                              : std::vector<int64_t>{p.in_w, p.c_in};
      tout.shape = p.dims == 2 ? std::vector<int64_t>{p.out_h, p.out_w, p.c_out}
                               : std::vector<int64_t>{p.out_w, p.c_out};
      d << "conv" << p.dims << "d " << p.in_h << "x" << p.in_w << "x" << p.c_in << " -> " << p.c_out
        << " k" << p.kernel_h << "x" << p.kernel_w << " s" << p.stride_h << "x" << p.stride_w
        << " pad " << p.pad_top << p.pad_bottom << p.pad_left << p.pad_right << " groups "
        << p.groups << " " << (l.conv_impl == ConvImpl::Encoded ? "encoded" : "linebuffer");
      l.params = p;
      break;
    }
    case LayerKind::Recurrent: {
      RecurrentParams p;
      p.cell = g.coin() ? CellKind::Lstm : CellKind::Gru;
      p.steps = g.uni(1, 5);
      p.n_in = g.uni(1, 5);
      p.hidden = g.uni(1, 4);
      p.sequences = g.coin();
      const int64_t gates = p.gates() * p.hidden;
      tin.shape = {p.steps, p.n_in};
      tout.shape = p.sequences ? std::vector<int64_t>{p.steps, 1, p.hidden}
                               : std::vector<int64_t>{1, p.hidden};
      l.reuse_factor = g.reuse(std::gcd(p.n_in * gates, p.hidden * gates));
      l.weights = g.raws((p.n_in + p.hidden) * gates, pr.weight);
      l.bias = g.raws(2 * gates, pr.bias);
      pr.table = g.type(8, 18, 1, 3, true);
      l.tables.table_size = int64_t{1} << g.uni(6, 10);
      l.tables.table_range = static_cast<double>(int64_t{1} << g.uni(1, 3));
      d << enum_name(p.cell) << " steps " << p.steps << " in " << p.n_in << " hidden " << p.hidden
        << (p.sequences ? " sequences" : " last") << " rf " << l.reuse_factor;
      l.params = p;
      break;
    }
    case LayerKind::Pool: {
      PoolParams p;
      p.kind = g.coin() ? PoolKind::Max : PoolKind::Average;
      p.dims = g.coin() ? 2 : 1;
      p.channels = g.uni(1, 3);
      p.in_w = g.uni(2, 6);
      p.in_h = p.dims == 2 ? g.uni(2, 5) : 1;
      if (index % 5 == 0) {  // global
        p.kernel_h = p.in_h;
        p.kernel_w = p.in_w;
      } else {
        p.kernel_w = g.uni(1, std::min<int64_t>(3, p.in_w));
        p.kernel_h = p.dims == 2 ? g.uni(1, std::min<int64_t>(3, p.in_h)) : 1;
        p.stride_w = g.uni(1, 3);
        p.stride_h = p.dims == 2 ? g.uni(1, 3) : 1;
        p.pad_left = g.uni(0, p.kernel_w - 1);
        p.pad_right = g.uni(0, p.kernel_w - 1);
        if (p.dims == 2) {
          p.pad_top = g.uni(0, p.kernel_h - 1);
          p.pad_bottom = g.uni(0, p.kernel_h - 1);
        }
        p.count_include_pad = g.coin();
      }
      p.out_h = (p.in_h + p.pad_top + p.pad_bottom - p.kernel_h) / p.stride_h + 1;
      p.out_w = (p.in_w + p.pad_left + p.pad_right - p.kernel_w) / p.stride_w + 1;
      tin.shape = p.dims == 2 ? std::vector<int64_t>{p.in_h, p.in_w, p.channels}
                              : std::vector<int64_t>{p.in_w, p.channels};
      tout.shape = p.dims == 2 ? std::vector<int64_t>{p.out_h, p.out_w, p.channels}
                               : std::vector<int64_t>{p.out_w, p.channels};
      d << (p.kind == PoolKind::Max ? "maxpool" : "avgpool") << p.dims << "d " << p.in_h << "x"
        << p.in_w << "x" << p.channels << " k" << p.kernel_h << "x" << p.kernel_w << " s"
        << p.stride_h << "x" << p.stride_w << " pad " << p.pad_top << p.pad_bottom << p.pad_left
        << p.pad_right << (p.count_include_pad ? " incl" : "");
      l.params = p;
      break;
    }
    default: {
      ZeroPadParams p;
      p.dims = g.coin() ? 2 : 1;
      p.channels = g.uni(1, 3);
      p.in_w = g.uni(1, 4);
      p.in_h = p.dims == 2 ? g.uni(1, 4) : 1;
      p.pad_left = g.uni(0, 2);
      p.pad_right = g.uni(0, 2);
      if (p.dims == 2) {
        p.pad_top = g.uni(0, 2);
        p.pad_bottom = g.uni(0, 2);
      }
      const int64_t oh = p.in_h + p.pad_top + p.pad_bottom, ow = p.in_w + p.pad_left + p.pad_right;
      tin.shape = p.dims == 2 ? std::vector<int64_t>{p.in_h, p.in_w, p.channels}
                              : std::vector<int64_t>{p.in_w, p.channels};
      tout.shape = p.dims == 2 ? std::vector<int64_t>{oh, ow, p.channels}
                               : std::vector<int64_t>{ow, p.channels};
      d << "zeropad" << p.dims << "d";
      l.params = p;
    }
  }
  d << (c.io == IOType::Stream ? " io_stream" : " io_parallel") << " rf " << l.reuse_factor
    << (l.strategy == Strategy::Resource ? " resource" : " latency");
  c.description = d.str();
  m.tensors = {tin, tout};
  m.layers = {l};
  c.input.type = tin.type;
  c.input.shape = tin.shape;
  c.input.raw = g.raws(tin.numel(), tin.type);
  return c;
}

// The program's part for one case: typedefs, config, arrays and run_<k>().
std::string case_source(const Case& c, int k, std::set<std::string>& includes) {
  const Model& m = c.model;
  const Layer& l = m.layers[0];
  const TensorInfo& tin = m.tensors[0];
  const TensorInfo& tout = m.tensors[1];
  EmitContext ctx;
  ctx.io_type = c.io;
  ctx.inputs = {"x"};
  ctx.outputs = {"y"};
  const LayerCode code = emit_layer(m, l, ctx);
  for (const std::string& inc : code.includes) includes.insert(inc);
  std::ostringstream s;
  s << "// " << c.description << "\n";
  s << "typedef " << tin.type.to_kiln_cpp() << " " << tin.name << "_t;\n";
  s << "typedef " << tout.type.to_kiln_cpp() << " " << tout.name << "_t;\n";
  s << "typedef " << l.precision.weight.to_kiln_cpp() << " " << l.name << "_weight_t;\n";
  s << "typedef " << l.precision.bias.to_kiln_cpp() << " " << l.name << "_bias_t;\n";
  s << "typedef " << l.precision.accum.to_kiln_cpp() << " " << l.name << "_accum_t;\n";
  s << "typedef " << l.precision.table.to_kiln_cpp() << " " << l.name << "_table_t;\n";
  s << code.config;
  for (const WeightArray& a : code.arrays) {
    s << a.type_name << " " << a.name << "[" << a.raw.size() << "] = {";
    for (std::size_t i = 0; i < a.raw.size(); ++i)
      s << (i ? ", " : "") << literal(a.raw[i], a.type);
    s << "};\n";
  }
  const int64_t cin = tin.shape.back(), cout = tout.shape.back();
  const int64_t n_in = tin.numel(), n_out = tout.numel();
  s << "static void run_" << k << "() {\n";
  s << "  static const double input[" << n_in << "] = {";
  for (int64_t i = 0; i < n_in; ++i) s << (i ? ", " : "") << literal(c.input.raw[i], tin.type);
  s << "};\n";
  const std::string it = tin.name + "_t", ot = tout.name + "_t";
  if (c.io == IOType::Parallel) {
    s << "  static " << it << " x[" << n_in << "];\n";
    s << "  static " << ot << " y[" << n_out << "];\n";
    s << "  for (int i = 0; i < " << n_in << "; i++) x[i] = input[i];\n";
    s << code.call;
    s << "  for (int i = 0; i < " << n_out
      << "; i++) std::printf(\"%lld \", kiln::raw_bits(y[i]));\n";
  } else {
    s << "  kiln::stream<kiln::array<" << it << ", " << cin << "> > x;\n";
    s << "  kiln::stream<kiln::array<" << ot << ", " << cout << "> > y;\n";
    s << "  for (int e = 0; e < " << n_in / cin << "; e++) {\n";
    s << "    kiln::array<" << it << ", " << cin << "> px;\n";
    s << "    for (int c = 0; c < " << cin << "; c++) px[c] = input[e * " << cin << " + c];\n";
    s << "    x.write(px);\n  }\n";
    s << code.call;
    s << "  int n = 0;\n";
    s << "  while (!y.empty()) {\n";
    s << "    const kiln::array<" << ot << ", " << cout << "> py = y.read();\n";
    s << "    for (int c = 0; c < " << cout
      << "; c++) std::printf(\"%lld \", kiln::raw_bits(py[c]));\n";
    s << "    n++;\n  }\n";
    s << "  if (n != " << n_out / cout << ") std::printf(\"WRONG_ELEMENT_COUNT \");\n";
    s << "  if (!x.empty()) std::printf(\"INPUT_LEFT \");\n";
  }
  s << "  std::printf(\"\\n\");\n}\n";
  return s.str();
}

std::string expected_line(const Case& c) {
  const Layer& l = c.model.layers[0];
  FixedTensor out;
  out.type = c.model.tensors[1].type;
  out.shape = c.model.tensors[1].shape;
  emulate_layer(l, {&c.input}, {&out});
  std::ostringstream s;
  for (int64_t r : out.raw) s << r << " ";
  return s.str();
}

// Cases per program, and how many wrap/saturate (so those paths are covered).
void run_batch(unsigned seed, const std::vector<LayerKind>& kinds) {
  Gen g(seed);
  std::vector<Case> cases;
  for (std::size_t i = 0; i < kinds.size(); ++i)
    cases.push_back(make_case(g, static_cast<int>(i), kinds[i]));
  std::set<std::string> includes;
  std::string body;
  for (std::size_t k = 0; k < cases.size(); ++k)
    body += case_source(cases[k], static_cast<int>(k), includes);
  std::string src = "#include <cstdio>\n";
  for (const std::string& inc : includes) src += "#include \"" + inc + "\"\n";
  src += body + "int main() {\n";
  for (std::size_t k = 0; k < cases.size(); ++k) src += "  run_" + std::to_string(k) + "();\n";
  src += "  return 0;\n}\n";
  std::string out;
  try {
    out = testing::compile_and_run(src, {testing::library_include_dir()});
  } catch (const Error& e) {
    FAIL() << e.message() << "\n--- source ---\n" << src.substr(0, 6000);
  }
  std::istringstream lines(out);
  int overflowing = 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, expected_line(cases[k])) << "case " << k << ": " << cases[k].description;
    FixedTensor o;
    o.type = cases[k].model.tensors[1].type;
    const OverflowCounts counts = emulate_layer(cases[k].model.layers[0], {&cases[k].input}, {&o});
    if (counts.wrapped + counts.saturated > 0) overflowing++;
  }
  EXPECT_GT(overflowing, 0) << "no case exercised wrap or saturation";
}

std::vector<LayerKind> repeat(LayerKind k, int n) {
  return std::vector<LayerKind>(n, k);
}

TEST(DenseConvCompiled, DenseBitExact) {
  run_batch(11, repeat(LayerKind::Dense, 16));
}

TEST(DenseConvCompiled, ConvBitExact) {
  run_batch(23, repeat(LayerKind::Conv, 28));
}

TEST(DenseConvCompiled, RecurrentBitExact) {
  run_batch(41, repeat(LayerKind::Recurrent, 16));
}

TEST(DenseConvCompiled, PoolAndZeroPadBitExact) {
  std::vector<LayerKind> kinds = repeat(LayerKind::Pool, 16);
  for (LayerKind k : repeat(LayerKind::ZeroPad, 6)) kinds.push_back(k);
  run_batch(37, kinds);
}

}  // namespace
}  // namespace kiln::hls

// The elementwise, data-movement and resampling layers end to end: random
// small layers of every kind are emitted, compiled with the shipped headers (one program per IO
// type) and compared bit for bit with the emulator.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "kiln/hls/derived.h"
#include "kiln/hls/emit/layer_code.h"
#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/tables.h"
#include "kiln/hls/testing/snippet.h"
#include "kiln/ref/resize_taps.h"
#include "kiln/support/error.h"

namespace kiln::hls {
namespace {

using numeric::OverflowMode;
using numeric::QuantMode;

struct Case {
  Model model;  // tensors: inputs..., output; one layer
  std::vector<FixedTensor> inputs;
  std::string label;
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

  FixedType type(int wlo, int whi, int ilo, int ihi, bool allow_unsigned = false) {
    FixedType t;
    t.width = uniform(wlo, whi);
    t.integer = std::min(uniform(ilo, ihi), t.width);
    t.is_signed = !(allow_unsigned && uniform(0, 3) == 0);
    t.quant = uniform(0, 1) ? QuantMode::Rnd : QuantMode::Trn;
    t.overflow = uniform(0, 1) ? OverflowMode::Sat : OverflowMode::Wrap;
    return t;
  }
  FixedType data_type(bool allow_unsigned = false) { return type(6, 16, 1, 6, allow_unsigned); }

  std::vector<int64_t> raws(const FixedType& t, int64_t n) {
    std::uniform_int_distribution<int64_t> d(t.min_raw(), t.max_raw());
    std::vector<int64_t> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(d(rng_));
    return v;
  }

  // A case with the given input shapes/types and output shape; the layer is
  // filled in by the caller.
  Case make(const std::string& label, const std::vector<std::vector<int64_t>>& in_shapes,
            const std::vector<FixedType>& in_types, const std::vector<int64_t>& out_shape,
            const FixedType& out_type) {
    Case c;
    c.label = label;
    for (std::size_t i = 0; i < in_shapes.size(); ++i) {
      TensorInfo t{"in" + std::to_string(i), in_shapes[i], in_types[i]};
      c.model.tensors.push_back(t);
      c.inputs.push_back(FixedTensor{in_types[i], in_shapes[i], raws(in_types[i], t.numel())});
      c.model.inputs.push_back(static_cast<int>(i));
    }
    c.model.tensors.push_back(TensorInfo{"out", out_shape, out_type});
    Layer l;
    l.name = "L";
    l.onnx_name = label;
    for (std::size_t i = 0; i < in_shapes.size(); ++i) l.inputs.push_back(static_cast<int>(i));
    l.outputs = {static_cast<int>(in_shapes.size())};
    l.precision.result = out_type;
    l.precision.weight = type(6, 12, 1, 3);
    l.precision.bias = type(6, 12, 1, 4);
    l.precision.accum = type(10, 20, 3, 8);
    l.precision.table = type(8, 18, 1, 4);
    l.precision.inv_table = type(12, 22, 6, 10);
    c.model.layers.push_back(l);
    return c;
  }

 private:
  std::mt19937 rng_;
};

int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}
int64_t width(const std::vector<int64_t>& s) {
  return s.empty() ? 1 : s.back();
}

// Every op with every broadcast form of its second operand, on random 1-D
// ([L, C]) and 2-D ([H, W, C]) maps.
void add_binary_cases(Generator& g, std::vector<Case>& cases) {
  for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::ReverseSub}) {
    for (BinaryBroadcast b :
         {BinaryBroadcast::None, BinaryBroadcast::PerChannel, BinaryBroadcast::PerPixel}) {
      std::vector<int64_t> shape{g.uniform(1, 3), g.uniform(1, 4)};
      if (g.uniform(0, 1)) shape.insert(shape.begin(), g.uniform(1, 3));
      const std::vector<int64_t> bs = binary_operand_shape(shape, b);
      Case cs = g.make("binary", {shape, bs}, {g.data_type(true), g.data_type(true)}, shape,
                       g.data_type());
      cs.model.layers[0].params = BinaryParams{op, numel(shape), shape.back(), b};
      cases.push_back(cs);
    }
  }
}

// Slices of rank 1 to 4 with random bounds and steps.
void add_slice_cases(Generator& g, std::vector<Case>& cases) {
  for (int rep = 0; rep < 8; ++rep) {
    const int rank = g.uniform(1, 4);
    std::vector<int64_t> in, out;
    SliceParams p;
    for (int a = 0; a < rank; ++a) {
      const int64_t d = g.uniform(1, 5);
      const int64_t b = g.uniform(0, static_cast<int>(d) - 1), st = g.uniform(1, 3);
      in.push_back(d);
      p.begin.push_back(b);
      p.step.push_back(st);
      out.push_back(g.uniform(1, static_cast<int>((d - 1 - b) / st + 1)));
    }
    Case cs = g.make("slice", {in}, {g.data_type(true)}, out, g.data_type());
    cs.model.layers[0].params = p;
    cases.push_back(cs);
  }
}

// Quantizers of random formats, with and without a clamp inside the range.
void add_quantize_cases(Generator& g, std::vector<Case>& cases) {
  for (int rep = 0; rep < 6; ++rep) {
    FixedType f = g.type(4, 10, -2, 6, true);
    f.quant = QuantMode::RndConv;
    f.overflow = OverflowMode::Sat;
    QuantizeParams p{f, f.min_raw(), f.max_raw(), 0.25, true};
    if (rep % 2) {
      p.min_raw = std::min<int64_t>(f.min_raw() + 3, f.max_raw());
      p.max_raw = std::max<int64_t>(p.min_raw, f.max_raw() - 5);
    }
    const std::vector<int64_t> shape{3, g.uniform(1, 3)};
    Case cs = g.make("quantize", {shape}, {g.data_type(true)}, shape, f);
    cs.model.layers[0].params = p;
    cases.push_back(cs);
  }
}

// Resizes with the taps of the golden model's coordinate modes and random
// weights (the arithmetic is what is tested, not the weights' values).
void add_resize_cases(Generator& g, std::vector<Case>& cases) {
  const ResizeCoord coords[] = {ResizeCoord::HalfPixel, ResizeCoord::Asymmetric,
                                ResizeCoord::AlignCorners, ResizeCoord::PytorchHalfPixel};
  for (int rep = 0; rep < 8; ++rep) {
    ResizeParams p;
    p.mode = rep % 2 ? ResizeKind::Linear : ResizeKind::Nearest;
    p.dims = rep % 4 < 2 ? 2 : 1;
    p.channels = g.uniform(1, 3);
    p.in_w = g.uniform(1, 4), p.out_w = g.uniform(1, 7);
    if (p.dims == 2) p.in_h = g.uniform(1, 4), p.out_h = g.uniform(1, 7);
    ResizeAttrs a;
    a.mode = p.mode == ResizeKind::Linear ? ResizeMode::Linear : ResizeMode::Nearest;
    a.coord = coords[g.uniform(0, 3)];
    a.nearest = g.uniform(0, 1) ? NearestMode::Floor : NearestMode::RoundPreferFloor;
    a.scales = {1.0, static_cast<double>(p.out_h) / static_cast<double>(p.in_h),
                static_cast<double>(p.out_w) / static_cast<double>(p.in_w), 1.0};
    auto index = [&](std::size_t d, int64_t in, int64_t out) {
      std::vector<int64_t> v;
      for (const auto& taps : ref::resize_taps(a, d, 4, in, out))
        for (int64_t t = 0; t < p.taps(); ++t)
          v.push_back(taps[static_cast<std::size_t>(
                               std::min<int64_t>(t, static_cast<int64_t>(taps.size()) - 1))]
                          .index);
      return v;
    };
    p.row_index = index(1, p.in_h, p.out_h);
    p.col_index = index(2, p.in_w, p.out_w);
    const std::vector<int64_t> in = p.dims == 2 ? std::vector<int64_t>{p.in_h, p.in_w, p.channels}
                                                : std::vector<int64_t>{p.in_w, p.channels};
    const std::vector<int64_t> out = p.dims == 2
                                         ? std::vector<int64_t>{p.out_h, p.out_w, p.channels}
                                         : std::vector<int64_t>{p.out_w, p.channels};
    Case cs = g.make(p.mode == ResizeKind::Linear ? "resize_linear" : "resize_nearest", {in},
                     {g.data_type(true)}, out, g.data_type());
    Layer& l = cs.model.layers[0];
    if (p.mode == ResizeKind::Linear)
      l.weights = g.raws(l.precision.weight, (p.out_h + p.out_w) * 2);
    l.params = p;
    cases.push_back(cs);
  }
}

std::vector<Case> make_cases(Generator& g) {
  std::vector<Case> cases;
  const ActKind kinds[] = {ActKind::None, ActKind::Relu,  ActKind::LeakyRelu,   ActKind::Elu,
                           ActKind::Selu, ActKind::PRelu, ActKind::Clip,        ActKind::Sigmoid,
                           ActKind::Tanh, ActKind::Exp,   ActKind::HardSigmoid, ActKind::HardSwish};
  for (ActKind k : kinds) {
    for (int rep = 0; rep < 2; ++rep) {
      const int64_t c = g.uniform(1, 4);
      const std::vector<int64_t> shape{2, g.uniform(1, 3), c};
      Case cs = g.make("act" + std::to_string(static_cast<int>(k)), {shape}, {g.data_type()}, shape,
                       g.data_type());
      Layer& l = cs.model.layers[0];
      ActivationParams p;
      p.n = numel(shape);
      p.channels = c;
      p.act.kind = k;
      p.act.alpha = k == ActKind::Clip ? g.real(-3, 0) : g.real(0.01, 2);
      p.act.beta = k == ActKind::Clip ? g.real(-0.5, 4) : g.real(0.5, 2);
      if (k == ActKind::HardSigmoid) p.act.beta = g.real(-1, 1);
      if (k == ActKind::HardSwish) p.act = {k, 1.0 / 6.0, 0.5};
      l.params = p;
      l.tables.table_size = int64_t{1} << g.uniform(3, 7);
      l.tables.table_range = std::ldexp(1.0, g.uniform(0, 3));
      if (k == ActKind::PRelu) l.weights = g.raws(l.precision.weight, c);
      cs.model.layers[0] = l;
      cases.push_back(cs);
    }
  }
  for (int rep = 0; rep < 3; ++rep) {
    const std::vector<int64_t> shape{3, g.uniform(2, 6)};
    Case cs = g.make("softmax", {shape}, {g.data_type(rep == 2)}, shape, g.data_type());
    Layer& l = cs.model.layers[0];
    l.params = SoftmaxParams{3, shape[1]};
    l.tables.table_size = int64_t{1} << g.uniform(4, 8);
    l.tables.table_range = std::ldexp(1.0, g.uniform(1, 3));
    l.tables.inv_table_size = int64_t{1} << g.uniform(4, 8);
    l.tables.inv_table_range = rep == 1 ? 16 : 0;
    l.precision.table = g.type(10, 18, 1, 2, true);
    cases.push_back(cs);
  }
  // LogSoftmax: the same exp table and sum, then the log table's entry
  // subtracted from x_i - m (rep 2: an unsigned log table; rep 1: a fixed
  // log-table range).
  for (int rep = 0; rep < 3; ++rep) {
    const std::vector<int64_t> shape{3, g.uniform(2, 6)};
    Case cs = g.make("log_softmax", {shape}, {g.data_type(rep == 2)}, shape, g.data_type());
    Layer& l = cs.model.layers[0];
    l.params = SoftmaxParams{3, shape[1], true};
    l.tables.table_size = int64_t{1} << g.uniform(4, 8);
    l.tables.table_range = std::ldexp(1.0, g.uniform(1, 3));
    l.tables.inv_table_size = int64_t{1} << g.uniform(4, 8);
    l.tables.inv_table_range = rep == 1 ? 16 : 0;
    l.precision.table = g.type(10, 18, 1, 2, true);
    l.precision.log_table = g.type(10, 18, 2, 6, rep == 2);
    cases.push_back(cs);
  }
  {
    const std::vector<int64_t> shape{2, 2, 3};
    Case cs = g.make("batchnorm", {shape}, {g.data_type()}, shape, g.data_type());
    Layer& l = cs.model.layers[0];
    l.params = BatchNormParams{12, 3};
    l.weights = g.raws(l.precision.weight, 3);
    l.bias = g.raws(l.precision.bias, 3);
    cases.push_back(cs);
  }
  struct ConcatSpec {
    std::vector<std::vector<int64_t>> in;
    std::vector<int64_t> out;
    int axis;
  };
  const ConcatSpec concats[] = {
      {{{2, 3, 2}, {2, 3, 1}}, {2, 3, 3}, 2},
      {{{1, 2, 3}, {2, 2, 3}, {1, 2, 3}}, {4, 2, 3}, 0},
      {{{2, 1, 3}, {2, 2, 3}}, {2, 3, 3}, 1},
      {{{2, 1}, {2, 2}, {2, 3}, {2, 1}}, {2, 7}, 1},
      {{{3}, {2}}, {5}, 0},
  };
  for (const ConcatSpec& s : concats) {
    std::vector<FixedType> types;
    for (std::size_t i = 0; i < s.in.size(); ++i) types.push_back(g.data_type(true));
    Case cs = g.make("concat", s.in, types, s.out, g.data_type());
    cs.model.layers[0].params = ConcatParams{s.axis};
    cases.push_back(cs);
  }
  struct TransposeSpec {
    std::vector<int64_t> in, perm;
  };
  const TransposeSpec transposes[] = {{{2, 3, 4}, {2, 0, 1}},
                                      {{3, 4}, {1, 0}},
                                      {{2, 3, 1, 2}, {3, 1, 0, 2}},
                                      {{2, 3, 2}, {0, 2, 1}}};
  for (const TransposeSpec& s : transposes) {
    std::vector<int64_t> out;
    for (int64_t a : s.perm) out.push_back(s.in[static_cast<std::size_t>(a)]);
    Case cs = g.make("transpose", {s.in}, {g.data_type()}, out, g.data_type());
    cs.model.layers[0].params = TransposeParams{s.perm};
    cases.push_back(cs);
  }
  struct MatMulSpec {
    int64_t b, m, k, n;
  };
  for (const MatMulSpec& s : {MatMulSpec{2, 3, 4, 2}, MatMulSpec{1, 3, 4, 5}}) {
    const std::vector<int64_t> a =
        s.b > 1 ? std::vector<int64_t>{s.b, s.m, s.k} : std::vector<int64_t>{s.m, s.k};
    const std::vector<int64_t> bs =
        s.b > 1 ? std::vector<int64_t>{s.b, s.k, s.n} : std::vector<int64_t>{s.k, s.n};
    const std::vector<int64_t> o =
        s.b > 1 ? std::vector<int64_t>{s.b, s.m, s.n} : std::vector<int64_t>{s.m, s.n};
    Case cs = g.make("matmul", {a, bs}, {g.data_type(), g.data_type()}, o, g.data_type());
    cs.model.layers[0].params = MatMulParams{s.b, s.m, s.k, s.n};
    cases.push_back(cs);
  }
  const std::vector<int64_t> reshapes[][2] = {
      {{2, 3, 4}, {24}}, {{24}, {2, 3, 4}}, {{6, 4}, {4, 6}}, {{2, 2, 3}, {2, 6}}};
  for (const auto& s : reshapes) {
    Case cs = g.make("reshape", {s[0]}, {g.data_type(true)}, s[1], g.data_type());
    cs.model.layers[0].params = ReshapeParams{};
    cases.push_back(cs);
  }
  add_binary_cases(g, cases);
  add_slice_cases(g, cases);
  add_quantize_cases(g, cases);
  add_resize_cases(g, cases);
  return cases;
}

std::string array_text(const std::string& decl, const std::vector<int64_t>& raw,
                       const FixedType& t) {
  std::string s = decl + " = {";
  for (std::size_t i = 0; i < raw.size(); ++i) s += (i ? ", " : "") + fixed_literal(raw[i], t);
  return s + "};\n";
}

// One namespace per case: typedefs, constants, config, and run() printing the
// output's raw values.
std::string case_source(const Case& c, std::size_t index, IOType io) {
  const Model& m = c.model;
  const Layer& l = m.layers[0];
  EmitContext ctx;
  ctx.io_type = io;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) ctx.inputs.push_back("in" + std::to_string(i));
  ctx.outputs = {"out"};
  const LayerCode code = emit_layer(m, l, ctx);
  std::ostringstream s;
  s << "namespace case" << index << " {\n";
  for (const TensorInfo& t : m.tensors)
    s << "typedef " << t.type.to_kiln_cpp() << " " << t.name << "_t;\n";
  const Precision& p = l.precision;
  const std::pair<const char*, const FixedType*> typedefs[] = {
      {"weight", &p.weight},      {"bias", &p.bias},   {"result", &p.result},
      {"accum", &p.accum},        {"table", &p.table}, {"inv_table", &p.inv_table},
      {"log_table", &p.log_table}};
  for (const auto& [suffix, type] : typedefs) {
    s << "typedef " << type->to_kiln_cpp() << " L_" << suffix << "_t;\n";
  }
  for (const WeightArray& w : code.arrays) {
    s << array_text(
        "const " + w.type_name + " " + w.name + "[" + std::to_string(w.raw.size()) + "]", w.raw,
        w.type);
  }
  s << code.config << "void run() {\n";
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const TensorInfo& t = m.tensors[i];
    const std::string name = "in" + std::to_string(i);
    if (io == IOType::Parallel) {
      s << array_text("  const " + name + "_t " + name + "[" + std::to_string(t.numel()) + "]",
                      c.inputs[i].raw, t.type);
    } else {
      const int64_t w = width(t.shape);
      s << array_text("  const " + name + "_t " + name + "_v[" + std::to_string(t.numel()) + "]",
                      c.inputs[i].raw, t.type);
      s << "  kiln::stream<kiln::array<" << name << "_t, " << w << "> > " << name << ";\n"
        << "  for (int p = 0; p < " << t.numel() / w << "; p++) {\n"
        << "    kiln::array<" << name << "_t, " << w << "> e;\n"
        << "    for (int k = 0; k < " << w << "; k++) e[k] = " << name << "_v[p * " << w
        << " + k];\n"
        << "    " << name << ".write(e);\n  }\n";
    }
  }
  const TensorInfo& out = m.tensors.back();
  const int64_t w = width(out.shape);
  if (io == IOType::Parallel) {
    s << "  out_t out[" << out.numel() << "];\n"
      << "  " << code.call;
    s << "  for (int i = 0; i < " << out.numel()
      << "; i++) std::printf(\"%lld\\n\", kiln::raw_bits(out[i]));\n";
  } else {
    s << "  kiln::stream<kiln::array<out_t, " << w << "> > out;\n  " << code.call;
    s << "  for (int p = 0; p < " << out.numel() / w << "; p++) {\n"
      << "    const kiln::array<out_t, " << w << "> e = out.read();\n"
      << "    for (int k = 0; k < " << w
      << "; k++) std::printf(\"%lld\\n\", kiln::raw_bits(e[k]));\n"
      << "  }\n"
      << "  if (!out.empty()) std::printf(\"output stream not drained\\n\");\n";
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      s << "  if (!in" << i << ".empty()) std::printf(\"input stream not drained\\n\");\n";
    }
  }
  s << "}\n}  // namespace case" << index << "\n";
  return s.str();
}

void check_bit_exact(IOType io, uint32_t seed) {
  Generator g(seed);
  const std::vector<Case> cases = make_cases(g);
  std::ostringstream src;
  src << "#include <cstdio>\n";
  for (const char* h : {"activation", "softmax", "merge", "batchnorm", "reshape", "transpose",
                        "matmul", "slice", "resize", "quantize"}) {
    src << "#include \"kiln/" << h << ".h\"\n";
  }
  for (std::size_t i = 0; i < cases.size(); ++i) src << case_source(cases[i], i, io);
  src << "int main() {\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    src << "  std::printf(\"case " << i << "\\n\");\n  case" << i << "::run();\n";
  }
  src << "  return 0;\n}\n";
  std::string output;
  try {
    output = testing::compile_and_run(src.str(), {testing::library_include_dir()});
  } catch (const Error& e) {
    FAIL() << e.message().substr(0, 4000);
  }
  std::istringstream lines(output);
  std::string line;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    ASSERT_TRUE(std::getline(lines, line));
    ASSERT_EQ(line, "case " + std::to_string(i));
    std::vector<const FixedTensor*> in;
    for (const FixedTensor& t : c.inputs) in.push_back(&t);
    const TensorInfo& ot = c.model.tensors.back();
    FixedTensor out{ot.type, ot.shape, {}};
    emulate_layer(c.model.layers[0], in, {&out});
    ASSERT_EQ(out.raw.size(), static_cast<std::size_t>(ot.numel()));
    for (std::size_t k = 0; k < out.raw.size(); ++k) {
      ASSERT_TRUE(std::getline(lines, line));
      ASSERT_EQ(line, std::to_string(out.raw[k]))
          << "case " << i << " (" << c.label << ") value " << k << "\n"
          << case_source(c, i, io);
    }
  }
  ASSERT_FALSE(std::getline(lines, line)) << "extra output: " << line;
}

TEST(ElementwiseBitExact, IoParallel) {
  check_bit_exact(IOType::Parallel, 11);
}
TEST(ElementwiseBitExact, IoStream) {
  check_bit_exact(IOType::Stream, 12);
}

TEST(ElementwiseEmit, SigmoidConfigAndTable) {
  Generator g(2);
  const std::vector<int64_t> s{4, 8};
  Case c = g.make("sig", {s}, {g.data_type()}, s, g.data_type());
  Layer& l = c.model.layers[0];
  l.params = ActivationParams{32, 8, {ActKind::Sigmoid, 0, 0}};
  l.tables.table_size = 16;
  l.tables.table_range = 2;
  EmitContext ctx;
  ctx.inputs = {"x"};
  ctx.outputs = {"y"};
  const LayerCode code = emit_layer(c.model, l, ctx);
  EXPECT_EQ(code.call, "kiln::sigmoid<config_L>(x, L_table, y);\n");
  EXPECT_NE(code.config.find("static const unsigned table_size = 16;"), std::string::npos);
  EXPECT_NE(code.config.find("static const int table_shift = 2;"), std::string::npos);
  EXPECT_NE(code.config.find("static const unsigned channels = 8;"), std::string::npos);
  ASSERT_EQ(code.arrays.size(), 1u);
  EXPECT_EQ(code.arrays[0].name, "L_table");
  EXPECT_EQ(code.arrays[0].type_name, "L_table_t");
  EXPECT_EQ(code.arrays[0].raw.size(), 16u);
  EXPECT_EQ(code.includes, std::vector<std::string>{"kiln/activation.h"});
}

// LogSoftmax calls kiln::log_softmax with the exp table and a log table whose
// geometry is the reciprocal table's (TableSize entries over the row length's
// power of two).
TEST(ElementwiseEmit, LogSoftmaxConfigAndTables) {
  Generator g(3);
  const std::vector<int64_t> s{2, 5};
  Case c = g.make("lsm", {s}, {g.data_type()}, s, g.data_type());
  Layer& l = c.model.layers[0];
  l.params = SoftmaxParams{2, 5, true};
  l.tables.table_size = 64;
  l.tables.table_range = 8;
  l.tables.inv_table_size = 32;
  EmitContext ctx;
  ctx.inputs = {"x"};
  ctx.outputs = {"y"};
  const LayerCode code = emit_layer(c.model, l, ctx);
  EXPECT_EQ(code.call, "kiln::log_softmax<config_L>(x, L_table, L_log_table, y);\n");
  for (const char* line :
       {"static const unsigned table_size = 64;", "static const int table_shift = 3;",
        "static const unsigned log_table_size = 32;", "static const int log_table_shift = 2;",
        "typedef L_log_table_t log_table_t;"})
    EXPECT_NE(code.config.find(line), std::string::npos) << line << "\n" << code.config;
  EXPECT_EQ(code.config.find("inv_table"), std::string::npos) << code.config;
  ASSERT_EQ(code.arrays.size(), 2u);
  EXPECT_EQ(code.arrays[1].name, "L_log_table");
  EXPECT_EQ(code.arrays[1].type_name, "L_log_table_t");
  EXPECT_EQ(code.arrays[1].type, l.precision.log_table);
  EXPECT_EQ(code.arrays[1].raw, make_table(TableKind::SoftmaxLog,
                                           table_geometry(TableKind::SoftmaxLog, l.tables, 5, "L"),
                                           l.precision.log_table));
  EXPECT_EQ(code.includes, std::vector<std::string>{"kiln/softmax.h"});
}

}  // namespace
}  // namespace kiln::hls

// The cross-checking fuzzer: random layers of the kinds the RTL builds
// (shapes, precisions, rounding and overflow modes, weights), each through
// build_design and a simulator, every output compared with the emulator.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <random>

#include "kiln/hls/model_text.h"
#include "kiln/rtl/design.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {
namespace {

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin() { return uniform(0, 1) == 1; }

  // A format with random width, binary point and modes.
  std::string format(int wmin, int wmax) {
    static const char* kQuant[] = {"AP_TRN",         "AP_TRN_ZERO", "AP_RND",     "AP_RND_ZERO",
                                   "AP_RND_MIN_INF", "AP_RND_INF",  "AP_RND_CONV"};
    static const char* kOverflow[] = {"AP_WRAP", "AP_SAT", "AP_SAT_ZERO", "AP_SAT_SYM"};
    const int w = uniform(wmin, wmax);
    const int i = uniform(1, std::max(2, w - 2));
    return fmt::format("{}<{},{},{},{}>", coin() || uniform(0, 3) ? "ap_fixed" : "ap_ufixed", w, i,
                       kQuant[uniform(0, 6)], kOverflow[uniform(0, 3)]);
  }
  std::string raw_list(int n, int bits) {
    std::string s;
    const int lim = (1 << (bits - 1)) - 1;
    for (int k = 0; k < n; ++k) {
      int v = uniform(-lim, lim);
      if (uniform(0, 5) == 0) v = 0;  // zeros and powers of two fold
      if (uniform(0, 5) == 0) v = (coin() ? 1 : -1) << uniform(0, bits - 2);
      s += (k ? "," : "") + std::to_string(v);
    }
    return s;
  }

 private:
  std::mt19937 rng_;
};

// One random layer model as layer text.
std::string random_layer(Gen& g, int kind) {
  const std::string in = fmt::format("ap_fixed<{},{}>", g.uniform(6, 12), g.uniform(2, 5));
  const std::string res = g.format(5, 14);
  const std::string acc = g.format(14, 28);
  std::string s = "model \"r\" {}\n";
  switch (kind) {
    case 0: {  // Dense with an activation
      const int ni = g.uniform(2, 6), no = g.uniform(1, 4);
      static const char* kAct[] = {"", " act={kind=Relu}", " act={kind=LeakyRelu alpha=0.1875}",
                                   " act={kind=Clip alpha=-1.5 beta=2.25}"};
      s += fmt::format("%x: {}[{}] = Input() @x \"x\"\n", in, ni);
      s += fmt::format(
          "%y: {}[{}] = Dense(%x) {{n_in={} n_out={}{}}} @fc config {{accum={}}} constants "
          "{{weights=[{}] bias=[{}]}}\n",
          res, no, ni, no, kAct[g.uniform(0, 3)], acc, g.raw_list(ni * no, 12), g.raw_list(no, 10));
      s += fmt::format("input %x \"x\": [1x{}] perm=[0]\noutput %y \"y\": [1x{}] perm=[0]\n", ni,
                       no);
      return s;
    }
    case 1: {  // Conv with padding and stride
      const int h = g.uniform(3, 5), w = g.uniform(3, 5), ci = g.uniform(1, 2),
                co = g.uniform(1, 2);
      const int k = g.uniform(1, 3), st = g.uniform(1, 2), pad = g.uniform(0, 1);
      const int oh = (h + 2 * pad - k) / st + 1, ow = (w + 2 * pad - k) / st + 1;
      s += fmt::format("%x: {}[{}x{}x{}] = Input() @x \"x\"\n", in, h, w, ci);
      s += fmt::format(
          "%y: {}[{}x{}x{}] = Conv(%x) {{in_h={} in_w={} c_in={} out_h={} out_w={} c_out={} "
          "kernel_h={} kernel_w={} stride_h={} stride_w={} pad_top={} pad_bottom={} pad_left={} "
          "pad_right={}}} @conv config {{accum={}}} constants {{weights=[{}] bias=[{}]}}\n",
          res, oh, ow, co, h, w, ci, oh, ow, co, k, k, st, st, pad, pad, pad, pad, acc,
          g.raw_list(k * k * ci * co, 10), g.raw_list(co, 10));
      s += fmt::format("input %x \"x\": [1x{}x{}x{}] perm=[1,2,0]\n", ci, h, w);
      s += fmt::format("output %y \"y\": [1x{}x{}x{}] perm=[1,2,0]\n", co, oh, ow);
      return s;
    }
    case 2: {  // Pool, max or average, padded
      const bool avg = g.coin();
      const int h = g.uniform(2, 5), w = g.uniform(2, 5), c = g.uniform(1, 2), k = g.uniform(2, 3);
      const int pad = g.uniform(0, 1), st = g.uniform(1, 2);
      const int oh = (h + 2 * pad - k) / st + 1, ow = (w + 2 * pad - k) / st + 1;
      if (oh < 1 || ow < 1) return random_layer(g, 0);
      s += fmt::format("%x: {}[{}x{}x{}] = Input() @x \"x\"\n", in, h, w, c);
      s += fmt::format(
          "%y: {}[{}x{}x{}] = Pool(%x) {{kind={} in_h={} in_w={} channels={} out_h={} out_w={} "
          "kernel_h={} kernel_w={} stride_h={} stride_w={} pad_top={} pad_bottom={} pad_left={} "
          "pad_right={}}} @pool config {{accum={}}}\n",
          res, oh, ow, c, avg ? "Average" : "Max", h, w, c, oh, ow, k, k, st, st, pad, pad, pad,
          pad, acc);
      s += fmt::format("input %x \"x\": [1x{}x{}x{}] perm=[1,2,0]\n", c, h, w);
      s += fmt::format("output %y \"y\": [1x{}x{}x{}] perm=[1,2,0]\n", c, oh, ow);
      return s;
    }
    case 3: {  // Activation, tables included
      static const char* kAct[] = {"kind=Relu",
                                   "kind=Sigmoid",
                                   "kind=Tanh",
                                   "kind=Exp",
                                   "kind=HardSwish alpha=0.25 beta=0.5",
                                   "kind=Elu alpha=0.5",
                                   "kind=Clip alpha=-2 beta=1.5",
                                   "kind=LeakyRelu alpha=0.3"};
      const int n = g.uniform(2, 6);
      s += fmt::format("%x: {}[{}] = Input() @x \"x\"\n", in, n);
      s += fmt::format(
          "%y: {}[{}] = Activation(%x) {{n={} channels={} act={{{}}}}} @act config "
          "{{tables={{table_size={}}}}}\n",
          res, n, n, n, kAct[g.uniform(0, 7)], 1 << g.uniform(3, 6));
      s += fmt::format("input %x \"x\": [{}] perm=[0]\noutput %y \"y\": [{}] perm=[0]\n", n, n);
      return s;
    }
    case 4: {  // BatchNorm
      const int p = g.uniform(1, 3), c = g.uniform(1, 3);
      s += fmt::format("%x: {}[{}x{}] = Input() @x \"x\"\n", in, p, c);
      s += fmt::format(
          "%y: {}[{}x{}] = BatchNorm(%x) {{n={} channels={}}} @bn constants {{weights=[{}] "
          "bias=[{}]}}\n",
          res, p, c, p * c, c, g.raw_list(c, 12), g.raw_list(c, 10));
      s += fmt::format("input %x \"x\": [{}x{}] perm=[0,1]\noutput %y \"y\": [{}x{}] perm=[0,1]\n",
                       p, c, p, c);
      return s;
    }
    case 5: {  // Binary of two inputs
      static const char* kOp[] = {"Add", "Sub", "Mul", "ReverseSub"};
      const int n = g.uniform(2, 5);
      const std::string in2 = fmt::format("ap_ufixed<{},{}>", g.uniform(4, 10), g.uniform(1, 4));
      s += fmt::format("%a: {}[{}] = Input() @a \"a\"\n%b: {}[{}] = Input() @b \"b\"\n", in, n, in2,
                       n);
      s += fmt::format("%y: {}[{}] = Binary(%a, %b) {{op={} n={} channels={}}} @bin\n", res, n,
                       kOp[g.uniform(0, 3)], n, n);
      s += fmt::format(
          "input %a \"a\": [{0}] perm=[0]\ninput %b \"b\": [{0}] perm=[0]\noutput %y \"y\": [{0}] "
          "perm=[0]\n",
          n);
      return s;
    }
    case 7: {  // MatMul of two computed operands (variable x variable products)
      const int mm = g.uniform(1, 3), kk = g.uniform(1, 4), nn = g.uniform(1, 3);
      s += fmt::format("%a: {}[{}x{}] = Input() @a \"a\"\n%b: {}[{}x{}] = Input() @b \"b\"\n", in,
                       mm, kk, in, kk, nn);
      s +=
          fmt::format("%y: {}[{}x{}] = MatMul(%a, %b) {{m={} k={} n={}}} @mm config {{accum={}}}\n",
                      res, mm, nn, mm, kk, nn, acc);
      s += fmt::format(
          "input %a \"a\": [{0}x{1}] perm=[0,1]\ninput %b \"b\": [{1}x{2}] perm=[0,1]\n"
          "output %y \"y\": [{0}x{2}] perm=[0,1]\n",
          mm, kk, nn);
      return s;
    }
    case 8: {  // Quantize with a clamp, or bipolar
      const int n = g.uniform(2, 6);
      s += fmt::format("%x: {}[{}] = Input() @x \"x\"\n", in, n);
      if (g.coin()) {
        const std::string f = g.format(4, 10);
        const bool is_unsigned = f.rfind("ap_ufixed", 0) == 0;
        s += fmt::format("%y: {0}[{1}] = Quantize(%x) {{format={0} min_raw={2} max_raw={3}}} @q\n",
                         f, n, is_unsigned ? g.uniform(0, 2) : -g.uniform(1, 7), g.uniform(3, 7));
      } else {
        s += fmt::format(
            "%y: ap_int<2>[{}] = Quantize(%x) {{format=ap_int<2> min_raw=-1 max_raw=1 "
            "bipolar=true}} @q\n",
            n);
      }
      s += fmt::format("input %x \"x\": [{0}] perm=[0]\noutput %y \"y\": [{0}] perm=[0]\n", n);
      return s;
    }
    case 9: {  // ZeroPad with strides (a transposed convolution's spread), then a Transpose
      const int h = g.uniform(1, 3), w = g.uniform(1, 3), c = g.uniform(1, 2);
      const int pt = g.uniform(0, 1), pl = g.uniform(0, 1), sh = g.uniform(1, 2),
                sw = g.uniform(1, 2);
      const int oh = (h - 1) * sh + 1 + pt, ow = (w - 1) * sw + 1 + pl;
      s += fmt::format("%x: {}[{}x{}x{}] = Input() @x \"x\"\n", in, h, w, c);
      s += fmt::format(
          "%p: {}[{}x{}x{}] = ZeroPad(%x) {{in_h={} in_w={} channels={} pad_top={} pad_left={} "
          "stride_h={} stride_w={}}} @pad\n",
          res, oh, ow, c, h, w, c, pt, pl, sh, sw);
      s += fmt::format("%y: {}[{}x{}x{}] = Transpose(%p) {{perm=[1,0,2]}} @tr\n", g.format(5, 12),
                       ow, oh, c);
      s += fmt::format("input %x \"x\": [1x{}x{}x{}] perm=[1,2,0]\n", c, h, w);
      s += fmt::format("output %y \"y\": [{}x{}x{}] perm=[0,1,2]\n", ow, oh, c);
      return s;
    }
    case 10: {  // Concat of two inputs, then a strided Slice
      const int r = g.uniform(1, 3), a = g.uniform(1, 3), b = g.uniform(1, 3);
      s += fmt::format("%a: {}[{}x{}] = Input() @a \"a\"\n%b: {}[{}x{}] = Input() @b \"b\"\n", in,
                       r, a, g.format(4, 10), r, b);
      s += fmt::format("%c: {}[{}x{}] = Concat(%a, %b) {{axis=1}} @cat\n", res, r, a + b);
      const int cols = (a + b + 1) / 2;
      s += fmt::format("%y: {}[{}x{}] = Slice(%c) {{begin=[0,0] step=[1,2]}} @sl\n", res, r, cols);
      s += fmt::format(
          "input %a \"a\": [{0}x{1}] perm=[0,1]\ninput %b \"b\": [{0}x{2}] perm=[0,1]\n"
          "output %y \"y\": [{0}x{3}] perm=[0,1]\n",
          r, a, b, cols);
      return s;
    }
    default: {  // Softmax
      const int rows = g.uniform(1, 2), len = g.uniform(2, 4);
      s += fmt::format("%x: {}[{}x{}] = Input() @x \"x\"\n", in, rows, len);
      s += fmt::format(
          "%y: {}[{}x{}] = Softmax(%x) {{rows={} length={}}} @sm config {{accum={} "
          "tables={{table_size={} inv_table_size={}}}}}\n",
          res, rows, len, rows, len, acc, 1 << g.uniform(4, 7), 1 << g.uniform(4, 7));
      s += fmt::format(
          "input %x \"x\": [{0}x{1}] perm=[0,1]\noutput %y \"y\": [{0}x{1}] perm=[0,1]\n", rows,
          len);
      return s;
    }
  }
}

// Seed's layer as layers text, and the options its design is built with.
struct RandomDesign {
  std::string text;
  hls::Model model;
  RtlOptions options;
};

RandomDesign random_layer_design(int seed) {
  Gen g(static_cast<uint32_t>(seed) * 7919u + 1);
  RandomDesign r;
  r.text = random_layer(g, seed % 11);
  r.model = hls::parse_layers("layers 1\n" + r.text, "random.layers");
  const hls::Model& m = r.model;
  RtlOptions& o = r.options;
  if (seed % 2 == 0) o.multiplier_limits = {{"fc", 1}, {"mm", 2}};  // shared units
  // Convolutions and pools keep their row loop, pipelined, every other time
  // flattened with the column loop (padding and strides as predicates and
  // element indices on two variables), then half the time two columns per
  // iteration when the row has an even number of them.
  // Convolutions are line-buffered one time in three (streaming over the
  // padded input, the window shifting, outputs written once it is full).
  if (const int kind = seed % 11; (kind == 1 || kind == 2) && seed % 3 != 0) {
    const std::string layer = kind == 1 ? "conv" : "pool";
    if (kind == 1 && seed % 4 != 3) o.line_buffer["conv"] = true;
    o.directives.loops[layer + "/oh"] = {std::nullopt, 1, seed % 3 == 1};
    if (seed % 3 == 1 && seed % 4 < 2)
      for (const loop::Kernel& k : design_program(m, o).kernels)
        for (const loop::Loop& l : k.loops)
          if (k.name == layer && l.name == "ow" && l.trip % 2 == 0)
            o.directives.loops[layer + "/ow"] = {2, std::nullopt, false};
  }
  return r;
}

class RandomLayer : public ::testing::TestWithParam<int> {};

// Each design in kiln's netlist interpreter and in Icarus, both held to the
// emulator.
TEST_P(RandomLayer, SimulatesBitExact) {
  const int seed = GetParam();
  const RandomDesign r = random_layer_design(seed);
  const Design d = build_design(r.model, r.options);
  SCOPED_TRACE(r.text);
  testing::expect_bit_exact(r.model, d, tools::Simulator::Kiln, 6, 1.5,
                            static_cast<uint32_t>(seed));
  testing::expect_bit_exact(r.model, d, tools::Simulator::Icarus, 6, 1.5,
                            static_cast<uint32_t>(seed));
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomLayer, ::testing::Range(0, 66));

// A convolution (stride 1, maybe padded) into a pooling or a second
// convolution, both kept as flattened pixel loops, the convolutions line-
// buffered half the time: where the producer writes in an order the
// consumer's reads follow, a channel (channels.h) carries the tensor through
// the consumer's memories instead of registers.
std::string random_chain(Gen& g, int seed) {
  const std::string in = fmt::format("ap_fixed<{},{}>", g.uniform(6, 12), g.uniform(2, 5));
  const std::string mid = g.format(6, 12), res = g.format(5, 14), acc = g.format(14, 28);
  const int h = g.uniform(4, 7), w = g.uniform(4, 7), ci = g.uniform(1, 2), co = g.uniform(1, 3);
  const int k = g.uniform(1, 3), pad = g.uniform(0, 1);
  const int oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1;
  std::string s = "model \"r\" {}\n";
  s += fmt::format("%x: {}[{}x{}x{}] = Input() @x \"x\"\n", in, h, w, ci);
  s += fmt::format(
      "%h: {}[{}x{}x{}] = Conv(%x) {{in_h={} in_w={} c_in={} out_h={} out_w={} c_out={} "
      "kernel_h={} kernel_w={} stride_h=1 stride_w=1 pad_top={} pad_bottom={} pad_left={} "
      "pad_right={}}} @conv config {{accum={}}} constants {{weights=[{}] bias=[{}]}}\n",
      mid, oh, ow, co, h, w, ci, oh, ow, co, k, k, pad, pad, pad, pad, acc,
      g.raw_list(k * k * ci * co, 10), g.raw_list(co, 10));
  int fh = 0, fw = 0, fc = co;
  if (seed % 2 == 0) {  // a max pooling, 2 x 2 by 2 or by 1
    const int st = g.uniform(1, 2);
    fh = (oh - 2) / st + 1;
    fw = (ow - 2) / st + 1;
    s += fmt::format(
        "%y: {}[{}x{}x{}] = Pool(%h) {{kind=Max in_h={} in_w={} channels={} out_h={} out_w={} "
        "kernel_h=2 kernel_w=2 stride_h={} stride_w={} pad_top=0 pad_bottom=0 pad_left=0 "
        "pad_right=0}} @second config {{accum={}}}\n",
        res, fh, fw, co, oh, ow, co, fh, fw, st, st, acc);
  } else {  // a 3 x 3 convolution, padded
    fc = g.uniform(1, 2);
    fh = oh;
    fw = ow;
    s += fmt::format(
        "%y: {}[{}x{}x{}] = Conv(%h) {{in_h={} in_w={} c_in={} out_h={} out_w={} c_out={} "
        "kernel_h=3 kernel_w=3 stride_h=1 stride_w=1 pad_top=1 pad_bottom=1 pad_left=1 "
        "pad_right=1}} @second config {{accum={}}} constants {{weights=[{}] bias=[{}]}}\n",
        res, fh, fw, fc, oh, ow, co, fh, fw, fc, acc, g.raw_list(9 * co * fc, 10),
        g.raw_list(fc, 10));
  }
  s += fmt::format("input %x \"x\": [1x{}x{}x{}] perm=[1,2,0]\n", ci, h, w);
  s += fmt::format("output %y \"y\": [1x{}x{}x{}] perm=[1,2,0]\n", fc, fh, fw);
  return s;
}

class RandomChain : public ::testing::TestWithParam<int> {};

// Seed's chain as layers text, and the options its design is built with:
// line buffers on some seeds, both layers' row loops flattened and pipelined.
std::string chain_text(int seed) {
  Gen g(static_cast<uint32_t>(seed) * 104729u + 7);
  return random_chain(g, seed);
}

RtlOptions chain_options(int seed) {
  RtlOptions o;
  if (seed % 4 < 2) o.line_buffer["conv"] = true;
  if (seed % 3 == 0) o.line_buffer["second"] = true;
  for (const char* layer : {"conv", "second"})
    o.directives.loops[std::string(layer) + "/oh"] = {std::nullopt, 1, true};
  if (seed % 8 >= 4 && seed % 2 == 0) {
    // The pooling's window columns unrolled in one loop over the rest: each
    // column's read reaches some of the pixels (ChannelRead::takes).
    for (const char* l : {"second/ow", "second/c", "second/kh"})
      o.directives.loops[l] = {std::nullopt, std::nullopt, true};
    o.directives.loops["second/kw"] = {0, std::nullopt, false};
  }
  return o;
}

TEST_P(RandomChain, SimulatesBitExact) {
  const int seed = GetParam();
  const std::string text = chain_text(seed);
  SCOPED_TRACE(text);
  const hls::Model m = hls::parse_layers("layers 1\n" + text, "random.layers");
  const Design d = build_design(m, chain_options(seed));
  kiln::testing::TempDir dir;
  const auto files = testing::write_files(d, dir.path());
  const tools::LintResult lint = tools::lint_verilog(files, d.top);
  ASSERT_TRUE(lint.ok) << lint.error << "\n" << lint.log.substr(0, 3000);
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 4, 1.5, static_cast<uint32_t>(seed));
  testing::expect_bit_exact(m, d, tools::Simulator::Icarus, 4, 1.5, static_cast<uint32_t>(seed));
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomChain, ::testing::Range(0, 16));

// How many of RandomChain's designs carry their tensor through a channel, and
// how many through reads that keep some of the writes: the test above must
// exercise them, not only the registers.
TEST(RandomChain, MostDesignsHaveAChannel) {
  int with = 0, some = 0;
  for (int seed = 0; seed < 16; ++seed) {
    const hls::Model m = hls::parse_layers("layers 1\n" + chain_text(seed), "random.layers");
    const Design d = build_design(m, chain_options(seed));
    bool channel = false;  // a consumer's channel memory (chm<read>)
    bool kept = false;     // a read keeping some of the writes (cph_: its pattern's phase)
    for (const netlist::Module& mod : d.netlist.modules) {
      for (const netlist::Memory& mem : mod.memories())
        channel = channel || mem.name.rfind("chm", 0) == 0;
      for (netlist::ValueId v = 0; v < mod.size(); ++v)
        kept = kept || mod.value(v).name.rfind("cph_", 0) == 0;
    }
    with += channel;
    some += kept;
  }
  EXPECT_GE(with, 8);
  EXPECT_GE(some, 2);
}

// The fuzz tier's cross-check: KILN_RTL_FUZZ random designs (layers and
// chains from seeds past the ones above; 200 by default) each built and run
// in kiln's netlist interpreter against the emulator (designs kiln refuses to
// build do not count), every
// KILN_RTL_FUZZ_ICARUS-th (default 50) also in Icarus and every
// KILN_RTL_FUZZ_VERILATOR-th (default: none) in Verilator, the outside
// references. `scripts/test.sh fuzz-rtl` runs 10,000 (docs/rtl-design.md).
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

TEST(RtlFuzz, RandomDesignsEqualTheEmulator) {
  const int n = env_int("KILN_RTL_FUZZ", 200);
  const int icarus_every = env_int("KILN_RTL_FUZZ_ICARUS", 50);
  const int verilator_every = env_int("KILN_RTL_FUZZ_VERILATOR", 0);
  const int first = env_int("KILN_RTL_FUZZ_FIRST", 1000);
  int kiln_ok = 0, icarus_ok = 0, verilator_ok = 0, refused = 0;
  // Until n designs are checked (designs kiln refuses do not count).
  for (int i = 0; kiln_ok < n && refused <= n / 5; ++i) {
    const int seed = first + i;
    // Three layers to one chain, as the kinds come.
    RandomDesign r;
    Design d;
    try {
      if (seed % 4 == 3) {
        r.text = chain_text(seed);
        r.model = hls::parse_layers("layers 1\n" + r.text, "random.layers");
        r.options = chain_options(seed);
      } else {
        r = random_layer_design(seed);
      }
      d = build_design(r.model, r.options);
    } catch (const Error& e) {
      // A plan kiln refuses to build (exit 3 for a user) or a directive the
      // generator got wrong for the shape (exit 2) is not a finding; a crash
      // or an internal error is.
      if (e.kind() != ErrorKind::Unsupported && e.kind() != ErrorKind::InvalidModel) throw;
      ++refused;
      continue;
    }
    SCOPED_TRACE(fmt::format("seed {}\n{}", seed, r.text));
    const int before = ::testing::Test::HasFailure() ? 1 : 0;
    testing::expect_bit_exact(r.model, d, tools::Simulator::Kiln, 4, 1.5,
                              static_cast<uint32_t>(seed));
    if (::testing::Test::HasFailure() && !before) break;  // the first failure is the finding
    ++kiln_ok;
    if (icarus_every > 0 && i % icarus_every == 0) {
      testing::expect_bit_exact(r.model, d, tools::Simulator::Icarus, 4, 1.5,
                                static_cast<uint32_t>(seed));
      icarus_ok += !::testing::Test::HasFailure();
    }
    if (verilator_every > 0 && i % verilator_every == 0) {
      testing::expect_bit_exact(r.model, d, tools::Simulator::Verilator, 4, 1.5,
                                static_cast<uint32_t>(seed));
      verilator_ok += !::testing::Test::HasFailure();
    }
  }
  std::cout << fmt::format(
      "RtlFuzz: {} random designs equal the emulator in kiln's netlist interpreter, {} also in "
      "Icarus, {} also in Verilator; {} refused (exit 2 or 3)\n",
      kiln_ok, icarus_ok, verilator_ok, refused);
  EXPECT_EQ(kiln_ok, n);
  EXPECT_LE(refused, n / 5);  // the generator mostly makes designs kiln builds
}

}  // namespace
}  // namespace kiln::rtl

// Symbolic unrolling against the Loop IR interpreter: the stages' graphs,
// evaluated node by node, give the interpreter's outputs on the zoo models;
// and the folding rules do what they promise.
#include "kiln/dfg/unroll.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "kiln/hls/build_model.h"
#include "kiln/hls/prepare.h"
#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/loop/builder.h"
#include "kiln/loop/interpret.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/sink_nests.h"
#include "kiln/loop/testing/small_programs.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::dfg {
namespace {

namespace fs = std::filesystem;
using numeric::Exact;

// ---- a harness: graphs run on a state of buffer elements --------------------

using State = std::map<std::pair<int, int64_t>, Exact>;

// The inputs' and the constants' elements.
State initial_state(const loop::Program& p, const std::vector<std::vector<int64_t>>& inputs) {
  State st;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const int b = p.storage_of(p.inputs[k]);
    const loop::Buffer& buf = p.buffers[static_cast<std::size_t>(b)];
    for (std::size_t e = 0; e < inputs[k].size(); ++e)
      st[{b, static_cast<int64_t>(e)}] = numeric::to_exact(inputs[k][e], loop::fixed_of(buf.type));
  }
  for (std::size_t b = 0; b < p.buffers.size(); ++b) {
    const loop::Buffer& buf = p.buffers[b];
    if (buf.role != loop::BufferRole::Const) continue;
    for (std::size_t e = 0; e < buf.data.size(); ++e)
      st[{static_cast<int>(b), static_cast<int64_t>(e)}] =
          numeric::to_exact(buf.data[e], loop::fixed_of(buf.type));
  }
  return st;
}

// `v` as a raw value of `t`, which must be on a grid at least as fine.
int64_t raw_in(const Exact& v, const loop::ScalarType& t) {
  const int up = t.frac - v.frac;
  EXPECT_GE(up, 0) << "a value is off its buffer's grid";
  return static_cast<int64_t>(v.raw * (numeric::int128{1} << std::max(up, 0)));
}

// The element in iteration `k`, from the body's kept variables' values.
int64_t eval_at(const loop::Affine& a, const LoopBody& body, int64_t k) {
  int64_t v = a.constant;
  for (const auto& [l, c] : a.terms) {
    bool kept = false;
    for (const auto& [loop, value] : body.variables(k))
      if (loop == l) {
        v += c * value;
        kept = true;
      }
    EXPECT_TRUE(kept) << "a port's element depends on a loop the body does not keep";
  }
  return v;
}

// Runs `g` on `st`: Input nodes read the state (a loop body's ports at their
// element in iteration `var`), outputs write it back.
void apply(const Graph& g, State& st, const LoopBody* body = nullptr, int64_t var = 0) {
  auto where = [&](const Element& e, bool read) -> std::pair<int, int64_t> {
    if (e.element >= 0) return {e.buffer, e.element};
    const auto& ports = read ? body->reads : body->writes;
    const PortAccess& pa = ports.at(static_cast<std::size_t>(-1 - e.element));
    EXPECT_EQ(pa.buffer, e.buffer);
    return {pa.buffer, eval_at(pa.element, *body, var)};
  };
  std::vector<int64_t> in_raw(g.size(), 0);
  for (uint32_t n = 0; n < g.size(); ++n) {
    if (g.node(n).op != NodeOp::Input) continue;
    if (g.input_of(n).buffer == kIterationBuffer) {
      in_raw[n] = body->variables(var).at(static_cast<std::size_t>(g.input_of(n).element)).second;
      continue;
    }
    const auto at = where(g.input_of(n), true);
    // A read past the buffer's ends (guarded by padding) is never used.
    const bool past_end = g.input_of(n).element < 0 && !st.count(at);
    in_raw[n] = past_end ? 0 : raw_in(st.at(at), g.type(n));
  }
  const std::vector<Exact> v = evaluate(g, in_raw);
  // A predicated port write happens where its enable is 1.
  std::map<int64_t, bool> enabled;
  for (const Output& o : g.outputs())
    if (o.where.buffer == kWriteEnableBuffer) enabled[o.where.element] = v[o.node].raw != 0;
  State out;
  for (const Output& o : g.outputs()) {
    if (o.where.buffer == kWriteEnableBuffer) continue;
    if (o.where.element < 0) {
      const auto it = enabled.find(-1 - o.where.element);
      if (it != enabled.end() && !it->second) continue;
    }
    out[where(o.where, false)] = v[o.node];
  }
  for (auto& [k, x] : out) st[k] = x;
}

// The raw values of the program's output buffers.
std::vector<std::vector<int64_t>> outputs_of(const loop::Program& p, const State& st) {
  std::vector<std::vector<int64_t>> out;
  for (int ob : p.outputs) {
    const int b = p.storage_of(ob);
    const loop::Buffer& buf = p.buffers[static_cast<std::size_t>(b)];
    std::vector<int64_t> raw;
    for (int64_t e = 0; e < buf.numel(); ++e) raw.push_back(raw_in(st.at({b, e}), buf.type));
    out.push_back(std::move(raw));
  }
  return out;
}

std::vector<std::vector<int64_t>> random_inputs(const loop::Program& p, std::mt19937& rng) {
  std::vector<std::vector<int64_t>> in;
  for (int b : p.inputs) {
    const loop::Buffer& buf = p.buffers[static_cast<std::size_t>(b)];
    const FixedType t = loop::fixed_of(buf.type);
    std::uniform_int_distribution<int64_t> d(t.min_raw(), t.max_raw());
    std::vector<int64_t> v(static_cast<std::size_t>(buf.numel()));
    for (int64_t& x : v) x = d(rng);
    in.push_back(std::move(v));
  }
  return in;
}

// Runs the stages in order on raw inputs.
std::vector<std::vector<int64_t>> run_stages(const loop::Program& p,
                                             const std::vector<Stage>& stages,
                                             const std::vector<std::vector<int64_t>>& inputs) {
  State st = initial_state(p, inputs);
  for (const Stage& s : stages) apply(s.graph, st);
  return outputs_of(p, st);
}

// The same with kernel `kernel` run as before, the body `trip` times and after.
// `stages`: the program's kernels unrolled, when the caller has them.
std::vector<std::vector<int64_t>> run_split(const loop::Program& p, int kernel,
                                            const SplitKernel& sk,
                                            const std::vector<std::vector<int64_t>>& inputs,
                                            const std::vector<Stage>* stages = nullptr) {
  State st = initial_state(p, inputs);
  std::vector<Stage> own;
  if (!stages) {
    for (std::size_t k = 0; k < p.kernels.size(); ++k)
      own.push_back(static_cast<int>(k) == kernel ? Stage()
                                                  : unroll_kernel(p, static_cast<int>(k)));
    stages = &own;
  }
  for (std::size_t k = 0; k < p.kernels.size(); ++k) {
    if (static_cast<int>(k) != kernel) {
      apply((*stages)[k].graph, st);
      continue;
    }
    apply(sk.before, st);
    for (int64_t i = 0; i < sk.body.trip; ++i) apply(sk.body.graph, st, &sk.body, i);
    apply(sk.after, st);
  }
  return outputs_of(p, st);
}

hls::Model zoo_model(const std::string& name) {
  const fs::path onnx = kiln::testing::source_dir() / "models" / "zoo" / name / "model.onnx";
  const hls::PreparedGraph g = hls::prepare_graph(onnx, {});
  return hls::build_model(g.passed, hls::Config{}, nullptr);
}

loop::Program zoo_program(const std::string& name) {
  return loop::lower_model(zoo_model(name));
}

class ZooUnroll : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooUnroll, StagesComputeWhatTheInterpreterComputes) {
  const loop::Program p = zoo_program(GetParam());
  const std::vector<Stage> stages = unroll(p);
  std::mt19937 rng(7);
  for (int sample = 0; sample < 3; ++sample) {
    const std::vector<std::vector<int64_t>> in = random_inputs(p, rng);
    const loop::InterpretResult want = loop::interpret(p, in);
    const auto got = run_stages(p, stages, in);
    ASSERT_EQ(got.size(), want.outputs.size());
    for (std::size_t o = 0; o < got.size(); ++o)
      ASSERT_EQ(got[o], want.outputs[o].raw)
          << GetParam() << " sample " << sample << " output " << o;
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooUnroll,
                         ::testing::Values("vecmul_a", "vecmul_b", "dense_a", "dense_b",
                                           "softmax_a", "softmax_b", "conv2d_a", "conv2d_b",
                                           "maxpool_a", "maxpool_b", "thxprlsg", "mlp", "addmm",
                                           "batch_norm_2d", "conv_2d", "max_pool_2d", "soft_max",
                                           "lenet5"));

TEST(Unroll, WeightsFoldIntoShiftsAndVanishAtZero) {
  // Weights 0, 1.0 (raw 1024 at 10 fraction bits), -0.5, 2.0 and 0.75.
  const loop::Program p =
      loop::testing::dot_program({0, 1024, -512, 2048, 768}, 5, 1, numeric::OverflowMode::Wrap);
  const Graph g = unroll(p).at(0).graph;
  const auto counts = g.op_counts();
  EXPECT_EQ(counts[static_cast<int>(NodeOp::Mul)], 1) << print_graph(g);    // only 0.75
  EXPECT_EQ(counts[static_cast<int>(NodeOp::Input)], 4) << print_graph(g);  // x[0] is unused
  EXPECT_EQ(counts[static_cast<int>(NodeOp::Neg)], 1) << print_graph(g);
}

TEST(Unroll, WrappingSumsBecomeBalancedTrees) {
  const int64_t n = 64;
  std::vector<int64_t> w(n);
  for (int64_t i = 0; i < n; ++i) w[i] = 3 + 2 * i;  // odd: real multiplies
  const Graph g =
      unroll(loop::testing::dot_program(w, n, 1, numeric::OverflowMode::Wrap)).at(0).graph;
  // Depth of the sum: 6 levels of adds over 64 products, not a chain of 64.
  std::vector<int> depth(g.size(), 0);
  for (uint32_t v = 0; v < g.size(); ++v)
    for (uint32_t a : g.args(v))
      depth[v] = std::max(depth[v], depth[a] + (g.node(v).op == NodeOp::AddMod));
  EXPECT_EQ(depth[g.outputs().at(0).node], 6) << print_graph(g);
}

// A chain of maxima regroups too (exact: max is associative): eight inputs
// in three levels, not seven, with the same value for every input.
TEST(Graph, MaxChainsBecomeBalancedTrees) {
  Graph g("max");
  std::vector<uint32_t> in;
  for (int i = 0; i < 8; ++i) in.push_back(g.input({0, i}, loop::ScalarType{8, 0, true}));
  uint32_t m = in[0];
  for (int i = 1; i < 8; ++i) m = g.max(m, in[static_cast<std::size_t>(i)]);
  g.add_output({1, 0}, m);
  g.balance_sums();
  std::vector<int> depth(g.size(), 0);
  for (uint32_t v = 0; v < g.size(); ++v)
    for (uint32_t a : g.args(v))
      depth[v] = std::max(depth[v], depth[a] + (g.node(v).op == NodeOp::Max));
  EXPECT_EQ(depth[g.outputs().at(0).node], 3) << print_graph(g);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<int64_t> raw(g.size(), 0);
    int64_t want = -128;
    for (uint32_t n = 0; n < g.size(); ++n)
      if (g.node(n).op == NodeOp::Input) {
        raw[n] = static_cast<int64_t>(rng() % 256) - 128;
        want = std::max(want, raw[n]);
      }
    EXPECT_EQ(static_cast<int64_t>(evaluate(g, raw)[g.outputs().at(0).node].raw), want);
  }
}

TEST(Unroll, SaturatingSumsKeepTheEmulatorsChain) {
  // Full-width weights: every step can saturate, so every step quantizes.
  const int64_t n = 16;
  std::vector<int64_t> w(n);
  for (int64_t i = 0; i < n; ++i) w[i] = 32767 - 2 * i;
  const Graph g =
      unroll(loop::testing::dot_program(w, n, 1, numeric::OverflowMode::Sat)).at(0).graph;
  const auto counts = g.op_counts();
  EXPECT_EQ(counts[static_cast<int>(NodeOp::AddMod)], 0);
  // Q(0 + p0) and Q(p0 + p1) are exact (products of a 15-bit weight are 31 bits).
  EXPECT_EQ(counts[static_cast<int>(NodeOp::Quantize)], n - 2) << print_graph(g);
}

TEST(Unroll, SumsThatCannotOverflowAreExactTrees) {
  // Weights of 3 LSBs: the exact sum of 16 products fits the accumulator, so
  // the saturating quantizations fold away and the exact adds form a tree.
  const int64_t n = 16;
  const Graph g = unroll(loop::testing::dot_program(std::vector<int64_t>(n, 3), n, 1,
                                                    numeric::OverflowMode::Sat))
                      .at(0)
                      .graph;
  EXPECT_EQ(g.op_counts()[static_cast<int>(NodeOp::Quantize)], 0) << print_graph(g);
  std::vector<int> depth(g.size(), 0);
  for (uint32_t v = 0; v < g.size(); ++v)
    for (uint32_t a : g.args(v))
      depth[v] = std::max(depth[v], depth[a] + (g.node(v).op == NodeOp::Add));
  EXPECT_EQ(depth[g.outputs().at(0).node], 4) << print_graph(g);
}

// Truncating and wrapping a sum with one operand on the target's grid is
// that operand plus the other truncated alone (floor(x + y) = x + floor(y)),
// a modular sum; a guarded accumulation select(c, a + p, a) is then
// a + select(c, p, 0), so a loop body's guarded products form one sum with
// the accumulator added last. Every input value checked against the
// emulator's order (quantize the exact sum, then select).
TEST(Graph, TruncatedAccumulationsOfWiderProductsAreModularSums) {
  const FixedType acc_t = *numeric::parse_fixed_type("ap_fixed<6,3>", nullptr);
  const loop::ScalarType acc_s = loop::scalar_of(acc_t);
  Graph g("acc");
  const uint32_t acc = g.input({0, 0}, acc_s);
  const uint32_t x = g.input({1, 0}, loop::ScalarType{4, 2, true});
  const uint32_t w = g.input({1, 1}, loop::ScalarType{4, 2, true});
  const uint32_t c = g.input({2, 0}, loop::ScalarType{1, 0, false});
  const uint32_t sum = g.quantize(g.add(acc, g.mul(x, w)), acc_t);
  EXPECT_EQ(g.node(sum).op, NodeOp::AddMod) << print_graph(g);
  g.add_output({3, 0}, g.select(c, sum, acc));
  g.balance_sums([&](uint32_t n) { return n == acc; });
  const uint32_t out = g.outputs().at(0).node;
  ASSERT_EQ(g.node(out).op, NodeOp::AddMod) << print_graph(g);
  // Every value of the inputs: the emulator's order gives the same raw bits.
  for (int64_t a = -32; a < 32; ++a)
    for (int64_t xv = -8; xv < 8; ++xv)
      for (int64_t wv = -8; wv < 8; ++wv)
        for (int64_t cv = 0; cv < 2; ++cv) {
          std::vector<int64_t> raw(g.size(), 0);
          for (uint32_t n = 0; n < g.size(); ++n) {
            if (g.node(n).op != NodeOp::Input) continue;
            const Element& e = g.input_of(n);
            raw[n] = e.buffer == 0 ? a : e.buffer == 2 ? cv : e.element == 0 ? xv : wv;
          }
          const numeric::Exact p = numeric::exact_mul(numeric::Exact{xv, 2}, numeric::Exact{wv, 2});
          const int64_t want =
              cv ? numeric::quantize(numeric::exact_add(numeric::Exact{a, 3}, p), acc_t) : a;
          ASSERT_EQ(static_cast<int64_t>(evaluate(g, raw)[out].raw), want)
              << a << " " << xv << " " << wv << " " << cv;
        }
  // Rounding to nearest is not a sum of the parts' roundings: no modular add.
  Graph r("rnd");
  const FixedType rnd_t = *numeric::parse_fixed_type("ap_fixed<6,3,AP_RND>", nullptr);
  const uint32_t ra = r.input({0, 0}, acc_s);
  const uint32_t rp = r.mul(r.input({1, 0}, loop::ScalarType{4, 2, true}),
                            r.input({1, 1}, loop::ScalarType{4, 2, true}));
  EXPECT_EQ(r.node(r.quantize(r.add(ra, rp), rnd_t)).op, NodeOp::Quantize);
}

// A quantization that keeps every value folds away, but a symmetric
// saturation does not keep the most negative one: -1.0 of ap_fixed<5,1> into
// ap_fixed<8,1,..,AP_SAT_SYM> is -127/128 (found by the RTL fuzz tier).
TEST(Graph, QuantizationsFoldOnlyWhenTheyKeepEveryValue) {
  const auto type = [](const char* text) { return *numeric::parse_fixed_type(text, nullptr); };
  Graph g("q");
  const uint32_t x = g.input({0, 0}, loop::ScalarType{5, 4, true});
  const FixedType wide = type("ap_fixed<8,1,AP_RND_MIN_INF,AP_SAT>");
  EXPECT_EQ(g.quantize(x, wide), x);
  const FixedType sym = type("ap_fixed<8,1,AP_RND_MIN_INF,AP_SAT_SYM>");
  const uint32_t q = g.quantize(x, sym);
  ASSERT_NE(q, x);
  const std::vector<numeric::Exact> v = evaluate(g, {-16, 0});  // x = -1.0
  EXPECT_EQ(v[q].raw, -127);
  // An unsigned source never reaches the negative end: it folds.
  const uint32_t u = g.input({0, 1}, loop::ScalarType{5, 4, false});
  EXPECT_EQ(g.quantize(u, type("ap_fixed<10,2,AP_TRN,AP_SAT_SYM>")), u);
}

TEST(Unroll, RepeatedSubexpressionsAreOneNode) {
  // Two outputs with identical weight columns share every node.
  const loop::Program p =
      loop::testing::dot_program({3, 3, 5, 5, 7, 7}, 3, 2, numeric::OverflowMode::Wrap);
  const Graph g = unroll(p).at(0).graph;
  ASSERT_EQ(g.outputs().size(), 2u);
  EXPECT_EQ(g.outputs()[0].node, g.outputs()[1].node);
}

TEST(Unroll, LayersOverTheBoundAreRefusedByName) {
  const loop::Program p =
      loop::testing::dot_program(std::vector<int64_t>(64, 3), 8, 8, numeric::OverflowMode::Wrap);
  UnrollOptions o;
  o.max_ops = 100;
  try {
    unroll(p, o);
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(e.message().find("layer 'dot'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("over kiln rtl's bound of 100"), std::string::npos) << e.message();
  }
}

// ---- split_at_loop ----------------------------------------------------------

class ZooSplit : public ::testing::TestWithParam<std::string> {};

// Every top-level loop of every layer either splits, and then before, the
// body run trip times and after compute what the interpreter computes, or is
// refused as Unsupported with the loop's name.
TEST_P(ZooSplit, BodyRunTripTimesComputesWhatTheInterpreterComputes) {
  const loop::Program p = zoo_program(GetParam());
  std::mt19937 rng(11);
  const std::vector<std::vector<int64_t>> in = random_inputs(p, rng);
  const loop::InterpretResult want = loop::interpret(p, in);
  int split_ok = 0;
  for (std::size_t k = 0; k < p.kernels.size(); ++k)
    for (const loop::Stmt& s : top_level(p.kernels[k])) {
      if (s.kind != loop::StmtKind::For) continue;
      const std::string name =
          p.kernels[k].name + "/" + p.kernels[k].loops[static_cast<std::size_t>(s.loop)].name;
      // Not unrolled, and unrolled by the smallest factor of the trip count;
      // flattened with each depth of the perfect nest inside it (the loop
      // inside, that loop's, ...), not unrolled and its innermost loop's body
      // unrolled by the smallest factor of its trip count.
      auto smallest_factor = [](int64_t trip) {
        int64_t factor = 2;
        while (factor < trip && trip % factor != 0) ++factor;
        return factor;
      };
      const loop::Kernel& kernel = p.kernels[k];
      auto trip_of = [&](int l) { return kernel.loops[static_cast<std::size_t>(l)].trip; };
      const int64_t trip = trip_of(s.loop);
      const std::vector<int> nest = perfect_nest(kernel, s.loop);
      std::vector<std::pair<int64_t, int>> plans = {{1, 0}};
      if (trip > 1) plans.push_back({smallest_factor(trip), 0});
      for (int depth = 1; depth <= static_cast<int>(nest.size()); ++depth) {
        plans.push_back({1, depth});
        const int64_t innermost = trip_of(nest[static_cast<std::size_t>(depth - 1)]);
        if (innermost > 1) plans.push_back({smallest_factor(innermost), depth});
      }
      for (const auto& [unroll, flatten] : plans) {
        SplitKernel sk;
        try {
          sk = split_at_loop(p, static_cast<int>(k), s.loop, unroll, flatten);
        } catch (const Error& e) {
          EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
          EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
          continue;
        }
        ++split_ok;
        int64_t iterations = trip;
        for (int d = 0; d < flatten; ++d) iterations *= trip_of(nest[static_cast<std::size_t>(d)]);
        EXPECT_EQ(sk.body.trip * unroll, iterations);
        EXPECT_EQ(sk.body.depth(), 1 + flatten);
        EXPECT_EQ(sk.body.unroll, unroll);
        const auto got = run_split(p, static_cast<int>(k), sk, in);
        ASSERT_EQ(got.size(), want.outputs.size());
        for (std::size_t o = 0; o < got.size(); ++o)
          ASSERT_EQ(got[o], want.outputs[o].raw)
              << name << " unrolled " << unroll << " flattened " << flatten << " output " << o;
      }
    }
  EXPECT_GT(split_ok, 0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooSplit,
                         ::testing::Values("vecmul_a", "dense_a", "softmax_a", "conv2d_a",
                                           "maxpool_a", "thxprlsg", "mlp", "batch_norm_2d"));

int loop_named(const loop::Kernel& k, const std::string& name);

// LeNet-5's first convolution pads its 28x28 input by 2: the loop over output
// rows reads above and below the image at its first and last two rows, under
// conditions on the row. Kept as a loop (not unrolled, and unrolled by 2), the
// conditions become a predicate computed from the iteration's index, and the
// layer computes what it computes fully unrolled.
TEST(SplitAtLoop, PaddingBecomesAPredicateOnTheIteration) {
  const loop::Program p = zoo_program("lenet5");
  std::mt19937 rng(5);
  const std::vector<std::vector<int64_t>> in = random_inputs(p, rng);
  State want = initial_state(p, in);
  const Stage full = unroll_kernel(p, 0);
  apply(full.graph, want);
  const int oh = loop_named(p.kernels[0], "oh");
  // Rows not unrolled and unrolled by 2; rows and columns flattened, two
  // and four columns per iteration.
  for (const auto& [unroll, flatten] : std::vector<std::pair<int64_t, bool>>{
           {1, false}, {2, false}, {1, true}, {2, true}, {4, true}}) {
    const SplitKernel sk = split_at_loop(p, 0, oh, unroll, flatten);
    bool predicated = false;
    for (uint32_t n = 0; n < sk.body.graph.size(); ++n)
      predicated |= sk.body.graph.node(n).op == NodeOp::Input &&
                    sk.body.graph.input_of(n).buffer == kIterationBuffer;
    EXPECT_TRUE(predicated);
    State got = initial_state(p, in);
    apply(sk.before, got);
    for (int64_t i = 0; i < sk.body.trip; ++i) apply(sk.body.graph, got, &sk.body, i);
    apply(sk.after, got);
    int compared = 0;
    for (const auto& [at, value] : want) {
      if (p.buffers[static_cast<std::size_t>(at.first)].role == loop::BufferRole::Local) continue;
      ASSERT_TRUE(got.count(at)) << "unroll " << unroll << " flatten " << flatten;
      EXPECT_EQ(numeric::exact_compare(got.at(at), value), 0)
          << "unroll " << unroll << " flatten " << flatten << " buffer " << at.first << " element "
          << at.second;
      ++compared;
    }
    EXPECT_GT(compared, 28 * 28 * 6);
  }
}

// Line-buffered convolutions (loop::line_buffer) kept as their flattened
// pixel loop, one, two and four columns per iteration: the line buffers are
// read and then written at one moving element, the window is state, and the
// output is written only once the window is full (a predicated port write,
// LeNet-5's padding a predicate on the new pixel too).
TEST(SplitAtLoop, LineBufferedConvolutionsComputeWhatTheInterpreterComputes) {
  for (const std::string name : {"lenet5", "conv2d_a"}) {
    const hls::Model m = zoo_model(name);
    loop::Program p = loop::lower_model(m);
    std::vector<int> convs;
    for (std::size_t k = 0; k < p.kernels.size(); ++k)
      if (loop::can_line_buffer(p, m, static_cast<int>(k))) {
        loop::line_buffer(p, m, static_cast<int>(k));
        convs.push_back(static_cast<int>(k));
      }
    ASSERT_FALSE(convs.empty()) << name;
    std::mt19937 rng(3);
    const std::vector<std::vector<int64_t>> in = random_inputs(p, rng);
    const loop::InterpretResult want = loop::interpret(p, in);
    std::vector<Stage> stages;
    for (std::size_t k = 0; k < p.kernels.size(); ++k)
      stages.push_back(std::count(convs.begin(), convs.end(), static_cast<int>(k))
                           ? Stage()
                           : unroll_kernel(p, static_cast<int>(k)));
    for (int k : convs) {
      const loop::Kernel& kernel = p.kernels[static_cast<std::size_t>(k)];
      const int oh = loop_named(kernel, "oh");
      const int64_t columns = kernel.loops[static_cast<std::size_t>(loop_named(kernel, "ow"))].trip;
      for (const int64_t unroll : {1, 2, 4}) {
        if (columns % unroll != 0) continue;
        const SplitKernel sk = split_at_loop(p, k, oh, unroll, true);
        bool predicated = false;
        for (const Output& o : sk.body.graph.outputs())
          predicated |= o.where.buffer == kWriteEnableBuffer;
        EXPECT_TRUE(predicated) << name;
        // The other line-buffered kernels run split too, as built.
        const std::vector<Stage>& with = stages;
        State st = initial_state(p, in);
        for (std::size_t j = 0; j < p.kernels.size(); ++j) {
          if (std::count(convs.begin(), convs.end(), static_cast<int>(j)) == 0) {
            apply(with[j].graph, st);
            continue;
          }
          const SplitKernel& run =
              static_cast<int>(j) == k
                  ? sk
                  : split_at_loop(p, static_cast<int>(j), loop_named(p.kernels[j], "oh"), 1, true);
          apply(run.before, st);
          for (int64_t i = 0; i < run.body.trip; ++i) apply(run.body.graph, st, &run.body, i);
          apply(run.after, st);
        }
        const auto got = outputs_of(p, st);
        ASSERT_EQ(got.size(), want.outputs.size());
        for (std::size_t o = 0; o < got.size(); ++o)
          ASSERT_EQ(got[o], want.outputs[o].raw)
              << name << " " << kernel.name << " unrolled " << unroll << " output " << o;
      }
    }
  }
}

int loop_named(const loop::Kernel& k, const std::string& name) {
  for (std::size_t l = 0; l < k.loops.size(); ++l)
    if (k.loops[l].name == name) return static_cast<int>(l);
  ADD_FAILURE() << "no loop " << name;
  return -1;
}

PortAccess port(int buffer, const loop::Affine& element) {
  PortAccess pa;
  pa.buffer = buffer;
  pa.element = element;
  return pa;
}

// The MLP's main loop: x[i] and the row w[i][*] are read ports, the ten
// accumulators are state carried from one iteration to the next.
TEST(SplitAtLoop, DenseMainLoopReadsPortsAndCarriesAccumulators) {
  const loop::Program p =
      loop::testing::dot_program({1, 2, 3, 4, 5, 6}, 3, 2, numeric::OverflowMode::Wrap);
  const int i = loop_named(p.kernels[0], "i");
  const SplitKernel sk = split_at_loop(p, 0, i);
  EXPECT_EQ(sk.body.name, "dot/i");
  EXPECT_EQ(sk.body.trip, 3);
  // x[i], w[i][0] and w[i][1], in the order the Loop IR loads them.
  const int x = p.find_buffer("x"), w = p.find_buffer("w");
  const std::vector<PortAccess> want = {port(x, loop::Affine::var(i)),
                                        port(w, loop::Affine::var(i, 2)),
                                        port(w, loop::Affine::var(i, 2) + 1)};
  ASSERT_EQ(sk.body.reads.size(), 3u);
  for (const PortAccess& pa : want)
    EXPECT_NE(std::find(sk.body.reads.begin(), sk.body.reads.end(), pa), sk.body.reads.end())
        << p.buffers[static_cast<std::size_t>(pa.buffer)].name;
  for (const PortAccess& pa : sk.body.reads)  // w's index per dimension: [i][j]
    if (pa.buffer == w) {
      ASSERT_EQ(pa.index.size(), 2u);
      EXPECT_EQ(pa.index[0], loop::Affine::var(i));
      EXPECT_TRUE(pa.index[1].terms.empty());
    }
  EXPECT_TRUE(sk.body.writes.empty());
  int state_in = 0, state_out = 0;
  for (uint32_t n = 0; n < sk.body.graph.size(); ++n)
    if (sk.body.graph.node(n).op == NodeOp::Input && sk.body.graph.input_of(n).element >= 0)
      ++state_in;
  for (const Output& o : sk.body.graph.outputs()) state_out += o.where.element >= 0;
  EXPECT_EQ(state_in, 2);  // acc[0], acc[1]
  EXPECT_EQ(state_out, 2);
}

// Unrolled by 3, one iteration reads x[3v], x[3v + 1] and x[3v + 2].
TEST(SplitAtLoop, UnrolledBodiesIndexPortsByTheIteration) {
  const loop::Program p = loop::testing::dot_program({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 6, 2,
                                                     numeric::OverflowMode::Wrap);
  const int i = loop_named(p.kernels[0], "i");
  const SplitKernel sk = split_at_loop(p, 0, i, 3);
  EXPECT_EQ(sk.body.trip, 2);
  EXPECT_EQ(sk.body.unroll, 3);
  const int x = p.find_buffer("x");
  for (int64_t c = 0; c < 3; ++c) {
    const PortAccess want = port(x, loop::Affine::var(i, 3) + c);
    EXPECT_NE(std::find(sk.body.reads.begin(), sk.body.reads.end(), want), sk.body.reads.end())
        << "x[3v + " << c << "]";
  }
  EXPECT_EQ(sk.body.reads.size(), 3u + 6u);  // and six weights
  try {
    split_at_loop(p, 0, i, 4);
    FAIL() << "4 does not divide 6";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  }
}

// A convolution with padding, sunk (loop::sink_nests) and kept down to its
// output-channel loop: an iteration writes its accumulator acc[co] from the
// bias in a window's first position and from the sum where the padding
// allows, two conditional writes of one moving element that become one write
// in every iteration (the memory's value where neither holds), the sum
// reading the bias where the first holds. Unrolled by 1 and 2, it computes
// what the interpreter computes.
TEST(SplitAtLoop, AnAccumulatorStartedAndSummedInOneIterationIsOneWrite) {
  loop::Program p = loop::lower_model(hls::testing::parse(R"(
model "t" {}
%x: ap_fixed<8,3>[3x3x2] = Input() @x "x"
%y: ap_fixed<16,6>[3x3x4] = Conv(%x) {in_h=3 in_w=3 c_in=2 out_h=3 out_w=3 c_out=4 kernel_h=2 kernel_w=2 stride_h=1 stride_w=1 pad_top=1 pad_bottom=0 pad_left=1 pad_right=0} @conv constants {weights=[1024,-512,256,2048,-3072,100,7,-9,300,-700,50,900,-20,1500,-1100,60,5,-6,7,-8,900,800,-700,600,11,-22,33,-44,555,-666,777,-888] bias=[64,-32,5,700]}
input %x "x": [1x3x3x2] perm=[0,1,2]
output %y "y": [1x3x3x4] perm=[0,1,2]
)"));
  ASSERT_GT(loop::sink_nests(p, 0), 0);
  const loop::Kernel& k = p.kernels[0];
  const int oh = loop_named(k, "oh");
  const std::vector<int> nest = perfect_nest(k, oh);
  ASSERT_EQ(k.loops[static_cast<std::size_t>(nest.back())].name, "co");
  const int acc = p.find_buffer("conv_acc");
  std::mt19937 rng(3);
  const std::vector<std::vector<int64_t>> in = random_inputs(p, rng);
  const loop::InterpretResult want = loop::interpret(p, in);
  for (const int64_t unroll : {1, 2}) {
    const SplitKernel sk = split_at_loop(p, 0, oh, unroll, static_cast<int>(nest.size()));
    int acc_writes = 0;
    for (const PortAccess& w : sk.body.writes)
      if (w.buffer == acc) {
        ++acc_writes;
        EXPECT_TRUE(w.guards.empty());  // every iteration
      }
    EXPECT_EQ(acc_writes, unroll);
    for (const Output& o : sk.body.graph.outputs()) {
      if (o.where.buffer != kWriteEnableBuffer) continue;
      EXPECT_NE(sk.body.writes.at(static_cast<std::size_t>(o.where.element)).buffer, acc);
    }
    const auto got = run_split(p, 0, sk, in);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], want.outputs[0].raw) << "unrolled " << unroll;
  }
}

// y[i + 1] = Q(y[i] * x[i]): moving elements that differ in every iteration
// may be read and written together; the value crosses iterations by memory.
TEST(SplitAtLoop, RecurrenceThroughMemoryComputesWhatTheInterpreterComputes) {
  const loop::Program p = loop::testing::scan_program();
  const SplitKernel sk = split_at_loop(p, 0, 0);
  ASSERT_EQ(sk.body.writes.size(), 1u);
  EXPECT_EQ(sk.body.writes[0].element, loop::Affine::var(0) + 1);
  const std::vector<std::vector<int64_t>> in = {{1, -2, 3, 1, -1, 2, 1, -1}};
  const auto got = run_split(p, 0, sk, in);
  EXPECT_EQ(got[0], loop::interpret(p, in).outputs[0].raw);
  EXPECT_EQ(got[0][8], -12);  // 1 x 1 x -2 x 3 x 1 x -1 x 2 x 1 x -1
}

// y[i] = x[i] + x[0]: one iteration's graph would read x's memory at a
// moving and at a fixed element, which it cannot order yet.
TEST(SplitAtLoop, FixedAndMovingElementsOfOneBufferAreRefused) {
  loop::Program p;
  p.name = "mix";
  const loop::ScalarType t{8, 0, true};
  const int x = loop::add_buffer(p, "x", loop::BufferRole::Input, t, {4});
  const int y = loop::add_buffer(p, "y", loop::BufferRole::Output, loop::add_type(t, t), {4});
  p.inputs = {x};
  p.outputs = {y};
  loop::KernelBuilder k(p, "mix", "mix");
  k.loop("i", 4, [&](const loop::Affine& i) {
    const int a = k.load(x, {i});
    k.store(y, {i}, k.add(a, k.load(x, {loop::Affine::of(0)})));
  });
  k.finish({x}, {y});
  loop::verify(p);
  try {
    split_at_loop(p, 0, 0);
    FAIL() << "split";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("mix/i"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("@x"), std::string::npos) << e.what();
  }
}

TEST(SplitAtLoop, NestedLoopsAreRefusedByName) {
  const loop::Program p =
      loop::testing::dot_program({1, 2, 3, 4, 5, 6}, 3, 2, numeric::OverflowMode::Wrap);
  const int j = loop_named(p.kernels[0], "j");
  try {
    split_at_loop(p, 0, j);
    FAIL() << "an inner loop split";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("dot/j"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::dfg

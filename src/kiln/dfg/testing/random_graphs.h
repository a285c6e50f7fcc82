// Test helpers (include only from *_test.cpp): random expressions over a few
// inputs of random fixed-point types, kept twice: as a plain expression list
// that reference() evaluates with numeric/fixed.h alone (no folding, no
// types but the quantizations' targets), and as a dfg::Graph made by the
// folding builder. The differential checks of the builder's folds and of
// every graph pass (balance_sums, cmvm_pass) compare the two, and the graph
// before and after a pass, on inputs that reach the types' extremes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "kiln/dfg/graph.h"
#include "kiln/numeric/fixed.h"

namespace kiln::dfg::testing {

using numeric::Exact;

struct Expr {
  NodeOp op = NodeOp::Const;
  std::vector<int> args;      // earlier expressions
  int64_t imm = 0;            // Const raw (of `type`); Shl amount; Input index
  loop::ScalarType type;      // Const and Input: their type; AddMod/SubMod: the wrap
  numeric::FixedType target;  // Quantize
};

struct RandomGraph {
  std::vector<loop::ScalarType> inputs;  // element i of buffer 0
  std::vector<Expr> exprs;               // in order: operands first
  std::vector<int> outputs;              // expressions; output k is element k of buffer 1
  Graph graph{"random"};
};

// Value `i` of the generator's types: any width up to `most`, signed or not,
// its binary point anywhere from above its bits to below them.
inline loop::ScalarType random_scalar(std::mt19937& rng, int most) {
  const int width = 1 + static_cast<int>(rng() % static_cast<unsigned>(most));
  return {width, static_cast<int>(rng() % 16) - 4, rng() % 4 != 0};
}

inline numeric::FixedType random_target(std::mt19937& rng) {
  numeric::FixedType t = loop::fixed_of(random_scalar(rng, 20));
  t.quant = static_cast<numeric::QuantMode>(rng() % 7);
  t.overflow = static_cast<numeric::OverflowMode>(rng() % 4);
  return t;
}

// A random graph of about `size` operations. `linear` draws mostly sums of
// products by constants (what the constant-sum pass rebuilds), quantized by
// any mode, and chains of sums, maxima and minima (what balance_sums
// regroups); otherwise every op the builder has.
inline RandomGraph random_graph(uint32_t seed, int size, bool linear) {
  std::mt19937 rng(seed);
  RandomGraph r;
  std::vector<uint32_t> node;  // graph node of each expression
  const auto pick = [&]() { return static_cast<int>(rng() % r.exprs.size()); };
  const auto add = [&](Expr e, uint32_t n) {
    r.exprs.push_back(std::move(e));
    node.push_back(n);
    return static_cast<int>(r.exprs.size()) - 1;
  };
  Graph& g = r.graph;
  const int n_inputs = 2 + static_cast<int>(rng() % 5);
  for (int i = 0; i < n_inputs; ++i) {
    const loop::ScalarType t = random_scalar(rng, 14);
    r.inputs.push_back(t);
    add({NodeOp::Input, {}, i, t, {}}, g.input({0, i}, t));
  }
  // Narrow enough that sums and products of it stay well inside 120 bits.
  const auto narrow = [&](int e) { return g.type(node[static_cast<std::size_t>(e)]).width <= 40; };
  const auto operand = [&]() {
    for (int k = 0; k < 8; ++k)
      if (const int e = pick(); narrow(e)) return e;
    return static_cast<int>(rng() % static_cast<unsigned>(n_inputs));
  };
  while (static_cast<int>(r.exprs.size()) < n_inputs + size) {
    // Linear: half sums of products by constants, the rest sums, maxima,
    // minima, quantizations and modular sums.
    static constexpr unsigned kLinear[] = {99, 99, 99, 99, 99, 9, 7, 8, 4, 13};
    const unsigned kind = linear ? kLinear[rng() % 10] : rng() % 14;
    const int a = operand(), b = operand();
    const uint32_t na = node[static_cast<std::size_t>(a)], nb = node[static_cast<std::size_t>(b)];
    if (kind == 99) {
      // A sum of products by constants: c * a + (a chain so far).
      const loop::ScalarType ct = random_scalar(rng, 12);
      const int64_t span = int64_t{1} << (ct.width - 1);
      const int64_t raw = static_cast<int64_t>(rng() % static_cast<unsigned>(2 * span)) - span;
      const int c = add({NodeOp::Const, {}, raw, ct, {}}, g.constant(raw, ct));
      const int p =
          add({NodeOp::Mul, {a, c}, 0, {}, {}}, g.mul(na, node[static_cast<std::size_t>(c)]));
      const bool sum = rng() % 3 != 0;
      add({sum ? NodeOp::Add : NodeOp::Sub, {p, b}, 0, {}, {}},
          sum ? g.add(node[static_cast<std::size_t>(p)], nb)
              : g.sub(node[static_cast<std::size_t>(p)], nb));
      continue;
    }
    switch (kind) {
      case 0: {
        const loop::ScalarType ct = random_scalar(rng, 10);
        const int64_t raw = static_cast<int64_t>(rng() % (1u << ct.width)) -
                            (ct.is_signed ? (int64_t{1} << (ct.width - 1)) : 0);
        add({NodeOp::Const, {}, raw, ct, {}}, g.constant(raw, ct));
        break;
      }
      case 1: add({NodeOp::Mul, {a, b}, 0, {}, {}}, g.mul(na, nb)); break;
      case 2: add({NodeOp::Neg, {a}, 0, {}, {}}, g.neg(na)); break;
      case 3: {
        const int k = static_cast<int>(rng() % 9) - 4;
        add({NodeOp::Shl, {a}, k, {}, {}}, g.shl(na, k));
        break;
      }
      case 4:
      case 5:
      case 6: {
        const numeric::FixedType t = random_target(rng);
        add({NodeOp::Quantize, {a}, 0, {}, t}, g.quantize(na, t));
        break;
      }
      case 7: add({NodeOp::Max, {a, b}, 0, {}, {}}, g.max(na, nb)); break;
      case 8: add({NodeOp::Min, {a, b}, 0, {}, {}}, g.min(na, nb)); break;
      case 9: add({NodeOp::Add, {a, b}, 0, {}, {}}, g.add(na, nb)); break;
      case 10: add({NodeOp::Sub, {a, b}, 0, {}, {}}, g.sub(na, nb)); break;
      case 11: {
        const int lt = add({NodeOp::Lt, {a, b}, 0, {}, {}}, g.lt(na, nb));
        const int c = operand();
        add({NodeOp::Select, {lt, a, c}, 0, {}, {}},
            g.select(node[static_cast<std::size_t>(lt)], na, node[static_cast<std::size_t>(c)]));
        break;
      }
      default: {  // a modular sum of two values wrapped into its type
        numeric::FixedType t = loop::fixed_of(random_scalar(rng, 20));
        const int qa = add({NodeOp::Quantize, {a}, 0, {}, t}, g.quantize(na, t));
        const int qb = add({NodeOp::Quantize, {b}, 0, {}, t}, g.quantize(nb, t));
        const NodeOp op = rng() % 2 ? NodeOp::AddMod : NodeOp::SubMod;
        const uint32_t x = node[static_cast<std::size_t>(qa)],
                       y = node[static_cast<std::size_t>(qb)];
        const loop::ScalarType st = loop::scalar_of(t);
        add({op, {qa, qb}, 0, st, {}},
            op == NodeOp::AddMod ? g.add_mod(x, y, st) : g.sub_mod(x, y, st));
      }
    }
  }
  // The last few expressions and a few others are outputs, each through a
  // quantization now and then (a stage's outputs are mostly assigned).
  const int n_out = 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < n_out; ++k) {
    int e = k == 0 ? static_cast<int>(r.exprs.size()) - 1 : pick();
    if (rng() % 2) {
      const numeric::FixedType t = random_target(rng);
      e = add({NodeOp::Quantize, {e}, 0, {}, t}, g.quantize(node[static_cast<std::size_t>(e)], t));
    }
    r.outputs.push_back(e);
    g.add_output({1, k}, node[static_cast<std::size_t>(e)]);
  }
  return r;
}

// The same value on one grid: trailing zero bits normalized away.
inline std::pair<numeric::int128, int> canonical(Exact x) {
  if (x.raw == 0) return {0, 0};
  while (x.raw % 2 == 0) {
    x.raw /= 2;
    --x.frac;
  }
  return {x.raw, x.frac};
}

// The outputs' values computed from the expressions alone.
inline std::vector<std::pair<numeric::int128, int>> reference(const RandomGraph& r,
                                                              const std::vector<int64_t>& in) {
  std::vector<Exact> v;
  for (const Expr& e : r.exprs) {
    const auto a = [&](std::size_t i) { return v[static_cast<std::size_t>(e.args[i])]; };
    Exact x;
    switch (e.op) {
      case NodeOp::Input:
        x = numeric::to_exact(in[static_cast<std::size_t>(e.imm)], loop::fixed_of(e.type));
        break;
      case NodeOp::Const: x = numeric::to_exact(e.imm, loop::fixed_of(e.type)); break;
      case NodeOp::Add: x = numeric::exact_add(a(0), a(1)); break;
      case NodeOp::Sub: x = numeric::exact_sub(a(0), a(1)); break;
      case NodeOp::Mul: x = numeric::exact_mul(a(0), a(1)); break;
      case NodeOp::Neg: x = numeric::exact_sub({0, 0}, a(0)); break;
      case NodeOp::Shl: x = {a(0).raw, a(0).frac - static_cast<int>(e.imm)}; break;
      case NodeOp::Quantize:
        x = numeric::to_exact(numeric::quantize(a(0), e.target), e.target);
        break;
      case NodeOp::Max: x = numeric::exact_compare(a(0), a(1)) >= 0 ? a(0) : a(1); break;
      case NodeOp::Min: x = numeric::exact_compare(a(0), a(1)) <= 0 ? a(0) : a(1); break;
      case NodeOp::Lt: x = {numeric::exact_compare(a(0), a(1)) < 0 ? 1 : 0, 0}; break;
      case NodeOp::Select: x = a(0).raw != 0 ? a(1) : a(2); break;
      case NodeOp::AddMod:
      case NodeOp::SubMod: {
        numeric::FixedType w = loop::fixed_of(e.type);
        w.overflow = numeric::OverflowMode::Wrap;
        const Exact s = e.op == NodeOp::AddMod ? numeric::exact_add(a(0), a(1))
                                               : numeric::exact_sub(a(0), a(1));
        x = numeric::to_exact(numeric::quantize(s, w), w);
        break;
      }
      default: break;
    }
    v.push_back(x);
  }
  std::vector<std::pair<numeric::int128, int>> out;
  for (int o : r.outputs) out.push_back(canonical(v[static_cast<std::size_t>(o)]));
  return out;
}

// A graph's outputs for the inputs `in` (element i of buffer 0), by
// dfg::evaluate: any graph made from the random one, its nodes renumbered.
inline std::vector<std::pair<numeric::int128, int>> graph_outputs(const Graph& g,
                                                                  const std::vector<int64_t>& in) {
  std::vector<int64_t> raw(g.size(), 0);
  for (uint32_t n = 0; n < g.size(); ++n)
    if (g.node(n).op == NodeOp::Input)
      raw[n] = in.at(static_cast<std::size_t>(g.input_of(n).element));
  const std::vector<Exact> v = evaluate(g, raw);
  std::vector<std::pair<numeric::int128, int>> out(g.outputs().size());
  for (const Output& o : g.outputs())
    out.at(static_cast<std::size_t>(o.where.element)) = canonical(v[o.node]);
  return out;
}

// Input samples reaching the corners: each value its type's least or
// greatest, zero, one step either side of it, or uniform.
inline std::vector<std::vector<int64_t>> corner_inputs(const RandomGraph& r, int samples,
                                                       uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int64_t>> out;
  for (int s = 0; s < samples; ++s) {
    out.emplace_back();
    for (const loop::ScalarType& t : r.inputs) {
      const numeric::FixedType f = loop::fixed_of(t);
      const int64_t lo = f.min_raw(), hi = f.max_raw();
      int64_t v = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
      switch (rng() % 6) {
        case 0: v = lo; break;
        case 1: v = hi; break;
        case 2: v = 0; break;
        case 3: v = std::clamp<int64_t>(rng() % 2 ? 1 : -1, lo, hi); break;
        default: break;
      }
      out.back().push_back(v);
    }
  }
  return out;
}

}  // namespace kiln::dfg::testing

// Helpers shared by the passes' tests (include only from *_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kiln/graph/graph.h"
#include "kiln/graph/shape_inference.h"
#include "kiln/passes/pass.h"
#include "kiln/ref/interpreter.h"

namespace kiln::passes::testing {

constexpr DType F32 = DType::Float32;

inline Tensor F(Shape shape, std::vector<float> v) {
  return Tensor::from_vector<float>(std::move(shape), v);
}

// Builds small graphs: values typed by shape inference as nodes are added.
class Builder {
 public:
  ValueId input(Shape s) {
    const ValueId v = g.add_value("x", TensorType{F32, std::move(s)});
    g.inputs.push_back(v);
    return v;
  }
  ValueId constant(Tensor t) { return g.add_constant("c", std::move(t)); }
  ValueId constant(Shape s, std::vector<float> v) { return constant(F(std::move(s), v)); }
  // Adds a one-output node and returns its output.
  ValueId node(OpKind kind, std::vector<ValueId> inputs, Attrs attrs = {}) {
    const ValueId out = g.add_value("y", TensorType{});
    Node& n = g.add_node(kind, "", std::move(inputs), {out}, std::move(attrs));
    g.value(out).type = infer_node_types(g, n)[0];
    return out;
  }
  void output(ValueId v) { g.outputs.push_back(v); }

  Graph g;
};

inline int count_kind(const Graph& g, OpKind kind) {
  return static_cast<int>(std::count_if(g.nodes().begin(), g.nodes().end(),
                                        [&](const Node& n) { return n.kind == kind; }));
}

inline const Node* find_kind(const Graph& g, OpKind kind) {
  for (const Node& n : g.nodes())
    if (n.kind == kind) return &n;
  return nullptr;
}

// Random inputs for every graph input (fixed seed): floats in [-1, 1),
// integers in [0, 4), booleans alternating.
inline std::vector<Tensor> random_inputs(const Graph& g, unsigned seed = 1234) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::vector<Tensor> ins;
  for (ValueId v : g.inputs) {
    const TensorType& t = g.value(v).type;
    std::vector<double> vals(static_cast<std::size_t>(t.numel()));
    for (std::size_t i = 0; i < vals.size(); ++i)
      vals[i] = is_float(t.dtype) ? uni(rng) : static_cast<double>(rng() % 4);
    Tensor d = Tensor::from_vector<double>(t.shape, vals);
    ins.push_back(d.cast(t.dtype));
  }
  return ins;
}

// max |a - b| <= 1e-4 * (1 + max |b|) for every output (b is the reference).
inline void expect_same_outputs(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t o = 0; o < got.size(); ++o) {
    ASSERT_EQ(got[o].type(), want[o].type()) << what << " output " << o;
    double max_ref = 0, max_diff = 0;
    for (int64_t i = 0; i < want[o].numel(); ++i) {
      const double w = want[o].as_double(i), gv = got[o].as_double(i);
      max_ref = std::max(max_ref, std::fabs(w));
      max_diff = std::max(max_diff, std::fabs(w - gv));
    }
    EXPECT_LE(max_diff, 1e-4 * (1 + max_ref)) << what << " output " << o;
  }
}

// Runs `g` before and after `p` on the same random inputs and compares.
template <class P>
void expect_pass_keeps_outputs(Graph g, P&& pass, const std::string& what) {
  const std::vector<Tensor> ins = random_inputs(g);
  const std::vector<Tensor> before = ref::Interpreter(g).run(ins);
  pass(g);
  g.verify();
  check_value_types(g, what);
  expect_same_outputs(ref::Interpreter(g).run(ins), before, what);
}

}  // namespace kiln::passes::testing

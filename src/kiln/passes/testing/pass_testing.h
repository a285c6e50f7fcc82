// Golden tests of graph passes as IR text (kiln_passes_testing): a graph in,
// the passes run, the printed graph compared with the expected text, and the
// graph's outputs compared before and after with the reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/graph/ir_text.h"
#include "kiln/passes/pipeline.h"
#include "kiln/ref/interpreter.h"
#include "kiln/support/strings.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::passes::testing {

inline constexpr std::string_view kTestHeader = "kir 1\ngraph \"test\" opset 13\n";

// A test's IR body (without the header), raw strings' leading newline dropped.
inline std::string trimmed(std::string_view body) {
  return kiln::testing::text_block(body);
}

inline Graph parse(std::string_view body) {
  return parse_ir(std::string(kTestHeader) + trimmed(body), "test.kir");
}

// The printed graph with every constant inline, without the header.
inline std::string body_text(const Graph& g) {
  IrWriteOptions o;
  o.large = IrWriteOptions::Large::Inline;
  std::string text = print_ir(g, o).text;
  const std::size_t second_line = text.find('\n', text.find('\n') + 1);
  return text.substr(second_line + 1);
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

struct PassOutcome {
  std::string text;  // body_text of the result
  bool changed = false;
};

// Runs the named passes ("form_dense,fold_batchnorm") on `input` as a
// pipeline (so the IR is verified after each) and checks that the reference
// interpreter computes the same outputs before and after on random inputs.
inline PassOutcome run_passes(std::string_view passes, std::string_view input) {
  Graph g = parse(input);
  const std::vector<Tensor> ins = random_inputs(g);
  const std::vector<Tensor> before = ref::Interpreter(g).run(ins);
  PassOutcome r;
  for (const PassRecord& rec : graph_passes().pipeline(split_list(passes)).run(g))
    r.changed = r.changed || rec.changed;
  expect_same_outputs(ref::Interpreter(g).run(ins), before, std::string(passes));
  r.text = body_text(g);
  return r;
}

// The passes rewrite `input` into exactly `expected` (IR bodies) and say so.
inline void expect_passes(std::string_view passes, std::string_view input,
                          std::string_view expected) {
  const PassOutcome r = run_passes(passes, input);
  EXPECT_TRUE(r.changed) << passes << " reported no change";
  EXPECT_EQ(r.text, trimmed(expected)) << "after " << passes;
}

// The passes leave `input` as it is, and say so.
inline void expect_unchanged(std::string_view passes, std::string_view input) {
  const PassOutcome r = run_passes(passes, input);
  EXPECT_FALSE(r.changed) << passes << " reported a change";
  EXPECT_EQ(r.text, body_text(parse(input))) << "after " << passes;
}

inline int count_kind(const Graph& g, OpKind kind) {
  return static_cast<int>(std::count_if(g.nodes().begin(), g.nodes().end(),
                                        [&](const Node& n) { return n.kind == kind; }));
}

}  // namespace kiln::passes::testing

// Constant matrix-vector products as adder graphs (issue 27): y_j = sum_i
// W[i][j] * x_i over integers, every weight a constant, built from adders of
// shifted terms and nothing else (the products of a fully unrolled Dense or
// convolution layer, where kiln makes every weight a constant).
//
// The problem (CmvmProblem: the matrix, each input's range, an optional bound
// on the adder depth) is apart from its solver (solve_cmvm) and from the
// check of any answer (verify_cmvm, which follows each output's coefficients
// symbolically: exact for every input, not on samples). An answer is an
// adder graph (CmvmGraph) with a text form that parses back.
//
// The solver, in the manner of da4ml (Sun et al., "da4ml: distributed
// arithmetic for real-time neural networks on FPGAs", 2025; learned from its
// paper and code, none of it copied) and of Hartley's common-subexpression
// elimination over canonical signed digits:
//  - every weight in canonical signed digits, each output a sum of signed,
//    shifted inputs; across the whole matrix, the pair of terms (a, b << d,
//    added or subtracted) whose sharing saves the most adder bits becomes one
//    adder shared by every output that holds it, repeatedly (a pattern's
//    count takes pairs that share a term; it is rechecked by its real uses
//    before it is taken);
//  - each output's remaining terms summed earliest first (a tree no deeper
//    than its terms need), negations folded into subtractions and, where an
//    output is negative as a whole, into its sign (the consumer's add);
//  - the outputs also built from one another (da4ml's decomposition): a
//    spanning tree over the columns and the zero column, each output its
//    parent's plus or minus a delta whose digits are fewer, the deltas a
//    product of their own; chains limited per depth setting dc;
//  - each way tried (no decomposition and each dc, two weightings of a
//    pattern, the outputs summed along the tree or as a product over the
//    deltas, that product's sharing also only between terms of equal depth
//    as da4ml does; greedy walks with ties broken in other orders, as many
//    as keep the work near 4,096 weights), then again under each depth bound
//    below the answer's: among the answers within 1% of the fewest adders,
//    the shallowest (a level less is worth more than 1% of the adders).
// Under a depth bound a pair is shared only where every output keeps a tree
// within the bound, and every answer kept is within it (verify_cmvm checks).
// Measured against da4ml's core on the same matrices: bench/cmvm.sh.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::rtl {

struct CmvmProblem {
  int inputs = 0;
  int outputs = 0;
  std::vector<int64_t> weights;                     // inputs x outputs, row-major
  std::vector<std::pair<int64_t, int64_t>> ranges;  // per input: [lo, hi]
  std::optional<int> max_depth;                     // adders from an input to an output
  int64_t weight(int i, int j) const {
    return weights[static_cast<std::size_t>(i) * static_cast<std::size_t>(outputs) +
                   static_cast<std::size_t>(j)];
  }
};

// sign * (value << shift) of a value of the graph: input x_i for node i <
// inputs, adder k for node inputs + k.
struct CmvmTerm {
  int node = 0;
  int shift = 0;
  bool negative = false;
  bool operator==(const CmvmTerm&) const = default;
};

// An adder: a + b, a never negative (a - b when b is).
struct CmvmAdder {
  CmvmTerm a, b;
  bool operator==(const CmvmAdder&) const = default;
};

struct CmvmGraph {
  int inputs = 0;
  std::vector<CmvmAdder> adders;                 // node inputs + k is adders[k]
  std::vector<std::optional<CmvmTerm>> outputs;  // nullopt: the output is 0
  bool operator==(const CmvmGraph&) const = default;

  // Each node's adder depth (0 for an input).
  std::vector<int> depths() const;
  // The longest chain of adders from an input to an output.
  int depth() const;
};

// How an answer spends its adders: product_adders compute a multiple of one
// input (a product by a constant, or part of one), sum_adders add values of
// different inputs; adder_bits sums the bits each adds (its result's width
// less the low bits one operand passes through), what its carry chains cost.
struct CmvmCounts {
  int64_t adders = 0;
  int64_t product_adders = 0;
  int64_t sum_adders = 0;
  int64_t adder_bits = 0;
  int depth = 0;
};
CmvmCounts cmvm_counts(const CmvmProblem& problem, const CmvmGraph& graph);
// Two answers' counts together (side by side: the depth is the deeper's).
CmvmCounts& operator+=(CmvmCounts& a, const CmvmCounts& b);

// The adder depth of the outputs summed without sharing: each output's
// canonical-signed-digit terms in a balanced tree; the least any answer can
// have.
int minimal_depth(const CmvmProblem& problem);

// How hard the solver tries: every way (below), or the sharing alone without
// the decomposition, once (a problem too large to solve many times).
enum class CmvmEffort : uint8_t { Thorough, Quick };

CmvmGraph solve_cmvm(const CmvmProblem& problem, CmvmEffort effort = CmvmEffort::Thorough);

// Checks an answer independently: operands defined before use, every output
// equal to its column of the matrix for all inputs (coefficients followed
// symbolically), and within the problem's depth bound. Empty when it holds,
// else what is wrong.
std::string verify_cmvm(const CmvmProblem& problem, const CmvmGraph& graph);

// Text form, one statement a line:
//   cmvm inputs 3 outputs 3
//   a0 = add x0, x1:2       # x0 + (x1 << 2)
//   a1 = sub a0, x2:1       # a0 - (x2 << 1)
//   y0 = a1:1
//   y1 = neg a0             # -a0
//   y2 = zero
std::string cmvm_text(const CmvmGraph& graph);
// The inverse; throws kiln::Error(InvalidModel) at "WHERE:LINE:COL".
CmvmGraph parse_cmvm(std::string_view text, const std::string& where);

}  // namespace kiln::rtl

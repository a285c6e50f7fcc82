// Two products of narrow operands in one DSP slice (issue 26, "DSPs used
// fully"; the packing Xilinx describes for INT8 in WP486): x * a and x * b,
// computed in the same cycle and sharing x, are one product
//
//   P = ((a << k) + b) * x + 2^(k-1),   k = the low product's bits
//
// whose bits [k, ...) are a * x and whose low k bits, their top bit flipped,
// are b * x (the 2^(k-1) keeps the low part non-negative, so the high part
// needs no correction). The pre-adder makes (a << k) + b and the post-adder
// adds the constant, inside the slice: Yosys maps the whole of it to one
// DSP48. With 8-bit operands, (a << k) + b is 25 bits: a DSP48E1's A port
// (27 on a DSP48E2).
//
// The pairing is a problem (the products on DSPs and their cycles) apart
// from the algorithm that solves it (pair_products: greedy, the operands
// shared by most products first), and verify_pairs checks any answer.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kiln/dfg/graph.h"
#include "kiln/fpga/family.h"

namespace kiln::rtl {

struct ProductPair {
  uint32_t high = 0, low = 0;  // the two Mul nodes: high's other operand is shifted
  uint32_t shared = 0;         // the operand both multiply
  int low_bits = 0;            // k: the bits of the low product (its operands' widths)
  int packed_bits = 0;         // (a << k) + b's width: the width of the slice's A port it needs
};

// The bits an operand of a product takes as a signed value (an unsigned one
// gains a sign bit), as the netlist multiplies them.
int signed_width(const dfg::Graph& g, uint32_t operand);

// The operand of Mul node `n` that is not `shared`.
uint32_t other_operand(const dfg::Graph& g, uint32_t n, uint32_t shared);

// The pair of Mul nodes `high` and `low` sharing `shared`, with its widths,
// or none when one DSP slice of `family` cannot compute both.
std::optional<ProductPair> pair_of(const dfg::Graph& g, uint32_t high, uint32_t low,
                                   uint32_t shared, fpga::Family family);

// Pairs among the Mul nodes `on_dsp` accepts (each would take a DSP slice of
// its own), by their cycles `start`: each node in one pair at most.
std::vector<ProductPair> pair_products(const dfg::Graph& g, const std::vector<int>& start,
                                       fpga::Family family,
                                       const std::function<bool(uint32_t)>& on_dsp);

// Throws kiln::Error(Internal) unless every pair is two distinct Mul nodes
// `on_dsp` accepts, in one cycle, both multiplying `shared`, no node in two
// pairs, and its widths are pair_of's and fit one slice.
void verify_pairs(const dfg::Graph& g, const std::vector<int>& start, fpga::Family family,
                  const std::function<bool(uint32_t)>& on_dsp,
                  const std::vector<ProductPair>& pairs);

// a * x and b * x as pair `p` computes them (exact, in int64): what the tests
// compare with the products.
std::pair<int64_t, int64_t> evaluate(const ProductPair& p, int64_t a, int64_t b, int64_t x);

}  // namespace kiln::rtl

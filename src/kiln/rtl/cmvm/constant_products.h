// Products of one value x by several constants, sharing adders (multiple
// constant multiplication). Each constant is written in canonical signed
// digits (CSD: no two adjacent nonzero digits), x * c = sum of +-(x << i);
// a pair of digits that recurs across the constants (same signs relation,
// same distance d) becomes one shared term x +- (x << d) computed once, as
// Hartley's common-subexpression elimination does, most frequent pair
// first. Only pairs of x's own digits are shared, so every product is one
// adder level deeper at most.
//
// conv_2d of seed 004 (27 weights of ap_fixed<16,6>) needs 68 adders per
// input pixel without sharing and 39 with it.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "kiln/dfg/graph.h"

namespace kiln::rtl {

struct ConstantProducts {
  // Shared term k: x + sign * (x << shift), shift >= 1.
  struct Shared {
    int sign = 1;
    int shift = 1;
  };
  // One digit of a product: sign * (source << shift), source -1 for x
  // itself, else a shared term's index.
  struct Digit {
    int sign = 1;
    int shift = 0;
    int source = -1;
  };
  std::vector<Shared> shared;
  std::vector<std::vector<Digit>> products;  // per constant, in the order given

  // Adders and subtractors in all: one per shared term, one fewer than the
  // digits of each product.
  int64_t adders() const;
};

ConstantProducts share_constant_products(const std::vector<int64_t>& constants);

// x * constants[j] by the plan (exact, in int64): what the tests compare.
int64_t evaluate(const ConstantProducts& plan, std::size_t j, int64_t x);

// The products by constants of one x in one cycle of a scheduled graph, planned
// together (groups of two or more whose plan shares a term).
struct ProductGroup {
  std::vector<uint32_t> nodes;  // the Mul nodes, in graph order
  ConstantProducts plan;        // plan.products[i] is nodes[i]'s
  int width = 0;                // the widest product's; narrower ones take its low bits
};

// Plans made, by their constants (share_constant_products depends on nothing
// else): a layer's products by its weights come back in every plan the
// searches price and, unrolled, at every input pixel.
class ConstantProductsMemo {
 public:
  const ConstantProducts& plan(const std::vector<int64_t>& constants);

 private:
  struct Hash {
    std::size_t operator()(const std::vector<int64_t>& v) const;
  };
  std::unordered_map<std::vector<int64_t>, ConstantProducts, Hash> plans_;
};

// `memo`, when given, keeps the plans for later calls. With
// `constants_on_dsps`, the products that go on DSP slices (node_cost.h
// constant_on_dsp) are in no group.
std::vector<ProductGroup> group_constant_products(const dfg::Graph& g,
                                                  const std::vector<int>& start,
                                                  ConstantProductsMemo* memo = nullptr,
                                                  bool constants_on_dsps = false);
// The same groups, in the same order, each handed to `visit` (its nodes,
// plan and width) and not kept: what pricing alone needs.
using ProductGroupVisitor = std::function<void(const std::vector<uint32_t>& nodes,
                                               const ConstantProducts& plan, int width)>;
void for_each_product_group(const dfg::Graph& g, const std::vector<int>& start,
                            ConstantProductsMemo* memo, const ProductGroupVisitor& visit,
                            bool constants_on_dsps = false);

}  // namespace kiln::rtl

#include "kiln/rtl/cmvm/constant_products.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>

#include "kiln/rtl/stage/node_cost.h"
#include "kiln/sched/operator_library.h"
#include "kiln/support/flat_hash.h"

namespace kiln::rtl {

int64_t ConstantProducts::adders() const {
  int64_t n = static_cast<int64_t>(shared.size());
  for (const auto& p : products) n += p.empty() ? 0 : static_cast<int64_t>(p.size()) - 1;
  return n;
}

ConstantProducts share_constant_products(const std::vector<int64_t>& constants) {
  ConstantProducts plan;
  for (int64_t c : constants) {
    std::vector<ConstantProducts::Digit> p;
    for (const auto& [digit, i] : sched::csd_digits(c)) p.push_back({digit, i, -1});
    plan.products.push_back(std::move(p));
  }
  // The pair (a, b) of x's own digits, a at the lower position, as the
  // pattern (sign of a times sign of b, distance): counted in flat arrays by
  // [sign < 0 ? 0 : 1][distance] (a digit's position is below 64), walked in
  // that order so that ties resolve the same way every run.
  constexpr int kPositions = 64;
  using Counts = std::array<std::array<int, kPositions>, 2>;
  using Pattern = std::pair<int, int>;
  std::vector<std::pair<int, int>> here;  // the patterns of one product, each once
  std::array<std::array<bool, kPositions>, 2> seen{};
  for (;;) {
    Counts count{};
    for (const auto& p : plan.products) {
      here.clear();
      for (std::size_t a = 0; a < p.size(); ++a)
        for (std::size_t b = a + 1; b < p.size(); ++b)
          if (p[a].source < 0 && p[b].source < 0) {
            const int sign = p[a].sign * p[b].sign < 0 ? 0 : 1;
            const int distance = std::abs(p[b].shift - p[a].shift);
            if (!seen[sign][distance]) {
              seen[sign][distance] = true;
              here.emplace_back(sign, distance);
            }
          }
      for (const auto& [sign, distance] : here) {
        ++count[sign][distance];  // at least once per product
        seen[sign][distance] = false;
      }
    }
    Pattern best{0, 0};
    int best_count = 1;
    for (int sign = 0; sign < 2; ++sign)
      for (int distance = 0; distance < kPositions; ++distance)
        if (count[sign][distance] > best_count) {
          best = {sign == 0 ? -1 : 1, distance};
          best_count = count[sign][distance];
        }
    if (best_count < 2) break;
    const int term = static_cast<int>(plan.shared.size());
    plan.shared.push_back({best.first, best.second});
    // One occurrence per product: sa*(x<<i) + sb*(x<<(i+d)) = sa*((x + sa*sb*(x<<d)) << i).
    for (auto& p : plan.products) {
      for (std::size_t a = 0; a < p.size(); ++a) {
        std::size_t match = p.size();
        for (std::size_t b = 0; b < p.size() && match == p.size(); ++b)
          if (b != a && p[a].source < 0 && p[b].source < 0 && p[b].shift > p[a].shift &&
              p[a].sign * p[b].sign == best.first && p[b].shift - p[a].shift == best.second)
            match = b;
        if (match == p.size()) continue;
        p[a].source = term;
        p.erase(p.begin() + static_cast<std::ptrdiff_t>(match));
        break;
      }
    }
  }
  return plan;
}

std::size_t ConstantProductsMemo::Hash::operator()(const std::vector<int64_t>& v) const {
  uint64_t h = v.size();
  for (int64_t c : v) h = mix_hash(h ^ static_cast<uint64_t>(c));
  return static_cast<std::size_t>(h);
}

const ConstantProducts& ConstantProductsMemo::plan(const std::vector<int64_t>& constants) {
  auto it = plans_.find(constants);
  if (it == plans_.end()) it = plans_.emplace(constants, share_constant_products(constants)).first;
  return it->second;
}

void for_each_product_group(const dfg::Graph& g, const std::vector<int>& start,
                            ConstantProductsMemo* memo, const ProductGroupVisitor& visit,
                            bool constants_on_dsps) {
  ConstantProductsMemo own;  // for this graph alone when the caller keeps none
  if (!memo) memo = &own;
  // The products by a constant as (x, cycle, product), in graph order, then
  // sorted by (x, cycle) keeping that order: by two stable counting sorts,
  // on the cycle, then on x (a node index).
  struct Product {
    uint32_t x;
    int cycle;
    uint32_t n;
  };
  std::vector<Product> products;
  int first = 0, last = 0;
  for (uint32_t n = 0; n < g.size(); ++n) {
    if (g.node(n).op != dfg::NodeOp::Mul) continue;
    const auto args = g.args(n);
    const bool c0 = g.is_const(args[0]), c1 = g.is_const(args[1]);
    if (c0 == c1) continue;  // a product of two variables (or folded constants)
    if (constant_on_dsp(g, n, constants_on_dsps)) continue;
    if (products.empty() || start[n] < first) first = start[n];
    if (products.empty() || start[n] > last) last = start[n];
    products.push_back({c0 ? args[1] : args[0], start[n], n});
  }
  const auto counting_sort = [&products](std::size_t keys, auto key_of) {
    std::vector<std::size_t> at(keys + 1, 0);
    for (const Product& p : products) ++at[key_of(p) + 1];
    for (std::size_t k = 1; k < at.size(); ++k) at[k] += at[k - 1];
    std::vector<Product> sorted(products.size());
    for (const Product& p : products) sorted[at[key_of(p)]++] = p;
    products.swap(sorted);
  };
  counting_sort(static_cast<std::size_t>(last - first) + 1,
                [first](const Product& p) { return static_cast<std::size_t>(p.cycle - first); });
  counting_sort(g.size(), [](const Product& p) { return static_cast<std::size_t>(p.x); });
  std::vector<uint32_t> nodes;
  std::vector<int64_t> constants;
  for (std::size_t i = 0, j = 0; i < products.size(); i = j) {
    nodes.clear();
    for (j = i; j < products.size() && products[j].x == products[i].x &&
                products[j].cycle == products[i].cycle;
         ++j)
      nodes.push_back(products[j].n);
    if (nodes.size() < 2) continue;
    constants.clear();
    for (uint32_t n : nodes) {
      const auto args = g.args(n);
      constants.push_back(g.node(args[g.is_const(args[0]) ? 0 : 1]).imm);
    }
    const ConstantProducts& plan = memo->plan(constants);
    if (plan.shared.empty()) continue;
    int width = 0;
    for (uint32_t n : nodes) width = std::max(width, g.type(n).width);
    visit(nodes, plan, width);
  }
}

std::vector<ProductGroup> group_constant_products(const dfg::Graph& g,
                                                  const std::vector<int>& start,
                                                  ConstantProductsMemo* memo,
                                                  bool constants_on_dsps) {
  std::vector<ProductGroup> groups;
  for_each_product_group(
      g, start, memo,
      [&groups](const std::vector<uint32_t>& nodes, const ConstantProducts& plan, int width) {
        groups.push_back({nodes, plan, width});
      },
      constants_on_dsps);
  return groups;
}

int64_t evaluate(const ConstantProducts& plan, std::size_t j, int64_t x) {
  std::vector<int64_t> term;
  for (const ConstantProducts::Shared& s : plan.shared)
    term.push_back(x + s.sign * (x * (int64_t{1} << s.shift)));
  int64_t sum = 0;
  for (const ConstantProducts::Digit& d : plan.products[j])
    sum += d.sign * ((d.source < 0 ? x : term[static_cast<std::size_t>(d.source)]) *
                     (int64_t{1} << d.shift));
  return sum;
}

}  // namespace kiln::rtl

#include "kiln/rtl/cmvm/product_pairs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "kiln/sched/operator_library.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

int signed_width(const dfg::Graph& g, uint32_t operand) {
  const loop::ScalarType& t = g.type(operand);
  return t.width + (t.is_signed ? 0 : 1);
}

uint32_t other_operand(const dfg::Graph& g, uint32_t n, uint32_t shared) {
  const auto args = g.args(n);
  return args[0] == shared ? args[1] : args[0];
}

std::optional<ProductPair> pair_of(const dfg::Graph& g, uint32_t high, uint32_t low,
                                   uint32_t shared, fpga::Family family) {
  const int ws = signed_width(g, shared);
  const int wd = std::max(signed_width(g, other_operand(g, high, shared)),
                          signed_width(g, other_operand(g, low, shared)));
  ProductPair p{high, low, shared, wd + ws, 0};
  // (a << k) + b: a's bits above k, and one more for the sum's sign
  // (a = -2^(wd-1) with b < 0 reaches below a << k's range).
  p.packed_bits = wd + p.low_bits + 1;
  // Past 62 bits the int64 model of the tests no longer holds, and no slice
  // is that wide.
  if (p.packed_bits + ws > 62 || sched::dsp_count(p.packed_bits, ws, family) != 1)
    return std::nullopt;
  return p;
}

namespace {

bool is_mul(const dfg::Graph& g, uint32_t n) {
  return g.node(n).op == dfg::NodeOp::Mul;
}

}  // namespace

std::vector<ProductPair> pair_products(const dfg::Graph& g, const std::vector<int>& start,
                                       fpga::Family family,
                                       const std::function<bool(uint32_t)>& on_dsp) {
  // The products by (operand, cycle): each operand a product has, apart
  // from a square's.
  std::map<std::pair<uint32_t, int>, std::vector<uint32_t>> sharing;
  for (uint32_t n = 0; n < g.size(); ++n) {
    if (!is_mul(g, n) || !on_dsp(n)) continue;
    const auto args = g.args(n);
    if (args[0] == args[1]) continue;
    for (uint32_t a : args) sharing[{a, start[n]}].push_back(n);
  }
  // The operands most products share first (a convolution's input pixel
  // times its output channels' weights), then by operand and cycle.
  std::vector<const std::pair<const std::pair<uint32_t, int>, std::vector<uint32_t>>*> order;
  for (const auto& entry : sharing)
    if (entry.second.size() >= 2) order.push_back(&entry);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->second.size() > b->second.size();
  });
  std::vector<bool> paired(g.size(), false);
  std::vector<ProductPair> pairs;
  for (const auto* entry : order) {
    const uint32_t shared = entry->first.first;
    std::optional<uint32_t> waiting;
    for (uint32_t n : entry->second) {
      if (paired[n]) continue;
      if (!waiting) {
        waiting = n;
        continue;
      }
      if (std::optional<ProductPair> p = pair_of(g, *waiting, n, shared, family)) {
        paired[*waiting] = paired[n] = true;
        pairs.push_back(*p);
        waiting.reset();
      } else {
        waiting = n;  // too wide together: try the later one with the next
      }
    }
  }
  return pairs;
}

void verify_pairs(const dfg::Graph& g, const std::vector<int>& start, fpga::Family family,
                  const std::function<bool(uint32_t)>& on_dsp,
                  const std::vector<ProductPair>& pairs) {
  std::vector<bool> seen(g.size(), false);
  for (const ProductPair& p : pairs) {
    const auto where = fmt::format("product pair n{} / n{} over n{}", p.high, p.low, p.shared);
    KILN_ASSERT(p.high < g.size() && p.low < g.size() && p.shared < g.size() && p.high != p.low,
                where + ": not two nodes of the graph");
    for (uint32_t n : {p.high, p.low}) {
      KILN_ASSERT(is_mul(g, n) && on_dsp(n), where + ": a node that is no product on a DSP");
      KILN_ASSERT(!seen[n], where + ": a product in two pairs");
      seen[n] = true;
      const auto args = g.args(n);
      KILN_ASSERT(args[0] == p.shared || args[1] == p.shared,
                  where + ": a product that does not multiply the shared operand");
    }
    KILN_ASSERT(start[p.high] == start[p.low], where + ": products in different cycles");
    const std::optional<ProductPair> fit = pair_of(g, p.high, p.low, p.shared, family);
    KILN_ASSERT(fit && fit->low_bits == p.low_bits && fit->packed_bits == p.packed_bits,
                where + ": widths that do not fit one slice");
  }
}

std::pair<int64_t, int64_t> evaluate(const ProductPair& p, int64_t a, int64_t b, int64_t x) {
  const int k = p.low_bits;
  // (a << k) + b in packed_bits, wrapping as the pre-adder would.
  const int64_t span = int64_t{1} << p.packed_bits;
  int64_t packed = ((a * (int64_t{1} << k) + b) % span + span) % span;
  if (packed >= span / 2) packed -= span;
  const int64_t product = packed * x + (int64_t{1} << (k - 1));
  const int64_t low_span = int64_t{1} << k;
  const int64_t low = (product % low_span + low_span) % low_span;  // the low k bits
  const int64_t high = (product - low) / low_span;                 // floor(product / 2^k)
  return {high, low - low_span / 2};
}

}  // namespace kiln::rtl

#include "kiln/rtl/analysis/registers.h"

#include <algorithm>
#include <map>

#include "kiln/support/error.h"

namespace kiln::rtl {

Lifetimes lifetimes(const dfg::Graph& g, const std::vector<int>& start,
                    const std::vector<int>& output_at, const std::vector<bool>& stable) {
  Lifetimes l;
  l.hold.assign(g.size(), 0);
  l.read_in_own_cycle.assign(g.size(), false);
  for (uint32_t n = 0; n < g.size(); ++n)
    for (uint32_t a : g.args(n)) {
      l.hold[a] = std::max(l.hold[a], start[n] - start[a]);
      if (start[n] == start[a]) l.read_in_own_cycle[a] = true;
    }
  for (std::size_t i = 0; i < g.outputs().size(); ++i) {
    const uint32_t o = g.outputs()[i].node;
    if (!g.is_const(o)) l.hold[o] = std::max(l.hold[o], output_at[i] - start[o]);
  }
  for (uint32_t n = 0; n < g.size(); ++n)
    if (g.is_const(n) || (!stable.empty() && stable[n])) l.hold[n] = 0;
  return l;
}

SharedRegisters share_registers(const dfg::Graph& g, const std::vector<int>& start,
                                const std::vector<int>& hold) {
  SharedRegisters s;
  s.reg_of.assign(g.size(), -1);
  std::vector<uint32_t> order;
  for (uint32_t n = 0; n < g.size(); ++n)
    if (hold[n] > 0) order.push_back(n);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return start[a] < start[b]; });
  std::map<int, std::vector<int>> of_width;  // width -> registers of that width
  std::vector<int> busy_until;
  for (uint32_t n : order) {
    const int w = g.type(n).width;
    int chosen = -1;
    for (int r : of_width[w])
      if (busy_until[static_cast<std::size_t>(r)] <= start[n]) {
        chosen = r;
        break;
      }
    if (chosen < 0) {
      chosen = static_cast<int>(s.width.size());
      s.width.push_back(w);
      busy_until.push_back(0);
      of_width[w].push_back(chosen);
      s.bits += w;
    }
    // Written at the end of cycle start, read through cycle start + hold.
    busy_until[static_cast<std::size_t>(chosen)] = start[n] + hold[n];
    s.reg_of[n] = chosen;
  }
  return s;
}

void verify_sharing(const dfg::Graph& g, const std::vector<int>& start,
                    const std::vector<int>& hold, const SharedRegisters& s) {
  std::map<int, std::vector<std::pair<int, int>>> spans;  // register -> (from, to] cycles
  for (uint32_t n = 0; n < g.size(); ++n) {
    if (hold[n] == 0) continue;
    const int r = s.reg_of[n];
    KILN_ASSERT(r >= 0 && r < static_cast<int>(s.width.size()),
                "a held value n" + std::to_string(n) + " without a register");
    KILN_ASSERT(s.width[static_cast<std::size_t>(r)] == g.type(n).width,
                "n" + std::to_string(n) + " shares a register of another width");
    spans[r].emplace_back(start[n], start[n] + hold[n]);
  }
  for (auto& [r, list] : spans) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i)
      KILN_ASSERT(list[i].first >= list[i - 1].second,
                  "two values overlap on shared register r" + std::to_string(r));
  }
}

}  // namespace kiln::rtl

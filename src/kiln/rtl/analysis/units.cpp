#include "kiln/rtl/analysis/units.h"

#include <map>
#include <set>

#include "kiln/rtl/stage/node_cost.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

UnitBinding bind_units(const dfg::Graph& g, const std::vector<int>& start,
                       const std::function<int(int)>& slot) {
  UnitBinding b;
  b.unit_of.assign(g.size(), -1);
  std::map<int, int> used;  // slot -> units taken
  for (uint32_t n = 0; n < g.size(); ++n)
    if (is_var_mul(g, n)) {
      b.unit_of[n] = used[slot(start[n])]++;
      b.units = std::max(b.units, b.unit_of[n] + 1);
    }
  return b;
}

void verify_units(const dfg::Graph& g, const std::vector<int>& start,
                  const std::function<int(int)>& slot, const UnitBinding& b) {
  std::set<std::pair<int, int>> taken;  // (slot, unit)
  for (uint32_t n = 0; n < g.size(); ++n) {
    if (!is_var_mul(g, n)) continue;
    const int u = b.unit_of[n];
    KILN_ASSERT(u >= 0 && u < b.units, "product n" + std::to_string(n) + " has no unit");
    KILN_ASSERT(taken.insert({slot(start[n]), u}).second,
                "two products on unit " + std::to_string(u) + " in one slot");
  }
}

}  // namespace kiln::rtl

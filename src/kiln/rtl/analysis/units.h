// Binding the products of two variables to shared multiplier units: the k-th
// product of a slot (a cycle, or a cycle mod the II in a loop body) runs on
// unit k.
#pragma once

#include <functional>
#include <vector>

#include "kiln/dfg/graph.h"

namespace kiln::rtl {

struct UnitBinding {
  std::vector<int> unit_of;  // per node: its unit, or -1
  int units = 0;
};

// `slot` maps a node's cycle to the cycle its unit's multiplexer sees.
UnitBinding bind_units(const dfg::Graph& g, const std::vector<int>& start,
                       const std::function<int(int)>& slot);

// Checks a binding independently: every variable product has a unit, and no
// two products share a unit in one slot. Throws Internal.
void verify_units(const dfg::Graph& g, const std::vector<int>& start,
                  const std::function<int(int)>& slot, const UnitBinding& b);

}  // namespace kiln::rtl

// One converter from a dataflow graph's nodes to scheduling operations, for
// both kinds of stage: an unrolled stage's Chaining problem (stage.cpp) and a
// kept loop body's Modulo problem (loop_schedule.h). Each node becomes an
// operation of a type per (op, latency, delay) from its cost (node_cost.h);
// the products of two variables share one type limited to the layer's
// MultiplierLimit when they run on shared units, with the slowest product's
// delay.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kiln/dfg/graph.h"
#include "kiln/sched/operator_library.h"
#include "kiln/sched/problem.h"

namespace kiln::rtl {

class GraphOperations {
 public:
  // `costs` per node; `shared`: the variable products run on
  // `multiplier_limit` units.
  GraphOperations(sched::Problem& problem, const dfg::Graph& g,
                  const std::vector<sched::OperatorCost>& costs, bool shared,
                  std::optional<int> multiplier_limit);
  // Adds node n's operation, named n<n>, and returns its index.
  int add(uint32_t n);
  // The type node n's operation takes (made on first use).
  int type_of(uint32_t n);

 private:
  sched::Problem& pb_;
  const dfg::Graph& g_;
  const std::vector<sched::OperatorCost>& costs_;
  const bool shared_;
  const std::optional<int> limit_;
  int mul_type_ = -1;
  // A type per (op, latency, delay in ps), as its name says.
  struct TypeKey {
    dfg::NodeOp op;
    int latency;
    long long delay_ps;
    auto operator<=>(const TypeKey&) const = default;
  };
  std::map<TypeKey, int> types_;
};

}  // namespace kiln::rtl

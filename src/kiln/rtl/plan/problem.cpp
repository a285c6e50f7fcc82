#include "kiln/rtl/plan/problem.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kiln/rtl/stage/node_cost.h"

namespace kiln::rtl {

GraphOperations::GraphOperations(sched::Problem& problem, const dfg::Graph& g,
                                 const std::vector<sched::OperatorCost>& costs, bool shared,
                                 std::optional<int> multiplier_limit)
    : pb_(problem), g_(g), costs_(costs), shared_(shared), limit_(multiplier_limit) {}

int GraphOperations::type_of(uint32_t n) {
  const sched::OperatorCost& c = costs_[n];
  if (shared_ && is_var_mul(g_, n)) {
    if (mul_type_ < 0) {
      double d = 0;
      for (uint32_t m = 0; m < g_.size(); ++m)
        if (is_var_mul(g_, m)) d = std::max(d, costs_[m].delay_ns);
      mul_type_ = pb_.add_type({"mul", c.latency, d, limit_});
    }
    return mul_type_;
  }
  // The name is made only for a new type: most nodes share one.
  const TypeKey key{g_.node(n).op, c.latency, std::llround(c.delay_ns * 1000)};
  if (const auto it = types_.find(key); it != types_.end()) return it->second;
  const std::string name = fmt::format("{}_l{}_{}ps", enum_name(key.op), key.latency, key.delay_ps);
  return types_[key] = pb_.add_type({name, c.latency, c.delay_ns, std::nullopt});
}

int GraphOperations::add(uint32_t n) {
  return pb_.add_operation("n" + std::to_string(n), type_of(n), g_.type(n).width);
}

}  // namespace kiln::rtl

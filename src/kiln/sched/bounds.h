// Lower bounds on the latency of any schedule, and the errors that name the
// binding one when a max_latency cannot be met.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kiln/sched/problem.h"

namespace kiln::sched {

// One lower bound: the dependence chain (type == -1) or one limited type
// (SharedOperators, Chaining), whose `operations` operations need
// ceil(operations / limit) start cycles, the first no earlier than
// `first_start`, the last finishing `latency` cycles later.
struct LatencyBound {
  int cycles = 0;
  int type = -1;
  int operations = 0;
  int first_start = 0;
  std::vector<int> chain;  // the critical chain, first to last (type == -1)
};

// The chain bound first, then one per used limited type.
std::vector<LatencyBound> latency_lower_bounds(const Problem& p, const Graph& g);

// One line naming the bound, against the problem's max_latency: "latency
// bound 30 cycles is 7 short: the dependence chain x0 -> m3 -> a9 needs 37
// cycles" or "limit 4 of mul (used by 148 operations) needs at least 37
// cycles; the latency bound gives 30", with a hint.
std::string describe_bound(const Problem& p, const LatencyBound& b, std::string* hint);

// Throws InvalidModel naming the largest lower bound if it exceeds max_latency.
void check_latency_bounds(const Problem& p, const Graph& g);

// Throws InvalidModel for a schedule of `latency` cycles from `solver` over
// max_latency: names the binding bound if one exceeds max_latency, else says
// the bounds fit and the heuristic did not.
[[noreturn]] void fail_latency(const Problem& p, const Graph& g, std::string_view solver,
                               int latency);

}  // namespace kiln::sched

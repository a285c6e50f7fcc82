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

// ---- the modulo problem ----------------------------------------------------------

// Lower bounds on a modulo schedule's II: ResMII, the most start cycles mod
// II a limited type needs (ceil(operations / limit)), and RecMII, the least
// II at which no dependence cycle asks an operation to start after itself
// (for each cycle, the sum of latencies over the sum of distances, rounded
// up), with the type or the cycle that sets each.
struct ModuloBounds {
  int res_mii = 1;
  int res_type = -1;  // the type setting ResMII; -1 if no limited type binds
  int res_operations = 0;
  int rec_mii = 1;
  std::vector<int> rec_cycle;  // operations of the cycle setting RecMII, empty if none binds
  int mii() const { return res_mii > rec_mii ? res_mii : rec_mii; }
};
ModuloBounds modulo_bounds(const Problem& p);

// Why a modulo schedule has the II it has, in one line: "II 3 (asked 1):
// ResMII 3 from mul (5 operations, limit 2); RecMII 2 from m0 -> a0 -> m0",
// and, when the II exceeds both bounds, that no placement fit below it.
std::string describe_ii(const Problem& p, const ModuloBounds& b, int ii);

}  // namespace kiln::sched

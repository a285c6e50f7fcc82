// The schedulers. Each validates the problem with check(), solves it, runs
// verify() on its own result and returns it. When a max_latency cannot be
// met, each throws kiln::Error(InvalidModel) naming the binding constraint
// and the cycles it lacks (bounds.h).
#pragma once

#include <string_view>
#include <vector>

#include "kiln/sched/bounds.h"
#include "kiln/sched/problem.h"

namespace kiln::sched {

// Earliest start of each operation with every limit ignored, and the
// predecessor that set it (-1 for none): the ASAP schedule, and the
// dependence-chain lower bound on the latency. With Chaining a latency-0
// operation joins its operands' cycle while the accumulated delay fits the
// clock, else starts the next cycle at offset 0. This is the least latency
// of any schedule without limits, since each start is the least its
// predecessors allow.
struct EarliestStarts {
  std::vector<int> start;
  std::vector<double> start_ns;
  std::vector<int> critical_pred;
};
EarliestStarts earliest_starts(const Problem& p, const Graph& g);

// As soon as possible. Limits do not exist in Plain problems; a
// SharedOperators or Chaining problem in which a used type has a limit is
// refused with Unsupported (use schedule_list or schedule_sdc).
Solution schedule_asap(const Problem& p);

// Resource-constrained list scheduling, cycle by cycle. Among the operations
// whose operands are ready, the one with the longest path to a sink (cycles,
// then delay, then index) goes first; an operation that would exceed its
// type's limit or (Chaining) the clock waits for the next cycle.
// O((V + E) log V + cycles x types).
Solution schedule_list(const Problem& p);
// The list schedule of a modulo problem's body, one iteration at a time: its
// dependences of distance 0 (`g`, Graph(p)) with its limits and, with a
// clock, chaining; what schedule_list gives that problem. `p` has passed
// check(); the result is not verified (schedule_modulo verifies what it
// returns).
Solution schedule_list_body(const Problem& p, const Graph& g);

// System of difference constraints solved as an LP with GLPK: first the
// least latency, then with that latency the least register bits
// (register_bits()). Chaining adds start[v] >= start[u] + 1 for every
// latency-0 path u -> ... -> v whose delay exceeds the clock. Limits: the
// limited operations keep the list schedule's order (those that share a
// list cycle may share a cycle; each later group starts after the earlier
// ones), which keeps every cycle within the limit. Problems over
// kSdcMaxOperations operations are refused with Unsupported: GLPK's simplex
// time grows about quadratically here (measured on random DAGs on a 2-core
// machine: 2,000 operations 1-2 s, 5,000 operations 7-12 s). A min-cost-flow
// solver for the LP's dual would scale further.
inline constexpr int kSdcMaxOperations = 5000;
Solution schedule_sdc(const Problem& p);

// Throws Unsupported for a modulo problem: `solver` solves acyclic ones.
void refuse_modulo(const Problem& p, std::string_view solver);

// The modulo problem (a pipelined loop's body). For each II from
// max(the problem's ii, ResMII, RecMII) up: operations in order of their
// earliest start at that II (the longest path with each dependence worth
// latency - distance x II) each take the first cycle from there at which
// their type has room in the modulo reservation table and no placed
// consumer of a later iteration is overtaken; the first II at which all fit
// wins. If none does below the list schedule's length L, the list schedule
// with II = L (iterations do not overlap) is the answer, which always holds.
// O(II range x (V x E)). The other solvers refuse modulo problems.
// `bounds`, when given, receives modulo_bounds(p).
Solution schedule_modulo(const Problem& p, ModuloBounds* bounds = nullptr);

}  // namespace kiln::sched

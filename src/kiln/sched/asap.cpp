// As-soon-as-possible scheduling, and the earliest starts the bounds use.
#include <algorithm>

#include "kiln/sched/bounds.h"
#include "kiln/sched/solvers.h"
#include "kiln/sched/verify.h"
#include "kiln/support/error.h"

namespace kiln::sched {

EarliestStarts earliest_starts(const Problem& p, const Graph& g) {
  const int n = p.num_operations();
  EarliestStarts e;
  e.start.assign(n, 0);
  e.start_ns.assign(n, 0.0);
  e.critical_pred.assign(n, -1);
  const bool chaining = p.has_chaining();
  for (int v : g.topological_order()) {
    // (cycle, offset) at which the last operand is ready: lexicographic max,
    // since an offset only matters within its cycle.
    int cycle = 0;
    double offset = 0;
    for (int u : g.predecessors(v)) {
      int c = e.start[u] + p.latency(u);
      double o = 0;
      if (chaining && p.latency(u) == 0) o = e.start_ns[u] + p.delay_ns(u);
      if (e.critical_pred[v] < 0 || c > cycle || (c == cycle && o > offset)) {
        cycle = c;
        offset = o;
        e.critical_pred[v] = u;
      }
    }
    if (chaining && offset + p.delay_ns(v) > p.clock_ns + kDelayEpsilon) {
      ++cycle;
      offset = 0;
    }
    e.start[v] = cycle;
    e.start_ns[v] = offset;
  }
  return e;
}

Solution schedule_asap(const Problem& p) {
  check(p);
  refuse_modulo(p, "asap");
  if (p.has_limits())
    for (const Operation& op : p.operations)
      if (p.types[op.type].limit)
        throw_error(ErrorKind::Unsupported, p.where(),
                    "the asap scheduler ignores resource limits, and " + p.types[op.type].name +
                        " has limit " + std::to_string(*p.types[op.type].limit),
                    "use the list or sdc scheduler");
  const Graph g(p);
  check_latency_bounds(p, g);
  EarliestStarts e = earliest_starts(p, g);
  Solution s;
  s.start = std::move(e.start);
  s.start_ns = std::move(e.start_ns);
  s.latency = schedule_latency(p, s.start);
  // ASAP is the least latency without limits, so the bound check above
  // already covers max_latency.
  verify(p, s);
  return s;
}

}  // namespace kiln::sched

// Resource-constrained list scheduling, cycle by cycle.
//
// Operations whose operands are all scheduled wait in one priority queue per
// limited type plus one for the rest; those whose operands are ready only in
// a later cycle wait in a queue ordered by that cycle. Each cycle takes
// operations from the queues in priority order until every queue is empty or
// its type's limit is used up; a latency-0 operation scheduled this cycle can
// make its successors ready in the same cycle (chaining), so the queues are
// revisited until nothing more fits. Every operation is taken at most twice
// (a second time after the clock pushed it to the next cycle), so the cost is
// O((V + E) log V) plus the cycles times the number of queues.
#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "kiln/sched/bounds.h"
#include "kiln/sched/solvers.h"
#include "kiln/sched/verify.h"
#include "kiln/support/error.h"

namespace kiln::sched {

namespace {

Solution list_schedule(const Problem& p, const Graph& g) {
  const int n = p.num_operations();
  const int num_types = static_cast<int>(p.types.size());
  const bool chaining = p.has_chaining();
  // Each operation's latency and delay, read often below, at hand.
  std::vector<int> latency(n);
  std::vector<double> delay(n);
  for (int v = 0; v < n; ++v) {
    latency[v] = p.latency(v);
    delay[v] = p.delay_ns(v);
  }

  // Priority: longest path to a sink in cycles, then in delay, then index.
  std::vector<int> path_cycles(n, 0);
  std::vector<double> path_ns(n, 0.0);
  const std::vector<int>& order = g.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int v = *it;
    int c = 0;
    double d = 0;
    for (int s : g.successors(v)) {
      c = std::max(c, path_cycles[s]);
      d = std::max(d, path_ns[s]);
    }
    path_cycles[v] = c + latency[v];
    path_ns[v] = d + delay[v];
  }
  // The priority is a total order, so the queues hold ranks in it (0 first):
  // the same order, compared as integers.
  struct Priority {
    int cycles;
    double ns;
    int op;
  };
  std::vector<Priority> priorities(n);
  for (int v = 0; v < n; ++v) priorities[v] = {path_cycles[v], path_ns[v], v};
  std::sort(priorities.begin(), priorities.end(), [](const Priority& a, const Priority& b) {
    if (a.cycles != b.cycles) return a.cycles > b.cycles;
    if (a.ns != b.ns) return a.ns > b.ns;
    return a.op < b.op;
  });
  std::vector<int> by_rank(n), rank(n);
  for (int r = 0; r < n; ++r) {
    by_rank[r] = priorities[r].op;
    rank[by_rank[r]] = r;
  }
  using Queue = std::priority_queue<int, std::vector<int>, std::greater<int>>;
  // Queue 0: unlimited operations; queue 1 + t: limited type t.
  std::vector<Queue> queues(num_types + 1);
  std::vector<int> queue_of(n, 0);
  for (int v = 0; v < n; ++v)
    if (p.limit_of(v)) queue_of[v] = 1 + p.operations[v].type;
  std::size_t queued = 0;
  const auto enqueue = [&](int v) {
    queues[queue_of[v]].push(rank[v]);
    ++queued;
  };

  using Pending = std::pair<int, int>;  // (ready cycle, operation)
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending;
  std::vector<int> unscheduled_preds(n), ready_cycle(n, 0);
  for (int v = 0; v < n; ++v) {
    unscheduled_preds[v] = static_cast<int>(g.predecessors(v).size());
    if (unscheduled_preds[v] == 0) enqueue(v);
  }

  Solution s;
  s.start.assign(n, -1);
  s.start_ns.assign(n, 0.0);
  std::vector<int> used(num_types + 1, 0);
  std::vector<int> next_cycle;  // pushed out by the clock
  int cycle = 0;
  int done = 0;
  while (done < n) {
    while (!pending.empty() && pending.top().first <= cycle) {
      enqueue(pending.top().second);
      pending.pop();
    }
    if (queued == 0) {  // nothing to do until the next operand is ready
      cycle = pending.top().first;
      continue;
    }
    bool progress = true;
    while (progress) {
      progress = false;
      for (int q = 0; q <= num_types; ++q) {
        Queue& queue = queues[q];
        while (!queue.empty() && (q == 0 || used[q] < *p.types[q - 1].limit)) {
          const int v = by_rank[queue.top()];
          queue.pop();
          --queued;
          double offset = 0;
          if (chaining) {
            for (int u : g.predecessors(v))
              if (latency[u] == 0 && s.start[u] == cycle)
                offset = std::max(offset, s.start_ns[u] + delay[u]);
            if (offset + delay[v] > p.clock_ns + kDelayEpsilon) {
              next_cycle.push_back(v);
              continue;
            }
          }
          s.start[v] = cycle;
          s.start_ns[v] = offset;
          ++used[q];
          ++done;
          progress = true;
          const int ready = cycle + latency[v];
          for (int w : g.successors(v)) {
            ready_cycle[w] = std::max(ready_cycle[w], ready);
            if (--unscheduled_preds[w] > 0) continue;
            if (ready_cycle[w] <= cycle)
              enqueue(w);
            else
              pending.emplace(ready_cycle[w], w);
          }
        }
      }
    }
    ++cycle;
    std::fill(used.begin(), used.end(), 0);
    for (int v : next_cycle) enqueue(v);
    next_cycle.clear();
  }
  s.latency = schedule_latency(p, s.start);
  return s;
}

}  // namespace

Solution schedule_list_body(const Problem& p, const Graph& g) {
  KILN_ASSERT(p.is_modulo(), "the list schedule of a body asked of a problem that is not modulo");
  return list_schedule(p, g);
}

Solution schedule_list(const Problem& p) {
  const Graph g = checked_graph(p);
  refuse_modulo(p, "list");
  check_latency_bounds(p, g);
  Solution s = list_schedule(p, g);
  if (p.max_latency && s.latency > *p.max_latency) fail_latency(p, g, "list", s.latency);
  verify(p, s);
  return s;
}

}  // namespace kiln::sched

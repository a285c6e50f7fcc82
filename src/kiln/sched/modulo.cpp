// The modulo problem's bounds (ResMII, RecMII) and its solver; see
// solvers.h for the algorithm.
#include <algorithm>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/sched/bounds.h"
#include "kiln/sched/solvers.h"
#include "kiln/sched/verify.h"
#include "kiln/support/error.h"

namespace kiln::sched {

namespace {

// A dependence as the solver walks it, its latency at hand (in the
// problem's order).
struct Edge {
  int from, to;
  int latency;  // Problem::latency(d)
  int distance;
  bool chains;  // Problem::chains(d)
};

std::vector<Edge> edges_of(const Problem& p) {
  std::vector<Edge> edges;
  edges.reserve(p.dependences.size());
  for (const Dependence& d : p.dependences)
    edges.push_back({d.from, d.to, p.latency(d), d.distance, p.chains(d)});
  return edges;
}

// Longest paths from a virtual source (every start >= 0) with each
// dependence worth latency[from] - distance x ii, by Bellman-Ford. Returns
// false if a cycle is positive at this II (some operation would have to
// start after itself); `pred` then leads into such a cycle from `on_cycle`.
bool earliest_at(int n, const std::vector<Edge>& edges, int ii, std::vector<int>& start,
                 std::vector<int>& pred, int* on_cycle) {
  start.assign(n, 0);
  pred.assign(n, -1);
  for (int round = 0; round <= n; ++round) {
    int changed = -1;
    for (const Edge& d : edges) {
      const int t = start[d.from] + d.latency - d.distance * ii;
      if (t > start[d.to]) {
        start[d.to] = t;
        pred[d.to] = d.from;
        changed = d.to;
      }
    }
    if (changed < 0) return true;
    if (round == n) {
      if (on_cycle) *on_cycle = changed;
      return false;
    }
  }
  return true;
}

// The cycle `pred` leads into from `v`, first to last.
std::vector<int> cycle_from(const Problem& p, const std::vector<int>& pred, int v) {
  for (int i = 0; i < p.num_operations(); ++i) v = pred[v];  // now on the cycle
  std::vector<int> cycle = {v};
  for (int u = pred[v]; u != v; u = pred[u]) cycle.push_back(u);
  std::reverse(cycle.begin(), cycle.end());
  return cycle;
}

// Lists per operation in one array (compressed rows): `items` of operation
// v from offset[v] to offset[v + 1].
struct Rows {
  std::vector<int> offset, items;
  std::span<const int> operator[](int v) const {
    return {items.data() + offset[static_cast<std::size_t>(v)],
            items.data() + offset[static_cast<std::size_t>(v) + 1]};
  }
};

// What place() needs at every II: the topological order, each operation's
// latency, delay and limit, and its dependences in and out, by index (in
// the problem's order).
struct Adjacency {
  std::vector<Edge> edges;
  std::vector<int> topological_order, latency, type, limit;  // limit -1: none
  std::vector<double> delay;
  Rows in, out;
  Adjacency(const Problem& p, const Graph& g, std::vector<Edge> edges_)
      : edges(std::move(edges_)),
        topological_order(g.topological_order()),
        latency(p.num_operations()),
        type(p.num_operations()),
        limit(p.num_operations()),
        delay(p.num_operations()) {
    for (int i = 0; i < p.num_operations(); ++i) {
      latency[i] = p.latency(i);
      type[i] = p.operations[i].type;
      limit[i] = p.limit_of(i).value_or(-1);
      delay[i] = p.delay_ns(i);
    }
    const auto rows = [&](Rows& r, auto end_of) {
      r.offset.assign(static_cast<std::size_t>(p.num_operations()) + 1, 0);
      for (const Dependence& d : p.dependences) ++r.offset[static_cast<std::size_t>(end_of(d)) + 1];
      for (std::size_t v = 1; v < r.offset.size(); ++v) r.offset[v] += r.offset[v - 1];
      r.items.resize(p.dependences.size());
      std::vector<int> fill(r.offset.begin(), r.offset.end() - 1);
      for (std::size_t i = 0; i < p.dependences.size(); ++i)
        r.items[static_cast<std::size_t>(
            fill[static_cast<std::size_t>(end_of(p.dependences[i]))]++)] = static_cast<int>(i);
    };
    rows(in, [](const Dependence& d) { return d.to; });
    rows(out, [](const Dependence& d) { return d.from; });
  }
};

// Places every operation at `ii` as solvers.h says; false if one does not fit.
// With a clock, a latency-0 producer in the same cycle (its iteration's cycle
// plus distance x II) makes the operation start after its delay, and the
// operation moves to a later cycle when it would end past the clock.
//
// `floor` holds each operation's least start so far. When an operation
// cannot be placed because a consumer of a later iteration (a recurrence's
// first use of the state it stores) already sits too early, that consumer's
// floor is raised to where it would fit and `raised` is set; the pass goes
// on to find every such consumer, and the caller places all again from
// scratch, so the recurrences close (an accumulator's select, ASAP at cycle
// 0, waits for the products' tree instead of forcing a longer II).
constexpr int kMaxRaises = 2;  // per operation and II

bool place(const Problem& p, const Adjacency& adj, int ii, std::vector<int>& start,
           std::vector<double>& start_ns, std::vector<int>& floor, std::vector<int>& raises,
           bool& raised) {
  raised = false;
  const int n = p.num_operations();
  std::vector<int> asap, pred;
  if (!earliest_at(n, adj.edges, ii, asap, pred, nullptr)) return false;
  const auto& in = adj.in;
  const auto& out = adj.out;
  const std::vector<Edge>& edges = adj.edges;
  // The operations by (asap, topological index): the topological order
  // bucketed by asap (a counting sort, stable).
  std::vector<int> order(n);
  {
    int most = 0;
    for (int v = 0; v < n; ++v) most = std::max(most, asap[v]);
    std::vector<int> at(static_cast<std::size_t>(most) + 2, 0);
    for (int v = 0; v < n; ++v) ++at[static_cast<std::size_t>(asap[v]) + 1];
    for (std::size_t i = 1; i < at.size(); ++i) at[i] += at[i - 1];
    for (int v : adj.topological_order) order[static_cast<std::size_t>(at[asap[v]]++)] = v;
  }
  // used[type][cycle mod ii]: the modulo reservation table.
  std::vector<std::vector<int>> used(p.types.size(), std::vector<int>(ii, 0));
  start.assign(n, -1);
  start_ns.assign(n, 0.0);
  const bool chain = p.has_chaining();
  // The offset `v` starts at in cycle t, or -1 if it does not fit there.
  auto offset_at = [&](int v, int t) -> double {
    if (!chain) return 0;
    double ns = 0;
    for (int i : in[v]) {
      const Edge& d = edges[i];
      if (start[d.from] >= 0 && d.chains && t + d.distance * ii == start[d.from])
        ns = std::max(ns, start_ns[d.from] + adj.delay[d.from]);
    }
    if (ns + adj.delay[v] > p.clock_ns + kDelayEpsilon) return -1;
    if (adj.latency[v] == 0)
      for (int i : out[v]) {  // a placed consumer of a later iteration in this cycle
        const Edge& d = edges[i];
        if (start[d.to] >= 0 && d.chains && start[d.to] + d.distance * ii == t &&
            start_ns[d.to] + kDelayEpsilon < ns + adj.delay[v])
          return -1;
      }
    return ns;
  };
  for (int v : order) {
    int lo = std::max(asap[v], floor[v]);
    for (int i : in[v]) {
      const Edge& d = edges[i];
      if (start[d.from] >= 0) lo = std::max(lo, start[d.from] + d.latency - d.distance * ii);
    }
    // Past lo + ii - 1 the residues repeat (counted from where the placed
    // producers allow, not from the ASAP bound); a chain that overflows the
    // clock at lo needs one cycle more, whatever the residue.
    int hi = lo + ii - 1 + (chain ? 1 : 0);
    for (int i : out[v]) {  // a placed consumer, of a later iteration
      const Edge& d = edges[i];
      if (start[d.to] < 0) continue;
      const int latest = start[d.to] + d.distance * ii - d.latency;
      if (latest < lo && d.distance > 0) {
        floor[d.to] = std::max(floor[d.to], lo + d.latency - d.distance * ii);
        // A consumer raised again and again drags the recurrence along with
        // it (its chain does not fit the II): give this II up.
        if (++raises[d.to] > kMaxRaises) return false;
        // The pass goes on, as if the consumer sat where it will, to find
        // the other recurrences' raises (a layer with 128 accumulators
        // would otherwise restart 128 times).
        raised = true;
        continue;
      }
      hi = std::min(hi, latest);
    }
    const int limit = adj.limit[v];
    const int type = adj.type[v];
    int t = lo;
    double ns = 0;
    while (t <= hi && ((limit >= 0 && used[type][t % ii] >= limit) || (ns = offset_at(v, t)) < 0))
      ++t;
    if (t > hi) return false;  // with raises made, the next pass places it anew
    start[v] = t;
    start_ns[v] = ns;
    if (limit >= 0) ++used[type][t % ii];
  }
  return !raised;
}

}  // namespace

void refuse_modulo(const Problem& p, std::string_view solver) {
  if (p.is_modulo())
    throw_error(ErrorKind::Unsupported, p.where(),
                "the " + std::string(solver) + " scheduler solves acyclic problems, not modulo",
                "use the modulo scheduler");
}

namespace {

ModuloBounds bounds_of(const Problem& p, const std::vector<Edge>& edges) {
  ModuloBounds b;
  std::vector<int> uses(p.types.size(), 0);
  for (int v = 0; v < p.num_operations(); ++v)
    if (p.limit_of(v)) ++uses[p.operations[v].type];
  for (std::size_t t = 0; t < p.types.size(); ++t) {
    if (!uses[t]) continue;
    const int need = (uses[t] + *p.types[t].limit - 1) / *p.types[t].limit;
    if (need > b.res_mii) {
      b.res_mii = need;
      b.res_type = static_cast<int>(t);
      b.res_operations = uses[t];
    }
  }
  // The least II without a positive cycle; feasibility only grows with II,
  // and II = the sum of all latencies is enough (every cycle has distance >= 1).
  int total = 1;
  for (int v = 0; v < p.num_operations(); ++v) total += p.latency(v);
  std::vector<int> start, pred;
  const int n = p.num_operations();
  int lo = 1, hi = total;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (earliest_at(n, edges, mid, start, pred, nullptr))
      hi = mid;
    else
      lo = mid + 1;
  }
  b.rec_mii = lo;
  int v = -1;
  if (lo > 1 && !earliest_at(n, edges, lo - 1, start, pred, &v))
    b.rec_cycle = cycle_from(p, pred, v);
  return b;
}

}  // namespace

ModuloBounds modulo_bounds(const Problem& p) {
  return bounds_of(p, edges_of(p));
}

std::string describe_ii(const Problem& p, const ModuloBounds& b, int ii) {
  std::string s = "II " + std::to_string(ii);
  if (p.ii) s += " (asked " + std::to_string(*p.ii) + ")";
  s += ": ResMII " + std::to_string(b.res_mii);
  if (b.res_type >= 0)
    s += " from " + p.types[b.res_type].name + " (" + std::to_string(b.res_operations) +
         " operations, limit " + std::to_string(*p.types[b.res_type].limit) + ")";
  s += "; RecMII " + std::to_string(b.rec_mii);
  if (!b.rec_cycle.empty()) {
    s += " from ";
    for (int v : b.rec_cycle) s += p.operations[v].name + " -> ";
    s += p.operations[b.rec_cycle.front()].name;
  }
  const int floor = std::max(b.mii(), p.ii.value_or(1));
  if (ii > floor)
    s += "; no placement fit the reservation table at II " + std::to_string(floor) +
         (ii - 1 > floor ? ".." + std::to_string(ii - 1) : "");
  return s;
}

Solution schedule_modulo(const Problem& p, ModuloBounds* bounds) {
  const Graph g = checked_graph(p);
  if (!p.is_modulo())
    throw_error(ErrorKind::Unsupported, p.where(),
                "the modulo scheduler solves modulo problems; this one is " +
                    std::string(enum_name(p.problem_class)),
                "use the list or sdc scheduler");
  const Adjacency adj(p, g, edges_of(p));
  const ModuloBounds b = bounds_of(p, adj.edges);
  if (bounds) *bounds = b;

  // The fallback: one iteration at a time, the list schedule of the body
  // (the dependences of distance 0, which `g` holds), whose length L bounds
  // the IIs tried. It is made only when an II reaches a lower bound on L,
  // the body's longest path (the list schedule keeps every dependence), as
  // the first II tried usually fits.
  std::vector<int> path(p.num_operations(), 0);
  int list_ii = 1;  // a lower bound on L until `list` is made, then L
  for (int v : g.topological_order()) {
    for (int i : adj.in[v])
      if (const Edge& d = adj.edges[i]; d.distance == 0)
        path[v] = std::max(path[v], path[d.from] + d.latency);
    list_ii = std::max(list_ii, path[v] + std::max(adj.latency[v], 1));
  }
  std::optional<Solution> list;
  const auto make_list = [&] {
    list = schedule_list_body(p, g);
    list_ii = 1;
    for (int v = 0; v < p.num_operations(); ++v)
      list_ii = std::max(list_ii, list->start[v] + std::max(p.latency(v), 1));
  };

  Solution s;
  s.start_ns.assign(p.num_operations(), 0.0);
  const int first = std::max(b.mii(), p.ii.value_or(1));
  for (int ii = first;; ++ii) {
    if (ii >= list_ii && !list) make_list();
    if (ii >= list_ii) break;
    // Raised floors only move operations later, so a few restarts settle
    // (each raises one consumer at least a cycle); an operation raised more
    // than kMaxRaises times, or 64 restarts, and the next II is tried.
    std::vector<int> floor(static_cast<std::size_t>(p.num_operations()), 0);
    std::vector<int> raises(static_cast<std::size_t>(p.num_operations()), 0);
    bool raised = true, placed = false;
    for (int attempt = 0; raised && !placed && attempt < 64; ++attempt)
      placed = place(p, adj, ii, s.start, s.start_ns, floor, raises, raised);
    if (placed) {
      s.ii = ii;
      break;
    }
  }
  if (s.ii == 0) {
    if (!list) make_list();
    s.start = list->start;
    s.start_ns = list->start_ns;
    s.ii = std::max(first, list_ii);
  }
  s.latency = schedule_latency(p, s.start);
  if (p.max_latency && s.latency > *p.max_latency)
    throw_error(ErrorKind::InvalidModel, p.where(),
                "the modulo schedule at II " + std::to_string(s.ii) + " takes " +
                    std::to_string(s.latency) + " cycles per iteration, over max_latency " +
                    std::to_string(*p.max_latency) + " by " +
                    std::to_string(s.latency - *p.max_latency),
                "raise max_latency or the limits");
  verify(p, s);
  return s;
}

}  // namespace kiln::sched

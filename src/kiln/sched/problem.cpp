#include "kiln/sched/problem.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "kiln/support/error.h"
#include "kiln/support/flat_hash.h"

namespace kiln::sched {

namespace {

std::string ns(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f ns", v);
  return buf;
}

[[noreturn]] void fail(const Problem& p, const std::string& what, const std::string& hint = {}) {
  throw_error(ErrorKind::InvalidModel, p.where(), what, hint);
}

// The operations of one cycle, named in dependence order, found by walking
// predecessors among the operations Kahn's algorithm could not order.
std::string describe_cycle(const Problem& p, const Graph& g) {
  const int n = p.num_operations();
  std::vector<char> ordered(n, 0);
  for (int v : g.topological_order()) ordered[v] = 1;
  int v = 0;
  while (ordered[v]) ++v;
  // Every unordered operation has an unordered predecessor, so this walk
  // must revisit one; the loop is the part from the first repeat on.
  std::vector<int> seen_at(n, -1);
  std::vector<int> walk;
  while (seen_at[v] < 0) {
    seen_at[v] = static_cast<int>(walk.size());
    walk.push_back(v);
    for (int u : g.predecessors(v))
      if (!ordered[u]) {
        v = u;
        break;
      }
  }
  std::vector<int> cycle(walk.begin() + seen_at[v], walk.end());
  std::reverse(cycle.begin(), cycle.end());  // predecessors walked backwards
  std::string s;
  for (int u : cycle) s += p.operations[u].name + " -> ";
  return s + p.operations[cycle.front()].name;
}

}  // namespace

Graph::Graph(const Problem& p) : n_(p.num_operations()) {
  succ_offset_.assign(n_ + 1, 0);
  pred_offset_.assign(n_ + 1, 0);
  for (const Dependence& d : p.dependences) {
    KILN_ASSERT(d.from >= 0 && d.from < n_ && d.to >= 0 && d.to < n_, "dependence out of range");
    if (d.distance != 0) continue;
    ++succ_offset_[d.from + 1];
    ++pred_offset_[d.to + 1];
  }
  for (int i = 0; i < n_; ++i) {
    succ_offset_[i + 1] += succ_offset_[i];
    pred_offset_[i + 1] += pred_offset_[i];
  }
  succ_.resize(static_cast<std::size_t>(succ_offset_[n_]));
  pred_.resize(static_cast<std::size_t>(pred_offset_[n_]));
  std::vector<int> sfill(succ_offset_.begin(), succ_offset_.end() - 1);
  std::vector<int> pfill(pred_offset_.begin(), pred_offset_.end() - 1);
  for (const Dependence& d : p.dependences) {
    if (d.distance != 0) continue;
    succ_[sfill[d.from]++] = d.to;
    pred_[pfill[d.to]++] = d.from;
  }
  // Kahn's algorithm; ties in index order so every solver sees the same order.
  std::vector<int> indegree(n_);
  for (int v = 0; v < n_; ++v) indegree[v] = pred_offset_[v + 1] - pred_offset_[v];
  order_.reserve(n_);
  for (int v = 0; v < n_; ++v)
    if (indegree[v] == 0) order_.push_back(v);
  for (std::size_t i = 0; i < order_.size(); ++i)
    for (int s : successors(order_[i]))
      if (--indegree[s] == 0) order_.push_back(s);
}

// The rules, in the order they are checked: problem fields (clock, bound,
// II), types (names, latency, delay), operations (names, type, width),
// dependences (range, self, distance), limits of used types, acyclicity
// (of the distance-0 dependences), and for Chaining each operation's delay
// against the clock.
void check(const Problem& p) {
  checked_graph(p);
}

Graph checked_graph(const Problem& p) {
  if (p.has_chaining() && !(p.clock_ns > 0 && std::isfinite(p.clock_ns)))
    fail(p, "a chaining problem needs a clock period > 0, got " + ns(p.clock_ns));
  if (p.max_latency && *p.max_latency < 0)
    fail(p, "max_latency " + std::to_string(*p.max_latency) + " is negative");
  if (p.ii && !p.is_modulo()) fail(p, "an initiation interval applies to the modulo problem only");
  if (p.ii && *p.ii < 1) fail(p, "initiation interval " + std::to_string(*p.ii) + " is below 1");

  FlatHashMap<std::string_view, int, std::hash<std::string_view>> type_names;
  for (std::size_t i = 0; i < p.types.size(); ++i) {
    const OperatorType& t = p.types[i];
    if (t.name.empty()) fail(p, "operator type " + std::to_string(i) + " has no name");
    if (!type_names.try_emplace(t.name, static_cast<int>(i)).second)
      fail(p, "operator type " + t.name + " is defined twice");
    if (t.latency < 0)
      fail(p, "operator type " + t.name + " has negative latency " + std::to_string(t.latency));
    if (!(t.delay_ns >= 0 && std::isfinite(t.delay_ns)))
      fail(p, "operator type " + t.name + " has delay " + ns(t.delay_ns) + "; it must be >= 0");
  }

  const int n = p.num_operations();
  const int num_types = static_cast<int>(p.types.size());
  FlatHashMap<std::string_view, int, std::hash<std::string_view>> op_names;
  op_names.reserve(static_cast<std::size_t>(n));
  std::vector<int> uses(num_types, 0);
  for (int i = 0; i < n; ++i) {
    const Operation& op = p.operations[i];
    if (op.name.empty()) fail(p, "operation " + std::to_string(i) + " has no name");
    if (!op_names.try_emplace(op.name, i).second)
      fail(p, "operation " + op.name + " is defined twice");
    if (op.type < 0 || op.type >= num_types)
      fail(p, "op " + op.name + " has type index " + std::to_string(op.type) +
                  ", but the problem has " + std::to_string(num_types) + " types");
    if (op.width < 0) fail(p, "op " + op.name + " has negative width " + std::to_string(op.width));
    ++uses[op.type];
  }

  for (std::size_t i = 0; i < p.dependences.size(); ++i) {
    const Dependence& d = p.dependences[i];
    for (int end : {d.from, d.to})
      if (end < 0 || end >= n)
        fail(p, "dependence " + std::to_string(i) + " refers to unknown operation " +
                    std::to_string(end) + " (the problem has " + std::to_string(n) + ")");
    const std::string& from = p.operations[d.from].name;
    if (d.from == d.to && d.distance == 0) fail(p, "op " + from + " depends on itself");
    if (d.distance < 0)
      fail(p, "dependence " + from + " -> " + p.operations[d.to].name + " has negative distance " +
                  std::to_string(d.distance));
    if (d.distance != 0 && !p.is_modulo())
      fail(p, "dependence " + from + " -> " + p.operations[d.to].name + " has distance " +
                  std::to_string(d.distance) +
                  "; only the modulo problem allows a nonzero distance");
  }

  if (p.has_limits())
    for (int t = 0; t < num_types; ++t)
      if (p.types[t].limit && *p.types[t].limit < 1 && uses[t] > 0)
        fail(p, "limit " + std::to_string(*p.types[t].limit) + " of " + p.types[t].name +
                    " (used by " + std::to_string(uses[t]) + " operations) is below 1");

  const Graph g(p);
  if (!g.acyclic())
    fail(p, std::string(p.is_modulo() ? "the dependences of distance 0" : "the dependences") +
                " form a cycle: " + describe_cycle(p, g));

  if (p.has_chaining())
    for (const Operation& op : p.operations) {
      const OperatorType& t = p.types[op.type];
      if (t.delay_ns > p.clock_ns + kDelayEpsilon)
        fail(p,
             "op " + op.name + " (" + t.name + ", " + ns(t.delay_ns) + ") does not fit the " +
                 ns(p.clock_ns) + " clock: " + ns(t.delay_ns - p.clock_ns) + " over",
             "raise the clock period or give " + t.name + " a pipeline stage");
    }
  return g;
}

int schedule_latency(const Problem& p, const std::vector<int>& start) {
  int latency = 0;
  for (int v = 0; v < p.num_operations(); ++v) latency = std::max(latency, start[v] + p.latency(v));
  return latency;
}

int64_t register_bits(const Problem& p, const Graph& g, const Solution& s) {
  int64_t bits = 0;
  for (int v = 0; v < p.num_operations(); ++v) {
    int life = 0;
    for (int w : g.successors(v)) life = std::max(life, s.start[w] - (s.start[v] + p.latency(v)));
    bits += int64_t{p.operations[v].width} * life;
  }
  return bits;
}

int64_t register_bits(const Problem& p, const Solution& s) {
  return register_bits(p, Graph(p), s);
}

}  // namespace kiln::sched

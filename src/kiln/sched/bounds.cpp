#include "kiln/sched/bounds.h"

#include <algorithm>
#include <limits>

#include "kiln/sched/solvers.h"
#include "kiln/support/error.h"

namespace kiln::sched {

namespace {

std::string chain_text(const Problem& p, const std::vector<int>& chain) {
  const auto name = [&](int v) -> const std::string& { return p.operations[v].name; };
  std::string s;
  const std::size_t n = chain.size();
  // Long chains: the first three and the last two operations.
  for (std::size_t i = 0; i < n; ++i) {
    if (n > 6 && i == 3) {
      s += " -> ...";
      i = n - 3;
      continue;
    }
    if (!s.empty()) s += " -> ";
    s += name(chain[i]);
  }
  if (n > 6) s += " (" + std::to_string(n) + " operations)";
  return s;
}

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

}  // namespace

std::vector<LatencyBound> latency_lower_bounds(const Problem& p, const Graph& g) {
  std::vector<LatencyBound> bounds;
  const EarliestStarts e = earliest_starts(p, g);
  const int n = p.num_operations();

  LatencyBound chain;
  int last = -1;
  for (int v = 0; v < n; ++v)
    if (e.start[v] + p.latency(v) > chain.cycles || last < 0) {
      chain.cycles = e.start[v] + p.latency(v);
      last = v;
    }
  for (int v = last; v >= 0; v = e.critical_pred[v]) chain.chain.push_back(v);
  std::reverse(chain.chain.begin(), chain.chain.end());
  bounds.push_back(std::move(chain));

  if (!p.has_limits()) return bounds;
  const int num_types = static_cast<int>(p.types.size());
  std::vector<int> count(num_types, 0);
  std::vector<int> first(num_types, std::numeric_limits<int>::max());
  for (int v = 0; v < n; ++v) {
    ++count[p.operations[v].type];
    first[p.operations[v].type] = std::min(first[p.operations[v].type], e.start[v]);
  }
  for (int t = 0; t < num_types; ++t) {
    if (!p.types[t].limit || count[t] == 0) continue;
    LatencyBound b;
    b.type = t;
    b.operations = count[t];
    b.first_start = first[t];
    b.cycles = first[t] + ceil_div(count[t], *p.types[t].limit) - 1 + p.types[t].latency;
    bounds.push_back(std::move(b));
  }
  return bounds;
}

std::string describe_bound(const Problem& p, const LatencyBound& b, std::string* hint) {
  const int bound = p.max_latency.value_or(b.cycles);
  const std::string cycles = std::to_string(b.cycles);
  if (b.type < 0) {
    if (hint) *hint = "raise the latency bound to " + cycles + " or shorten the chain";
    return "latency bound " + std::to_string(bound) + " cycles is " +
           std::to_string(b.cycles - bound) + " short: the dependence chain " +
           chain_text(p, b.chain) + " needs " + cycles + " cycles";
  }
  const OperatorType& t = p.types[b.type];
  if (hint) {
    // The least limit whose start cycles fit between first_start and the bound.
    const int slots = bound - t.latency - b.first_start + 1;
    *hint = "raise the latency bound to " + cycles;
    if (slots >= 1)
      *hint = "raise the limit of " + t.name + " to " +
              std::to_string(ceil_div(b.operations, slots)) + " or the latency bound to " + cycles;
  }
  return "limit " + std::to_string(*t.limit) + " of " + t.name + " (used by " +
         std::to_string(b.operations) + " operations) needs at least " + cycles +
         " cycles; the latency bound gives " + std::to_string(bound);
}

void check_latency_bounds(const Problem& p, const Graph& g) {
  if (!p.max_latency) return;
  const std::vector<LatencyBound> bounds = latency_lower_bounds(p, g);
  // The largest bound; the chain wins ties (it is listed first).
  const LatencyBound* worst = &bounds.front();
  for (const LatencyBound& b : bounds)
    if (b.cycles > worst->cycles) worst = &b;
  if (worst->cycles <= *p.max_latency) return;
  std::string hint;
  std::string what = describe_bound(p, *worst, &hint);
  throw_error(ErrorKind::InvalidModel, p.where(), what, hint);
}

void fail_latency(const Problem& p, const Graph& g, std::string_view solver, int latency) {
  KILN_ASSERT(p.max_latency && latency > *p.max_latency, "fail_latency without a violated bound");
  check_latency_bounds(p, g);
  std::string bounds_text;
  for (const LatencyBound& b : latency_lower_bounds(p, g)) {
    if (!bounds_text.empty()) bounds_text += ", ";
    bounds_text +=
        (b.type < 0 ? std::string("dependence chain ") : "limit of " + p.types[b.type].name + " ") +
        std::to_string(b.cycles);
  }
  throw_error(ErrorKind::InvalidModel, p.where(),
              "the " + std::string(solver) + " schedule needs " + std::to_string(latency) +
                  " cycles, " + std::to_string(latency - *p.max_latency) +
                  " over the latency bound " + std::to_string(*p.max_latency) +
                  "; the lower bounds (" + bounds_text + ") fit the bound",
              "try the sdc scheduler or raise the latency bound to " + std::to_string(latency));
}

}  // namespace kiln::sched

#include "kiln/sched/verify.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "kiln/support/error.h"

namespace kiln::sched {

namespace {

std::string ns(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ns", v);
  return buf;
}

[[noreturn]] void fail(const Problem& p, const std::string& what) {
  throw_error(ErrorKind::Internal, "schedule of " + p.where(), what);
}

}  // namespace

void verify(const Problem& p, const Solution& s) {
  const int n = p.num_operations();
  if (static_cast<int>(s.start.size()) != n || static_cast<int>(s.start_ns.size()) != n)
    fail(p, "the solution has " + std::to_string(s.start.size()) + " starts and " +
                std::to_string(s.start_ns.size()) + " offsets for " + std::to_string(n) +
                " operations");
  const auto name = [&](int v) -> const std::string& { return p.operations[v].name; };

  for (int v = 0; v < n; ++v) {
    if (s.start[v] < 0) fail(p, "op " + name(v) + " starts in cycle " + std::to_string(s.start[v]));
    if (!(s.start_ns[v] >= 0)) fail(p, "op " + name(v) + " starts at offset " + ns(s.start_ns[v]));
    if (!p.has_chaining() && s.start_ns[v] != 0)
      fail(p,
           "op " + name(v) + " has offset " + ns(s.start_ns[v]) + " in a problem without chaining");
  }

  if (p.is_modulo() ? s.ii < 1 : s.ii != 0)
    fail(p, "the solution has initiation interval " + std::to_string(s.ii) +
                (p.is_modulo() ? ", below 1" : " in a problem that is not modulo"));

  for (const Dependence& d : p.dependences) {
    // The consumer's iteration starts d * II cycles after the producer's.
    const int ready = s.start[d.from] + p.latency(d) - d.distance * s.ii;
    if (s.start[d.to] < ready)
      fail(p, "dependence " + name(d.from) + " -> " + name(d.to) +
                  (d.distance ? " (distance " + std::to_string(d.distance) + ", II " +
                                    std::to_string(s.ii) + ")"
                              : std::string()) +
                  ": " + name(d.to) + " starts in cycle " + std::to_string(s.start[d.to]) +
                  ", before cycle " + std::to_string(ready) +
                  (d.order ? ", the cycle of " + name(d.from) + " it must follow"
                           : " when " + name(d.from) + "'s result is ready"));
    // The same clock cycle: the consumer's iteration runs d * II cycles later.
    if (p.has_chaining() && p.chains(d) && s.start[d.to] + d.distance * s.ii == s.start[d.from]) {
      const double at = s.start_ns[d.from] + p.delay_ns(d.from);
      if (s.start_ns[d.to] + kDelayEpsilon < at)
        fail(p, "dependence " + name(d.from) + " -> " + name(d.to) + " in cycle " +
                    std::to_string(s.start[d.to]) + ": " + name(d.to) + " starts at " +
                    ns(s.start_ns[d.to]) + ", before " + name(d.from) + "'s result at " + ns(at));
    }
  }

  if (p.has_chaining())
    for (int v = 0; v < n; ++v) {
      const double end = s.start_ns[v] + p.delay_ns(v);
      if (end > p.clock_ns + kDelayEpsilon)
        fail(p, "op " + name(v) + " in cycle " + std::to_string(s.start[v]) + " ends at " +
                    ns(end) + ", after the " + ns(p.clock_ns) + " clock period");
    }

  if (p.has_limits()) {
    // (type, cycle) of each limited operation, sorted, then counted in runs;
    // the cycle mod II in a modulo schedule (iterations overlap).
    std::vector<std::pair<int, int>> uses;
    for (int v = 0; v < n; ++v)
      if (p.limit_of(v))
        uses.emplace_back(p.operations[v].type, p.is_modulo() ? s.start[v] % s.ii : s.start[v]);
    std::sort(uses.begin(), uses.end());
    for (std::size_t i = 0; i < uses.size();) {
      std::size_t j = i;
      while (j < uses.size() && uses[j] == uses[i]) ++j;
      const OperatorType& t = p.types[uses[i].first];
      if (static_cast<int>(j - i) > *t.limit)
        fail(p, std::to_string(j - i) + " operations of " + t.name + " start in cycle " +
                    std::to_string(uses[i].second) +
                    (p.is_modulo() ? " mod II " + std::to_string(s.ii) : std::string()) +
                    ", over its limit " + std::to_string(*t.limit));
      i = j;
    }
  }

  const int latency = schedule_latency(p, s.start);
  if (s.latency != latency)
    fail(p, "the solution says latency " + std::to_string(s.latency) +
                " but max(start + latency) is " + std::to_string(latency));
  if (p.max_latency && latency > *p.max_latency)
    fail(p, "latency " + std::to_string(latency) + " exceeds the bound " +
                std::to_string(*p.max_latency));
}

}  // namespace kiln::sched

#include "kiln/dse/frontier.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

namespace kiln::dse {

namespace {

std::array<double, 6> key(const Objectives& o, Goal g) {
  return {static_cast<double>(o.cycles(g)), o.lut, o.ff, o.dsp, o.bram18, o.loss};
}

}  // namespace

Objectives Objectives::of(int64_t latency, int64_t interval, const fpga::Resources& r) {
  return {latency, interval, r.lut, r.ff, r.dsp, r.bram18, 0};
}

bool dominates(const Objectives& a, const Objectives& b, Goal goal) {
  const auto ka = key(a, goal), kb = key(b, goal);
  bool better = false;
  for (std::size_t i = 0; i < ka.size(); ++i) {
    if (ka[i] > kb[i]) return false;
    better = better || ka[i] < kb[i];
  }
  return better;
}

std::vector<std::size_t> frontier(const std::vector<Objectives>& points, Goal goal) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  // Sorted lexicographically, a point can only be dominated (or equalled) by
  // one before it.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return key(points[a], goal) < key(points[b], goal);
  });
  std::vector<std::size_t> out;
  for (std::size_t i : order) {
    const bool beaten = std::any_of(out.begin(), out.end(), [&](std::size_t j) {
      return dominates(points[j], points[i], goal) || key(points[j], goal) == key(points[i], goal);
    });
    if (!beaten) out.push_back(i);
  }
  return out;
}

bool verify_frontier(const std::vector<Objectives>& front, const std::vector<Objectives>& all,
                     Goal goal, std::string* why) {
  const auto fail = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  for (std::size_t i = 0; i < front.size(); ++i)
    for (std::size_t j = 0; j < front.size(); ++j) {
      if (i == j) continue;
      if (dominates(front[j], front[i], goal))
        return fail(fmt::format("frontier point {} dominates frontier point {}", j, i));
      if (j < i && key(front[j], goal) == key(front[i], goal))
        return fail(fmt::format("frontier points {} and {} are equal", j, i));
    }
  for (std::size_t i = 0; i < front.size(); ++i)
    for (std::size_t j = 0; j < all.size(); ++j)
      if (dominates(all[j], front[i], goal))
        return fail(fmt::format("point {} of those evaluated dominates frontier point {}", j, i));
  return true;
}

double adrs(const std::vector<Objectives>& reference, const std::vector<Objectives>& approx,
            Goal goal) {
  if (reference.empty()) return 0;
  const auto excess = [](double a, double r) { return std::max(0.0, (a - r) / std::max(r, 1.0)); };
  double total = 0;
  for (const Objectives& r : reference) {
    double best = std::numeric_limits<double>::infinity();
    for (const Objectives& a : approx)
      best = std::min(best, std::max(excess(static_cast<double>(a.cycles(goal)),
                                            static_cast<double>(r.cycles(goal))),
                                     excess(a.lut, r.lut)));
    total += best;
  }
  return total / static_cast<double>(reference.size());
}

}  // namespace kiln::dse

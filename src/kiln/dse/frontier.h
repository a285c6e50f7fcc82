// A design point's objectives and the Pareto frontier of a set of them: the
// points no other point is at least as good as in every objective and
// better in one. Latency or interval (the objective the user asks for)
// against the part's four resources and, where the precision search measured
// it, the accuracy lost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/fpga/devices.h"

namespace kiln::dse {

enum class Goal : uint8_t { Latency, Interval };

struct Objectives {
  int64_t latency = 0;   // cycles from a sample's input to its results
  int64_t interval = 0;  // cycles between samples
  double lut = 0, ff = 0, dsp = 0, bram18 = 0;
  // Accuracy lost against the float model (precision.h accuracy_loss); 0
  // for every point when no accuracy was measured.
  double loss = 0;

  int64_t cycles(Goal g) const { return g == Goal::Latency ? latency : interval; }
  static Objectives of(int64_t latency, int64_t interval, const fpga::Resources& r);
};

// a is no worse than b in every objective (the goal's cycles, the four
// resources and the loss) and better in one.
bool dominates(const Objectives& a, const Objectives& b, Goal goal);

// The indices of `points` on their frontier, by the goal's cycles then LUTs;
// of points with equal objectives, the first.
std::vector<std::size_t> frontier(const std::vector<Objectives>& points, Goal goal);

// Checks a frontier independently of how it was found: no point of
// `front` dominates another or equals another, and no point of `all`
// dominates one of `front`. `why` gets the first violation.
bool verify_frontier(const std::vector<Objectives>& front, const std::vector<Objectives>& all,
                     Goal goal, std::string* why = nullptr);

// Average distance from the reference set (ADRS), as the design-space
// exploration literature reports it, over the goal's cycles and LUTs: for
// each reference point, the least over `approx` of the largest relative
// excess (max(0, (a - r) / r) per objective), averaged. 0 when `approx`
// covers the reference.
double adrs(const std::vector<Objectives>& reference, const std::vector<Objectives>& approx,
            Goal goal);

}  // namespace kiln::dse

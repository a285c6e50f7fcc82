// Random inputs for a graph, the distribution kiln's commands draw from
// (profiling, C simulation, `kiln opt --verify-each`).
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/graph/graph.h"

namespace kiln::ref {

// `n` samples, one tensor per graph input: floats uniform in [-1, 1) (the
// sequence of std::mt19937_64 seeded with `seed`, one draw per element, in
// input order), integers uniform in [0, 4), booleans true and false at random.
std::vector<std::vector<Tensor>> random_inputs(const Graph& graph, int n, uint64_t seed);

}  // namespace kiln::ref

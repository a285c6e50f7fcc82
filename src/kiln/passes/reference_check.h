// Checks a rewrite against the reference interpreter: the graph before and
// after compute the same outputs on random inputs (`kiln opt --verify-each`).
#pragma once

#include <cstdint>
#include <string>

#include "kiln/graph/graph.h"

namespace kiln::passes {

struct ReferenceComparison {
  int samples = 0;
  double max_abs_error = 0;  // over every output element and sample
  double max_abs_value = 0;  // of the reference (`before`) outputs
  std::string worst_output;  // the output holding the largest error
  // The tolerance of the pass tests: max error <= 1e-4 * (1 + max |reference|).
  bool agrees() const { return max_abs_error <= 1e-4 * (1 + max_abs_value); }
};

// Runs both graphs on the same `samples` random inputs (ref::random_inputs).
// Throws InvalidModel when they do not have the same inputs and outputs.
ReferenceComparison compare_with_reference(const Graph& before, const Graph& after, int samples,
                                           uint64_t seed);

}  // namespace kiln::passes

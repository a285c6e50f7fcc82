// Helpers for the scheduling tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

#include "kiln/sched/problem.h"
#include "kiln/support/error.h"

namespace kiln::sched::testing {

// The Error `f` throws, which must be of `kind`; a failure if it throws none.
inline Error error_of(const std::function<void()>& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(to_string(e.kind()), std::string(to_string(kind))) << e.message();
    return e;
  }
  ADD_FAILURE() << "no error thrown";
  return Error(kind, "", "");
}

// A random DAG: `n` operations of five types (two combinational, a
// pipelined multiplier that may be limited, a 2-cycle unit and a ROM), each
// with up to three operands among the `window` operations before it.
inline Problem random_problem(uint32_t seed, int n, ProblemClass cls, bool limits,
                              int window = 50) {
  std::mt19937 rng(seed);
  const auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  Problem p;
  p.name = "random" + std::to_string(seed);
  p.problem_class = cls;
  p.clock_ns = 5.0;
  p.add_type({"add", 0, 1.25, std::nullopt});
  p.add_type({"cmp", 0, 0.75, std::nullopt});
  p.add_type(
      {"mul", 1 + uniform(0, 2), 2.5, limits ? std::optional<int>(uniform(1, 4)) : std::nullopt});
  p.add_type({"div", 2, 4.0, limits && uniform(0, 1) ? std::optional<int>(1) : std::nullopt});
  p.add_type({"rom", 0, 2.0, std::nullopt});
  for (int v = 0; v < n; ++v) {
    p.add_operation("o" + std::to_string(v), uniform(0, 4), uniform(1, 40));
    const int operands = v == 0 ? 0 : uniform(0, 3);
    for (int k = 0; k < operands; ++k) {
      const int u = std::max(0, v - uniform(1, window));
      p.add_dependence(u, v);
    }
  }
  return p;
}

}  // namespace kiln::sched::testing

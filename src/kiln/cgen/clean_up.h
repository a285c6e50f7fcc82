// The clean-ups the C flow runs on the loop IR before printing (seed 001
// §4.3.2), in order, each a pass with its own text-in, text-out tests. What
// a program computes never changes; how often and where it is computed does.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "kiln/cgen/hoist_invariants.h"
#include "kiln/cgen/keep_in_locals.h"
#include "kiln/cgen/simplify_guards.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::cgen {

struct CleanUp {
  std::string_view name;
  int (*run)(loop::Program& program);  // how many changes it made
};

// Guards first: a Let an If no longer holds can then be hoisted. Locals
// last: the loads hoisting moves out are not kept in them.
inline constexpr CleanUp kCleanUps[] = {
    {"simplify_guards", &simplify_guards},
    {"hoist_invariants", &hoist_invariants},
    {"keep_in_locals", &keep_in_locals},
};

// Runs every clean-up; each one's name and changes.
inline std::vector<std::pair<std::string_view, int>> clean_up(loop::Program& program) {
  std::vector<std::pair<std::string_view, int>> done;
  for (const CleanUp& c : kCleanUps) done.emplace_back(c.name, c.run(program));
  return done;
}

}  // namespace kiln::cgen

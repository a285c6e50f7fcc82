// Every loop of a Loop IR program under a stable name, "<kernel>/<var>"
// (a loop variable is unique in its kernel, a kernel name in the program):
// what `kiln rtl --list-loops` prints and what per-loop directives name. The
// names come from the lowerings, so they stay the same from run to run and
// between models with the same layers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/loop/loop_ir.h"

namespace kiln::loop {

struct LoopSite {
  std::string name;    // "<kernel>/<var>"
  std::string layer;   // the kernel's ONNX node name, for messages
  int kernel = -1;     // index in Program::kernels
  int loop = -1;       // index in Kernel::loops
  std::string parent;  // the enclosing loop's name; empty at the kernel's top
  int depth = 0;       // 0 at the kernel's top
  int64_t trip = 0;
  int64_t runs = 0;      // times the loop starts per sample (its enclosing loops' trips)
  int64_t ops = 0;       // values computed inside it per sample (Lets x iterations)
  bool perfect = false;  // its body is exactly one loop (a nest that can be flattened)
  LoopDirectives directives;
};

// In program order: kernels in execution order, loops by a preorder walk.
std::vector<LoopSite> loop_sites(const Program& program);

// The site named `name`, if there is one.
std::optional<LoopSite> find_loop_site(const Program& program, const std::string& name);

// One line per loop, indented by depth: name, trip, runs, ops, perfect,
// directives. Stable text: the tests compare it whole.
std::string print_loop_sites(const std::vector<LoopSite>& sites);

// The program's buffers as a table (name, role, type, shape, elements, alias,
// directives), the names the config's Buffer blocks take.
std::string print_buffer_table(const Program& program);

}  // namespace kiln::loop

// Every buffer access in a kernel's statements, with where it sits: the
// walk the C flow's passes and analyses (keep_in_locals, find_fifos,
// parallel_loops) share.
#pragma once

#include <set>
#include <vector>

#include "kiln/loop/loop_ir.h"

namespace kiln::cgen {

struct Access {
  int buffer = -1;   // the buffer as accessed (an alias included)
  int storage = -1;  // the buffer whose storage it is (Program::storage_of)
  // Its index; empty for a lookup, whose bin is not affine.
  std::vector<loop::Affine> index;
  bool store = false;
  bool guarded = false;   // under an If among the statements walked
  std::vector<int> nest;  // the loops around it among the statements walked, outermost first
};

// The accesses of `stmts` (statements of `kernel`), in program order.
std::vector<Access> accesses(const loop::Program& program, const loop::Kernel& kernel,
                             const std::vector<loop::Stmt>& stmts);

// The loops `stmts` run, at any depth.
std::set<int> loops_in(const std::vector<loop::Stmt>& stmts);

}  // namespace kiln::cgen

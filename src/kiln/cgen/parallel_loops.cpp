#include "kiln/cgen/parallel_loops.h"

#include <vector>

#include "kiln/cgen/accesses.h"

namespace kiln::cgen {

namespace {

using loop::Affine;
using loop::Kernel;
using loop::Program;
using loop::Stmt;
using loop::StmtKind;

// Unrolled by the schedule, and more than one iteration to run at once.
bool marked_parallel(const Kernel& k, int loop) {
  const loop::Loop& l = k.loops[static_cast<std::size_t>(loop)];
  return l.directives.unroll && *l.directives.unroll != 1 && l.trip > 1;
}

void find(const Program& p, int kernel, const std::vector<Stmt>& stmts,
          std::set<std::pair<int, int>>& out) {
  const Kernel& k = p.kernels[static_cast<std::size_t>(kernel)];
  for (const Stmt& s : stmts) {
    if (s.kind == StmtKind::If) find(p, kernel, s.body, out);
    if (s.kind != StmtKind::For) continue;
    if (marked_parallel(k, s.loop) && iterations_independent(p, k, s))
      out.insert({kernel, s.loop});
    else
      find(p, kernel, s.body, out);
  }
}

}  // namespace

bool iterations_independent(const Program& p, const Kernel& k, const Stmt& loop) {
  const std::vector<Access> all = accesses(p, k, loop.body);
  const std::set<int> inner = loops_in(loop.body);
  for (const Access& w : all) {
    if (!w.store) continue;
    for (const Access& a : all)  // every access of what it stores: the same buffer and index
      if (a.storage == w.storage && (a.buffer != w.buffer || a.index != w.index)) return false;
    bool separates = false;  // a dimension that only this loop and outer ones move
    for (const Affine& d : w.index) {
      int64_t own = 0;
      bool moves_inside = false;
      for (const auto& [l, c] : d.terms) {
        if (l == loop.loop) own += c;
        moves_inside = moves_inside || inner.count(l) > 0;
      }
      separates = separates || (own != 0 && !moves_inside);
    }
    if (!separates) return false;
  }
  return true;
}

std::set<std::pair<int, int>> parallel_loops(const Program& p) {
  std::set<std::pair<int, int>> out;
  for (std::size_t k = 0; k < p.kernels.size(); ++k)
    find(p, static_cast<int>(k), p.kernels[k].body, out);
  return out;
}

}  // namespace kiln::cgen

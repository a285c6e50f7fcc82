#include "kiln/cgen/parallel_loops.h"

#include <map>
#include <optional>
#include <vector>

namespace kiln::cgen {

namespace {

using loop::Affine;
using loop::Kernel;
using loop::Op;
using loop::Program;
using loop::Stmt;
using loop::StmtKind;

struct Accesses {
  std::map<int, std::vector<std::pair<int, const std::vector<Affine>*>>>
      of;                // storage -> (id, index)
  std::set<int> stored;  // storage buffers
  std::set<int> loops;   // the loops inside
};

void scan(const Program& p, const Kernel& k, const std::vector<Stmt>& stmts, Accesses& a) {
  for (const Stmt& s : stmts) {
    switch (s.kind) {
      case StmtKind::Let: {
        const loop::Value& v = k.values[static_cast<std::size_t>(s.value)];
        if (v.op == Op::Load) a.of[p.storage_of(v.buffer)].push_back({v.buffer, &v.index});
        break;
      }
      case StmtKind::Store:
        a.of[p.storage_of(s.buffer)].push_back({s.buffer, &s.index});
        a.stored.insert(p.storage_of(s.buffer));
        break;
      case StmtKind::For:
        a.loops.insert(s.loop);
        scan(p, k, s.body, a);
        break;
      case StmtKind::If: scan(p, k, s.body, a); break;
    }
  }
}

bool marked_parallel(const Kernel& k, int loop) {
  const auto& u = k.loops[static_cast<std::size_t>(loop)].directives.unroll;
  return u && *u != 1;
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
  Accesses a;
  scan(p, k, loop.body, a);
  for (int storage : a.stored) {
    const auto& list = a.of.at(storage);
    const int id = list.front().first;
    const std::vector<Affine>& index = *list.front().second;
    for (const auto& [b, other] : list)
      if (b != id || *other != index) return false;
    bool separates = false;  // a dimension that only this loop and outer ones move
    for (const Affine& d : index) {
      int64_t own = 0;
      bool inner = false;
      for (const auto& [l, c] : d.terms) {
        if (l == loop.loop) own += c;
        inner = inner || a.loops.count(l) > 0;
      }
      separates = separates || (own != 0 && !inner);
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

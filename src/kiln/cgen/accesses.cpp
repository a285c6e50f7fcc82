#include "kiln/cgen/accesses.h"

namespace kiln::cgen {

namespace {

using loop::Op;
using loop::Stmt;
using loop::StmtKind;

void walk(const loop::Program& p, const loop::Kernel& k, const std::vector<Stmt>& stmts,
          std::vector<int>& nest, bool guarded, std::vector<Access>& out) {
  for (const Stmt& s : stmts) {
    switch (s.kind) {
      case StmtKind::Let: {
        const loop::Value& v = k.values[static_cast<std::size_t>(s.value)];
        if (v.op == Op::Load || v.op == Op::Lookup)
          out.push_back({v.buffer, p.storage_of(v.buffer),
                         v.op == Op::Load ? v.index : std::vector<loop::Affine>{}, false, guarded,
                         nest});
        break;
      }
      case StmtKind::Store:
        out.push_back({s.buffer, p.storage_of(s.buffer), s.index, true, guarded, nest});
        break;
      case StmtKind::For:
        nest.push_back(s.loop);
        walk(p, k, s.body, nest, guarded, out);
        nest.pop_back();
        break;
      case StmtKind::If: walk(p, k, s.body, nest, true, out); break;
    }
  }
}

void collect_loops(const std::vector<Stmt>& stmts, std::set<int>& out) {
  for (const Stmt& s : stmts) {
    if (s.kind == StmtKind::For) out.insert(s.loop);
    if (s.kind == StmtKind::For || s.kind == StmtKind::If) collect_loops(s.body, out);
  }
}

}  // namespace

std::vector<Access> accesses(const loop::Program& program, const loop::Kernel& kernel,
                             const std::vector<Stmt>& stmts) {
  std::vector<Access> out;
  std::vector<int> nest;
  walk(program, kernel, stmts, nest, false, out);
  return out;
}

std::set<int> loops_in(const std::vector<Stmt>& stmts) {
  std::set<int> out;
  collect_loops(stmts, out);
  return out;
}

}  // namespace kiln::cgen

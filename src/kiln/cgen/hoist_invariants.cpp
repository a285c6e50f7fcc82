#include "kiln/cgen/hoist_invariants.h"

#include <set>

namespace kiln::cgen {

namespace {

using loop::Kernel;
using loop::Op;
using loop::Program;
using loop::Stmt;
using loop::StmtKind;
using loop::Value;

// What a loop's body defines, iterates and stores, nested statements included.
struct Inside {
  std::set<int> values, loops, stores;  // stores: storage buffers
};

void collect(const Program& p, const std::vector<Stmt>& stmts, Inside& in) {
  for (const Stmt& s : stmts) {
    switch (s.kind) {
      case StmtKind::Let: in.values.insert(s.value); break;
      case StmtKind::Store: in.stores.insert(p.storage_of(s.buffer)); break;
      case StmtKind::For:
        in.loops.insert(s.loop);
        collect(p, s.body, in);
        break;
      case StmtKind::If: collect(p, s.body, in); break;
    }
  }
}

class Hoister {
 public:
  Hoister(const Program& p, Kernel& k) : p_(p), k_(k) {}

  int run() {
    block(k_.body);
    return moved_;
  }

 private:
  bool invariant(const Value& v, const Inside& in) const {
    for (int a : v.args)
      if (in.values.count(a)) return false;
    if (v.op == Op::Load) {
      if (in.stores.count(p_.storage_of(v.buffer))) return false;
      for (const loop::Affine& a : v.index)
        for (const auto& [loop, c] : a.terms)
          if (in.loops.count(loop)) return false;
    }
    return true;
  }

  void block(std::vector<Stmt>& stmts) {
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      if (stmts[i].kind == StmtKind::If) block(stmts[i].body);
      if (stmts[i].kind != StmtKind::For) continue;
      block(stmts[i].body);  // the inner loops first: what they hoist may move on
      Inside in;
      in.loops.insert(stmts[i].loop);
      collect(p_, stmts[i].body, in);
      std::vector<Stmt> out;
      std::vector<Stmt>& body = stmts[i].body;
      for (std::size_t j = 0; j < body.size();) {
        const Stmt& s = body[j];
        if (s.kind == StmtKind::Let &&
            invariant(k_.values[static_cast<std::size_t>(s.value)], in)) {
          in.values.erase(s.value);  // now outside: Lets after it may use it
          out.push_back(s);
          body.erase(body.begin() + static_cast<std::ptrdiff_t>(j));
          ++moved_;
        } else {
          ++j;
        }
      }
      stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(i), out.begin(), out.end());
      i += out.size();
    }
  }

  const Program& p_;
  Kernel& k_;
  int moved_ = 0;
};

}  // namespace

int hoist_invariants(Program& program) {
  int moved = 0;
  for (Kernel& k : program.kernels) moved += Hoister(program, k).run();
  return moved;
}

}  // namespace kiln::cgen

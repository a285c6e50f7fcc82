#include "kiln/cgen/simplify_guards.h"

#include <map>

namespace kiln::cgen {

namespace {

using loop::Affine;
using loop::Kernel;
using loop::Stmt;
using loop::StmtKind;

class Simplifier {
 public:
  explicit Simplifier(const Kernel& k) : k_(k) {}

  int run(std::vector<Stmt>& body) {
    block(body);
    return removed_;
  }

 private:
  // The least and most `a` takes over the loops in scope (each variable
  // from 0 to its trip count - 1).
  std::pair<int64_t, int64_t> range(const Affine& a) const {
    int64_t lo = a.constant, hi = a.constant;
    for (const auto& [loop, c] : a.terms) {
      const int64_t last = k_.loops[static_cast<std::size_t>(loop)].trip - 1;
      (c > 0 ? hi : lo) += c * last;
    }
    return {lo, hi};
  }

  void block(std::vector<Stmt>& stmts) {
    for (std::size_t i = 0; i < stmts.size();) {
      Stmt& s = stmts[i];
      if (s.kind == StmtKind::For) block(s.body);
      if (s.kind != StmtKind::If) {
        ++i;
        continue;
      }
      bool never = false;
      std::vector<loop::Guard> kept;
      for (const loop::Guard& g : s.guards) {
        const auto [lo, hi] = range(g.expr);
        if (lo >= g.lo && hi < g.hi) {
          ++removed_;  // always holds
        } else {
          never = never || hi < g.lo || lo >= g.hi;
          kept.push_back(g);
        }
      }
      if (never) {
        ++removed_;
        stmts.erase(stmts.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      s.guards = std::move(kept);
      block(s.body);
      if (!s.guards.empty()) {
        ++i;
        continue;
      }
      // No guard left: its statements take its place.
      ++removed_;
      std::vector<Stmt> body = std::move(s.body);
      stmts.erase(stmts.begin() + static_cast<std::ptrdiff_t>(i));
      stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(i), body.begin(), body.end());
      i += body.size();
    }
  }

  const Kernel& k_;
  int removed_ = 0;
};

}  // namespace

int simplify_guards(loop::Program& program) {
  int removed = 0;
  for (Kernel& k : program.kernels) removed += Simplifier(k).run(k.body);
  return removed;
}

}  // namespace kiln::cgen

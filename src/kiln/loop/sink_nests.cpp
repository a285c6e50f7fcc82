#include "kiln/loop/sink_nests.h"

#include <functional>
#include <set>

namespace kiln::loop {

namespace {

class Sinker {
 public:
  Sinker(Program& p, Kernel& k) : p_(p), k_(k) {}

  void run() {
    for (Stmt& s : k_.body)
      if (s.kind == StmtKind::For) sink(s.body);
  }

  int rewritten = 0;

 private:
  // The values the statements define (Lets, at any depth).
  static void defined(const std::vector<Stmt>& stmts, std::set<int>& out) {
    for (const Stmt& s : stmts) {
      if (s.kind == StmtKind::Let) out.insert(s.value);
      defined(s.body, out);
    }
  }
  // The values the statements use: Lets' arguments and Stores' values.
  void used(const std::vector<Stmt>& stmts, std::set<int>& out) const {
    for (const Stmt& s : stmts) {
      if (s.kind == StmtKind::Let)
        for (int a : k_.values[static_cast<std::size_t>(s.value)].args) out.insert(a);
      if (s.kind == StmtKind::Store) out.insert(s.value);
      used(s.body, out);
    }
  }
  // The storage buffers the statements store to.
  void written(const std::vector<Stmt>& stmts, std::set<int>& out) const {
    for (const Stmt& s : stmts) {
      if (s.kind == StmtKind::Store) out.insert(p_.storage_of(s.buffer));
      written(s.body, out);
    }
  }

  static bool meets(const std::set<int>& a, const std::set<int>& b) {
    for (int x : a)
      if (b.count(x)) return true;
    return false;
  }

  // An If this pass made: one guard, the first or last iteration of a loop.
  // What it holds (zeroing or writing out accumulators) is never the work.
  bool first_or_last(const Stmt& s) const {
    if (s.kind != StmtKind::If || s.guards.size() != 1) return false;
    const Guard& g = s.guards[0];
    if (g.expr.terms.size() != 1 || g.expr.terms[0].second != 1 || g.expr.constant != 0)
      return false;
    const int64_t trip = k_.loops[static_cast<std::size_t>(g.expr.terms[0].first)].trip;
    return g.hi == g.lo + 1 && (g.lo == 0 || g.lo == trip - 1);
  }

  // Sinks `body` (a For's or an If's) and the bodies below it.
  void sink(std::vector<Stmt>& body) {
    // An If around what sinks to one loop (a convolution's padding test)
    // goes inside that loop.
    for (Stmt& s : body) {
      if (s.kind != StmtKind::If || first_or_last(s)) continue;
      sink(s.body);
      if (s.body.size() != 1 || s.body[0].kind != StmtKind::For) continue;
      Stmt loop = std::move(s.body[0]);
      Stmt test;
      test.kind = StmtKind::If;
      test.guards = std::move(s.guards);
      test.body = std::move(loop.body);
      loop.body = {std::move(test)};
      s = std::move(loop);
      ++rewritten;
    }
    if (body.size() > 1) gather(body);
    for (Stmt& s : body)
      if (s.kind == StmtKind::For) sink(s.body);
  }

  // Makes the loop with the most work the only statement of `body`, when the
  // values allow it.
  void gather(std::vector<Stmt>& body) {
    std::size_t core = body.size();
    int64_t most = -1;
    for (std::size_t i = 0; i < body.size(); ++i) {
      if (body[i].kind != StmtKind::For) continue;
      const int64_t ops = dynamic_ops(k_, {body[i]});
      if (ops > most) {
        most = ops;
        core = i;
      }
    }
    if (core == body.size()) return;
    std::vector<Stmt> before(body.begin(), body.begin() + static_cast<long>(core));
    const std::vector<Stmt> after(body.begin() + static_cast<long>(core) + 1, body.end());
    Stmt inner = body[core];
    std::set<int> use_core, use_after, def_core, stored;
    used({inner}, use_core);
    used(after, use_after);
    defined({inner}, def_core);
    written(before, stored);
    written({inner}, stored);
    written(after, stored);
    if (meets(def_core, use_after)) return;
    // The Lets at the top of `before` that the loop or what follows it uses
    // move into the loop, unguarded; each must be computable there: its
    // arguments defined outside `before` or by Lets moving too, and no load
    // of a buffer these statements write.
    std::set<int> moving;
    std::vector<Stmt> lets, rest;
    std::set<int> def_before;
    defined(before, def_before);
    for (const Stmt& s : before) {
      const bool wanted = s.kind == StmtKind::Let &&
                          (use_core.count(s.value) != 0 || use_after.count(s.value) != 0);
      if (!wanted) {
        rest.push_back(s);
        continue;
      }
      const Value& v = k_.values[static_cast<std::size_t>(s.value)];
      bool ok = v.op != Op::Load || !stored.count(p_.storage_of(v.buffer));
      for (int a : v.args) ok = ok && (!def_before.count(a) || moving.count(a));
      if (!ok) return;
      moving.insert(s.value);
      lets.push_back(s);
    }
    // What stays in `before` runs under the guard: nothing else may use its values.
    std::set<int> def_rest;
    defined(rest, def_rest);
    if (meets(def_rest, use_core) || meets(def_rest, use_after)) return;
    const int64_t trip = k_.loops[static_cast<std::size_t>(inner.loop)].trip;
    auto guarded = [&](const std::vector<Stmt>& stmts, int64_t at) {
      Stmt s;
      s.kind = StmtKind::If;
      s.guards = {{Affine::var(inner.loop), at, at + 1}};
      s.body = stmts;
      return s;
    };
    std::vector<Stmt> sunk = lets;
    if (!rest.empty()) sunk.push_back(guarded(rest, 0));
    sunk.insert(sunk.end(), inner.body.begin(), inner.body.end());
    if (!after.empty()) sunk.push_back(guarded(after, trip - 1));
    inner.body = std::move(sunk);
    body = {std::move(inner)};
    ++rewritten;
  }

  Program& p_;
  Kernel& k_;
};

// Values numbered in the order the statements define them, as the text
// parser numbers them (a Let moved inward may now come first).
void renumber(Kernel& k) {
  std::vector<int> id(k.values.size(), -1);
  std::vector<Value> values;
  std::function<void(std::vector<Stmt>&)> walk = [&](std::vector<Stmt>& stmts) {
    for (Stmt& s : stmts) {
      if (s.kind == StmtKind::Let) {
        Value v = k.values[static_cast<std::size_t>(s.value)];
        for (int& a : v.args) a = id[static_cast<std::size_t>(a)];
        id[static_cast<std::size_t>(s.value)] = static_cast<int>(values.size());
        s.value = static_cast<int>(values.size());
        values.push_back(std::move(v));
      } else if (s.kind == StmtKind::Store) {
        s.value = id[static_cast<std::size_t>(s.value)];
      }
      walk(s.body);
    }
  };
  walk(k.body);
  k.values = std::move(values);
}

}  // namespace

int sink_nests(Program& program, int kernel) {
  Kernel& k = program.kernels.at(static_cast<std::size_t>(kernel));
  Sinker s(program, k);
  s.run();
  if (s.rewritten > 0) renumber(k);
  return s.rewritten;
}

}  // namespace kiln::loop

#include "kiln/loop/sink_nests.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace kiln::loop {

namespace {

// An If sink_nests made: one guard, the first or last iteration of a loop.
// What it holds (zeroing or writing out accumulators) is never the work.
bool first_or_last(const Kernel& k, const Stmt& s) {
  if (s.kind != StmtKind::If || s.guards.size() != 1) return false;
  const Guard& g = s.guards[0];
  if (g.expr.terms.size() != 1 || g.expr.terms[0].second != 1 || g.expr.constant != 0) return false;
  const int64_t trip = k.loops[static_cast<std::size_t>(g.expr.terms[0].first)].trip;
  return g.hi == g.lo + 1 && (g.lo == 0 || g.lo == trip - 1);
}

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

  // Sinks `body` (a For's or an If's) and the bodies below it.
  void sink(std::vector<Stmt>& body) {
    // An If around what sinks to one loop (a convolution's padding test)
    // goes inside that loop.
    for (Stmt& s : body) {
      if (s.kind != StmtKind::If || first_or_last(k_, s)) continue;
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

// `a` with loop `loop` replaced by `by`; terms in loop order, so that equal
// expressions compare equal.
Affine substituted(const Affine& a, int loop, const Affine& by) {
  Affine out = Affine::of(a.constant);
  for (const auto& [l, c] : a.terms) out = out + (l == loop ? by * c : Affine::var(l, c));
  std::sort(out.terms.begin(), out.terms.end());
  return out;
}
Affine normalized(Affine a) {
  std::sort(a.terms.begin(), a.terms.end());
  return a;
}

// After sinking: a guarded loop over a pixel's accumulators, distributed over
// the loop of the nest whose iterations each touch one of them. In
//   for co { if co == 0 { for init < C { acc[init] = b[init] } };
//            acc[co] += x * w[co];
//            if co == C-1 { for out < C { y[out] = Q(acc[out]) } } }
// iteration c of `init` and `out` touches only acc[c], b[c] and y[c], and
// only iteration c of co touches acc[c]: so
//   for co { acc[co] = b[co]; acc[co] += x * w[co]; y[co] = Q(acc[co]) }
// does to every element what the nest did, in the same order. Then the
// accumulators are read and written at one moving element only (a memory
// the co loop updates), and a plan can keep co as a loop.
class Distributor {
 public:
  Distributor(Program& p, Kernel& k) : p_(p), k_(k) {}

  void run() {
    std::vector<int> enclosing;
    walk(k_.body, enclosing);
  }

  int rewritten = 0;

 private:
  // A chain: Ifs of first_or_last guards, one statement each, all first or
  // all last iterations, down to a For.
  struct Chain {
    std::size_t at = 0;      // its place in the body
    std::vector<int> loops;  // the guarded loops, outermost first
    Stmt* inner = nullptr;   // the For
  };

  std::optional<Chain> chain_of(Stmt& s) const {
    Chain c;
    bool all_first = true, all_last = true;
    Stmt* at = &s;
    while (first_or_last(k_, *at) && at->body.size() == 1) {
      const Guard& g = at->guards[0];
      const int l = g.expr.terms[0].first;
      all_first = all_first && g.lo == 0;
      all_last = all_last && g.lo == trip(l) - 1;
      c.loops.push_back(l);
      at = &at->body[0];
    }
    if (c.loops.empty() || at->kind != StmtKind::For || !(all_first || all_last)) return {};
    c.inner = at;
    return c;
  }

  int64_t trip(int l) const { return k_.loops[static_cast<std::size_t>(l)].trip; }

  struct Access {
    int storage;
    std::vector<Affine> index;
    bool store;
  };
  void accesses(const std::vector<Stmt>& stmts, std::vector<Access>& out) const {
    for (const Stmt& s : stmts) {
      if (s.kind == StmtKind::Store) out.push_back({p_.storage_of(s.buffer), s.index, true});
      if (s.kind == StmtKind::Let) {
        const Value& v = k_.values[static_cast<std::size_t>(s.value)];
        if (v.op == Op::Load) out.push_back({p_.storage_of(v.buffer), v.index, false});
      }
      accesses(s.body, out);
    }
  }

  // Whether the statements use only values they define.
  bool closed(const std::vector<Stmt>& stmts) const {
    std::set<int> def;
    bool ok = true;
    std::function<void(const std::vector<Stmt>&)> walk_values = [&](const std::vector<Stmt>& ss) {
      for (const Stmt& s : ss) {
        if (s.kind == StmtKind::Let) {
          for (int a : k_.values[static_cast<std::size_t>(s.value)].args) ok = ok && def.count(a);
          def.insert(s.value);
        }
        if (s.kind == StmtKind::Store) ok = ok && def.count(s.value);
        walk_values(s.body);
      }
    };
    walk_values(stmts);
    return ok;
  }

  void walk(std::vector<Stmt>& body, std::vector<int>& enclosing) {
    for (Stmt& s : body) {
      if (s.kind != StmtKind::For) continue;
      enclosing.push_back(s.loop);
      distribute(s.body, enclosing);
      walk(s.body, enclosing);
      enclosing.pop_back();
    }
  }

  // The element expression `e` chain `c` distributes over: what the rest of
  // `body` indexes the buffers it writes with, in the dimension the chain's
  // loop variable indexes alone. None when they disagree.
  std::optional<Affine> element_of(const Chain& c, const std::vector<Access>& rest,
                                   const std::set<int>& written) const {
    std::vector<Access> own;
    accesses(c.inner->body, own);
    const int i = c.inner->loop;
    std::optional<Affine> e;
    for (const Access& a : own) {
      if (!written.count(a.storage)) continue;
      // Exactly one dimension is the variable itself; no other names it.
      int dim = -1;
      for (std::size_t d = 0; d < a.index.size(); ++d) {
        const bool names = std::any_of(a.index[d].terms.begin(), a.index[d].terms.end(),
                                       [&](const auto& t) { return t.first == i; });
        if (!names) continue;
        if (dim >= 0 || !(a.index[d] == Affine::var(i))) return {};
        dim = static_cast<int>(d);
      }
      if (dim < 0) return {};
      for (const Access& r : rest) {
        if (r.storage != a.storage) continue;
        if (r.index.size() != a.index.size()) return {};
        for (std::size_t d = 0; d < a.index.size(); ++d)
          if (static_cast<int>(d) != dim && !(normalized(r.index[d]) == normalized(a.index[d])))
            return {};
        const Affine here = normalized(r.index[static_cast<std::size_t>(dim)]);
        if (e && !(*e == here)) return {};
        e = here;
      }
    }
    return e;
  }

  // The loop `e` is, among the chain's guarded loops: coefficient 1, no
  // constant, every other term a loop of one iteration. -1 if none.
  int loop_of(const Affine& e, const Chain& c) const {
    if (e.constant != 0) return -1;
    int l = -1;
    for (const auto& [v, coef] : e.terms) {
      if (trip(v) == 1) continue;
      if (l >= 0 || coef != 1) return -1;
      l = v;
    }
    if (l < 0 || std::find(c.loops.begin(), c.loops.end(), l) == c.loops.end()) return -1;
    return trip(l) == trip(c.inner->loop) ? l : -1;
  }

  void substitute(std::vector<Stmt>& stmts, int loop, const Affine& by) {
    for (Stmt& s : stmts) {
      for (Affine& a : s.index) a = substituted(a, loop, by);
      for (Guard& g : s.guards) g.expr = substituted(g.expr, loop, by);
      if (s.kind == StmtKind::Let)
        for (Affine& a : k_.values[static_cast<std::size_t>(s.value)].index)
          a = substituted(a, loop, by);
      substitute(s.body, loop, by);
    }
  }

  void distribute(std::vector<Stmt>& body, const std::vector<int>& enclosing) {
    std::vector<Chain> chains;
    for (std::size_t i = 0; i < body.size(); ++i)
      if (auto c = chain_of(body[i])) {
        // The guards name the innermost loops around the body, each once:
        // the chain runs in the first (last) iteration of the whole sub-nest.
        const std::set<int> guarded(c->loops.begin(), c->loops.end());
        const std::size_t n = guarded.size();
        if (n != c->loops.size() || n > enclosing.size() ||
            guarded != std::set<int>(enclosing.end() - static_cast<long>(n), enclosing.end()))
          continue;
        if (trip(c->inner->loop) < 2 || !closed(c->inner->body)) continue;
        c->at = i;
        chains.push_back(*c);
      }
    if (chains.empty()) return;
    std::vector<Access> rest, all;
    for (std::size_t i = 0; i < body.size(); ++i)
      if (std::none_of(chains.begin(), chains.end(), [&](const Chain& c) { return c.at == i; }))
        accesses({body[i]}, rest);
    accesses(body, all);
    std::set<int> written;
    for (const Access& a : all)
      if (a.store) written.insert(a.storage);

    // Each chain on its own: the element and the loop; then all together.
    const std::vector<Stmt> before = body;
    const std::vector<Value> values_before = k_.values;
    int changed = 0;
    for (const Chain& c : chains) {
      const std::optional<Affine> e = element_of(c, rest, written);
      if (!e) continue;
      const int l = loop_of(*e, c);
      if (l < 0) continue;
      Stmt& top = body[c.at];
      substitute(c.inner->body, c.inner->loop, *e);
      std::vector<Stmt> inner = std::move(c.inner->body);
      *c.inner = Stmt{};
      // Rebuild the chain without l's If.
      std::vector<Guard> guards;
      for (Stmt* at = &top; at->kind == StmtKind::If; at = &at->body[0])
        if (at->guards[0].expr.terms[0].first != l) guards.push_back(at->guards[0]);
      std::vector<Stmt> rebuilt = std::move(inner);
      for (auto g = guards.rbegin(); g != guards.rend(); ++g) {
        Stmt s;
        s.kind = StmtKind::If;
        s.guards = {*g};
        s.body = std::move(rebuilt);
        rebuilt = {std::move(s)};
      }
      // Several statements at the top without guards: spliced in below.
      top.kind = StmtKind::If;
      top.guards.clear();
      top.body = std::move(rebuilt);
      ++changed;
    }
    if (changed == 0) return;
    // An If without guards holds its statements in place.
    std::vector<Stmt> flat;
    for (Stmt& s : body) {
      if (s.kind == StmtKind::If && s.guards.empty())
        for (Stmt& t : s.body) flat.push_back(std::move(t));
      else
        flat.push_back(std::move(s));
    }
    body = std::move(flat);
    // The check: every buffer written here is read and written at one
    // element per iteration, the same expression everywhere.
    std::vector<Access> now;
    accesses(body, now);
    std::map<int, std::vector<Affine>> at;
    bool ok = true;
    for (const Access& a : now) {
      if (!written.count(a.storage)) continue;
      std::vector<Affine> idx;
      for (const Affine& x : a.index) idx.push_back(normalized(x));
      auto [it, fresh] = at.emplace(a.storage, idx);
      ok = ok && (fresh || it->second == idx);
    }
    if (!ok) {
      body = before;
      k_.values = values_before;
      return;
    }
    rewritten += changed;
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

// Loops no For statement runs any more (a distributed chain's) removed,
// the others numbered in their order in the kernel.
void drop_unused_loops(Kernel& k) {
  std::vector<int> id(k.loops.size(), -1);
  std::vector<Loop> loops;
  std::function<void(const std::vector<Stmt>&)> find = [&](const std::vector<Stmt>& stmts) {
    for (const Stmt& s : stmts) {
      if (s.kind == StmtKind::For && id[static_cast<std::size_t>(s.loop)] < 0) {
        id[static_cast<std::size_t>(s.loop)] = static_cast<int>(loops.size());
        loops.push_back(k.loops[static_cast<std::size_t>(s.loop)]);
      }
      find(s.body);
    }
  };
  find(k.body);
  if (loops.size() == k.loops.size()) return;
  auto renamed = [&](Affine& a) {
    for (auto& t : a.terms) t.first = id[static_cast<std::size_t>(t.first)];
  };
  std::function<void(std::vector<Stmt>&)> rename = [&](std::vector<Stmt>& stmts) {
    for (Stmt& s : stmts) {
      if (s.kind == StmtKind::For) s.loop = id[static_cast<std::size_t>(s.loop)];
      for (Affine& a : s.index) renamed(a);
      for (Guard& g : s.guards) renamed(g.expr);
      rename(s.body);
    }
  };
  rename(k.body);
  for (Value& v : k.values)
    for (Affine& a : v.index) renamed(a);
  k.loops = std::move(loops);
}

}  // namespace

int sink_nests(Program& program, int kernel) {
  Kernel& k = program.kernels.at(static_cast<std::size_t>(kernel));
  Sinker s(program, k);
  s.run();
  Distributor d(program, k);
  d.run();
  if (s.rewritten + d.rewritten > 0) renumber(k);
  if (d.rewritten > 0) drop_unused_loops(k);
  return s.rewritten + d.rewritten;
}

}  // namespace kiln::loop

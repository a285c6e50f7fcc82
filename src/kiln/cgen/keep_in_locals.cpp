#include "kiln/cgen/keep_in_locals.h"

#include <map>
#include <optional>
#include <set>

#include "kiln/cgen/accesses.h"

namespace kiln::cgen {

namespace {

using loop::Affine;
using loop::BufferRole;
using loop::Kernel;
using loop::Op;
using loop::Program;
using loop::Stmt;
using loop::StmtKind;
using loop::Value;

// How a loop's body uses one storage buffer.
struct Use {
  std::set<int> buffers;  // the buffer ids it is accessed through
  std::optional<std::vector<Affine>> index;
  bool same_index = true;
  bool loads = false, stores = false, unguarded = false;
};

class Keeper {
 public:
  Keeper(Program& p, int kernel) : p_(p), kernel_(kernel) {}

  int run() {
    block(kernel().body);
    return kept_;
  }

 private:
  Kernel& kernel() { return p_.kernels[static_cast<std::size_t>(kernel_)]; }

  // How the statements use each storage buffer.
  std::map<int, Use> uses_of(const std::vector<Stmt>& stmts) {
    std::map<int, Use> uses;
    for (const Access& a : accesses(p_, kernel(), stmts)) {
      Use& u = uses[a.storage];
      u.buffers.insert(a.buffer);
      if (!u.index)
        u.index = a.index;
      else if (*u.index != a.index)
        u.same_index = false;
      (a.store ? u.stores : u.loads) = true;
      u.unguarded = u.unguarded || !a.guarded;
    }
    return uses;
  }

  static bool uses_loops(const std::vector<Affine>& index, const std::set<int>& loops) {
    for (const Affine& a : index)
      for (const auto& [loop, c] : a.terms)
        if (loops.count(loop)) return true;
    return false;
  }

  // Accesses of `buffer` in `stmts` rewritten to the local's element 0.
  void redirect(std::vector<Stmt>& stmts, int buffer, int local) {
    for (Stmt& s : stmts) {
      if (s.kind == StmtKind::Let) {
        Value& v = kernel().values[static_cast<std::size_t>(s.value)];
        if (v.op == Op::Load && v.buffer == buffer) {
          v.buffer = local;
          v.index = {Affine::of(0)};
        }
      } else if (s.kind == StmtKind::Store && s.buffer == buffer) {
        s.buffer = local;
        s.index = {Affine::of(0)};
      } else {
        redirect(s.body, buffer, local);
      }
    }
  }

  Stmt let(const Value& v) {
    kernel().values.push_back(v);
    Stmt s;
    s.kind = StmtKind::Let;
    s.value = static_cast<int>(kernel().values.size()) - 1;
    return s;
  }

  static Stmt store(int buffer, std::vector<Affine> index, int value) {
    Stmt s;
    s.kind = StmtKind::Store;
    s.buffer = buffer;
    s.index = std::move(index);
    s.value = value;
    return s;
  }

  // Keeps what qualifies at each loop of `stmts`, outermost first.
  void block(std::vector<Stmt>& stmts) {
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      if (stmts[i].kind == StmtKind::If) block(stmts[i].body);
      if (stmts[i].kind != StmtKind::For) continue;
      const std::map<int, Use> uses = uses_of(stmts[i].body);
      std::set<int> loops = loops_in(stmts[i].body);
      loops.insert(stmts[i].loop);
      std::vector<Stmt> before, after;
      for (const auto& [storage, u] : uses) {
        const BufferRole role = p_.buffers[static_cast<std::size_t>(storage)].role;
        // A one-element local is a variable already (the printer's scalar).
        const bool variable =
            role == BufferRole::Local && p_.buffers[static_cast<std::size_t>(storage)].numel() == 1;
        if (role == BufferRole::Const || variable || kept_locals_.count(storage) ||
            u.buffers.size() != 1 || !u.same_index || !u.loads || !u.stores || !u.unguarded ||
            uses_loops(*u.index, loops))
          continue;
        const int b = *u.buffers.begin();
        // The local: one element of the buffer's type, owned by the kernel.
        loop::Buffer local;
        local.name = p_.buffers[static_cast<std::size_t>(b)].name + "_kept";
        while (p_.find_buffer(local.name) >= 0) local.name += "_";
        local.role = BufferRole::Local;
        local.type = p_.buffers[static_cast<std::size_t>(b)].type;
        local.shape = {1};
        p_.buffers.push_back(local);
        const int l = static_cast<int>(p_.buffers.size()) - 1;
        kernel().locals.push_back(l);
        kept_locals_.insert(l);
        Value load;
        load.op = Op::Load;
        load.type = local.type;
        load.buffer = b;
        load.index = *u.index;
        before.push_back(let(load));
        before.push_back(store(l, {Affine::of(0)}, before.back().value));
        redirect(stmts[i].body, b, l);
        // Stored back always: a later run of the loop may read the element.
        Value back;
        back.op = Op::Load;
        back.type = local.type;
        back.buffer = l;
        back.index = {Affine::of(0)};
        after.push_back(let(back));
        after.push_back(store(b, *u.index, after.back().value));
        ++kept_;
      }
      block(stmts[i].body);
      stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(i) + 1, after.begin(), after.end());
      stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(i), before.begin(), before.end());
      i += before.size() + after.size();
    }
  }

  Program& p_;
  int kernel_;
  std::set<int> kept_locals_;
  int kept_ = 0;
};

}  // namespace

int keep_in_locals(Program& program) {
  int kept = 0;
  for (std::size_t k = 0; k < program.kernels.size(); ++k)
    kept += Keeper(program, static_cast<int>(k)).run();
  return kept;
}

}  // namespace kiln::cgen

#include "kiln/dfg/unroll.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "kiln/support/error.h"

namespace kiln::dfg {

namespace {

constexpr uint32_t kUnset = UINT32_MAX;

// The port reads (or writes) of an iteration with hash indices, so that each
// load and store finds its port, and the ports that may alias it, without a
// scan of the others: an unrolled row of a convolution has thousands.
class PortTable {
 public:
  const std::vector<PortAccess>& list() const { return ports_; }
  PortAccess& operator[](std::size_t i) { return ports_[i]; }
  std::size_t size() const { return ports_.size(); }

  // The port with `pa`'s buffer and element (PortAccess's identity), or -1.
  int find(const PortAccess& pa) const {
    const auto it = index_.find(pa);
    return it == index_.end() ? -1 : it->second;
  }
  int add(PortAccess pa) {
    const int i = static_cast<int>(ports_.size());
    index_.emplace(pa, i);
    std::vector<Motion>& ms = motions_[pa.buffer];
    const Motion m = motion(pa.element);
    if (std::find(ms.begin(), ms.end(), m) == ms.end()) ms.push_back(m);
    ports_.push_back(std::move(pa));
    return i;
  }
  bool any(int buffer) const { return motions_.count(buffer) > 0; }
  // Whether a port of pa's buffer moves differently with the loop variables
  // (so it may reach pa's element in some iteration); ports that move alike
  // differ by a constant in every iteration.
  bool may_alias(const PortAccess& pa) const {
    const auto it = motions_.find(pa.buffer);
    if (it == motions_.end()) return false;
    const Motion m = motion(pa.element);
    for (const Motion& o : it->second)
      if (o != m) return true;
    return false;
  }

 private:
  using Motion = std::vector<std::pair<int, int64_t>>;  // the terms, sorted (same_motion)
  static Motion motion(const loop::Affine& a) {
    Motion m = a.terms;
    std::sort(m.begin(), m.end());
    return m;
  }
  struct Hash {
    std::size_t operator()(const PortAccess& pa) const {
      uint64_t h = static_cast<uint64_t>(pa.buffer) * 0x9e3779b97f4a7c15ULL ^
                   static_cast<uint64_t>(pa.element.constant);
      for (const auto& [loop, c] : pa.element.terms)
        h = (h ^ (static_cast<uint64_t>(loop) << 32 ^ static_cast<uint64_t>(c))) * 0x100000001b3ULL;
      return static_cast<std::size_t>(h);
    }
  };
  std::vector<PortAccess> ports_;
  std::unordered_map<PortAccess, int, Hash> index_;
  std::unordered_map<int, std::vector<Motion>> motions_;  // buffer -> the motions of its ports
};

// What a run of statements may see and must report (see unroll.h).
struct Region {
  bool locals_live_in = false;  // a local read before written is an input
  bool locals_out = false;      // written locals are outputs too
  // The loops run once with their variables left unknown, outermost first:
  // the kept loop and the loops of a flattened nest below it.
  std::vector<int> symbolic;
  // Copies of the innermost kept loop's body per run: its variable = unroll
  // * v + copy.
  int64_t unroll = 1;
  std::string kept;  // "<kernel>/<var>" of the loop a split keeps, for messages
};

class Unroller {
 public:
  Unroller(const loop::Program& p, const loop::Kernel& k, Graph& g, Region region = {})
      : p_(p), k_(k), g_(g), region_(region) {
    vars_.assign(k.loops.size(), 0);
    values_.assign(k.values.size(), kUnset);
  }

  void run(const std::vector<loop::Stmt>& stmts) {
    block(stmts);
    // Every element the statements wrote to a program buffer is an output
    // (and to a local, when the region's state lives on).
    for (auto& [b, table] : tables_) {
      if (!region_.locals_out &&
          p_.buffers[static_cast<std::size_t>(b)].role == loop::BufferRole::Local)
        continue;
      if (!written_.count(b)) continue;
      for (std::size_t e = 0; e < table.size(); ++e)
        if (written_[b][e]) g_.add_output({b, static_cast<int64_t>(e)}, table[e]);
    }
    for (std::size_t w = 0; w < port_writes_.size(); ++w) {
      g_.add_output({port_writes_[w].buffer, -1 - static_cast<int64_t>(w)}, port_write_nodes_[w]);
      if (port_write_enables_[w] != kUnset)
        g_.add_output({kWriteEnableBuffer, static_cast<int64_t>(w)}, port_write_enables_[w]);
    }
  }

  std::vector<PortAccess> port_reads() const { return port_reads_.list(); }
  std::vector<PortAccess> port_writes() const { return port_writes_.list(); }

 private:
  // Where `loop` is among the symbolic loops, or -1.
  int symbolic_at(int loop) const {
    for (std::size_t i = 0; i < region_.symbolic.size(); ++i)
      if (region_.symbolic[i] == loop) return static_cast<int>(i);
    return -1;
  }
  bool symbolic(int loop) const { return loop >= 0 && symbolic_at(loop) >= 0; }
  // The kept loop whose body is copied `unroll` times per iteration.
  int unrolled() const { return region_.symbolic.empty() ? -1 : region_.symbolic.back(); }

  // The values a symbolic variable takes: 0 .. this - 1.
  int64_t iterations(int loop) const {
    const int64_t trip = k_.loops[static_cast<std::size_t>(loop)].trip;
    return loop == unrolled() ? trip / region_.unroll : trip;
  }

  // A symbolic loop's iteration index v (0 .. iterations - 1) as a node: the
  // i-th kept loop's {kIterationBuffer, i}.
  uint32_t iteration(int loop) {
    const int which = symbolic_at(loop);
    if (iteration_.size() < region_.symbolic.size())
      iteration_.resize(region_.symbolic.size(), kUnset);
    uint32_t& node = iteration_[static_cast<std::size_t>(which)];
    if (node == kUnset) {
      int bits = 1;
      while ((int64_t{1} << bits) < iterations(loop)) ++bits;
      node = g_.input({kIterationBuffer, which}, loop::ScalarType{bits, 0, false});
    }
    return node;
  }

  uint32_t integer(int64_t v) {
    int bits = 2;
    while (v < -(int64_t{1} << (bits - 1)) || v >= (int64_t{1} << (bits - 1))) ++bits;
    return g_.constant(v, loop::ScalarType{bits, 0, true});
  }
  uint32_t boolean(bool b) { return g_.constant(b ? 1 : 0, loop::ScalarType{1, 0, false}); }

  // `a` with the known loop variables replaced by their values: a constant,
  // or an expression of the symbolic loop's variable.
  // A kept loop of one iteration (a convolution's group loop) keeps its
  // variable 0: what it indexes does not move.
  loop::Affine residual(const loop::Affine& a) const {
    loop::Affine r = loop::Affine::of(a.constant);
    for (const auto& [loop, c] : a.terms) {
      const bool moves = symbolic(loop) && iterations(loop) > 1;
      if (loop >= 0 && loop == unrolled())
        r = r + (moves ? loop::Affine::var(loop, c * region_.unroll) : loop::Affine::of(0)) +
            c * copy_;
      else if (moves)
        r = r + loop::Affine::var(loop, c);
      else
        r.constant += c * vars_[static_cast<std::size_t>(loop)];
    }
    return r;
  }

  int64_t eval(const loop::Affine& a) const {
    const loop::Affine r = residual(a);
    KILN_ASSERT(r.terms.empty(), "kernel " + k_.name + ": a symbolic index evaluated");
    return r.constant;
  }

  // The storage buffer and the row-major element an access reaches, as an
  // expression of the symbolic loop's variable (constant elsewhere).
  std::vector<loop::Affine> residuals(const std::vector<loop::Affine>& index) const {
    std::vector<loop::Affine> r;
    for (const loop::Affine& i : index) r.push_back(residual(i));
    return r;
  }

  std::pair<int, loop::Affine> address(int b, const std::vector<loop::Affine>& index) const {
    const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(b)];
    loop::Affine f = loop::Affine::of(0);
    for (std::size_t d = 0; d < index.size(); ++d) {
      const loop::Affine i = residual(index[d]);
      KILN_ASSERT(!i.terms.empty() || (i.constant >= 0 && i.constant < buf.shape[d]),
                  "kernel " + k_.name + ": @" + buf.name + " index " + std::to_string(i.constant) +
                      " out of range");
      f = f * buf.shape[d] + i;
    }
    return {p_.storage_of(b), f};
  }

  // The storage buffer and element an access reaches (a constant one).
  Element element(int b, const std::vector<loop::Affine>& index) const {
    const auto [storage, f] = address(b, index);
    KILN_ASSERT(f.terms.empty(), "kernel " + k_.name + ": a symbolic element used as constant");
    return {storage, f.constant};
  }

  [[noreturn]] void unsupported(const std::string& what) const {
    throw_error(ErrorKind::Unsupported, "loop " + region_.kept, what,
                "pipeline another loop of the layer, or unroll it fully");
  }

  // A load whose element moves with the symbolic loop: a read port of the
  // buffer's memory, an Input node at element -1 - (its index in reads).
  uint32_t port_load(PortAccess access) {
    const std::string& name = p_.buffers[static_cast<std::size_t>(access.buffer)].name;
    if (const int w = port_writes_.find(access); w >= 0) {
      const uint32_t written = port_write_nodes_[static_cast<std::size_t>(w)];
      const uint32_t enable = port_write_enables_[static_cast<std::size_t>(w)];
      if (enable == kUnset) return written;  // written this iteration
      // Written under a condition on the loop's variable (a window's first
      // product starts its accumulator from the bias): the memory's value
      // where the condition fails.
      return g_.select(enable, written, port_read(std::move(access), guards_));
    }
    if (port_writes_.may_alias(access))
      unsupported("@" + name +
                  " is read at an element that may be one written earlier in the same "
                  "iteration, moving differently with the loop");
    return port_read(std::move(access), guards_);
  }

  // The element's value at the iteration's start, read under `guards`: one
  // read port per element, read under either guards when two loads differ.
  uint32_t port_read(PortAccess access, const std::vector<loop::Guard>& guards) {
    const int storage = access.buffer;
    if (tables_.count(storage))
      unsupported("@" + p_.buffers[static_cast<std::size_t>(storage)].name +
                  " is read both at fixed elements and at elements that move with "
                  "the loop");
    int r = port_reads_.find(access);
    if (r < 0) {
      access.guards = guards;
      r = port_reads_.add(std::move(access));
    } else if (port_reads_[static_cast<std::size_t>(r)].guards != guards) {
      port_reads_[static_cast<std::size_t>(r)].guards.clear();  // read under either: always
    }
    return g_.input({storage, -1 - r}, p_.buffers[static_cast<std::size_t>(storage)].type);
  }

  void port_store(PortAccess access, uint32_t node) {
    const std::string& name = p_.buffers[static_cast<std::size_t>(access.buffer)].name;
    if (tables_.count(access.buffer) || port_reads_.may_alias(access) ||
        port_writes_.may_alias(access))
      unsupported("@" + name +
                  " is written at an element that moves with the loop and accessed in the "
                  "same iteration at fixed elements or elements moving differently");
    if (const int w = port_writes_.find(access); w >= 0) {
      uint32_t& written = port_write_nodes_[static_cast<std::size_t>(w)];
      uint32_t& enable = port_write_enables_[static_cast<std::size_t>(w)];
      std::vector<loop::Guard>& guards = port_writes_[static_cast<std::size_t>(w)].guards;
      if (enable == pred_ && guards == guards_) {
        written = node;
        return;
      }
      // Written twice under different conditions (an accumulator's start
      // and its sum): one write in every iteration of what the iteration
      // leaves there, the memory's value where neither condition holds.
      uint32_t before = written;
      if (enable != kUnset) before = g_.select(enable, written, port_read(access, {}));
      written = pred_ == kUnset ? node : g_.select(pred_, node, before);
      enable = kUnset;
      guards.clear();
      return;
    }
    access.guards = guards_;
    port_writes_.add(std::move(access));
    port_write_nodes_.push_back(node);
    port_write_enables_.push_back(pred_);
  }

  std::vector<uint32_t>& table(int storage) {
    auto it = tables_.find(storage);
    if (it != tables_.end()) return it->second;
    const auto n = static_cast<std::size_t>(p_.buffers[static_cast<std::size_t>(storage)].numel());
    return tables_.emplace(storage, std::vector<uint32_t>(n, kUnset)).first->second;
  }

  uint32_t load(int b, const std::vector<loop::Affine>& index) {
    const auto [storage, a] = address(b, index);
    if (!a.terms.empty()) return port_load({storage, a, b, residuals(index), {}});
    if (port_reads_.any(storage) || port_writes_.any(storage))
      unsupported("@" + p_.buffers[static_cast<std::size_t>(storage)].name +
                  " is read at a fixed element and at elements that move with the loop");
    return element_value({storage, a.constant});
  }

  // A fixed element's value now: the last store's, or what it holds on entry.
  uint32_t element_value(const Element& e) {
    uint32_t& slot = table(e.buffer)[static_cast<std::size_t>(e.element)];
    if (slot != kUnset) return slot;
    const loop::Buffer& sb = p_.buffers[static_cast<std::size_t>(e.buffer)];
    switch (sb.role) {
      case loop::BufferRole::Const:
        slot = g_.constant(sb.data[static_cast<std::size_t>(e.element)], sb.type);
        break;
      case loop::BufferRole::Local:
        KILN_ASSERT(region_.locals_live_in, "kernel " + k_.name + " reads @" + sb.name + "[" +
                                                std::to_string(e.element) + "] before writing it");
        slot = g_.input(e, sb.type);
        break;
      default: slot = g_.input(e, sb.type); break;
    }
    return slot;
  }

  int table_of(int b) {
    const loop::Buffer& t = p_.buffers[static_cast<std::size_t>(b)];
    return g_.add_table({t.name, t.type, t.data.values()});
  }

  uint32_t value(const loop::Value& v) {
    auto a = [&](std::size_t i) {
      const uint32_t n = values_[static_cast<std::size_t>(v.args[i])];
      // A value the statements before a kept loop computed (a row's
      // reciprocal) reaches the loop or what follows it only as a graph of
      // its own: not carried across the cut yet.
      if (n == kUnset)
        throw_error(ErrorKind::Unsupported,
                    region_.kept.empty() ? "layer " + k_.name : "loop " + region_.kept,
                    "a value computed before the kept loop is used inside or after it",
                    "keep another loop of the layer, or unroll it fully");
      return n;
    };
    switch (v.op) {
      case loop::Op::Load: return load(v.buffer, v.index);
      case loop::Op::Const: return g_.constant(v.imm, v.type);
      case loop::Op::Add: return g_.add(a(0), a(1));
      case loop::Op::Sub: return g_.sub(a(0), a(1));
      case loop::Op::Mul: return g_.mul(a(0), a(1));
      case loop::Op::Neg: return g_.neg(a(0));
      case loop::Op::Shl: return g_.shl(a(0), static_cast<int>(v.imm));
      case loop::Op::Quantize: return g_.quantize(a(0), v.target);
      case loop::Op::Max: return g_.max(a(0), a(1));
      case loop::Op::Min: return g_.min(a(0), a(1));
      case loop::Op::Lt: return g_.lt(a(0), a(1));
      case loop::Op::Select: return g_.select(a(0), a(1), a(2));
      case loop::Op::Lookup: return g_.lookup(table_of(v.buffer), a(0), v.shift, v.imm);
    }
    KILN_ASSERT(false, "unknown op");
    return 0;
  }

  void block(const std::vector<loop::Stmt>& stmts) {
    for (const loop::Stmt& s : stmts) {
      switch (s.kind) {
        case loop::StmtKind::Let:
          values_[static_cast<std::size_t>(s.value)] =
              value(k_.values[static_cast<std::size_t>(s.value)]);
          break;
        case loop::StmtKind::Store: {
          const auto [storage, a] = address(s.buffer, s.index);
          if (!a.terms.empty()) {
            port_store({storage, a, s.buffer, residuals(s.index), {}},
                       values_[static_cast<std::size_t>(s.value)]);
            break;
          }
          if (port_reads_.any(storage) || port_writes_.any(storage))
            unsupported("@" + p_.buffers[static_cast<std::size_t>(storage)].name +
                        " is written at a fixed element and accessed at elements that move "
                        "with the loop");
          const Element e{storage, a.constant};
          uint32_t v = values_[static_cast<std::size_t>(s.value)];
          // Under a condition on the loop's variable: the old value otherwise.
          if (pred_ != kUnset) v = g_.select(pred_, v, element_value(e));
          table(e.buffer)[static_cast<std::size_t>(e.element)] = v;
          auto& w = written_[e.buffer];
          if (w.empty())
            w.assign(
                static_cast<std::size_t>(p_.buffers[static_cast<std::size_t>(e.buffer)].numel()),
                false);
          w[static_cast<std::size_t>(e.element)] = true;
          break;
        }
        case loop::StmtKind::For: {
          const int64_t trip = k_.loops[static_cast<std::size_t>(s.loop)].trip;
          if (symbolic(s.loop)) {
            // One iteration of the kept loop, its variable unknown; the
            // innermost kept loop's body `unroll` times.
            if (s.loop != unrolled()) {
              block(s.body);
              break;
            }
            for (copy_ = 0; copy_ < region_.unroll; ++copy_) block(s.body);
            copy_ = 0;
            break;
          }
          int64_t& var = vars_[static_cast<std::size_t>(s.loop)];
          for (var = 0; var < trip; ++var) block(s.body);
          break;
        }
        case loop::StmtKind::If: {
          // Conditions on known variables decide here; those on the symbolic
          // loop's variable (padding) become a predicate the body computes.
          bool holds = true;
          const uint32_t outer = pred_;
          const std::size_t outer_guards = guards_.size();
          for (const loop::Guard& gd : s.guards) {
            const loop::Affine r = residual(gd.expr);
            if (r.terms.empty()) {
              holds = holds && r.constant >= gd.lo && r.constant < gd.hi;
              continue;
            }
            // x = sum of a * v + c over each v in 0 .. iterations - 1: a
            // bound it always meets is no test (and no constant comparison
            // in the Verilog).
            int64_t lo = r.constant, hi = r.constant;
            uint32_t x = integer(r.constant);
            for (const auto& [loop, a] : r.terms) {
              const int64_t last = iterations(loop) - 1;
              lo += std::min<int64_t>(0, a * last);
              hi += std::max<int64_t>(0, a * last);
              x = g_.add(g_.mul(iteration(loop), integer(a)), x);
            }
            if (hi < gd.lo || lo >= gd.hi) {
              holds = false;
              continue;
            }
            std::vector<uint32_t> tests;
            if (lo < gd.lo)
              tests.push_back(g_.select(g_.lt(x, integer(gd.lo)), boolean(false), boolean(true)));
            if (hi >= gd.hi) tests.push_back(g_.lt(x, integer(gd.hi)));
            for (uint32_t t : tests)
              pred_ = pred_ == kUnset ? t : g_.select(pred_, t, boolean(false));
            if (!tests.empty()) guards_.push_back({r, gd.lo, gd.hi});
          }
          if (holds) block(s.body);
          pred_ = outer;
          guards_.resize(outer_guards);
          break;
        }
      }
    }
  }

  const loop::Program& p_;
  const loop::Kernel& k_;
  Graph& g_;
  std::vector<int64_t> vars_;
  std::vector<uint32_t> values_;
  std::map<int, std::vector<uint32_t>> tables_;
  std::map<int, std::vector<bool>> written_;
  Region region_;
  int64_t copy_ = 0;  // which copy of an unrolled symbolic loop's body runs
  PortTable port_reads_, port_writes_;
  std::vector<uint32_t> port_write_nodes_;
  std::vector<uint32_t> port_write_enables_;  // kUnset: unconditional
  uint32_t pred_ = kUnset;                    // the conditions on the symbolic variable in force
  std::vector<loop::Guard> guards_;           // the same as guards on the kept variables
  std::vector<uint32_t> iteration_;           // their Input nodes, made on first use
};

}  // namespace

std::vector<Stage> unroll(const loop::Program& program, const UnrollOptions& options) {
  std::vector<Stage> stages;
  for (std::size_t k = 0; k < program.kernels.size(); ++k)
    stages.push_back(unroll_kernel(program, static_cast<int>(k), options));
  return stages;
}

Stage unroll_kernel(const loop::Program& program, int kernel, const UnrollOptions& options) {
  const loop::Kernel& k = program.kernels.at(static_cast<std::size_t>(kernel));
  Stage s;
  s.name = k.name;
  s.onnx_name = k.onnx_name;
  s.loop_ops = loop::dynamic_ops(k);
  if (s.loop_ops > options.max_ops)
    throw_error(ErrorKind::Unsupported, "layer '" + k.onnx_name + "'",
                fmt::format("unrolls to {} operations, over kiln rtl's bound of {} per layer",
                            s.loop_ops, options.max_ops),
                "keep one of its loops as a loop (Loop.<name>.Pipeline or .Unroll; kiln rtl "
                "--list-loops names them), make the layer smaller, or use kiln compile");
  s.graph = Graph(k.name);
  Unroller(program, k, s.graph).run(k.body);
  if (options.balance)
    s.graph.balance_sums();
  else
    s.graph.compact();
  return s;
}

namespace {

// The statements with loops of one iteration opened (their variable stays 0,
// as the unroller starts every variable), so a loop inside one (a MatMul's
// batch loop) counts as top-level.
std::vector<loop::Stmt> opened(const std::vector<loop::Stmt>& body, const loop::Kernel& k) {
  std::vector<loop::Stmt> out;
  for (const loop::Stmt& s : body) {
    if (s.kind == loop::StmtKind::For && k.loops[static_cast<std::size_t>(s.loop)].trip == 1) {
      const std::vector<loop::Stmt> inner = opened(s.body, k);
      out.insert(out.end(), inner.begin(), inner.end());
    } else {
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace

std::vector<loop::Stmt> top_level(const loop::Kernel& kernel) {
  return opened(kernel.body, kernel);
}

bool same_motion(const loop::Affine& a, const loop::Affine& b) {
  auto sorted = [](std::vector<std::pair<int, int64_t>> t) {
    std::sort(t.begin(), t.end());
    return t;
  };
  return sorted(a.terms) == sorted(b.terms);
}

int perfect_inner_loop(const loop::Kernel& kernel, int loop) {
  int found = -1;
  std::function<bool(const std::vector<loop::Stmt>&)> find = [&](const auto& stmts) {
    for (const loop::Stmt& s : stmts) {
      if (s.kind == loop::StmtKind::For && s.loop == loop) {
        if (s.body.size() == 1 && s.body[0].kind == loop::StmtKind::For) found = s.body[0].loop;
        return true;
      }
      if (find(s.body)) return true;
    }
    return false;
  };
  find(kernel.body);
  return found;
}

std::vector<int> perfect_nest(const loop::Kernel& kernel, int loop) {
  std::vector<int> nest;
  for (int l = perfect_inner_loop(kernel, loop); l >= 0; l = perfect_inner_loop(kernel, l))
    nest.push_back(l);
  return nest;
}

SplitKernel split_at_loop(const loop::Program& program, int kernel, int loop, int64_t unroll,
                          int flatten) {
  const loop::Kernel& k = program.kernels.at(static_cast<std::size_t>(kernel));
  const loop::Loop& l = k.loops.at(static_cast<std::size_t>(loop));
  const std::string name = k.name + "/" + l.name;
  const std::vector<loop::Stmt> top = top_level(k);
  std::size_t at = 0;
  while (at < top.size() && !(top[at].kind == loop::StmtKind::For && top[at].loop == loop)) ++at;
  if (at == top.size())
    throw_error(ErrorKind::Unsupported, "loop " + name,
                "only a loop at its layer's top level can be kept as a loop so far",
                "pipeline the outermost loop of the nest");
  const std::vector<int> nest = perfect_nest(k, loop);
  if (flatten < 0 || flatten > static_cast<int>(nest.size()))
    throw_error(ErrorKind::Unsupported, "loop " + name,
                nest.empty()
                    ? std::string("is not a perfect nest (its body is not one loop), so it cannot "
                                  "be flattened")
                    : fmt::format("only {} loop(s) below it form a perfect nest with it, not {}",
                                  nest.size(), flatten),
                "flatten a loop whose body is exactly one loop (kiln rtl --list-loops: perfect)");
  std::vector<int> kept = {loop};
  kept.insert(kept.end(), nest.begin(), nest.begin() + flatten);
  // Unrolling copies the innermost kept loop's body: a flattened nest's
  // innermost loop (a convolution's neighbouring pixels), or the kept loop's.
  const loop::Loop& copied = k.loops.at(static_cast<std::size_t>(kept.back()));
  if (unroll < 1 || copied.trip % unroll != 0)
    throw_error(
        ErrorKind::InvalidModel, "loop " + k.name + "/" + copied.name,
        fmt::format("unroll factor {} does not divide the trip count {}", unroll, copied.trip),
        "choose a factor of the trip count");
  const std::vector<loop::Stmt> before(top.begin(), top.begin() + static_cast<long>(at));
  const std::vector<loop::Stmt> after(top.begin() + static_cast<long>(at) + 1, top.end());
  SplitKernel s;
  s.before = Graph(k.name + "_before");
  Unroller(program, k, s.before, {.locals_out = true, .symbolic = {}, .kept = name}).run(before);
  s.before.compact();
  s.body.name = name;
  s.body.loop = loop;
  s.body.kept = kept;
  s.body.unroll = unroll;
  s.body.trip = 1;
  for (const int kl : kept) {
    const int64_t trip = k.loops[static_cast<std::size_t>(kl)].trip;
    s.body.extents.push_back(kl == kept.back() ? trip / unroll : trip);
    s.body.trip *= s.body.extents.back();
  }
  s.body.graph = Graph(k.name + "_" + l.name);
  Unroller u(program, k, s.body.graph,
             {.locals_live_in = true,
              .locals_out = true,
              .symbolic = kept,
              .unroll = unroll,
              .kept = name});
  u.run({top[at]});
  s.body.reads = u.port_reads();
  s.body.writes = u.port_writes();
  // The accumulators (state carried from one iteration to the next, or a
  // select of it: a sunk nest's first iteration starts from the bias) are
  // added last, so the loop's recurrence is one add, whatever the body sums.
  const Graph& bg = s.body.graph;
  const std::function<bool(uint32_t)> carried = [&bg, &carried](uint32_t n) {
    const Node& node = bg.node(n);
    if (node.op == NodeOp::Input) return bg.input_of(n).element >= 0 && bg.input_of(n).buffer >= 0;
    if (node.op != NodeOp::Select) return false;
    const auto a = bg.args(n);
    return carried(a[1]) || carried(a[2]);
  };
  s.body.graph.balance_sums(carried);
  s.after = Graph(k.name + "_after");
  Unroller(program, k, s.after, {.locals_live_in = true, .symbolic = {}, .kept = name}).run(after);
  s.after.compact();
  return s;
}

}  // namespace kiln::dfg

#include "kiln/dfg/unroll.h"

#include <fmt/format.h>

#include <map>

#include "kiln/support/error.h"

namespace kiln::dfg {

namespace {

constexpr uint32_t kUnset = UINT32_MAX;

class Unroller {
 public:
  Unroller(const loop::Program& p, const loop::Kernel& k, Graph& g) : p_(p), k_(k), g_(g) {
    vars_.assign(k.loops.size(), 0);
    values_.assign(k.values.size(), kUnset);
  }

  void run() {
    block(k_.body);
    // Every element the kernel wrote to a program buffer is a stage output.
    for (auto& [b, table] : tables_) {
      if (p_.buffers[static_cast<std::size_t>(b)].role == loop::BufferRole::Local) continue;
      if (!written_.count(b)) continue;
      for (std::size_t e = 0; e < table.size(); ++e)
        if (written_[b][e]) g_.add_output({b, static_cast<int64_t>(e)}, table[e]);
    }
  }

 private:
  int64_t eval(const loop::Affine& a) const {
    int64_t v = a.constant;
    for (const auto& [loop, c] : a.terms) v += c * vars_[static_cast<std::size_t>(loop)];
    return v;
  }

  // The storage buffer and element an access reaches.
  Element element(int b, const std::vector<loop::Affine>& index) const {
    const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(b)];
    int64_t f = 0;
    for (std::size_t d = 0; d < index.size(); ++d) {
      const int64_t i = eval(index[d]);
      KILN_ASSERT(i >= 0 && i < buf.shape[d], "kernel " + k_.name + ": @" + buf.name + " index " +
                                                  std::to_string(i) + " out of range");
      f = f * buf.shape[d] + i;
    }
    return {p_.storage_of(b), f};
  }

  std::vector<uint32_t>& table(int storage) {
    auto it = tables_.find(storage);
    if (it != tables_.end()) return it->second;
    const auto n = static_cast<std::size_t>(p_.buffers[static_cast<std::size_t>(storage)].numel());
    return tables_.emplace(storage, std::vector<uint32_t>(n, kUnset)).first->second;
  }

  uint32_t load(int b, const std::vector<loop::Affine>& index) {
    const Element e = element(b, index);
    uint32_t& slot = table(e.buffer)[static_cast<std::size_t>(e.element)];
    if (slot != kUnset) return slot;
    const loop::Buffer& sb = p_.buffers[static_cast<std::size_t>(e.buffer)];
    switch (sb.role) {
      case loop::BufferRole::Const:
        slot = g_.constant(sb.data[static_cast<std::size_t>(e.element)], sb.type);
        break;
      case loop::BufferRole::Local:
        KILN_ASSERT(false, "kernel " + k_.name + " reads @" + sb.name + "[" +
                               std::to_string(e.element) + "] before writing it");
        break;
      default: slot = g_.input(e, sb.type); break;
    }
    return slot;
  }

  int table_of(int b) {
    const loop::Buffer& t = p_.buffers[static_cast<std::size_t>(b)];
    return g_.add_table({t.name, t.type, t.data});
  }

  uint32_t value(const loop::Value& v) {
    auto a = [&](std::size_t i) { return values_[static_cast<std::size_t>(v.args[i])]; };
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
          const Element e = element(s.buffer, s.index);
          table(e.buffer)[static_cast<std::size_t>(e.element)] =
              values_[static_cast<std::size_t>(s.value)];
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
          int64_t& var = vars_[static_cast<std::size_t>(s.loop)];
          for (var = 0; var < trip; ++var) block(s.body);
          break;
        }
        case loop::StmtKind::If: {
          bool holds = true;
          for (const loop::Guard& gd : s.guards) {
            const int64_t e = eval(gd.expr);
            holds = holds && e >= gd.lo && e < gd.hi;
          }
          if (holds) block(s.body);
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
};

}  // namespace

std::vector<Stage> unroll(const loop::Program& program, const UnrollOptions& options) {
  std::vector<Stage> stages;
  for (const loop::Kernel& k : program.kernels) {
    Stage s;
    s.name = k.name;
    s.onnx_name = k.onnx_name;
    s.loop_ops = loop::dynamic_ops(k);
    if (s.loop_ops > options.max_ops)
      throw_error(ErrorKind::Unsupported, "layer '" + k.onnx_name + "'",
                  fmt::format("unrolls to {} operations, over kiln rtl's bound of {} per layer",
                              s.loop_ops, options.max_ops),
                  "full unrolling serves small layers; make the layer smaller or use kiln "
                  "compile (the HLS flow) until kiln rtl keeps large layers as loops");
    s.graph = Graph(k.name);
    Unroller(program, k, s.graph).run();
    if (options.balance)
      s.graph.balance_sums();
    else
      s.graph.compact();
    stages.push_back(std::move(s));
  }
  return stages;
}

}  // namespace kiln::dfg

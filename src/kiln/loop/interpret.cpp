#include "kiln/loop/interpret.h"

#include <algorithm>

#include "kiln/support/error.h"

namespace kiln::loop {

namespace {

using numeric::Exact;
using numeric::int128;

class Interpreter {
 public:
  explicit Interpreter(const Program& p) : p_(p), storage_(p.buffers.size()) {
    for (std::size_t b = 0; b < p.buffers.size(); ++b) {
      const Buffer& buf = p.buffers[b];
      if (buf.alias_of >= 0) continue;
      storage_[b] =
          buf.role == BufferRole::Const ? buf.data.values() : std::vector<int64_t>(buf.numel(), 0);
    }
  }

  std::vector<int64_t>& storage(int b) {
    return storage_[static_cast<std::size_t>(p_.storage_of(b))];
  }

  hls::OverflowCounts run(const Kernel& k) {
    k_ = &k;
    counts_ = {};
    vars_.assign(k.loops.size(), 0);
    values_.assign(k.values.size(), Exact{});
    block(k.body);
    return counts_;
  }

 private:
  int64_t eval(const Affine& a) const {
    int64_t v = a.constant;
    for (const auto& [loop, c] : a.terms) v += c * vars_[static_cast<std::size_t>(loop)];
    return v;
  }

  int64_t flat(int b, const std::vector<Affine>& index) const {
    const Buffer& buf = p_.buffers[static_cast<std::size_t>(b)];
    int64_t f = 0;
    for (std::size_t d = 0; d < index.size(); ++d) {
      const int64_t i = eval(index[d]);
      KILN_ASSERT(i >= 0 && i < buf.shape[d],
                  "kernel " + k_->name + ": @" + buf.name + " index " + std::to_string(i) +
                      " out of range in dimension " + std::to_string(d));
      f = f * buf.shape[d] + i;
    }
    return f;
  }

  Exact value(const Value& v) {
    auto arg = [&](std::size_t i) -> const Exact& {
      return values_[static_cast<std::size_t>(v.args[i])];
    };
    switch (v.op) {
      case Op::Load:
        return numeric::to_exact(
            storage(v.buffer)[static_cast<std::size_t>(flat(v.buffer, v.index))], fixed_of(v.type));
      case Op::Const: return numeric::to_exact(v.imm, fixed_of(v.type));
      case Op::Add: return numeric::exact_add(arg(0), arg(1));
      case Op::Sub: return numeric::exact_sub(arg(0), arg(1));
      case Op::Mul: return numeric::exact_mul(arg(0), arg(1));
      case Op::Neg: return numeric::exact_neg(arg(0));
      case Op::Shl: return {arg(0).raw, arg(0).frac - static_cast<int>(v.imm)};
      case Op::Quantize: {
        numeric::OverflowEvent event = numeric::OverflowEvent::None;
        const int64_t raw = numeric::quantize(arg(0), v.target, &event);
        if (event == numeric::OverflowEvent::Wrapped) ++counts_.wrapped;
        if (event == numeric::OverflowEvent::Saturated) ++counts_.saturated;
        return numeric::to_exact(raw, v.target);
      }
      case Op::Max: return numeric::exact_compare(arg(0), arg(1)) >= 0 ? arg(0) : arg(1);
      case Op::Min: return numeric::exact_compare(arg(0), arg(1)) <= 0 ? arg(0) : arg(1);
      case Op::Lt: return {numeric::exact_compare(arg(0), arg(1)) < 0 ? 1 : 0, 0};
      case Op::Select: return arg(0).raw != 0 ? arg(1) : arg(2);
      case Op::Lookup: {
        const Buffer& t = p_.buffers[static_cast<std::size_t>(v.buffer)];
        const int64_t size = t.shape[0];
        const int64_t idx =
            std::clamp(numeric::floor_scaled(arg(0), v.shift) + v.imm, int64_t{0}, size - 1);
        return numeric::to_exact(t.data[static_cast<std::size_t>(idx)], fixed_of(t.type));
      }
    }
    KILN_ASSERT(false, "unknown op");
    return {};
  }

  // The raw value of `v` at `t`'s fraction bits (exact by the type rules).
  static int64_t raw_at(const Exact& v, const ScalarType& t) {
    const int up = t.frac - v.frac;
    KILN_ASSERT(up >= 0 && up < 64, "a stored value is off its buffer's grid");
    const int128 r = v.raw * (int128{1} << up);
    KILN_ASSERT(r >= INT64_MIN && r <= INT64_MAX, "a stored value exceeds 64 bits");
    return static_cast<int64_t>(r);
  }

  void block(const std::vector<Stmt>& stmts) {
    for (const Stmt& s : stmts) {
      switch (s.kind) {
        case StmtKind::Let:
          values_[static_cast<std::size_t>(s.value)] =
              value(k_->values[static_cast<std::size_t>(s.value)]);
          break;
        case StmtKind::Store: {
          const Buffer& b = p_.buffers[static_cast<std::size_t>(s.buffer)];
          storage(s.buffer)[static_cast<std::size_t>(flat(s.buffer, s.index))] =
              raw_at(values_[static_cast<std::size_t>(s.value)], b.type);
          break;
        }
        case StmtKind::For: {
          const int64_t trip = k_->loops[static_cast<std::size_t>(s.loop)].trip;
          int64_t& var = vars_[static_cast<std::size_t>(s.loop)];
          for (var = 0; var < trip; ++var) block(s.body);
          break;
        }
        case StmtKind::If: {
          bool holds = true;
          for (const Guard& g : s.guards) {
            const int64_t e = eval(g.expr);
            holds = holds && e >= g.lo && e < g.hi;
          }
          if (holds) block(s.body);
          break;
        }
      }
    }
  }

  const Program& p_;
  std::vector<std::vector<int64_t>> storage_;
  const Kernel* k_ = nullptr;
  std::vector<int64_t> vars_;
  std::vector<Exact> values_;
  hls::OverflowCounts counts_;
};

}  // namespace

InterpretResult interpret(const Program& program, const std::vector<std::vector<int64_t>>& inputs) {
  if (inputs.size() != program.inputs.size())
    throw_error(ErrorKind::InvalidModel, "program " + program.name,
                "expected " + std::to_string(program.inputs.size()) + " inputs, got " +
                    std::to_string(inputs.size()));
  Interpreter in(program);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Buffer& b = program.buffers.at(static_cast<std::size_t>(program.inputs[i]));
    if (static_cast<int64_t>(inputs[i].size()) != b.numel())
      throw_error(ErrorKind::InvalidModel, "input @" + b.name,
                  "expected " + std::to_string(b.numel()) + " values, got " +
                      std::to_string(inputs[i].size()));
    in.storage(program.inputs[i]) = inputs[i];
  }
  InterpretResult r;
  for (const Kernel& k : program.kernels) r.per_kernel.push_back(in.run(k));
  for (int o : program.outputs) {
    const Buffer& b = program.buffers.at(static_cast<std::size_t>(o));
    hls::FixedTensor t;
    t.type = fixed_of(b.type);
    t.shape = b.shape;
    t.raw = in.storage(o);
    r.outputs.push_back(std::move(t));
  }
  return r;
}

}  // namespace kiln::loop

#include "kiln/loop/loop_ir.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "kiln/support/error.h"

namespace kiln::loop {

const std::vector<int64_t>& ConstData::empty_values() {
  static const std::vector<int64_t> none;
  return none;
}

namespace {

ScalarType from_exact(const numeric::ExactFormat& f) {
  return {f.width, f.frac(), f.is_signed};
}
numeric::ExactFormat exact_of(const ScalarType& t) {
  return {t.width, t.integer(), t.is_signed};
}

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw_error(ErrorKind::InvalidModel, where, what);
}

}  // namespace

ScalarType scalar_of(const FixedType& t) {
  return {t.width, t.frac(), t.is_signed};
}

FixedType fixed_of(const ScalarType& t) {
  KILN_ASSERT(t.width >= 1 && t.width <= 64, "fixed_of: width " + std::to_string(t.width));
  FixedType f;
  f.width = t.width;
  f.integer = t.integer();
  f.is_signed = t.is_signed;
  return f;
}

std::string to_string(const ScalarType& t) {
  return std::string(t.is_signed ? "ap_fixed<" : "ap_ufixed<") + std::to_string(t.width) + "," +
         std::to_string(t.integer()) + ">";
}

ScalarType add_type(const ScalarType& a, const ScalarType& b) {
  return from_exact(numeric::add_format(exact_of(a), exact_of(b)));
}
ScalarType sub_type(const ScalarType& a, const ScalarType& b) {
  return from_exact(numeric::sub_format(exact_of(a), exact_of(b)));
}
ScalarType mul_type(const ScalarType& a, const ScalarType& b) {
  return from_exact(numeric::mul_format(exact_of(a), exact_of(b)));
}
ScalarType neg_type(const ScalarType& a) {
  // -x of a signed W-bit value needs W + 1 bits (-min); of an unsigned one, W + 1 signed bits.
  return {a.width + 1, a.frac, true};
}

ScalarType union_type(const ScalarType& a, const ScalarType& b) {
  const bool is_signed = a.is_signed || b.is_signed;
  // Integer bits as a signed format when either is signed: an unsigned one gains a bit.
  const int ia = a.integer() + (is_signed && !a.is_signed ? 1 : 0);
  const int ib = b.integer() + (is_signed && !b.is_signed ? 1 : 0);
  const int frac = std::max(a.frac, b.frac);
  const int integer = std::max(ia, ib);
  return {std::max(1, integer + frac), frac, is_signed};
}

ScalarType const_type(int64_t raw, int frac) {
  // The fewest bits: unsigned for raw >= 0, else two's complement.
  int width = 1;
  if (raw >= 0) {
    while (width < 64 && (raw >> width) != 0) ++width;
    return {width, frac, false};
  }
  while (width < 64 && (raw >> (width - 1)) != -1) ++width;
  return {width, frac, true};
}

Affine operator+(Affine a, const Affine& b) {
  for (const auto& [loop, c] : b.terms) {
    auto it = std::find_if(a.terms.begin(), a.terms.end(),
                           [&](const auto& t) { return t.first == loop; });
    if (it == a.terms.end())
      a.terms.emplace_back(loop, c);
    else
      it->second += c;
  }
  std::erase_if(a.terms, [](const auto& t) { return t.second == 0; });
  a.constant += b.constant;
  return a;
}
Affine operator+(Affine a, int64_t c) {
  a.constant += c;
  return a;
}
Affine operator*(Affine a, int64_t c) {
  for (auto& t : a.terms) t.second *= c;
  std::erase_if(a.terms, [](const auto& t) { return t.second == 0; });
  a.constant *= c;
  return a;
}

int64_t Buffer::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int Program::find_buffer(const std::string& name) const {
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name) return static_cast<int>(i);
  return -1;
}

int Program::storage_of(int b) const {
  while (buffers.at(static_cast<std::size_t>(b)).alias_of >= 0)
    b = buffers[static_cast<std::size_t>(b)].alias_of;
  return b;
}

int64_t guarded_runs(const Kernel& k, const Stmt& s, int64_t runs,
                     const std::vector<int>& enclosing) {
  std::vector<int> bounded;
  for (const Guard& g : s.guards) {
    if (g.expr.terms.size() != 1 || g.expr.terms[0].second != 1) continue;
    const int l = g.expr.terms[0].first;
    if (std::find(enclosing.begin(), enclosing.end(), l) == enclosing.end() ||
        std::find(bounded.begin(), bounded.end(), l) != bounded.end())
      continue;
    bounded.push_back(l);
    const int64_t trip = k.loops.at(static_cast<std::size_t>(l)).trip;
    const int64_t lo = std::clamp<int64_t>(g.lo - g.expr.constant, 0, trip);
    const int64_t hi = std::clamp<int64_t>(g.hi - g.expr.constant, 0, trip);
    runs = runs / trip * std::max<int64_t>(0, hi - lo);
  }
  return runs;
}

namespace {

int64_t count_ops(const Kernel& k, const std::vector<Stmt>& stmts, int64_t runs,
                  std::vector<int>& enclosing) {
  int64_t n = 0;
  for (const Stmt& s : stmts) {
    if (s.kind == StmtKind::Let) n += runs;
    if (s.kind == StmtKind::For) {
      enclosing.push_back(s.loop);
      n +=
          count_ops(k, s.body, runs * k.loops.at(static_cast<std::size_t>(s.loop)).trip, enclosing);
      enclosing.pop_back();
    }
    if (s.kind == StmtKind::If)
      n += count_ops(k, s.body, guarded_runs(k, s, runs, enclosing), enclosing);
  }
  return n;
}

}  // namespace

int64_t dynamic_ops(const Kernel& k, const std::vector<Stmt>& stmts) {
  std::vector<int> enclosing;
  return count_ops(k, stmts, 1, enclosing);
}

int64_t dynamic_ops(const Kernel& kernel) {
  return dynamic_ops(kernel, kernel.body);
}

ScalarType result_type(const Kernel& kernel, const Program& program, const Value& v,
                       const std::string& where) {
  auto arg = [&](std::size_t i) -> const ScalarType& {
    if (i >= v.args.size())
      fail(where, std::string(enum_name(v.op)) + " needs " + std::to_string(i + 1) + " operands");
    const int a = v.args[i];
    if (a < 0 || static_cast<std::size_t>(a) >= kernel.values.size())
      fail(where, "operand " + std::to_string(i) + " is not a value");
    return kernel.values[static_cast<std::size_t>(a)].type;
  };
  auto arity = [&](std::size_t n) {
    if (v.args.size() != n)
      fail(where, std::string(enum_name(v.op)) + " takes " + std::to_string(n) + " operands, not " +
                      std::to_string(v.args.size()));
  };
  auto buffer = [&]() -> const Buffer& {
    if (v.buffer < 0 || static_cast<std::size_t>(v.buffer) >= program.buffers.size())
      fail(where, std::string(enum_name(v.op)) + " names no buffer");
    return program.buffers[static_cast<std::size_t>(v.buffer)];
  };
  switch (v.op) {
    case Op::Load: arity(0); return buffer().type;
    case Op::Const: arity(0); return v.type;
    case Op::Add: arity(2); return add_type(arg(0), arg(1));
    case Op::Sub: arity(2); return sub_type(arg(0), arg(1));
    case Op::Mul: arity(2); return mul_type(arg(0), arg(1));
    case Op::Neg: arity(1); return neg_type(arg(0));
    case Op::Shl: {
      arity(1);
      ScalarType t = arg(0);
      t.frac -= static_cast<int>(v.imm);
      return t;
    }
    case Op::Quantize: arity(1); return scalar_of(v.target);
    case Op::Max:
    case Op::Min: arity(2); return union_type(arg(0), arg(1));
    case Op::Lt: arity(2); return {1, 0, false};
    case Op::Select: {
      arity(3);
      if (arg(0).width != 1) fail(where, "select's condition must be 1 bit wide");
      return union_type(arg(1), arg(2));
    }
    case Op::Lookup: {
      arity(1);
      const Buffer& t = buffer();
      if (t.role != BufferRole::Const || t.shape.size() != 1)
        fail(where, "lookup table @" + t.name + " must be a 1-D const buffer");
      return t.type;
    }
  }
  fail(where, "unknown op");
}

namespace {

// Walks a kernel checking scopes: values defined before use in an enclosing
// block, loop variables used inside their loops.
class KernelVerifier {
 public:
  KernelVerifier(const Program& p, const Kernel& k) : p_(p), k_(k), where_("kernel " + k.name) {}

  void run() {
    std::set<std::string> loop_names;
    for (const Loop& l : k_.loops) {
      if (l.trip < 1) fail(where_, "loop %" + l.name + " has trip count " + std::to_string(l.trip));
      if (!loop_names.insert(l.name).second) fail(where_, "loop %" + l.name + " is defined twice");
      if (const std::optional<int64_t> u = l.directives.unroll;
          u && (*u < 0 || (*u > 1 && l.trip % *u != 0)))
        fail(where_, "loop %" + l.name + ": unroll factor " + std::to_string(*u) +
                         " does not divide the trip count " + std::to_string(l.trip));
      if (l.directives.pipeline_ii && *l.directives.pipeline_ii < 1)
        fail(where_, "loop %" + l.name + ": pipeline II must be at least 1");
    }
    defined_.assign(k_.values.size(), false);
    loop_seen_.assign(k_.loops.size(), false);
    block(k_.body);
  }

 private:
  void check_buffer(int b, const std::string& what) const {
    if (b < 0 || static_cast<std::size_t>(b) >= p_.buffers.size())
      fail(where_, what + " names no buffer");
  }

  void check_index(const Buffer& b, const std::vector<Affine>& index) const {
    if (index.size() != b.shape.size())
      fail(where_, "@" + b.name + " has " + std::to_string(b.shape.size()) +
                       " dimensions, indexed with " + std::to_string(index.size()));
    for (const Affine& a : index)
      for (const auto& [loop, c] : a.terms) {
        if (loop < 0 || static_cast<std::size_t>(loop) >= k_.loops.size() || !open_.count(loop))
          fail(where_, "@" + b.name + " is indexed by a loop variable outside its loop");
        (void)c;
      }
  }

  void check_affine(const Affine& a) const {
    for (const auto& [loop, c] : a.terms)
      if (loop < 0 || static_cast<std::size_t>(loop) >= k_.loops.size() || !open_.count(loop))
        fail(where_, "a guard uses a loop variable outside its loop");
  }

  void block(const std::vector<Stmt>& stmts) {
    std::vector<int> here;  // values defined in this block, undefined on exit
    for (const Stmt& s : stmts) {
      switch (s.kind) {
        case StmtKind::Let: {
          if (s.value < 0 || static_cast<std::size_t>(s.value) >= k_.values.size())
            fail(where_, "let defines no value");
          if (ever_defined_.count(s.value))
            fail(where_, "value %v" + std::to_string(s.value) + " is defined twice");
          const Value& v = k_.values[static_cast<std::size_t>(s.value)];
          const std::string w = where_ + ": value %v" + std::to_string(s.value);
          for (int a : v.args)
            if (a < 0 || static_cast<std::size_t>(a) >= defined_.size() || !defined_[a])
              fail(w, "uses a value not defined before it in an enclosing block");
          if (v.op == Op::Load) {
            check_buffer(v.buffer, "a load");
            check_index(p_.buffers[static_cast<std::size_t>(v.buffer)], v.index);
          }
          if (v.op == Op::Const && (v.type.width < 1 || v.type.width > 64))
            fail(w, "a constant must be 1 to 64 bits wide");
          const ScalarType t = result_type(k_, p_, v, w);
          if (!(t == v.type))
            fail(w, "has type " + to_string(v.type) + " but " + std::string(enum_name(v.op)) +
                        " gives " + to_string(t));
          defined_[static_cast<std::size_t>(s.value)] = true;
          ever_defined_.insert(s.value);
          here.push_back(s.value);
          break;
        }
        case StmtKind::Store: {
          check_buffer(s.buffer, "a store");
          const Buffer& b = p_.buffers[static_cast<std::size_t>(s.buffer)];
          if (b.role == BufferRole::Const || b.role == BufferRole::Input)
            fail(where_, "stores to @" + b.name + ", which is " + std::string(enum_name(b.role)));
          check_index(b, s.index);
          if (s.value < 0 || static_cast<std::size_t>(s.value) >= defined_.size() ||
              !defined_[static_cast<std::size_t>(s.value)])
            fail(where_, "stores to @" + b.name + " a value not defined before it");
          const ScalarType& t = k_.values[static_cast<std::size_t>(s.value)].type;
          if (!(t == b.type))
            fail(where_, "stores a " + to_string(t) + " value to @" + b.name + " of type " +
                             to_string(b.type) + "; quantize it first");
          break;
        }
        case StmtKind::For: {
          if (s.loop < 0 || static_cast<std::size_t>(s.loop) >= k_.loops.size())
            fail(where_, "for names no loop");
          if (loop_seen_[static_cast<std::size_t>(s.loop)])
            fail(where_,
                 "loop %" + k_.loops[static_cast<std::size_t>(s.loop)].name + " appears twice");
          loop_seen_[static_cast<std::size_t>(s.loop)] = true;
          open_.insert(s.loop);
          block(s.body);
          open_.erase(s.loop);
          break;
        }
        case StmtKind::If: {
          for (const Guard& g : s.guards) check_affine(g.expr);
          block(s.body);
          break;
        }
      }
    }
    for (int v : here) defined_[static_cast<std::size_t>(v)] = false;
  }

  const Program& p_;
  const Kernel& k_;
  std::string where_;
  std::vector<bool> defined_;
  std::set<int> ever_defined_;
  std::vector<bool> loop_seen_;
  std::set<int> open_;
};

}  // namespace

void verify(const Program& program) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    const Buffer& b = program.buffers[i];
    const std::string w = "program " + program.name + ": buffer @" + b.name;
    if (!names.insert(b.name).second) fail(w, "is defined twice");
    if (b.type.width < 1 || b.type.width > 64) fail(w, "must be 1 to 64 bits wide");
    for (int64_t d : b.shape)
      if (d < 1) fail(w, "has a dimension of " + std::to_string(d));
    if (b.role == BufferRole::Const && static_cast<int64_t>(b.data.size()) != b.numel())
      fail(w, "holds " + std::to_string(b.data.size()) + " values for " +
                  std::to_string(b.numel()) + " elements");
    if (b.role != BufferRole::Const && !b.data.empty()) fail(w, "has data but is not const");
    if (b.alias_of >= 0) {
      if (static_cast<std::size_t>(b.alias_of) >= i) fail(w, "aliases a buffer defined after it");
      const Buffer& a = program.buffers[static_cast<std::size_t>(b.alias_of)];
      if (!(a.type == b.type) || a.numel() != b.numel())
        fail(w, "aliases @" + a.name + " but differs in type or element count");
    }
  }
  for (int b : program.inputs)
    if (b < 0 || static_cast<std::size_t>(b) >= program.buffers.size() ||
        program.buffers[static_cast<std::size_t>(b)].role != BufferRole::Input)
      fail("program " + program.name, "an input port is not an input buffer");
  for (int b : program.outputs)
    if (b < 0 || static_cast<std::size_t>(b) >= program.buffers.size())
      fail("program " + program.name, "an output port names no buffer");
  for (const Kernel& k : program.kernels) KernelVerifier(program, k).run();
}

}  // namespace kiln::loop

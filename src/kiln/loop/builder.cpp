#include "kiln/loop/builder.h"

#include <utility>

#include "kiln/support/error.h"

namespace kiln::loop {

int add_buffer(Program& p, std::string name, BufferRole role, ScalarType type,
               std::vector<int64_t> shape, std::vector<int64_t> data) {
  Buffer b;
  b.name = std::move(name);
  b.role = role;
  b.type = type;
  b.shape = std::move(shape);
  b.data = std::move(data);
  p.buffers.push_back(std::move(b));
  return static_cast<int>(p.buffers.size()) - 1;
}

KernelBuilder::KernelBuilder(Program& program, std::string name, std::string onnx_name)
    : program_(program) {
  kernel_.name = std::move(name);
  kernel_.onnx_name = std::move(onnx_name);
  blocks_.push_back(&kernel_.body);
}

void KernelBuilder::loop(const std::string& name, int64_t trip,
                         const std::function<void(const Affine&)>& body) {
  Loop l;
  l.name = name;
  l.trip = trip;
  kernel_.loops.push_back(l);
  const int id = static_cast<int>(kernel_.loops.size()) - 1;
  Stmt s;
  s.kind = StmtKind::For;
  s.loop = id;
  block().push_back(std::move(s));
  // The parent block does not grow while the body is built, so this stays valid.
  blocks_.push_back(&block().back().body);
  body(Affine::var(id));
  blocks_.pop_back();
}

void KernelBuilder::for_each(const std::vector<int64_t>& shape, const std::string& prefix,
                             const std::function<void(const std::vector<Affine>&)>& body) {
  std::vector<Affine> index;
  std::function<void(std::size_t)> nest = [&](std::size_t d) {
    if (d == shape.size()) {
      body(index);
      return;
    }
    loop(prefix + std::to_string(d), shape[d], [&](const Affine& v) {
      index.push_back(v);
      nest(d + 1);
      index.pop_back();
    });
  };
  nest(0);
}

void KernelBuilder::when(const std::vector<Guard>& guards, const std::function<void()>& body) {
  if (guards.empty()) {
    body();
    return;
  }
  Stmt s;
  s.kind = StmtKind::If;
  s.guards = guards;
  block().push_back(std::move(s));
  blocks_.push_back(&block().back().body);
  body();
  blocks_.pop_back();
}

int KernelBuilder::local(const std::string& name, ScalarType type, std::vector<int64_t> shape) {
  const int b = add_buffer(program_, name, BufferRole::Local, type, std::move(shape));
  kernel_.locals.push_back(b);
  return b;
}

int KernelBuilder::define(Value v) {
  v.type = result_type(kernel_, program_, v, "kernel " + kernel_.name);
  kernel_.values.push_back(std::move(v));
  const int id = static_cast<int>(kernel_.values.size()) - 1;
  Stmt s;
  s.kind = StmtKind::Let;
  s.value = id;
  block().push_back(std::move(s));
  return id;
}

int KernelBuilder::load(int buffer, std::vector<Affine> index) {
  Value v;
  v.op = Op::Load;
  v.buffer = buffer;
  v.index = std::move(index);
  return define(std::move(v));
}

int KernelBuilder::constant(int64_t raw, ScalarType type) {
  Value v;
  v.op = Op::Const;
  v.imm = raw;
  v.type = type;
  return define(std::move(v));
}

namespace {
Value op_of(Op op, std::vector<int> args) {
  Value v;
  v.op = op;
  v.args = std::move(args);
  return v;
}
}  // namespace

int KernelBuilder::add(int a, int b) {
  return define(op_of(Op::Add, {a, b}));
}
int KernelBuilder::sub(int a, int b) {
  return define(op_of(Op::Sub, {a, b}));
}
int KernelBuilder::mul(int a, int b) {
  return define(op_of(Op::Mul, {a, b}));
}
int KernelBuilder::neg(int a) {
  return define(op_of(Op::Neg, {a}));
}
int KernelBuilder::shl(int a, int amount) {
  Value v = op_of(Op::Shl, {a});
  v.imm = amount;
  return define(std::move(v));
}
int KernelBuilder::quantize(int a, const FixedType& target) {
  Value v = op_of(Op::Quantize, {a});
  v.target = target;
  return define(std::move(v));
}
int KernelBuilder::convert(int a, const FixedType& target) {
  // Same format: nothing to round or fit, except AP_SAT_SYM, which moves the
  // most negative value to -max.
  const bool exact =
      type(a) == scalar_of(target) && target.overflow != numeric::OverflowMode::SatSym;
  return exact ? a : quantize(a, target);
}
int KernelBuilder::max(int a, int b) {
  return define(op_of(Op::Max, {a, b}));
}
int KernelBuilder::min(int a, int b) {
  return define(op_of(Op::Min, {a, b}));
}
int KernelBuilder::lt(int a, int b) {
  return define(op_of(Op::Lt, {a, b}));
}
int KernelBuilder::select(int c, int a, int b) {
  return define(op_of(Op::Select, {c, a, b}));
}
int KernelBuilder::lookup(int table, int a, int shift, int64_t offset) {
  Value v = op_of(Op::Lookup, {a});
  v.buffer = table;
  v.shift = shift;
  v.imm = offset;
  return define(std::move(v));
}

void KernelBuilder::store(int buffer, std::vector<Affine> index, int value) {
  Stmt s;
  s.kind = StmtKind::Store;
  s.buffer = buffer;
  s.index = std::move(index);
  s.value = value;
  block().push_back(std::move(s));
}

const ScalarType& KernelBuilder::type(int value) const {
  return kernel_.values.at(static_cast<std::size_t>(value)).type;
}

void KernelBuilder::finish(std::vector<int> reads, std::vector<int> writes) {
  KILN_ASSERT(blocks_.size() == 1, "kernel " + kernel_.name + " finished inside a block");
  kernel_.reads = std::move(reads);
  kernel_.writes = std::move(writes);
  program_.kernels.push_back(std::move(kernel_));
}

}  // namespace kiln::loop

// kiln's Loop IR: the layers of a configured HLS model (hls/model.h) as
// affine loop nests over named buffers, with typed fixed-point scalar ops.
//
// It is the common ground of the RTL backend (docs/rtl-design.md): one
// lowering per layer kind writes the emulator's arithmetic, in the emulator's
// order, as loops (lower_layers.h); the interpreter runs it bit-exactly
// (interpret.h); the symbolic unroller turns it into a dataflow graph
// (dfg/). Directives (unroll, pipeline, flatten, partitioning, storage) are
// typed fields (hls/rtl_settings.h): the config writes them, plans (rtl/plan/plan.h)
// read and write them.
//
// Values are SSA: each `Let` statement defines one value, visible in the rest
// of its block and the blocks nested in it. A value's type is exact: add, sub
// and mul widen as ap_fixed does (numeric::add_format ...), so nothing is lost
// until a `quantize`, which rounds and fits with the ap_fixed modes of its
// target. Buffers hold raw values of one type; a store needs a value of
// exactly that type. Loads and stores index every dimension with an affine
// expression of the enclosing loops' variables.
//
// Text form (loop_text.h):
//
//   program "dense_a"
//   buffer @x input ap_fixed<16,6> [8]
//   buffer @w const ap_fixed<16,6> [8x8] = [12, -3, ...]
//   buffer @y output ap_fixed<16,6> [8]
//   kernel Gemm "/Gemm" reads @x @w writes @y {
//     local @acc ap_fixed<32,12> [8]
//     for %j 0..8 {
//       %v0 = load @b[%j] : ap_fixed<16,6>
//       %v1 = quantize %v0 to ap_fixed<32,12> : ap_fixed<32,12>
//       store @acc[%j] = %v1
//     }
//     ...
//   }
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/hls/rtl_settings.h"
#include "kiln/numeric/fixed.h"
#include "kiln/support/enum_table.h"

namespace kiln::loop {

using numeric::FixedType;

// The format of a value: `width` raw bits (two's complement when signed)
// scaled by 2^-frac. Exact intermediates may be wider than 64 bits.
struct ScalarType {
  int width = 1;
  int frac = 0;
  bool is_signed = true;
  int integer() const { return width - frac; }
  bool operator==(const ScalarType&) const = default;
};
ScalarType scalar_of(const FixedType& t);
// The FixedType with this format and the default modes (width <= 64).
FixedType fixed_of(const ScalarType& t);
// "ap_fixed<W,I>" / "ap_ufixed<W,I>".
std::string to_string(const ScalarType& t);

// The formats of exact results, as numeric/fixed.h defines them.
ScalarType add_type(const ScalarType& a, const ScalarType& b);
ScalarType sub_type(const ScalarType& a, const ScalarType& b);
ScalarType mul_type(const ScalarType& a, const ScalarType& b);
ScalarType neg_type(const ScalarType& a);
// The smallest format holding every value of both (select, max, min).
ScalarType union_type(const ScalarType& a, const ScalarType& b);
// The type of a constant: the fewest bits that hold raw at `frac`.
ScalarType const_type(int64_t raw, int frac);

// sum of coefficient * loop variable, plus a constant.
struct Affine {
  std::vector<std::pair<int, int64_t>> terms;  // (loop index in Kernel::loops, coefficient)
  int64_t constant = 0;
  bool operator==(const Affine&) const = default;
  static Affine var(int loop, int64_t coefficient = 1) { return {{{loop, coefficient}}, 0}; }
  static Affine of(int64_t c) { return {{}, c}; }
};
Affine operator+(Affine a, const Affine& b);
Affine operator+(Affine a, int64_t c);
Affine operator*(Affine a, int64_t c);

enum class BufferRole : uint8_t {
  Input,   // a model input: the top's input port
  Output,  // a model output
  Tensor,  // a tensor between layers
  Const,   // weights, biases and tables: `data` holds the raw values
  Local,   // a kernel's own scratch (accumulators, a row's exponentials)
};

// The config's directive types (hls/rtl_settings.h): the config writes them,
// the IR carries them, plans (rtl/plan/plan.h) read and write them.
using Partition = hls::BufferPartition;
using Storage = hls::BufferStorage;
using BufferDirectives = hls::BufferDirectives;
using LoopDirectives = hls::LoopDirectives;

// A Const buffer's raw values, row-major: immutable once lowered and shared
// by every copy of the program (a plan search copies programs per candidate
// and changes directives only, never the weights).
class ConstData {
 public:
  ConstData() = default;
  ConstData(std::vector<int64_t> values)  // NOLINT: implicit, as the vector it wraps
      : values_(std::make_shared<const std::vector<int64_t>>(std::move(values))) {}
  ConstData(std::initializer_list<int64_t> values) : ConstData(std::vector<int64_t>(values)) {}
  std::size_t size() const { return values_ ? values_->size() : 0; }
  bool empty() const { return size() == 0; }
  int64_t operator[](std::size_t i) const { return (*values_)[i]; }
  const std::vector<int64_t>& values() const { return values_ ? *values_ : empty_values(); }
  auto begin() const { return values().begin(); }
  auto end() const { return values().end(); }
  bool operator==(const ConstData& o) const { return values() == o.values(); }

 private:
  static const std::vector<int64_t>& empty_values();
  std::shared_ptr<const std::vector<int64_t>> values_;
};

struct Buffer {
  std::string name;  // unique in the program (kernel locals included)
  BufferRole role = BufferRole::Tensor;
  ScalarType type;
  std::vector<int64_t> shape;
  ConstData data;  // Const: raw values, row-major
  // Another buffer whose storage this one views with its own shape (a
  // Reshape); -1 if none. Same type and element count.
  int alias_of = -1;
  BufferDirectives directives;
  int64_t numel() const;
};

struct Loop {
  std::string name;  // the variable's name, unique in the kernel
  int64_t trip = 0;  // the variable runs 0 .. trip - 1
  LoopDirectives directives;
};

enum class Op : uint8_t {
  Load,      // buffer[index]: the buffer's type
  Const,     // raw value `imm` of `type`
  Add,       // exact a + b
  Sub,       // exact a - b
  Mul,       // exact a * b
  Neg,       // exact -a
  Shl,       // exact a * 2^imm (imm may be negative): the raw bits unchanged
  Quantize,  // a assigned to `target` (rounding, then overflow, with its modes)
  Max,       // exact max(a, b)
  Min,       // exact min(a, b)
  Lt,        // a < b: ap_uint<1>
  Select,    // c ? a : b (c of width 1), exact
  Lookup,    // table[clamp(floor(a * 2^shift) + offset, 0, size - 1)]
};

struct Value {
  Op op = Op::Const;
  ScalarType type;
  std::vector<int> args;      // value indices
  int buffer = -1;            // Load: the buffer; Lookup: the table (a 1-D Const buffer)
  std::vector<Affine> index;  // Load
  int64_t imm = 0;            // Const raw; Shl amount; Lookup offset
  int shift = 0;              // Lookup
  FixedType target;           // Quantize
};

enum class StmtKind : uint8_t { Let, Store, For, If };

// lo <= expr < hi.
struct Guard {
  Affine expr;
  int64_t lo = 0, hi = 0;
  bool operator==(const Guard&) const = default;
};

struct Stmt {
  StmtKind kind = StmtKind::Let;
  int value = -1;             // Let: the value defined; Store: the value stored
  int buffer = -1;            // Store
  std::vector<Affine> index;  // Store
  int loop = -1;              // For
  std::vector<Guard> guards;  // If: all must hold
  std::vector<Stmt> body;     // For, If
};

// One layer: a pipeline stage of the design.
struct Kernel {
  std::string name;       // the layer's name (a sanitized identifier)
  std::string onnx_name;  // for messages
  // A convolution in its streaming, line-buffered form (lower_layers.h
  // line_buffer), not the direct one: one iteration per input pixel.
  bool line_buffered = false;
  std::vector<int> reads, writes;  // program buffers (inputs, tensors, consts; outputs)
  std::vector<int> locals;         // buffers it owns
  std::vector<Loop> loops;
  std::vector<Value> values;
  std::vector<Stmt> body;
};

struct Program {
  std::string name;
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;  // in execution order
  std::vector<int> inputs;      // Input buffers, the model's input order
  std::vector<int> outputs;     // Output buffers, the model's output order

  int find_buffer(const std::string& name) const;  // -1 if none
  // The buffer whose storage `b` uses (itself unless an alias).
  int storage_of(int b) const;
};

// How many values a kernel computes when run: each Let counted once per
// iteration of its enclosing loops, guards ignored except one that bounds an
// enclosing loop's variable to a range (then that share of its iterations:
// the first- and last-iteration guards of sink_nests.h). The symbolic
// unroller bounds designs by it, and the tests use it to tier large models.
int64_t dynamic_ops(const Kernel& kernel);
// The same for statements of the kernel (a loop's body).
int64_t dynamic_ops(const Kernel& kernel, const std::vector<Stmt>& stmts);
// How many times the body of If statement `s` runs when `s` runs `runs`
// times inside the loops `enclosing` (dynamic_ops's rule for guards).
int64_t guarded_runs(const Kernel& kernel, const Stmt& s, int64_t runs,
                     const std::vector<int>& enclosing);

// The result type of a value from its op and operands (throws
// kiln::Error(InvalidModel) with `where` when the operands do not fit the op).
ScalarType result_type(const Kernel& kernel, const Program& program, const Value& v,
                       const std::string& where);

// Checks the program's rules (types, SSA scopes, indices in range of rank,
// stores of matching types, loop variables used inside their loops only,
// aliases); throws kiln::Error(InvalidModel) naming the kernel and rule.
void verify(const Program& program);

}  // namespace kiln::loop

namespace kiln {
template <>
struct EnumNames<loop::BufferRole> {
  static constexpr std::pair<loop::BufferRole, std::string_view> kNames[] = {
      {loop::BufferRole::Input, "input"},
      {loop::BufferRole::Output, "output"},
      {loop::BufferRole::Tensor, "tensor"},
      {loop::BufferRole::Const, "const"},
      {loop::BufferRole::Local, "local"}};
};
template <>
struct EnumNames<loop::Op> {
  static constexpr std::pair<loop::Op, std::string_view> kNames[] = {
      {loop::Op::Load, "load"},    {loop::Op::Const, "const"},
      {loop::Op::Add, "add"},      {loop::Op::Sub, "sub"},
      {loop::Op::Mul, "mul"},      {loop::Op::Neg, "neg"},
      {loop::Op::Shl, "shl"},      {loop::Op::Quantize, "quantize"},
      {loop::Op::Max, "max"},      {loop::Op::Min, "min"},
      {loop::Op::Lt, "lt"},        {loop::Op::Select, "select"},
      {loop::Op::Lookup, "lookup"}};
};
}  // namespace kiln

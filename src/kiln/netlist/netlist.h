// kiln's netlist IR: the hardware a scheduled, bound design is, between the
// schedule and the Verilog text (docs/netlist.md). In the spirit of CIRCT's
// hw/comb/seq dialects and XLS's block IR:
//
//  - a Design is modules and the name of its top;
//  - a Module has typed ports (inputs, outputs), values, tables (constant
//    arrays read by `lookup`), memories (ROM and RAM with their ports, read
//    latency and storage kind) and instances of other modules;
//  - every value is one wire of an exact width (bits, no sign: the operations
//    say how they read them), defined once (SSA) by one operation: an input
//    port, a constant, a combinational operation, a register's output, a
//    memory read port's data, or an instance's output;
//  - one clock drives every register and memory of the design (implicit: the
//    Verilog printer gives each module that needs it a `clk` port); resets
//    are ordinary 1-bit values (synchronous).
//
// Combinational operations compute exactly, modulo 2^width of their result
// (the table in ops.h gives each one's operand and result widths):
//   add, sub, neg             operands and result of one width, modular
//   muls, mulu                a x b with both operands sign- (zero-) extended,
//                             the product's low `width` bits
//   shl, shr, sar (imm k)     shifts by a constant k, the width kept
//   and, or, xor, not         bitwise, one width
//   reduce_or/and/xor         one bit
//   eq, ne, ult, ule, slt, sle  compare two operands of one width: one bit
//   mux                       c ? a : b (c one bit)
//   case                      the value whose key equals the selector, else
//                             the default (keys are constants of the
//                             selector's width, distinct)
//   concat                    operands most significant first
//   slice (imm lsb)           `width` bits of the operand from bit lsb
//   sext, zext                widened to `width`
//   lookup                    entry `index` of a table (0 past its end)
//
// Registers: reg(d, en, rst) loads, at each clock edge, its reset value when
// rst is 1, else d when en is 1 (no en: every edge). A register's operands
// may be values defined after it (the only forward references besides
// output drivers and instance connections). Memories: a read port with
// latency 0 gives mem[addr] in the same cycle; with latency 1 its data is a
// register that loads mem[addr] at the edge (before any write of that edge:
// a read in the cycle of a write to its address sees the old word). A write
// port stores data at addr at the edge when en is 1. Addresses past the
// depth read 0 and write nothing.
//
// Building never checks: verify() (verify.h) does, and throws naming the
// module, the value and the rule.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/netlist/bits.h"
#include "kiln/netlist/ops.h"

namespace kiln::netlist {

using ValueId = uint32_t;
inline constexpr ValueId kNoValue = UINT32_MAX;

// One wire: the operation that drives it. Operands, constants and case keys
// live in the module's pools (Module::args, ...), so a value is small.
struct Value {
  Op op = Op::Const;
  int width = 1;
  uint32_t first_arg = 0;  // into Module's operand pool
  uint32_t num_args = 0;
  // Per op (ops.h): Const: index into Module::constants; Shl/Shr/Sar: the
  // amount; Slice: the lsb; Lookup: the table; Reg: index into
  // Module::registers; Read: index into Module::reads; Input: the port;
  // InstanceOutput: index into Module::instance_outputs; Case: index into
  // Module::cases.
  int64_t imm = 0;
  std::string name;  // a Verilog identifier, unique in the module
};

enum class PortDirection : uint8_t { In, Out };

struct Port {
  std::string name;
  PortDirection direction = PortDirection::In;
  int width = 1;
  // In: the Input value; Out: its driver (kNoValue until drive_output()).
  ValueId value = kNoValue;
};

// A register's reset value (used when its rst operand is 1).
struct Register {
  Bits reset;
};

// A constant array that `lookup` reads (every read its own copy in
// hardware: a ROM with one read port).
struct Table {
  std::string name;
  int width = 1;
  std::vector<Bits> entries;
};

enum class MemoryKind : uint8_t { Rom, Ram };
// Where a memory goes: as synthesis decides, distributed RAM (LUTs), block
// RAM, or flip-flops.
enum class Storage : uint8_t { Auto, Lutram, Bram, Registers };

struct Memory {
  std::string name;
  MemoryKind kind = MemoryKind::Ram;
  Storage storage = Storage::Auto;
  int width = 1;
  int64_t depth = 1;
  int read_latency = 1;    // 0: combinational read, 1: registered
  int read_ports = 1;      // declared; verify() counts the Read values and writes against them
  int write_ports = 1;     // 0 for a ROM
  std::vector<Bits> init;  // a ROM's words (at most depth; the rest 0); a RAM's: empty
};

// A read port's data: Value op Read, operands addr (and en, when the read
// is registered and loads only when en is 1).
struct Read {
  int memory = -1;
  int port = 0;  // 0 .. read_ports - 1
};

struct Write {
  int memory = -1;
  int port = 0;                                             // 0 .. write_ports - 1
  ValueId addr = kNoValue, data = kNoValue, en = kNoValue;  // en kNoValue: every edge
};

struct Instance {
  std::string name;    // a Verilog identifier, unique in the module
  std::string module;  // the instantiated module's name
  // Input port name -> the value connected to it.
  std::vector<std::pair<std::string, ValueId>> inputs;
};

// Value op InstanceOutput: `port` of instance `instance`.
struct InstanceOutput {
  int instance = -1;
  std::string port;
};

// A case's keys (constants of the selector's width), one per operand after
// the selector and before the default: operands are sel, v0 .. v(n-1), default.
struct CaseKeys {
  std::vector<Bits> keys;
};

class Module {
 public:
  explicit Module(std::string name = "", std::string doc = "")
      : name_(std::move(name)), doc_(std::move(doc)) {}

  // ---- ports ----
  ValueId input(std::string name, int width);
  // Declares output port `name` of `width` bits (in port order), undriven.
  int output(std::string name, int width);
  void drive_output(int port, ValueId value);
  // Declares and drives it in one step.
  int output(std::string name, ValueId value);

  // ---- values (an empty name: kiln picks a unique one, v<id>) ----
  ValueId constant(const Bits& value, std::string name = "");
  ValueId constant(int64_t value, int width, std::string name = "");
  ValueId op(Op op, int width, std::initializer_list<ValueId> args, int64_t imm = 0,
             std::string name = "");
  ValueId op(Op op, int width, std::span<const ValueId> args, int64_t imm = 0,
             std::string name = "");
  // Conveniences over op().
  ValueId add(ValueId a, ValueId b, std::string name = "");
  ValueId sub(ValueId a, ValueId b, std::string name = "");
  ValueId slice(ValueId a, int lsb, int width, std::string name = "");
  ValueId concat(std::span<const ValueId> msb_first, std::string name = "");
  ValueId sext(ValueId a, int width, std::string name = "");
  ValueId zext(ValueId a, int width, std::string name = "");
  ValueId mux(ValueId c, ValueId a, ValueId b, std::string name = "");
  ValueId case_of(ValueId selector, std::span<const std::pair<Bits, ValueId>> cases,
                  ValueId otherwise, std::string name = "");
  // A case's keys on their own, for op(Op::Case, ...) (the parser): returns
  // the index the op's imm names.
  int case_keys(CaseKeys keys);
  int table(Table t);
  ValueId lookup(int table, ValueId index, std::string name = "");

  // ---- state ----
  // A register of `width` bits (its operands set by drive_register, which
  // may come after the values that read it).
  ValueId reg(int width, std::string name = "", std::optional<Bits> reset = std::nullopt);
  void drive_register(ValueId reg, ValueId d, ValueId en = kNoValue, ValueId rst = kNoValue);
  int memory(Memory m);
  ValueId read(int memory, int port, ValueId addr, ValueId en = kNoValue, std::string name = "");
  void write(int memory, int port, ValueId addr, ValueId data, ValueId en = kNoValue);

  // ---- hierarchy ----
  int instance(std::string name, std::string module);
  void connect(int instance, std::string port, ValueId value);
  ValueId instance_output(int instance, std::string port, int width, std::string name = "");

  // ---- reading ----
  const std::string& name() const { return name_; }
  const std::string& doc() const { return doc_; }
  void set_doc(std::string doc) { doc_ = std::move(doc); }
  std::size_t size() const { return values_.size(); }
  const Value& value(ValueId v) const { return values_[v]; }
  std::span<const ValueId> args(ValueId v) const {
    return {args_.data() + values_[v].first_arg, values_[v].num_args};
  }
  int width(ValueId v) const { return values_[v].width; }
  const Bits& constant_of(ValueId v) const;  // op Const
  const std::vector<Port>& ports() const { return ports_; }
  const std::vector<Register>& registers() const { return registers_; }
  const std::vector<Table>& tables() const { return tables_; }
  const std::vector<Memory>& memories() const { return memories_; }
  const std::vector<Read>& reads() const { return reads_; }
  const std::vector<Write>& writes() const { return writes_; }
  const std::vector<Instance>& instances() const { return instances_; }
  const std::vector<InstanceOutput>& instance_outputs() const { return instance_outputs_; }
  const std::vector<CaseKeys>& cases() const { return cases_; }
  // The port named `name`, or -1.
  int find_port(std::string_view name) const;

 private:
  // (The representation is the implementer's; the pools below are one way.)
  std::string name_, doc_;
  std::vector<Port> ports_;
  std::vector<Value> values_;
  std::vector<ValueId> args_;
  std::vector<Bits> constants_;
  std::vector<Register> registers_;
  std::vector<Table> tables_;
  std::vector<Memory> memories_;
  std::vector<Read> reads_;
  std::vector<Write> writes_;
  std::vector<Instance> instances_;
  std::vector<InstanceOutput> instance_outputs_;
  std::vector<CaseKeys> cases_;
  // Numbers k of explicit names "v<k>", which auto names avoid: a bitmap
  // (k < 2^24) and the rare larger ones.
  std::vector<bool> explicit_v_;
  std::vector<uint32_t> explicit_v_large_;

  ValueId add_value(Op op, int width, std::span<const ValueId> args, int64_t imm, std::string name);
};

struct Design {
  std::string top;
  std::vector<Module> modules;  // each module before the modules that instantiate it
  const Module* find(std::string_view name) const;
  Module* find(std::string_view name);
};

}  // namespace kiln::netlist

namespace kiln {
template <>
struct EnumNames<netlist::MemoryKind> {
  static constexpr std::pair<netlist::MemoryKind, std::string_view> kNames[] = {
      {netlist::MemoryKind::Rom, "rom"},
      {netlist::MemoryKind::Ram, "ram"},
  };
};
template <>
struct EnumNames<netlist::Storage> {
  static constexpr std::pair<netlist::Storage, std::string_view> kNames[] = {
      {netlist::Storage::Auto, "auto"},
      {netlist::Storage::Lutram, "lutram"},
      {netlist::Storage::Bram, "bram"},
      {netlist::Storage::Registers, "registers"},
  };
};
template <>
struct EnumNames<netlist::PortDirection> {
  static constexpr std::pair<netlist::PortDirection, std::string_view> kNames[] = {
      {netlist::PortDirection::In, "input"},
      {netlist::PortDirection::Out, "output"},
  };
};
}  // namespace kiln

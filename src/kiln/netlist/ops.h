// The netlist's operations: one row each (name in the text, operands,
// result width rule), which verify, the printers, the parser and the
// interpreter all read. The enum is the interface the RTL builders use.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "kiln/support/enum_table.h"

namespace kiln::netlist {

// clang-format off
enum class Op : uint8_t {
  Input, Const,
  Add, Sub, Neg, MulS, MulU,
  Shl, Shr, Sar,
  And, Or, Xor, Not,
  ReduceOr, ReduceAnd, ReduceXor,
  Eq, Ne, Ult, Ule, Slt, Sle,
  Mux, Case, Concat, Slice, Sext, Zext,
  Lookup, Reg, Read, InstanceOutput,
};
// clang-format on
inline constexpr std::size_t kNumOps = static_cast<std::size_t>(Op::InstanceOutput) + 1;

// How an operation's operand and result widths relate (verify checks them).
enum class WidthRule : uint8_t {
  Declared,  // no operands to check here: input, const, instance_output (their own rules)
  Same,      // operands and result of one width: add sub neg and or xor not
  Product,   // operands of any widths: muls mulu
  Shift,     // one operand of the result's width; imm the amount, >= 0
  Reduce,    // one operand of any width, one-bit result
  Compare,   // two operands of one width, one-bit result
  Mux,       // c one bit; a, b and the result one width
  Case,      // the selector any width; the choices and the default the result's
  Concat,    // the result's width is the sum of the operands'
  Slice,     // imm = lsb; lsb + width within the operand
  Extend,    // the result at least as wide as the operand
  Lookup,    // index any width; the result the table's width
  Reg,       // d of the result's width; en and rst one bit (optional)
  Read,      // addr any width (enough for the depth); en one bit (optional); the memory's width
};

// What Value::imm holds for an op.
enum class Imm : uint8_t { None, Constant, Amount, Lsb, Table, Register, Read, Port, Output, Case };

struct OpInfo {
  int min_args = 0;
  int max_args = 0;  // -1: any number
  // Operand slots from this one on may be kNoValue (reg's en and rst,
  // read's en): they are stored, and absent ones are kNoValue.
  int optional_from = -1;
  bool combinational = false;  // evaluated within the cycle (reads: by latency)
  WidthRule rule = WidthRule::Declared;
  Imm imm = Imm::None;
};

inline constexpr auto kOpInfo = make_enum_table<Op, kNumOps, OpInfo>({
    {{Op::Input}, {0, 0, -1, false, WidthRule::Declared, Imm::Port}},
    {{Op::Const}, {0, 0, -1, false, WidthRule::Declared, Imm::Constant}},
    {{Op::Add, Op::Sub, Op::And, Op::Or, Op::Xor}, {2, 2, -1, true, WidthRule::Same, Imm::None}},
    {{Op::Neg, Op::Not}, {1, 1, -1, true, WidthRule::Same, Imm::None}},
    {{Op::MulS, Op::MulU}, {2, 2, -1, true, WidthRule::Product, Imm::None}},
    {{Op::Shl, Op::Shr, Op::Sar}, {1, 1, -1, true, WidthRule::Shift, Imm::Amount}},
    {{Op::ReduceOr, Op::ReduceAnd, Op::ReduceXor}, {1, 1, -1, true, WidthRule::Reduce, Imm::None}},
    {{Op::Eq, Op::Ne, Op::Ult, Op::Ule, Op::Slt, Op::Sle},
     {2, 2, -1, true, WidthRule::Compare, Imm::None}},
    {{Op::Mux}, {3, 3, -1, true, WidthRule::Mux, Imm::None}},
    {{Op::Case}, {2, -1, -1, true, WidthRule::Case, Imm::Case}},
    {{Op::Concat}, {1, -1, -1, true, WidthRule::Concat, Imm::None}},
    {{Op::Slice}, {1, 1, -1, true, WidthRule::Slice, Imm::Lsb}},
    {{Op::Sext, Op::Zext}, {1, 1, -1, true, WidthRule::Extend, Imm::None}},
    {{Op::Lookup}, {1, 1, -1, true, WidthRule::Lookup, Imm::Table}},
    {{Op::Reg}, {3, 3, 1, false, WidthRule::Reg, Imm::Register}},
    {{Op::Read}, {2, 2, 1, false, WidthRule::Read, Imm::Read}},
    {{Op::InstanceOutput}, {0, 0, -1, false, WidthRule::Declared, Imm::Output}},
});

inline const OpInfo& op_info(Op op) {
  return kOpInfo[op];
}

// The op's text mnemonic (EnumNames<Op>), and back; by array and by hash,
// for the printer's and the parser's inner loops.
std::string_view op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);

}  // namespace kiln::netlist

namespace kiln {
template <>
struct EnumNames<netlist::Op> {
  using O = netlist::Op;
  static constexpr std::pair<O, std::string_view> kNames[] = {
      {O::Input, "input"},
      {O::Const, "const"},
      {O::Add, "add"},
      {O::Sub, "sub"},
      {O::Neg, "neg"},
      {O::MulS, "muls"},
      {O::MulU, "mulu"},
      {O::Shl, "shl"},
      {O::Shr, "shr"},
      {O::Sar, "sar"},
      {O::And, "and"},
      {O::Or, "or"},
      {O::Xor, "xor"},
      {O::Not, "not"},
      {O::ReduceOr, "reduce_or"},
      {O::ReduceAnd, "reduce_and"},
      {O::ReduceXor, "reduce_xor"},
      {O::Eq, "eq"},
      {O::Ne, "ne"},
      {O::Ult, "ult"},
      {O::Ule, "ule"},
      {O::Slt, "slt"},
      {O::Sle, "sle"},
      {O::Mux, "mux"},
      {O::Case, "case"},
      {O::Concat, "concat"},
      {O::Slice, "slice"},
      {O::Sext, "sext"},
      {O::Zext, "zext"},
      {O::Lookup, "lookup"},
      {O::Reg, "reg"},
      {O::Read, "read"},
      {O::InstanceOutput, "instance_output"},
  };
};
}  // namespace kiln

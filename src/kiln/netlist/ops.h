// The netlist's operations: one row each (name in the text, operands,
// result width rule). To be completed by the implementation: the enum below
// is the interface the RTL builders use.
#pragma once

#include <cstdint>

namespace kiln::netlist {

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

}  // namespace kiln::netlist

// Fixed-point values as netlist operations (private to rtl/): constants, the
// alignment of a raw value to another width and binary point, floors,
// comparisons with constants. What the stage builders write their arithmetic
// with; they never write Verilog text (netlist/verilog.h prints it).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "kiln/loop/loop_ir.h"
#include "kiln/netlist/netlist.h"

namespace kiln::rtl {

using netlist::ValueId;

class FixedValues {
 public:
  explicit FixedValues(netlist::Module& m) : m_(m) {}
  netlist::Module& module() { return m_; }

  // The low `width` bits of v's two's complement (sign-extended past 128
  // bits); one value per (width, bits) in the module.
  ValueId lit(numeric::int128 v, int width);
  // A constant of `type` (raw) as `width` bits at `frac` fraction bits; it
  // must be exact there.
  ValueId aligned_literal(int64_t raw, const loop::ScalarType& type, int width, int frac);
  // `v` (of `from`) as `width` bits at `frac` fraction bits: shifted left by
  // frac - from.frac (>= 0), sign- or zero-extended, or cut to its low bits
  // (modular contexts).
  ValueId align(ValueId v, const loop::ScalarType& from, int width, int frac);
  // floor(x / 2^d) for d > 0 (an arithmetic shift of x of type t), as `width`
  // bits (signed when t is).
  ValueId floor_bits(ValueId x, const loop::ScalarType& t, int d, int width);

  ValueId bit(ValueId v, int i) { return m_.slice(v, i, 1); }
  // Bits [0, width) of v, zero-extended when v is narrower.
  ValueId low(ValueId v, int width);
  ValueId shl(ValueId v, int k);  // v << k, v's width kept
  ValueId eq(ValueId v, int64_t c);
  ValueId ne(ValueId v, int64_t c);
  ValueId op2(netlist::Op op, ValueId a, ValueId b);  // one width, or 1 bit for comparisons
  ValueId and2(ValueId a, ValueId b) { return op2(netlist::Op::And, a, b); }
  ValueId or2(ValueId a, ValueId b) { return op2(netlist::Op::Or, a, b); }
  ValueId not1(ValueId a);
  // The OR of 1-bit values (0 for none).
  ValueId any(const std::vector<ValueId>& bits);
  // cases[k] (k a constant of the selector's width) by `selector`, else
  // `otherwise`; the one value when there is one case and no otherwise.
  ValueId select(ValueId selector, const std::vector<std::pair<int64_t, ValueId>>& cases,
                 ValueId otherwise);
  // sum of c * variable over `terms` (variable, c) + `constant` + `extra`
  // (if not kNoValue), each operand `bits` wide (variables zero-extended or
  // cut), modulo 2^bits; products by constants as shifts and adds (a `*` by a
  // constant is one Yosys may map to a DSP slice).
  ValueId modular_sum(int bits, int64_t constant,
                      const std::vector<std::pair<ValueId, int64_t>>& terms,
                      ValueId extra = netlist::kNoValue);

 private:
  netlist::Module& m_;
  std::map<std::pair<int, std::vector<uint64_t>>, ValueId> constants_;
};

// The bits of a signed 128-bit value as `width` bits (sign-extended).
netlist::Bits bits_of(numeric::int128 v, int width);

}  // namespace kiln::rtl

// Latency, delay and area of the operators kiln's dataflow graphs use, on
// the FPGA families kiln targets. One table of per-family numbers
// (operator_library.cpp) and one formula per operator kind; which numbers
// are vendor facts and which are kiln's estimates is documented there and in
// docs/operator-library.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/fpga/family.h"
#include "kiln/fpga/resources.h"
#include "kiln/sched/problem.h"
#include "kiln/support/enum_table.h"

namespace kiln::sched {

enum class OperatorKind : uint8_t {
  Add,        // w-bit two's complement add (carry chain)
  Sub,        // w-bit subtract (carry chain)
  Mul,        // variable x variable in DSP slices
  FabricMul,  // variable x variable in LUTs: partial products added (MultiplierLimit 0)
  ConstMul,   // variable x constant as shifts and adds in LUTs
  Compare,    // w-bit comparison (carry chain), 1-bit result
  Mux,        // N:1 select of w bits
  MaxMin,     // compare + 2:1 mux
  SignMask,   // max or min against 0 (a ReLU): each result bit gated by the sign, no comparison
  Round,      // an add of the rounding increment
  Saturate,   // compare against the range + 2:1 mux
  Rom,        // a table of N entries x w bits in LUTs
  BlockRom,   // the same table in block RAM, its read registered
  Ram,        // N entries x w bits written and read (one port each), in LUTs, its read registered
  BlockRam,   // the same memory in block RAM
  Shift,      // constant shift: wiring, free
  Register,   // w flip-flops
};

// What the cost depends on besides the kind.
struct OperatorShape {
  int width = 1;        // result bits (Mul, FabricMul: the first operand's bits)
  int other_width = 0;  // Mul, FabricMul: the second operand's bits (0 = same as width)
  int count = 0;        // Mux: inputs; ConstMul: non-zero CSD digits; Rom: entries
  int stages = 0;       // Mul: pipeline registers in the DSP, 0..3 (the latency)
};

struct OperatorCost {
  int latency = 0;      // cycles
  double delay_ns = 0;  // combinational delay (before the first register when latency >= 1)
  fpga::Resources resources;
};

OperatorCost operator_cost(OperatorKind kind, const OperatorShape& shape, fpga::Family family);

// The one formula per resource that kiln's estimates share (the HLS
// estimator's too, estimate/estimate.h):
//
// DSP slices for a wa x wb signed product: one when it fits the slice's
// A x B multiplier (27x18 on DSP48E2, 25x18 on DSP48E1), either way round;
// else the partial products of unsigned (A-1)- and (B-1)-bit chunks,
// operands swapped if that needs fewer.
int dsp_count(int wa, int wb, fpga::Family family);
// LUTs per bit of an n:1 multiplexer (0.5 for 2:1: two bits share a LUT6).
double mux_luts(int64_t n);
// RAMB18 blocks for `depth` words of `width` bits (0 for an empty memory).
int64_t bram18_count(int64_t width, int64_t depth);
// SRLC32E LUTs for a shift register or FIFO of `depth` words of `width` bits.
int64_t srl_luts(int64_t width, int64_t depth);

// Non-zero digits of the canonical signed digit form of `c` (the adders a
// ConstMul needs + 1): 7 = 8 - 1 has 2, 0 has 0.
int csd_nonzero_digits(int64_t c);
// Those digits, (digit +-1, position) from the least significant: c = sum of
// digit * 2^position, no two positions adjacent; empty for 0.
std::vector<std::pair<int, int>> csd_digits(int64_t c);

// Whether Yosys puts a table of `entries` x `width` bits whose read is
// registered into block RAM (OperatorKind::BlockRom) rather than LUTs.
bool rom_in_block_ram(int entries, int width);

// A scheduling operator type with the cost's latency and delay.
inline OperatorType operator_type(std::string name, const OperatorCost& cost,
                                  std::optional<int> limit = std::nullopt) {
  return {std::move(name), cost.latency, cost.delay_ns, limit};
}

}  // namespace kiln::sched

namespace kiln {
template <>
struct EnumNames<sched::OperatorKind> {
  static constexpr std::pair<sched::OperatorKind, std::string_view> kNames[] = {
      {sched::OperatorKind::Add, "add"},
      {sched::OperatorKind::Sub, "sub"},
      {sched::OperatorKind::Mul, "mul"},
      {sched::OperatorKind::ConstMul, "const_mul"},
      {sched::OperatorKind::FabricMul, "fabric_mul"},
      {sched::OperatorKind::Compare, "compare"},
      {sched::OperatorKind::Mux, "mux"},
      {sched::OperatorKind::MaxMin, "max_min"},
      {sched::OperatorKind::SignMask, "sign_mask"},
      {sched::OperatorKind::Round, "round"},
      {sched::OperatorKind::Saturate, "saturate"},
      {sched::OperatorKind::Rom, "rom"},
      {sched::OperatorKind::BlockRom, "block_rom"},
      {sched::OperatorKind::Ram, "ram"},
      {sched::OperatorKind::BlockRam, "block_ram"},
      {sched::OperatorKind::Shift, "shift"},
      {sched::OperatorKind::Register, "register"},
  };
};
}  // namespace kiln

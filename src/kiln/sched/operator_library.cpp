#include "kiln/sched/operator_library.h"

#include <algorithm>
#include <cmath>

#include "kiln/support/error.h"

namespace kiln::sched {

namespace {

// Everything the formulas below know about a family, in one place so the
// estimates can be calibrated against Yosys and Vivado reports later.
struct FamilyFacts {
  // Facts from the vendor user guides.
  int carry_bits;  // bits per carry block: CARRY8 on UltraScale+ (UG574), CARRY4 on 7-series
                   // (UG474)
  int dsp_a_bits;  // multiplier of one DSP slice: 27x18 on DSP48E2 (UG579), 25x18 on DSP48E1
                   // (UG479)
  int dsp_b_bits;
  // kiln's estimates, not taken from a data sheet: a speed grade -2
  // UltraScale+ and -1 7-series guess, including typical routing. To be
  // replaced by numbers fitted to timing reports (DS923 for Virtex
  // UltraScale+ and the 7-series data sheets give the primitives' switching
  // characteristics; the nets come on top).
  double lut_ns;          // one LUT level with its net
  double carry_in_ns;     // into a carry chain
  double carry_block_ns;  // each further carry block
  double f7_ns, f8_ns;    // the wide-function muxes after a LUT6
  double dsp_ns;          // one unregistered DSP multiply, inputs to output
  double dsp_cascade_ns;  // each further slice of a multi-slice product
  double dsp_input_ns;    // routing to a DSP's input registers
};

constexpr auto kFamilies = make_enum_table<fpga::Family, 3, FamilyFacts>({
    {{fpga::Family::UltraScalePlus}, {8, 27, 18, 0.35, 0.25, 0.06, 0.10, 0.10, 2.4, 1.0, 0.6}},
    // Kintex UltraScale: the same CLB (CARRY8) and DSP48E2 as UltraScale+ on a
    // slower process (DS892 against DS923); kiln's guess, not a measurement.
    {{fpga::Family::UltraScale}, {8, 27, 18, 0.42, 0.30, 0.08, 0.12, 0.12, 2.8, 1.2, 0.7}},
    {{fpga::Family::Series7}, {4, 25, 18, 0.55, 0.40, 0.12, 0.25, 0.25, 3.6, 1.5, 0.9}},
});

// Measured with Yosys 0.23 (Debian 12) synth_xilinx on registered reads of
// case-statement tables: 512x17 and 1024x9 became RAMB18E2, 512x16 and 2048x4
// (8,192 bits) LUTs. memory_libmap weighs its costs; this is where they cross.
constexpr int64_t kBlockRomMinBits = 8192 + 1;

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// Levels of LUT6-as-4:1-mux needed to select one of n (0 for n <= 1).
int mux4_levels(int n) {
  int levels = 0;
  for (int reach = 1; reach < n; reach *= 4) ++levels;
  return levels;
}

double carry_chain_ns(const FamilyFacts& f, int width) {
  return f.lut_ns + f.carry_in_ns + ceil_div(width, f.carry_bits) * f.carry_block_ns;
}

// An adder, subtractor or comparator: one LUT per bit into the carry chain.
OperatorCost carry_chain(const FamilyFacts& f, int width) {
  OperatorCost c;
  c.delay_ns = carry_chain_ns(f, width);
  c.resources.lut = width;
  c.resources.carry = ceil_div(width, f.carry_bits);
  return c;
}

[[noreturn]] void bad_shape(OperatorKind kind, const std::string& what) {
  throw_error(ErrorKind::InvalidModel, "operator " + std::string(enum_name(kind)), what);
}

}  // namespace

int dsp_count(int wa, int wb, fpga::Family family) {
  const FamilyFacts& f = kFamilies[family];
  if ((wa <= f.dsp_a_bits && wb <= f.dsp_b_bits) || (wb <= f.dsp_a_bits && wa <= f.dsp_b_bits))
    return 1;
  // Wider products are summed from partial products: each operand split into
  // unsigned chunks of a port's width less its sign bit, the sign in the top
  // chunk (so a w-bit operand takes ceil((w - 1) / (port - 1)) chunks).
  auto chunks = [](int w, int port) { return ceil_div(std::max(w - 1, 1), port - 1); };
  return std::min(chunks(wa, f.dsp_a_bits) * chunks(wb, f.dsp_b_bits),
                  chunks(wb, f.dsp_a_bits) * chunks(wa, f.dsp_b_bits));
}

double mux_luts(int64_t n) {
  if (n <= 1) return 0;
  // Two bits of a 2:1 mux share one LUT6 (its two outputs over five shared
  // inputs).
  if (n == 2) return 0.5;
  // A LUT6 is a 4:1 mux of one bit; a CLB's MUXF7/F8/F9 join 2/4/8 of them
  // into an 8:1/16:1/32:1 mux at no LUT cost (UG574 "Multiplexers"); wider
  // ones are a tree of those.
  constexpr int64_t kPerLut = 4, kPerClb = 32;
  const int64_t luts = (n + kPerLut - 1) / kPerLut;
  if (n <= kPerClb) return static_cast<double>(luts);
  return static_cast<double>(luts) + mux_luts((n + kPerClb - 1) / kPerClb);
}

int64_t bram18_count(int64_t width, int64_t depth) {
  if (width <= 0 || depth <= 0) return 0;
  // The RAMB18's aspect ratios (UG573): the narrowest word that holds the
  // depth, as many blocks side by side as the width needs.
  struct Mode {
    int64_t depth, width;
  };
  static constexpr Mode kModes[] = {{512, 36}, {1024, 18}, {2048, 9},
                                    {4096, 4}, {8192, 2},  {16384, 1}};
  for (const Mode& m : kModes)
    if (depth <= m.depth) return (width + m.width - 1) / m.width;
  return width * ((depth + 16383) / 16384);
}

int64_t srl_luts(int64_t width, int64_t depth) {
  if (width <= 0 || depth <= 0) return 0;
  return width * ((depth + 31) / 32);  // one SRLC32E per bit per 32 stages
}

std::vector<std::pair<int, int>> csd_digits(int64_t c) {
  // Non-adjacent form of |c|: a run of ones ...0111 becomes 100(-1); the
  // signs flip for c < 0 (unsigned, so the most negative c has a magnitude).
  uint64_t m = c < 0 ? uint64_t{0} - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
  const int sign = c < 0 ? -1 : 1;
  std::vector<std::pair<int, int>> digits;
  for (int i = 0; m != 0; m >>= 1, ++i) {
    if (m & 1) {
      const bool minus = (m & 3) == 3;
      digits.emplace_back(minus ? -sign : sign, i);
      if (minus)
        m += 1;
      else
        m -= 1;
    }
  }
  return digits;
}

int csd_nonzero_digits(int64_t c) {
  // csd_digits' walk, counted without the list (every constant product's cost asks).
  uint64_t m = c < 0 ? uint64_t{0} - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
  int n = 0;
  for (; m != 0; m >>= 1) {
    if (m & 1) {
      ++n;
      if ((m & 3) == 3)
        m += 1;
      else
        m -= 1;
    }
  }
  return n;
}

OperatorCost operator_cost(OperatorKind kind, const OperatorShape& shape, fpga::Family family) {
  const FamilyFacts& f = kFamilies[family];
  const int w = shape.width;
  if (w < 1) bad_shape(kind, "width " + std::to_string(w) + " is below 1");
  OperatorCost c;
  switch (kind) {
    case OperatorKind::Add:
    case OperatorKind::Sub:
    case OperatorKind::Compare:
    case OperatorKind::Round:  // the rounding increment added to the kept bits
      return carry_chain(f, w);
    case OperatorKind::SignMask:  // a LUT per bit: the bit and the sign (max) or its inverse (min)
      c.resources.lut = w;
      c.delay_ns = f.lut_ns;
      return c;
    case OperatorKind::MaxMin:
    case OperatorKind::Saturate: {  // compare, then a 2:1 mux of the result bits
      c = carry_chain(f, w);
      c.resources.lut += w * mux_luts(2);
      c.delay_ns += f.lut_ns;
      return c;
    }
    case OperatorKind::Mul: {
      const int wb = shape.other_width > 0 ? shape.other_width : w;
      if (shape.stages < 0 || shape.stages > 3)
        bad_shape(kind, "pipeline stages " + std::to_string(shape.stages) + " outside 0..3");
      const int dsps = dsp_count(w, wb, family);
      c.resources.dsp = dsps;
      c.latency = shape.stages;
      // Multi-slice products are summed through the DSP cascade, no LUTs
      // (kiln's assumption; Yosys may use fabric adders instead).
      if (shape.stages == 0)
        c.delay_ns = f.dsp_ns + (dsps - 1) * f.dsp_cascade_ns;
      else if (shape.stages == 1)  // the multiplier's own register only
        c.delay_ns = f.dsp_ns;
      else  // input registers: only the routing to them
        c.delay_ns = f.dsp_input_ns;
      return c;
    }
    case OperatorKind::FabricMul: {
      // One row per bit of the second operand, its AND folded into the
      // adder's LUT: wa x wb LUTs, the rows added as a balanced tree.
      const int wb = shape.other_width > 0 ? shape.other_width : w;
      c.resources.lut = static_cast<double>(w) * wb;
      c.resources.carry = (wb - 1) * ceil_div(w + wb, f.carry_bits);
      c.delay_ns = f.lut_ns + std::ceil(std::log2(std::max(wb, 2))) * carry_chain_ns(f, w + wb);
      return c;
    }
    case OperatorKind::ConstMul: {
      // Shift-and-add: count non-zero CSD digits need count - 1 adders, as
      // a balanced tree. One digit is a shift (its sign goes to the consumer).
      const int digits = shape.count;
      if (digits < 0) bad_shape(kind, "negative digit count " + std::to_string(digits));
      if (digits <= 1) return c;
      const int adders = digits - 1;
      c.resources.lut = adders * w;
      c.resources.carry = adders * ceil_div(w, f.carry_bits);
      c.delay_ns = std::ceil(std::log2(digits)) * carry_chain_ns(f, w);
      return c;
    }
    case OperatorKind::Mux: {
      if (shape.count < 2)
        bad_shape(kind, "a mux needs 2 or more inputs, got " + std::to_string(shape.count));
      c.resources.lut = w * mux_luts(shape.count);
      c.delay_ns = mux4_levels(shape.count) * f.lut_ns;
      return c;
    }
    case OperatorKind::Rom: {
      // Per result bit: one LUT6 per 64 entries (a LUT5 half per 32), up to
      // four combined by the F7 and F8 muxes, then 4:1 LUT mux levels.
      const int entries = shape.count;
      if (entries < 1)
        bad_shape(kind, "a table needs 1 or more entries, got " + std::to_string(entries));
      if (entries <= 32) {
        c.resources.lut = w * 0.5;
        c.delay_ns = f.lut_ns;
        return c;
      }
      const int blocks = ceil_div(entries, 64);
      const int groups = ceil_div(blocks, 4);
      c.resources.lut = w * (blocks + mux_luts(groups));
      c.delay_ns = f.lut_ns + (blocks > 1 ? f.f7_ns : 0) + (blocks > 2 ? f.f8_ns : 0) +
                   mux4_levels(groups) * f.lut_ns;
      return c;
    }
    case OperatorKind::BlockRom: {
      // 18 Kb blocks (RAMB18E1/E2, UG473/UG573), one read port of at most 36
      // bits each; the read's register is the block's own.
      if (shape.count < 1)
        bad_shape(kind, "a table needs 1 or more entries, got " + std::to_string(shape.count));
      c.latency = 1;
      c.resources.bram18 = static_cast<double>(bram18_count(w, shape.count));
      return c;
    }
    case OperatorKind::Ram: {
      // Simple dual-port distributed RAM (UG574): RAM32M16 holds 32 x 14 bits
      // in 8 LUTs, RAM64M8 64 x 7 in 8; deeper, a RAM64M8 per 64 entries and
      // a read multiplexer. The read's register is w flip-flops.
      const int entries = shape.count;
      if (entries < 1)
        bad_shape(kind, "a memory needs 1 or more entries, got " + std::to_string(entries));
      c.latency = 1;
      c.resources.ff = w;
      if (entries <= 32) {
        c.resources.lutram = 8.0 * ceil_div(w, 14);
        c.resources.lut = c.resources.lutram;
        return c;
      }
      const int blocks = ceil_div(entries, 64);
      c.resources.lutram = 8.0 * blocks * ceil_div(w, 7);
      c.resources.lut = c.resources.lutram + w * mux_luts(blocks);
      c.delay_ns = f.lut_ns;
      return c;
    }
    case OperatorKind::BlockRam: {
      // As BlockRom: 18 Kb blocks, simple dual port.
      c.latency = 1;
      c.resources.bram18 = static_cast<double>(bram18_count(w, std::max(shape.count, 1)));
      return c;
    }
    case OperatorKind::Shift: return c;
    case OperatorKind::Register:
      c.latency = 1;
      c.resources.ff = w;
      return c;
  }
  KILN_ASSERT(false, "unknown operator kind");
  return c;
}

bool rom_in_block_ram(int entries, int width) {
  return int64_t{entries} * width >= kBlockRomMinBits;
}

}  // namespace kiln::sched

#include "kiln/sched/operator_library.h"

#include <gtest/gtest.h>

#include "kiln/sched/testing/sched_helpers.h"

namespace kiln::sched {
namespace {

using testing::error_of;
constexpr fpga::Family kUs = fpga::Family::UltraScalePlus;
constexpr fpga::Family k7 = fpga::Family::Series7;

TEST(OperatorLibrary, DspCount) {
  EXPECT_EQ(dsp_count(16, 16, kUs), 1);
  EXPECT_EQ(dsp_count(27, 18, kUs), 1);
  EXPECT_EQ(dsp_count(18, 27, kUs), 1);  // swapped
  EXPECT_EQ(dsp_count(28, 18, kUs), 2);
  EXPECT_EQ(dsp_count(32, 32, kUs), 4);
  EXPECT_EQ(dsp_count(32, 8, kUs), 2);  // 32 bits need two slices either way round
  EXPECT_EQ(dsp_count(8, 27, kUs), 1);  // 27 on the 27-bit port
  EXPECT_EQ(dsp_count(26, 18, k7), 2);
  EXPECT_EQ(dsp_count(25, 18, k7), 1);
  EXPECT_EQ(operator_cost(OperatorKind::Mul, {32, 32, 0, 0}, kUs).resources.dsp, 4);
  EXPECT_EQ(operator_cost(OperatorKind::Mul, {16, 0, 0, 0}, kUs).resources.dsp, 1);
}

TEST(OperatorLibrary, MuxLuts) {
  EXPECT_EQ(mux_luts(1), 0);    // a wire
  EXPECT_EQ(mux_luts(2), 0.5);  // two bits share a LUT6
  EXPECT_EQ(mux_luts(4), 1);    // one LUT6
  EXPECT_EQ(mux_luts(5), 2);
  EXPECT_EQ(mux_luts(16), 4);        // four LUT6 joined by MUXF7/F8
  EXPECT_EQ(mux_luts(32), 8);        // a whole CLB, MUXF9
  EXPECT_EQ(mux_luts(33), 9 + 0.5);  // 9 LUTs of 4:1, then 2:1 of the two 32:1 groups
  EXPECT_EQ(mux_luts(144), 36 + 2);  // 5 groups of 32 -> a 5:1 mux
  EXPECT_EQ(mux_luts(2048), 512 + 16 + 0.5);  // 64 groups of 32, 16 of 4, one 2:1
}

TEST(OperatorLibrary, Bram18AspectRatios) {
  EXPECT_EQ(bram18_count(16, 80), 1);     // 512x36 mode
  EXPECT_EQ(bram18_count(48, 256), 2);    // ceil(48 / 36)
  EXPECT_EQ(bram18_count(272, 37), 8);    // ceil(272 / 36)
  EXPECT_EQ(bram18_count(16, 1024), 1);   // 1Kx18
  EXPECT_EQ(bram18_count(16, 2048), 2);   // 2Kx9
  EXPECT_EQ(bram18_count(16, 9500), 16);  // 16Kx1
  EXPECT_EQ(bram18_count(1, 40000), 3);   // 3 x 16Kx1 cascaded
  EXPECT_EQ(bram18_count(0, 10), 0);
}

TEST(OperatorLibrary, SrlLuts) {
  EXPECT_EQ(srl_luts(16, 20), 16);
  EXPECT_EQ(srl_luts(16, 33), 32);
  EXPECT_EQ(srl_luts(16, 64), 32);
}

TEST(OperatorLibrary, CsdDigits) {
  EXPECT_EQ(csd_nonzero_digits(0), 0);
  EXPECT_EQ(csd_nonzero_digits(1), 1);
  EXPECT_EQ(csd_nonzero_digits(-8), 1);
  EXPECT_EQ(csd_nonzero_digits(7), 2);   // 8 - 1
  EXPECT_EQ(csd_nonzero_digits(5), 2);   // 4 + 1
  EXPECT_EQ(csd_nonzero_digits(15), 2);  // 16 - 1
  EXPECT_EQ(csd_nonzero_digits(0x55), 4);
  EXPECT_EQ(csd_nonzero_digits(INT64_MIN), 1);
}

TEST(OperatorLibrary, CarryChainKinds) {
  const OperatorCost add = operator_cost(OperatorKind::Add, {16}, kUs);
  EXPECT_EQ(add.latency, 0);
  EXPECT_EQ(add.resources.lut, 16);
  EXPECT_EQ(add.resources.carry, 2);                                         // CARRY8
  EXPECT_EQ(operator_cost(OperatorKind::Add, {16}, k7).resources.carry, 4);  // CARRY4
  EXPECT_EQ(operator_cost(OperatorKind::Sub, {17}, kUs).resources.carry, 3);
  EXPECT_EQ(operator_cost(OperatorKind::Compare, {8}, kUs).resources.carry, 1);
  EXPECT_EQ(operator_cost(OperatorKind::Round, {12}, kUs).resources.lut, 12);
  const OperatorCost sat = operator_cost(OperatorKind::Saturate, {16}, kUs);
  EXPECT_EQ(sat.resources.lut, 16 + 8);  // compare + two bits of 2:1 mux per LUT
  EXPECT_GT(sat.delay_ns, add.delay_ns);
  EXPECT_EQ(operator_cost(OperatorKind::MaxMin, {16}, kUs).resources.lut, 24);
  // A ReLU: a LUT per bit, one LUT deep, no carry chain.
  EXPECT_EQ(operator_cost(OperatorKind::SignMask, {16}, kUs).resources.lut, 16);
  EXPECT_EQ(operator_cost(OperatorKind::SignMask, {16}, kUs).resources.carry, 0);
}

TEST(OperatorLibrary, OtherKinds) {
  EXPECT_EQ(operator_cost(OperatorKind::Mux, {8, 0, 2}, kUs).resources.lut, 4);
  EXPECT_EQ(operator_cost(OperatorKind::Mux, {8, 0, 4}, kUs).resources.lut, 8);
  EXPECT_EQ(operator_cost(OperatorKind::Mux, {8, 0, 16}, kUs).resources.lut,
            32);  // 4 LUT6 + MUXF7/F8 per bit
  const OperatorCost cm = operator_cost(OperatorKind::ConstMul, {16, 0, 3}, kUs);
  EXPECT_EQ(cm.resources.lut, 32);  // two adders
  EXPECT_EQ(cm.resources.carry, 4);
  EXPECT_EQ(operator_cost(OperatorKind::ConstMul, {16, 0, 1}, kUs).resources.lut, 0);  // a shift
  EXPECT_EQ(operator_cost(OperatorKind::Rom, {8, 0, 32}, kUs).resources.lut, 4);
  EXPECT_EQ(operator_cost(OperatorKind::Rom, {8, 0, 256}, kUs).resources.lut, 32);
  EXPECT_EQ(operator_cost(OperatorKind::Rom, {8, 0, 1024}, kUs).resources.lut, 8 * (16 + 1));
  EXPECT_EQ(operator_cost(OperatorKind::BlockRom, {18, 0, 1024}, kUs).resources.bram18, 1);
  EXPECT_EQ(operator_cost(OperatorKind::BlockRom, {18, 0, 2048}, kUs).resources.bram18, 2);
  EXPECT_EQ(operator_cost(OperatorKind::BlockRom, {72, 0, 16}, kUs).resources.bram18,
            2);  // 36-bit ports
  EXPECT_EQ(operator_cost(OperatorKind::BlockRom, {18, 0, 1024}, kUs).resources.lut, 0);
  // Where Yosys 0.23 moved from LUTs to block RAM (operator_library.cpp).
  EXPECT_FALSE(rom_in_block_ram(512, 16));
  EXPECT_TRUE(rom_in_block_ram(512, 17));
  const OperatorCost shift = operator_cost(OperatorKind::Shift, {32}, kUs);
  EXPECT_EQ(shift.resources.lut + shift.resources.ff + shift.resources.dsp + shift.resources.carry +
                shift.delay_ns,
            0);
  const OperatorCost reg = operator_cost(OperatorKind::Register, {32}, k7);
  EXPECT_EQ(reg.latency, 1);
  EXPECT_EQ(reg.resources.ff, 32);
}

TEST(OperatorLibrary, PipelinedMultiplier) {
  const OperatorCost comb = operator_cost(OperatorKind::Mul, {16, 16, 0, 0}, kUs);
  const OperatorCost m1 = operator_cost(OperatorKind::Mul, {16, 16, 0, 1}, kUs);
  const OperatorCost m3 = operator_cost(OperatorKind::Mul, {16, 16, 0, 3}, kUs);
  EXPECT_EQ(comb.latency, 0);
  EXPECT_EQ(m1.latency, 1);
  EXPECT_EQ(m3.latency, 3);
  EXPECT_LT(m3.delay_ns, m1.delay_ns);
  EXPECT_EQ(error_of(
                [] {
                  operator_cost(OperatorKind::Mul, {16, 16, 0, 4}, kUs);
                },
                ErrorKind::InvalidModel)
                .what_happened(),
            "pipeline stages 4 outside 0..3");
  const OperatorType t = operator_type("mul", m1, 4);
  EXPECT_EQ(t.latency, 1);
  EXPECT_EQ(t.limit, 4);
}

TEST(OperatorLibrary, DelayMonotoneInWidth) {
  for (fpga::Family family : {kUs, k7})
    for (OperatorKind kind :
         {OperatorKind::Add, OperatorKind::Sub, OperatorKind::Compare, OperatorKind::MaxMin,
          OperatorKind::Round, OperatorKind::Saturate, OperatorKind::ConstMul, OperatorKind::Mul,
          OperatorKind::FabricMul, OperatorKind::Mux, OperatorKind::Rom}) {
      double last = 0;
      for (int w = 1; w <= 64; ++w) {
        const OperatorCost c = operator_cost(kind, {w, w, 4, 0}, family);
        EXPECT_GE(c.delay_ns, last) << enum_name(kind) << " width " << w;
        last = c.delay_ns;
      }
    }
  // Entries and inputs too.
  double last = 0;
  for (int n = 2; n <= 4096; n *= 2) {
    const double d = operator_cost(OperatorKind::Rom, {8, 0, n}, kUs).delay_ns;
    EXPECT_GE(d, last);
    last = d;
  }
}

}  // namespace
}  // namespace kiln::sched

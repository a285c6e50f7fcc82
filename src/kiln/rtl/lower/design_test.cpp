// Designs of the small zoo models: Verilator lint clean, and bit-exact with
// the emulator in simulation (Icarus here; kiln rtlsim runs both).
#include "kiln/rtl/lower/design.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/model_text.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/sched/operator_library.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {
namespace {

namespace fs = std::filesystem;

class ZooDesign : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooDesign, LintsCleanAndSimulatesBitExactInIcarus) {
  const hls::Model m = testing::zoo_model(GetParam());
  const Design d = build_design(m, {});
  kiln::testing::TempDir dir;
  const auto files = testing::write_files(d, dir.path());
  const tools::LintResult lint = tools::lint_verilog(files, d.top);
  ASSERT_TRUE(lint.ok) << lint.error << "\n" << lint.log.substr(0, 3000);
  testing::expect_bit_exact(m, d, tools::Simulator::Icarus, 3);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooDesign,
                         ::testing::Values("vecmul_a", "vecmul_b", "dense_a", "softmax_a",
                                           "softmax_b", "conv2d_a", "maxpool_a", "maxpool_b",
                                           "thxprlsg", "batch_norm_2d"));
// dense_b (4,096 multiplies) and conv2d_b (34,596) take minutes in the
// simulators: the slow tier runs them through kiln rtlsim (tests/).

// A LogSoftmax head (a Softmax layer with log=true): the exp and log tables as
// ROMs, the row's max, sum and subtractions, bit-exact with the emulator in
// Icarus and in kiln's netlist interpreter. Inputs span +-0.3 of the input
// range (+-9.6), so some differences pass the exp table's end (8).
TEST(LogSoftmaxDesign, LintsCleanAndSimulatesBitExact) {
  const hls::Model m = hls::parse_layers(R"(layers 1
model "lsm" {}
%x: ap_fixed<16,6>[8] = Input() @x "x"
%y: ap_fixed<16,6>[8] = Softmax(%x) {rows=1 length=8 log=true} @lsm "LogSoftmax" config {tables={table_size=256 inv_table_size=256}}
input %x "x": [1x8] perm=[0]
output %y "y": [1x8] perm=[0]
)",
                                         "lsm.layers");
  const Design d = build_design(m, {});
  kiln::testing::TempDir dir;
  const auto files = testing::write_files(d, dir.path());
  const tools::LintResult lint = tools::lint_verilog(files, d.top);
  ASSERT_TRUE(lint.ok) << lint.error << "\n" << lint.log.substr(0, 3000);
  testing::expect_bit_exact(m, d, tools::Simulator::Icarus, 4, 0.3, 5);
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 8, 0.3, 6);
}

// The top's delay lines (values that skip stages) are in its estimate as the
// Verilog holds them: a chain of 3 or more registers as shift-register LUTs
// (one per bit per 32 stages), a shorter one as flip-flops. addmm's chains
// are short; channel_split's skip several stages.
TEST(DesignTop, DelayLinesAreEstimatedAsTheVerilogHoldsThem) {
  for (const std::string name : {"addmm", "../coverage/channel_split"}) {
    SCOPED_TRACE(name);
    const Design d = build_design(testing::zoo_model(name), {});
    const netlist::Module* top = d.netlist.find(d.top);
    ASSERT_NE(top, nullptr);
    // The top's registers named <wire>_d<k>: k registers behind <wire>.
    std::map<std::string, std::pair<int, int>> chains;  // wire -> (depth, width)
    const std::regex delay(R"((\w+)_d(\d+))");
    for (netlist::ValueId v = 0; v < top->size(); ++v) {
      std::smatch m;
      if (top->value(v).op != netlist::Op::Reg || !std::regex_match(top->value(v).name, m, delay))
        continue;
      auto& [depth, width] = chains[m[1].str()];
      depth = std::max(depth, std::stoi(m[2].str()));
      width = top->width(v);
    }
    ASSERT_FALSE(chains.empty());
    int64_t bits = 0;
    double lut = 0, ff = 0;
    for (const auto& [wire, c] : chains) {
      bits += int64_t{c.first} * c.second;
      (c.first >= 3 ? lut : ff) +=
          c.first >= 3 ? c.second * ((c.first + 31) / 32) : c.first * c.second;
    }
    EXPECT_EQ(d.top_report.register_bits, bits);
    // The operator library's count, then calibrated (calibration.h).
    EXPECT_EQ(d.top_report.terms.lut[static_cast<std::size_t>(LutTerm::Srl)], lut);
    EXPECT_EQ(d.top_report.terms.ff[static_cast<std::size_t>(FfTerm::Value)], ff);
    EXPECT_DOUBLE_EQ(d.top_report.lut, lut_coefficient(LutTerm::Srl) * lut);
    EXPECT_DOUBLE_EQ(d.top_report.ff, ff_coefficient(FfTerm::Value) * ff);
    EXPECT_EQ(d.top_report.name, d.top);
    if (name == "addmm")
      EXPECT_EQ(lut, 0);
    else
      EXPECT_GT(lut, 0);
  }
}

}  // namespace
}  // namespace kiln::rtl

namespace kiln::rtl {
namespace {

// A fully unrolled Dense layer's adders as the report counts them: shared
// across the matrix (cmvm_pass.h), fewer than its products by constants
// alone would take (their canonical signed digits less one) and their sums
// (one adder per product past the first of each output); every adder is one
// or the other; the depth at least that of a balanced tree over an output's
// products.
TEST(StageReport, CountsProductAndSumAddersAndTheirDepth) {
  const hls::Model m = testing::zoo_model("dense_a");
  const Design d = build_design(m, {});
  ASSERT_EQ(d.stages.size(), 1u);
  const StageReport& s = d.stages[0];
  const hls::Layer* gemm = nullptr;
  for (const hls::Layer& l : m.layers)
    if (l.kind() == hls::LayerKind::Dense) gemm = &l;
  ASSERT_NE(gemm, nullptr);
  const auto& p = gemm->as<hls::DenseParams>();
  int64_t digits = 0;
  std::vector<int64_t> per_output(static_cast<std::size_t>(p.n_out), 0);
  for (std::size_t k = 0; k < gemm->weights.size(); ++k) {
    const int n = sched::csd_nonzero_digits(gemm->weights[k]);
    digits += std::max(0, n - 1);
    per_output[k % static_cast<std::size_t>(p.n_out)] += gemm->weights[k] != 0;
  }
  EXPECT_EQ(s.product_adders + s.sum_adders, s.adders);  // no negations left
  EXPECT_GT(s.sum_adders, 0);
  int64_t sums = 0, widest = 0;
  for (int64_t n : per_output) {
    sums += std::max<int64_t>(0, n - 1);
    widest = std::max(widest, n);
  }
  EXPECT_LT(s.adders, digits + sums);
  int levels = 0;
  while ((int64_t{1} << levels) < widest) ++levels;
  EXPECT_GE(s.adder_depth, levels);
}

}  // namespace
}  // namespace kiln::rtl

namespace kiln::rtl {
namespace {

// thxprlsg's Exp, Tanh and Sigmoid each look 8 values up in a 1024-entry
// table and keep 16 of its 18 bits in the stage's output register: Yosys
// merges that register, through the bit-select, into one RAMB18 per lookup
// (bench/calibration/data.csv: 8 BRAM18 and no flip-flops per stage).
TEST(StageReport, TablesRegisteredThroughABitSelectAreInBlockRam) {
  const Design d = build_design(testing::zoo_model("thxprlsg"), {});
  int tables = 0;
  for (const StageReport& s : d.stages) {
    SCOPED_TRACE(s.name);
    if (s.lookups == 0) continue;
    ++tables;
    EXPECT_EQ(s.bram18, 8);
    EXPECT_EQ(s.ff, 0);
    EXPECT_EQ(s.terms.lut[static_cast<std::size_t>(LutTerm::Rom)], 0);
  }
  EXPECT_EQ(tables, 3);
}

// Every LUT and flip-flop of a stage is booked under a cost term, and the
// estimate is their sum times the fitted coefficients.
TEST(StageReport, EstimateIsItsCostTermsTimesTheCoefficients) {
  for (const std::string name : {"dense_a", "softmax_a", "conv2d_a", "thxprlsg"}) {
    SCOPED_TRACE(name);
    const Design d = build_design(testing::zoo_model(name), {});
    for (const StageReport& s : d.stages) {
      double lut = 0, ff = 0;
      for (const auto& [term, _] : EnumNames<LutTerm>::kNames)
        lut += lut_coefficient(term) * s.terms.lut[static_cast<std::size_t>(term)];
      for (const auto& [term, _] : EnumNames<FfTerm>::kNames)
        ff += ff_coefficient(term) * s.terms.ff[static_cast<std::size_t>(term)];
      EXPECT_NEAR(s.lut, lut, 1e-6 * std::max(1.0, lut));
      EXPECT_NEAR(s.ff, ff, 1e-6 * std::max(1.0, ff));
      EXPECT_GT(s.terms.raw_lut() + s.terms.raw_ff(), 0);
    }
  }
}

}  // namespace
}  // namespace kiln::rtl

// Designs the RTL fuzz tier found computing other values than the emulator,
// each as its smallest reproducer: the layer text, each layer's plan, raw
// input samples, and the raw outputs docs/numerics.md gives for them (the
// emulator's, which Xilinx's ap_fixed computes too). The netlist must give
// exactly those, in kiln's interpreter and in Icarus.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kiln/hls/csim.h"
#include "kiln/hls/model_text.h"
#include "kiln/hls/project_writer.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/tools/process.h"

namespace kiln::rtl {
namespace {

using testing::Stimulus;

struct Reproducer {
  const char* name;
  const char* layers;                        // layer text, without the "layers 1" line
  std::map<std::string, std::string> plans;  // layer -> plan text (plan.h)
  Stimulus stimulus;
  std::vector<std::vector<int64_t>> expected;  // [sample]: every output's elements
};

void PrintTo(const Reproducer& r, std::ostream* os) {
  *os << r.name;
}

// The design of `r` with each layer's plan fixed as the plan text says.
Design design_of(const hls::Model& m, const Reproducer& r) {
  RtlOptions o;
  for (const auto& [layer, text] : r.plans) {
    RtlOptions form = o;
    form.line_buffer[layer] = text.find("form=line_buffer") != std::string::npos;
    const loop::Program p = design_program(m, form);
    for (std::size_t k = 0; k < p.kernels.size(); ++k)
      if (p.kernels[k].name == layer) set_plan(o, m, layer, parse_plan(p.kernels[k], text, layer));
  }
  return build_design(m, o);
}

class BitExact : public ::testing::TestWithParam<Reproducer> {};

TEST_P(BitExact, NetlistGivesTheEmulatorsRawValues) {
  const Reproducer& r = GetParam();
  const hls::Model m = hls::parse_layers(std::string("layers 1\n") + r.layers, r.name);
  // The expected values are the emulator's: the contract, not a snapshot.
  ASSERT_EQ(testing::emulator_outputs(m, r.stimulus), r.expected);
  const Design d = design_of(m, r);
  EXPECT_EQ(testing::netlist_outputs(d, r.stimulus), r.expected);
  testing::expect_bit_exact(m, d, tools::Simulator::Icarus, r.stimulus);
}

// Which side computes ap_fixed: the same layer as an HLS project, C-simulated
// with kiln_fixed.h against the emulator (run_csim) and rebuilt against
// Xilinx's ap_types headers (KILN_AP_TYPES: a folder with ap_fixed.h and
// hls_stream.h, never part of kiln; `scripts/test.sh ap_types DIR` sets it),
// whose raw outputs must equal kiln_fixed.h's: then the expected values above
// are ap_fixed's.
TEST_P(BitExact, ApFixedGivesTheSameRawValues) {
  const char* ap_types = std::getenv("KILN_AP_TYPES");
  if (!ap_types || !*ap_types)
    GTEST_SKIP() << "KILN_AP_TYPES is not set: Xilinx's headers not used";
  const Reproducer& r = GetParam();
  hls::Model m = hls::parse_layers(std::string("layers 1\n") + r.layers, r.name);
  m.name = "repro";
  kiln::testing::TempDir dir;
  hls::write_project(m, {}, dir / "prj");
  hls::CsimOptions o;
  for (const auto& sample : r.stimulus) {
    hls::Sample in;
    for (std::size_t k = 0; k < sample.size(); ++k) {
      const numeric::FixedType& t = m.tensors.at(static_cast<std::size_t>(m.inputs[k])).type;
      in.emplace_back();
      for (int64_t raw : sample[k]) in.back().push_back(numeric::to_double(raw, t));
    }
    o.inputs.push_back(std::move(in));
  }
  ASSERT_TRUE(hls::run_csim(dir / "prj", m, o).bit_exact());
  tools::ProcessOptions po;
  po.timeout_seconds = 600;
  const tools::ProcessResult make = tools::run_process(
      "make", {"-C", (dir / "prj").string(), "csim_ap_types", std::string("AP_TYPES=") + ap_types},
      po);
  EXPECT_TRUE(make.ok()) << make.out << make.err;
}

// A sum of products by constants rebuilt from shared adders (cmvm_pass.h) was
// built modulo 2^bits where its users read only its low bits, and a
// quantization that wraps was taken for such a user whatever its rounding.
// AP_TRN_ZERO, AP_RND_ZERO and AP_RND_INF round by the sign of the whole
// value: 0.5625 * (-4 - 4.25) = -4.640625 rounds toward zero to -4.625 and
// wraps into ap_fixed<6,3> as 3.375 (raw 27), but the sum kept modulo 2^15
// (the 6 bits kept and the 9 rounded away) is +3.359375, which rounds to 3.25
// (raw 26). Seeds 1307, 3691, 5799, 5887, 7759, 8107 and 9135 of the fuzz
// tier, Icarus agreeing with the netlist interpreter: the hardware was wrong.
constexpr const char* kSharedSum = R"(model "shared_sum" {}
%x: ap_fixed<6,4>[2] = Input() @x "x"
%y: ap_fixed<6,3,MODES>[1] = Dense(%x) {n_in=2 n_out=1} @fc constants {weights=[576,576] bias=[0]}
input %x "x": [1x2] perm=[0]
output %y "y": [1x1] perm=[0]
)";

std::string with_modes(const char* text, const char* modes) {
  std::string s = text;
  s.replace(s.find("MODES"), 5, modes);
  return s;
}

const std::string kTrnZero = with_modes(kSharedSum, "AP_TRN_ZERO,AP_WRAP");
const std::string kRndZero = with_modes(kSharedSum, "AP_RND_ZERO,AP_WRAP");
const std::string kRndInf = with_modes(kSharedSum, "AP_RND_INF,AP_WRAP");

constexpr const char* kConstantStage = R"(model "constant_stage" {}
%x: ap_fixed<8,2>[3x3] = Input() @x "x"
%a: ap_fixed<8,2>[3x3] = Activation(%x) {n=9 channels=3 act={kind=Relu}} @act
%s: ap_fixed<8,2>[1x2] = Slice(%a) {begin=[1,0] step=[2,2]} @slice
%y: ap_fixed<8,2>[1x2] = Binary(%s, %s) {op=Sub n=2 channels=2} @sub
input %x "x": [1x3x3] perm=[0,1]
output %y "y": [1x1x2] perm=[0,1]
)";

constexpr const char* kCoarseAccumulator = R"(model "coarse_accumulator" {}
%x: ap_fixed<8,4>[2x2x1] = Input() @x "x"
%y: ap_fixed<8,4>[3x1x1] = Conv(%x) {in_h=2 in_w=2 c_in=1 out_h=3 out_w=1 c_out=1 kernel_h=1 kernel_w=2 pad_top=1} @conv config {weight=ap_fixed<4,4> accum=ap_fixed<8,10>} constants {weights=[3,-5] bias=[0]}
input %x "x": [1x2x2x1] perm=[0,1,2]
output %y "y": [1x3x1x1] perm=[0,1,2]
)";

constexpr const char* kMaxOfProduct = R"(model "max_of_product" {}
%x: ap_fixed<6,4>[1x1] = Input() @x "x"
%y: ap_ufixed<7,5,AP_RND,AP_SAT_SYM>[1x1] = Conv(%x) {dims=1 in_w=1 c_in=1 out_w=1 c_out=1 act={kind=Relu}} @conv config {weight=ap_fixed<6,5> accum=ap_fixed<20,19,AP_TRN_ZERO,AP_SAT_SYM>} constants {weights=[-32] bias=[0]}
input %x "x": [1x1x1] perm=[0,1]
output %y "y": [1x1x1] perm=[0,1]
)";

constexpr const char* kOneElementWindow = R"(model "one_element_window" {}
%x: ap_fixed<9,2>[2x2x2] = Input() @x "x"
%y: ap_fixed<16,9>[2x1x2] = Pool(%x) {in_h=2 in_w=2 channels=2 out_h=2 out_w=1 kernel_h=2 kernel_w=3 stride_h=2 stride_w=2 pad_top=1 pad_bottom=1 pad_left=1} @pool
input %x "x": [1x2x2x2] perm=[0,1,2]
output %y "y": [1x2x1x2] perm=[0,1,2]
)";

INSTANTIATE_TEST_SUITE_P(
    Found, BitExact,
    ::testing::Values(Reproducer{"trn_zero_of_a_shared_sum",
                                 kTrnZero.c_str(),
                                 {{"fc", "unrolled"}},
                                 {{{-16, -17}}, {{15, 16}}, {{-32, -32}}},
                                 {{27}, {-30}, {-8}}},
                      // Ties: 0.5625 * -9 = -5.0625 rounds away from zero to -5.125 (raw
                      // 23 once wrapped) where the modular +2.9375 gives 3 (raw 24), and
                      // toward zero to -5 (raw 24) where it gives 2.875 (raw 23).
                      Reproducer{"rnd_inf_of_a_shared_sum",
                                 kRndInf.c_str(),
                                 {{"fc", "unrolled"}},
                                 {{{-16, -20}}, {{16, 20}}, {{-12, -12}}},
                                 {{23}, {-23}, {-27}}},
                      Reproducer{"rnd_zero_of_a_shared_sum",
                                 kRndZero.c_str(),
                                 {{"fc", "unrolled"}},
                                 {{{-16, -20}}, {{16, 20}}, {{-12, -12}}},
                                 {{24}, {-24}, {-27}}},
                      // A stage whose results are all constants (x - x) starts once its
                      // producers have written its inputs, after the design's outputs are
                      // valid: the top's chain of valid bits reached only to the outputs,
                      // and its start tap was a slice beyond it (the netlist failed to
                      // verify: seed 1100).
                      Reproducer{
                          "constant_stage_after_the_outputs",
                          kConstantStage,
                          {{"act", "loop=d0 flatten pipeline=1"}, {"slice", "loop=d1 pipeline=1"}},
                          {{{-128, 127, 5, -7, 100, 0, 1, -1, 64}}},
                          {{0, 0}}},
                      // An accumulator on a grid coarser than 1 (ap_fixed<8,10>: steps of
                      // 4) whose bias rounds to 0, kept in a flattened pixel loop whose
                      // padded taps keep it: the select between the constant 0 and the
                      // running sum took the join of their types, and
                      // the constant's canonical type (integer 0) put it on the grid of 1,
                      // finer than the accumulator's own (an internal error aligning the
                      // body's output: seed 1261). A zero now joins on the other's grid.
                      Reproducer{"zero_joins_a_coarse_accumulator",
                                 kCoarseAccumulator,
                                 {{"conv", "loop=oh flatten pipeline=1"}},
                                 {{{32, 0, -32, 0}}, {{-128, 127, 127, -128}}},
                                 {{0, 64, -128}, {0, 0, -64}}},
                      // Max(0, -16 x) on the grid of 4 (a Relu of a product by a power of
                      // two): the netlist compared and gave the operands in the union of
                      // their types while the node's type is their join, so its consumer
                      // read the bits at the wrong scale (127, saturated, for 80: seed
                      // 1227).
                      Reproducer{"max_in_the_nodes_type",
                                 kMaxOfProduct,
                                 {{"conv", "unrolled"}},
                                 {{{-5}}, {{7}}, {{-32}}},
                                 {{80}, {0}, {127}}},
                      // A pooling window that reaches one element of its input in every
                      // iteration (its padding), read through "a multiplexer" of one input:
                      // pricing it asked the operator library for a one-input mux, which
                      // it refuses, and the plan was refused (seed 1165).
                      Reproducer{"read_of_one_element_is_a_wire",
                                 kOneElementWindow,
                                 {{"pool", "loop=oh flatten pipeline=2"}},
                                 {{{-256, 255, 17, -3, 0, 100, -100, 1}}},
                                 {{17, 255, 0, 100}}}),
    [](const ::testing::TestParamInfo<Reproducer>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace kiln::rtl

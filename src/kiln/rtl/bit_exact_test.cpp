// Designs the RTL fuzz tier found computing other values than the emulator,
// each as its smallest reproducer: the layer text, each layer's plan, raw
// input samples, and the raw outputs docs/numerics.md gives for them (the
// emulator's, which Xilinx's ap_fixed computes too). The netlist must give
// exactly those, in kiln's interpreter and in Icarus.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kiln/hls/model_text.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/rtl/options.h"
#include "kiln/rtl/testing/sim_check.h"

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
                                 {{24}, {-24}, {-27}}}),
    [](const ::testing::TestParamInfo<Reproducer>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace kiln::rtl

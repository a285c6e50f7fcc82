#include "kiln/rtl/analysis/channels.h"

#include <gtest/gtest.h>

#include "kiln/hls/model_text.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {
namespace {

// A 3 x 3 convolution writing a pixel's 4 channels per iteration (a bank
// each) into a 1 x 1 convolution that keeps its input-channel loop: each of
// its iterations reads the lane its ci says. The read crosses the banks, so
// the tensor goes through the consumer's memories, one per bank, picked by
// the place's low bits (before: the consumer copied the whole tensor into
// registers read through a multiplexer).
const char* kPointwise = R"(layers 1
model "pw" {}
%x: ap_fixed<8,3>[5x5x1] = Input() @x "x"
%h: ap_fixed<10,4>[5x5x4] = Conv(%x) {in_h=5 in_w=5 c_in=1 out_h=5 out_w=5 c_out=4 kernel_h=3 kernel_w=3 stride_h=1 stride_w=1 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1} @conv config {accum=ap_fixed<20,8>} constants {weights=[3,-5,7,1,0,-2,4,6,-7,2,5,-1,-3,7,2,0,1,-6,5,3,-4,2,-7,6,1,1,-1,4,-3,2,6,-5,0,3,7,-2] bias=[1,-2,3,0]}
%y: ap_fixed<12,5>[5x5x2] = Conv(%h) {in_h=5 in_w=5 c_in=4 out_h=5 out_w=5 c_out=2 kernel_h=1 kernel_w=1 stride_h=1 stride_w=1 pad_top=0 pad_bottom=0 pad_left=0 pad_right=0} @pw config {accum=ap_fixed<24,10>} constants {weights=[5,-3,2,7,-6,1,4,-2] bias=[2,-1]}
input %x "x": [1x1x5x5] perm=[1,2,0]
output %y "y": [1x2x5x5] perm=[1,2,0]
)";

// Verilator's lint, then bit-exact in kiln's interpreter and in Icarus.
void expect_lint_clean_and_bit_exact(const hls::Model& m, const Design& d, uint32_t seed) {
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 4, 1.5, seed);
  kiln::testing::TempDir dir;
  const auto files = testing::write_files(d, dir.path());
  const tools::LintResult lint = tools::lint_verilog(files, d.top);
  ASSERT_TRUE(lint.ok) << lint.error << "\n" << lint.log.substr(0, 3000);
  testing::expect_bit_exact(m, d, tools::Simulator::Icarus, 3, 1.5, seed);
}

RtlOptions pointwise_options() {
  RtlOptions o;
  o.directives.loops["conv/oh"] = {std::nullopt, 1, true};
  o.directives.loops["pw/oh"] = {std::nullopt, 1, true};
  for (const char* l : {"pw/ow", "pw/kh", "pw/kw", "pw/g"})
    o.directives.loops[l] = {std::nullopt, std::nullopt, true};
  return o;
}

TEST(Channel, AReadAcrossBanksGoesThroughMemories) {
  const hls::Model m = hls::parse_layers(kPointwise, "pw.layers");
  const Design d = build_design(m, pointwise_options());
  ASSERT_EQ(d.handoffs.size(), 1u);
  EXPECT_TRUE(d.handoffs[0].channel) << d.handoffs[0].why;
  // The consumer's copy of each of the 4 banks, and no register copy of the
  // 100-element tensor.
  int banks = 0;
  for (const netlist::Module& mod : d.netlist.modules)
    for (const netlist::Memory& mem : mod.memories())
      banks += mem.name.rfind("chm", 0) == 0 && mem.name.find('_') != std::string::npos;
  EXPECT_EQ(banks, 4);
  ASSERT_EQ(d.stages.size(), 2u);
  EXPECT_LT(d.stages[1].register_bits, 100 * 10);
  expect_lint_clean_and_bit_exact(m, d, 7);
}

// Without the deeper nest the consumer keeps one pixel per iteration and
// reads each bank at a fixed lane: a channel too, one bank per read.
TEST(Channel, AReadOfOneBankKeepsItsOwnMemory) {
  const hls::Model m = hls::parse_layers(kPointwise, "pw.layers");
  RtlOptions o;
  o.directives.loops["conv/oh"] = {std::nullopt, 1, true};
  o.directives.loops["pw/oh"] = {std::nullopt, 1, true};
  const Design d = build_design(m, o);
  ASSERT_EQ(d.handoffs.size(), 1u);
  EXPECT_TRUE(d.handoffs[0].channel) << d.handoffs[0].why;
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 4, 1.5, 8);
}

// A producer that keeps no loop hands its tensor on in registers, and the
// report says why.
TEST(Channel, AHandoffWithoutAChannelSaysWhy) {
  const hls::Model m = hls::parse_layers(kPointwise, "pw.layers");
  RtlOptions o;
  o.directives.loops["pw/oh"] = {std::nullopt, 1, true};
  const Design d = build_design(m, o);
  ASSERT_EQ(d.handoffs.size(), 1u);
  EXPECT_FALSE(d.handoffs[0].channel);
  EXPECT_EQ(d.handoffs[0].why, "the producer keeps no loop");
  EXPECT_EQ(d.handoffs[0].producer, "conv");
  EXPECT_EQ(d.handoffs[0].consumer, "pw");
  EXPECT_EQ(d.handoffs[0].register_bits, 5 * 5 * 4 * 10);  // h: ap_fixed<10,4>[5x5x4]
}

// A residual block: the first convolution's output feeds both the second
// convolution and the add after it. Each reader takes its own channel from
// the producer's write ports (a skip connection through a memory sized by
// the schedules, not through delay registers in the top).
const char* kResidual = R"(layers 1
model "res" {}
%x: ap_fixed<8,3>[4x4x2] = Input() @x "x"
%h: ap_fixed<10,4>[4x4x2] = Conv(%x) {in_h=4 in_w=4 c_in=2 out_h=4 out_w=4 c_out=2 kernel_h=3 kernel_w=3 stride_h=1 stride_w=1 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1} @conv config {accum=ap_fixed<20,8>} constants {weights=[3,-5,7,1,0,-2,4,6,-7,2,5,-1,-3,7,2,0,1,-6,5,3,-4,2,-7,6,1,1,-1,4,-3,2,6,-5,0,3,7,-2] bias=[1,-2]}
%g: ap_fixed<10,4>[4x4x2] = Conv(%h) {in_h=4 in_w=4 c_in=2 out_h=4 out_w=4 c_out=2 kernel_h=3 kernel_w=3 stride_h=1 stride_w=1 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1} @second config {accum=ap_fixed<22,9>} constants {weights=[-2,4,1,-7,3,3,0,5,-6,2,-1,6,4,-3,-5,1,7,-4,2,0,-2,5,-7,3,6,-1,1,-5,4,2,-3,7,0,-6,3,1] bias=[-1,2]}
%y: ap_fixed<11,5>[4x4x2] = Binary(%h, %g) {n=32 channels=2} @add
input %x "x": [1x2x4x4] perm=[1,2,0]
output %y "y": [1x2x4x4] perm=[1,2,0]
)";

TEST(Channel, ASkipConnectionGoesThroughEachReadersMemories) {
  const hls::Model m = hls::parse_layers(kResidual, "res.layers");
  RtlOptions o;
  for (const char* l : {"conv/oh", "second/oh"}) o.directives.loops[l] = {std::nullopt, 1, true};
  o.directives.loops["add/d0"] = {std::nullopt, 1, false};
  const Design d = build_design(m, o);
  int channels = 0;
  for (const Handoff& h : d.handoffs) {
    EXPECT_TRUE(h.channel) << h.tensor << " to " << h.consumer << ": " << h.why;
    channels += h.channel;
  }
  EXPECT_EQ(channels, 3);  // conv -> second, conv -> add, second -> add
  EXPECT_EQ(d.top_report.register_bits, 0);
  expect_lint_clean_and_bit_exact(m, d, 9);
}

// A design whose top would delay more bits than allowed is refused before
// its top is built, naming the tensor (here: the residual with the add
// fully unrolled, so the skip waits in the top's registers).
TEST(Channel, TooManyDelayBitsInTheTopAreRefused) {
  const hls::Model m = hls::parse_layers(kResidual, "res.layers");
  RtlOptions o;
  for (const char* l : {"conv/oh", "second/oh"}) o.directives.loops[l] = {std::nullopt, 1, true};
  const Design d = build_design(m, o);
  ASSERT_GT(d.top_report.register_bits, 0);
  o.max_top_delay_bits = d.top_report.register_bits - 1;
  const Error e = kiln::testing::catch_error([&] { build_design(m, o); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_NE(std::string(e.what()).find("register bits"), std::string::npos) << e.what();
  o.max_top_delay_bits = d.top_report.register_bits;
  EXPECT_NO_THROW(build_design(m, o));
}

// A model input streamed a pixel per beat (IOType io_stream): the top is the
// producer of a channel whose banks are the beat's lanes, so the first
// convolution reads its window from memories as the beats come, and the top
// keeps no register of the input.
TEST(Channel, AStreamedInputGoesThroughTheFirstLayersMemories) {
  const hls::Model m = hls::parse_layers(kResidual, "res.layers");
  RtlOptions o;
  for (const char* l : {"conv/oh", "second/oh"}) o.directives.loops[l] = {std::nullopt, 1, true};
  o.directives.loops["add/d0"] = {std::nullopt, 1, false};
  o.stream_inputs = true;
  const Design d = build_design(m, o);
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0].lanes_per_beat(), 2);
  EXPECT_EQ(d.inputs[0].beats(), 16);
  EXPECT_GE(d.interval_cycles, 16);
  ASSERT_EQ(d.handoffs.size(), 4u);
  EXPECT_EQ(d.handoffs[0].producer, "input");
  EXPECT_EQ(d.handoffs[0].consumer, "conv");
  EXPECT_TRUE(d.handoffs[0].channel) << d.handoffs[0].why;
  const netlist::Module& top = d.netlist.modules.back();
  for (const netlist::Port& p : top.ports())
    if (p.name == d.inputs[0].name) {
      EXPECT_EQ(p.width, 2 * 8);  // a beat: two lanes
    }
  for (std::size_t v = 0; v < top.size(); ++v)
    EXPECT_FALSE(top.value(static_cast<netlist::ValueId>(v)).op == netlist::Op::Reg &&
                 top.value(static_cast<netlist::ValueId>(v)).name.rfind(d.inputs[0].name, 0) == 0)
        << "the top registers input element " << top.value(static_cast<netlist::ValueId>(v)).name;
  expect_lint_clean_and_bit_exact(m, d, 10);
}

// A streamed input whose reader keeps no loop: the top loads each element
// into a register in its beat, and the reader starts after the last beat.
TEST(Channel, AStreamedInputsRegistersServeAReaderWithoutALoop) {
  const hls::Model m = hls::parse_layers(kPointwise, "pw.layers");
  RtlOptions o;
  o.stream_inputs = true;
  const Design d = build_design(m, o);
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0].lanes_per_beat(), 1);
  EXPECT_EQ(d.inputs[0].beats(), 25);
  ASSERT_FALSE(d.handoffs.empty());
  EXPECT_EQ(d.handoffs[0].producer, "input");
  EXPECT_FALSE(d.handoffs[0].channel);
  EXPECT_EQ(d.handoffs[0].why, "the consumer keeps no loop");
  EXPECT_GE(d.stages[0].start_cycle, 25);
  EXPECT_GE(d.interval_cycles, 25);
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 4, 1.5, 12);
  testing::expect_bit_exact(m, d, tools::Simulator::Icarus, 3, 1.5, 12);
}

// A 2 x 2 average pooling that keeps its rows, columns, channels and window
// rows as one loop and unrolls the window's columns: each of its two reads
// reaches every other pixel the convolution writes. Each read's memories
// keep only the writes it reaches (a pattern of period 2), half of what a
// copy of every write would hold.
const char* kPooled = R"(layers 1
model "pooled" {}
%x: ap_fixed<8,3>[6x6x1] = Input() @x "x"
%h: ap_fixed<10,4>[6x6x4] = Conv(%x) {in_h=6 in_w=6 c_in=1 out_h=6 out_w=6 c_out=4 kernel_h=3 kernel_w=3 stride_h=1 stride_w=1 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1} @conv config {accum=ap_fixed<20,8>} constants {weights=[3,-5,7,1,0,-2,4,6,-7,2,5,-1,-3,7,2,0,1,-6,5,3,-4,2,-7,6,1,1,-1,4,-3,2,6,-5,0,3,7,-2] bias=[1,-2,3,0]}
%y: ap_fixed<10,4>[3x3x4] = Pool(%h) {kind=Average in_h=6 in_w=6 channels=4 out_h=3 out_w=3 kernel_h=2 kernel_w=2 stride_h=2 stride_w=2} @pool config {accum=ap_fixed<14,6>}
input %x "x": [1x1x6x6] perm=[1,2,0]
output %y "y": [1x4x3x3] perm=[1,2,0]
)";

TEST(Channel, AReadThatReachesSomeWritesKeepsOnlyThose) {
  const hls::Model m = hls::parse_layers(kPooled, "pooled.layers");
  RtlOptions o;
  o.directives.loops["conv/oh"] = {std::nullopt, 1, true};
  o.directives.loops["pool/oh"] = {std::nullopt, 1, true};
  for (const char* l : {"pool/ow", "pool/c", "pool/kh"})
    o.directives.loops[l] = {std::nullopt, std::nullopt, true};
  o.directives.loops["pool/kw"] = {0, std::nullopt, false};
  const Design d = build_design(m, o);
  ASSERT_EQ(d.handoffs.size(), 1u);
  EXPECT_TRUE(d.handoffs[0].channel) << d.handoffs[0].why;
  // Two reads across the 4 banks: 8 memories, each written through the
  // phase of its read's pattern.
  int memories = 0, phases = 0;
  int64_t words = 0;
  for (const netlist::Module& mod : d.netlist.modules) {
    for (const netlist::Memory& mem : mod.memories())
      if (mem.name.rfind("chm", 0) == 0) {
        ++memories;
        words += mem.depth;
      }
    for (netlist::ValueId v = 0; v < mod.size(); ++v)
      phases += mod.value(v).name.rfind("cph_", 0) == 0;
  }
  EXPECT_EQ(memories, 8);
  EXPECT_EQ(phases, 8);
  // 16 words each (a copy of every write: 32).
  EXPECT_LE(words, 8 * 16);
  expect_lint_clean_and_bit_exact(m, d, 13);
}

// A convolution that takes a cycle per output channel and pixel, a ReLU
// layer after it searched for a short interval and a pointwise convolution
// after that. At II 1 the ReLU's plan (four elements a cycle) would start
// when the convolution is nearly done and hand its result on in a burst;
// stretched to the convolution's pace (an II over 1), it reads as the
// convolution writes, and the pointwise convolution starts long before the
// first one ends (search.cpp stretch_to_producers).
const char* kThree = R"(layers 1
model "three" {}
%x: ap_fixed<8,3>[6x6x1] = Input() @x "x"
%h: ap_fixed<10,4>[6x6x4] = Conv(%x) {in_h=6 in_w=6 c_in=1 out_h=6 out_w=6 c_out=4 kernel_h=3 kernel_w=3 stride_h=1 stride_w=1 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1} @conv config {accum=ap_fixed<20,8>} constants {weights=[3,-5,7,1,0,-2,4,6,-7,2,5,-1,-3,7,2,0,1,-6,5,3,-4,2,-7,6,1,1,-1,4,-3,2,6,-5,0,3,7,-2] bias=[1,-2,3,0]}
%r: ap_fixed<10,4>[6x6x4] = Activation(%h) {n=144 channels=4 act={kind=Relu}} @act
%y: ap_fixed<12,5>[6x6x2] = Conv(%r) {in_h=6 in_w=6 c_in=4 out_h=6 out_w=6 c_out=2 kernel_h=1 kernel_w=1 stride_h=1 stride_w=1 pad_top=0 pad_bottom=0 pad_left=0 pad_right=0} @pw config {accum=ap_fixed<24,10>} constants {weights=[5,-3,2,7,-6,1,4,-2] bias=[2,-1]}
input %x "x": [1x1x6x6] perm=[1,2,0]
output %y "y": [1x2x6x6] perm=[1,2,0]
)";

TEST(Channel, AFastLayerAfterASlowOneReadsAtItsPace) {
  const hls::Model m = hls::parse_layers(kThree, "three.layers");
  RtlOptions o;
  // The convolution as configured: a pixel's output channels one a cycle.
  o.directives.loops["conv/oh"] = {std::nullopt, 1, true};
  for (const char* l : {"conv/ow", "conv/kh", "conv/kw", "conv/g", "conv/ci"})
    o.directives.loops[l] = {std::nullopt, std::nullopt, true};
  o.configured_layers.insert("conv");
  // The ReLU searched for a short interval (four elements a cycle), the
  // pointwise convolution for the convolution's.
  o.interval_targets.push_back({"act", 40, "test"});
  o.interval_targets.push_back({"pw", 160, "test"});
  const Design d = build_design(m, o);
  ASSERT_EQ(d.stages.size(), 3u);
  const StageReport &conv = d.stages[0], &act = d.stages[1], &pw = d.stages[2];
  EXPECT_NE(act.plan.find("stretched to II"), std::string::npos) << conv.plan << "\n"
                                                                 << act.plan << "\n"
                                                                 << pw.plan;
  EXPECT_LT(pw.start_cycle, conv.start_cycle + conv.latency_cycles / 2) << conv.plan << "\n"
                                                                        << act.plan << "\n"
                                                                        << pw.plan;
  expect_lint_clean_and_bit_exact(m, d, 17);
}

}  // namespace
}  // namespace kiln::rtl

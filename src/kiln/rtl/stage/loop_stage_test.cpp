// Layers with a kept loop: Verilator lint clean and bit-exact with the
// emulator in Icarus, at the latency the schedule gives, for the kinds of
// loop the modulo problem distinguishes.
#include "kiln/rtl/stage/loop_stage.h"

#include <gtest/gtest.h>

#include "kiln/fpga/devices.h"
#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {
namespace {

namespace fs = std::filesystem;

loop::LoopDirectives loop_config(std::optional<int64_t> unroll, std::optional<int> ii) {
  return {unroll, ii, false};
}

loop::BufferDirectives cyclic(int64_t factor, int dim) {
  return {loop::Partition::Cyclic, factor, dim, loop::Storage::Auto, {}};
}

const StageReport& stage_named(const Design& d, const std::string& name) {
  for (const StageReport& s : d.stages)
    if (s.name == name) return s;
  throw std::runtime_error("no stage " + name);
}

void expect_lint_clean_and_bit_exact(const hls::Model& m, const Design& d) {
  kiln::testing::TempDir dir;
  const auto files = testing::write_files(d, dir.path());
  const tools::LintResult lint = tools::lint_verilog(files, d.top);
  ASSERT_TRUE(lint.ok) << lint.error << "\n" << lint.log.substr(0, 3000);
  testing::expect_bit_exact(m, d, tools::Simulator::Icarus, 3);
}

// Building the design is refused (exit 3) with `what` in the message.
void expect_unsupported(const hls::Model& m, const RtlOptions& o, const std::string& what) {
  try {
    build_design(m, o);
    FAIL() << "built; expected a refusal saying " << what;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

// dense_a's Gemm: the loop over inputs reads 8 weights per iteration from one
// two-port ROM (II 4) into 8 accumulator registers (a recurrence each).
TEST(LoopStage, MemoryPortBoundLoopWithAccumulators) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/i"] = loop_config(std::nullopt, 1);
  const Design d = build_design(m, o);
  const StageReport& s = stage_named(d, "Gemm");
  // 8 iterations at II 4, the before and after stages around them.
  EXPECT_GE(s.latency_cycles, 7 * 4 + 2);
  EXPECT_LE(s.latency_cycles, 7 * 4 + 12);
  expect_lint_clean_and_bit_exact(m, d);
}

// The weights partitioned so each iteration's 8 reads meet 4 banks, and two
// multipliers shared by phase: II 4 from the multipliers, not the ports.
TEST(LoopStage, MultipliersSharedByPhase) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/i"] = loop_config(std::nullopt, 1);
  o.directives.buffers["Gemm_w"] = cyclic(4, 2);
  o.multiplier_limits = {{"Gemm", 2}};
  const Design d = build_design(m, o);
  const StageReport& s = stage_named(d, "Gemm");
  EXPECT_EQ(s.multiplier_units, 2);
  // The body takes the phase, which selects each unit's operands.
  const netlist::Module* body = d.netlist.find(d.top + "_Gemm_body");
  ASSERT_NE(body, nullptr);
  EXPECT_GE(body->find_port("ph"), 0);
  expect_lint_clean_and_bit_exact(m, d);
}

// Weights in registers: each read a table of the elements it reaches, read
// in the cycle, no ports to share: II 1.
TEST(LoopStage, WeightsInRegistersHaveNoPortLimit) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/i"] = loop_config(std::nullopt, 1);
  o.directives.buffers["Gemm_w"] = {loop::Partition::None, 0, 0, loop::Storage::Registers, {}};
  const Design d = build_design(m, o);
  const StageReport& s = stage_named(d, "Gemm");
  EXPECT_LE(s.latency_cycles, 7 + 10);
  expect_lint_clean_and_bit_exact(m, d);
}

// A bank per output (complete on j): the 8 banks are read at one address in
// one cycle, so they are one ROM of 8 x 16 bits (group_roms), read once per
// iteration: II 1, and each product's weight a slice of the word.
TEST(LoopStage, BanksReadInLockstepShareOneWideRom) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/i"] = loop_config(std::nullopt, 1);
  o.directives.buffers["Gemm_w"] = {loop::Partition::Complete, 0, 2, loop::Storage::Auto, {}};
  const Design d = build_design(m, o);
  EXPECT_LE(stage_named(d, "Gemm").latency_cycles, 7 + 10);
  const netlist::Module* gemm = d.netlist.find(d.top + "_Gemm");
  ASSERT_NE(gemm, nullptr);
  std::vector<std::pair<int, int64_t>> roms;  // width, depth
  for (const netlist::Memory& mem : gemm->memories())
    if (mem.kind == netlist::MemoryKind::Rom) roms.emplace_back(mem.width, mem.depth);
  EXPECT_EQ(roms, (std::vector<std::pair<int, int64_t>>{{8 * 16, 8}}));
  expect_lint_clean_and_bit_exact(m, d);
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 3);
}

// Unrolled by 2 and not pipelined: one iteration (two copies of the body) at
// a time.
TEST(LoopStage, PartiallyUnrolledLoopNotPipelined) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/i"] = loop_config(2, std::nullopt);
  o.directives.buffers["Gemm_w"] = cyclic(2, 1);
  const Design d = build_design(m, o);
  const std::string& v = std::find_if(d.files.begin(), d.files.end(), [](const auto& f) {
                           return f.first.find("Gemm.v") != std::string::npos;
                         })->second;
  EXPECT_NE(v.find("4 iteration(s)"), std::string::npos) << v.substr(0, 400);
  EXPECT_NE(v.find("not pipelined"), std::string::npos);
  expect_lint_clean_and_bit_exact(m, d);
}

// The output loop kept: port reads of a buffer in registers (the
// accumulators) and port writes of the layer's output.
TEST(LoopStage, PortWritesOfTheLayersOutput) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/out"] = loop_config(std::nullopt, 1);
  const Design d = build_design(m, o);
  EXPECT_EQ(stage_named(d, "Gemm").interval_cycles, stage_named(d, "Gemm").latency_cycles);
  expect_lint_clean_and_bit_exact(m, d);
}

// Dataflow between layers: thxprlsg's element-wise layers with their loops
// kept start as soon as their producer has written what they read first,
// each element taken in the cycle it is written (no delay registers), so the
// design's latency is below the sum of its layers'. The unrolled Relu in the
// middle takes all of its inputs at once, after Exp's last write.
TEST(LoopStage, LayersStartWhenWhatTheyReadFirstIsWritten) {
  const hls::Model m = testing::zoo_model("thxprlsg");
  RtlOptions o;
  o.directives.loops["Tanh/d0"] = loop_config(std::nullopt, 2);     // a slower producer,
  o.directives.loops["Exp/d0"] = loop_config(std::nullopt, 1);      // a faster consumer,
  o.directives.loops["Sigmoid/d0"] = loop_config(std::nullopt, 3);  // a slower one after Relu
  const Design d = build_design(m, o);
  const StageReport &tanh = stage_named(d, "Tanh"), &exp = stage_named(d, "Exp"),
                    &relu = stage_named(d, "Relu"), &sigmoid = stage_named(d, "Sigmoid");
  EXPECT_GT(exp.start_cycle, tanh.start_cycle);
  EXPECT_LT(exp.start_cycle, tanh.start_cycle + tanh.latency_cycles);
  EXPECT_EQ(relu.start_cycle, exp.start_cycle + exp.latency_cycles);
  // Relu's results are valid for one cycle; Sigmoid's first read is in its
  // first iteration, so it starts then and takes them all.
  EXPECT_EQ(sigmoid.start_cycle, relu.start_cycle + relu.latency_cycles);
  int sum = 0;
  for (const StageReport& s : d.stages) sum += s.latency_cycles;
  EXPECT_LT(d.latency_cycles, sum);
  // The channels' memories go where the estimate counts them: distributed
  // RAM for these small ones (ram_in_block_ram), never left to Yosys.
  int channels = 0;
  for (const netlist::Module& mod : d.netlist.modules)
    for (const netlist::Memory& mem : mod.memories())
      if (mem.name.rfind("chm", 0) == 0) {
        ++channels;
        EXPECT_EQ(mem.storage, netlist::Storage::Lutram) << mem.name;
      }
  EXPECT_GT(channels, 0);
  for (const auto& [file, text] : d.files)
    if (file == d.top + ".v") {
      EXPECT_EQ(text.find("_d1 <="), std::string::npos) << text;
    }
  expect_lint_clean_and_bit_exact(m, d);
}

// A convolution line-buffered (ConvImplementation: LineBuffer): one
// iteration per input pixel, two per iteration here, the window shifting in
// registers (state read and written in one cycle, II 1), the rows above in
// line buffers read and written at one moving element, and each output
// written under the condition that its window is full.
TEST(LoopStage, LineBufferedConvolution) {
  const hls::Model m = testing::zoo_model("conv2d_a");
  RtlOptions o;
  o.line_buffer["Conv"] = true;
  o.directives.loops["Conv/oh"] = {std::nullopt, 1, true};
  o.directives.loops["Conv/ow"] = loop_config(2, std::nullopt);
  const Design d = build_design(m, o);
  const StageReport& s = stage_named(d, "Conv");
  // 8 x 8 input pixels, two per iteration at II 1.
  EXPECT_GE(s.latency_cycles, 32);
  EXPECT_LE(s.latency_cycles, 32 + 8);
  expect_lint_clean_and_bit_exact(m, d);
}

// The line buffers in memory (memories.h): each a simple dual-port RAM of
// one entry per column, written and read once per iteration (the ports the
// schedule counts); a line buffer whose Storage says registers stays one.
TEST(LoopStage, LineBuffersInMemory) {
  const hls::Model m = testing::zoo_model("conv2d_a");
  RtlOptions o;
  o.line_buffer["Conv"] = true;
  o.directives.loops["Conv/oh"] = {std::nullopt, 1, true};
  o.directives.buffers["Conv_line1_0"] = {
      loop::Partition::None, 0, 0, loop::Storage::Registers, {}};
  const Design d = build_design(m, o);
  const netlist::Module* conv = d.netlist.find("conv2d_a_Conv");
  ASSERT_NE(conv, nullptr);
  std::vector<std::string> memories;
  for (const netlist::Memory& mem : conv->memories()) {
    memories.push_back(mem.name);
    if (mem.name.find("Conv_line0_0") != std::string::npos) {
      EXPECT_EQ(mem.depth, 8);
      EXPECT_EQ(mem.width, 16);
      EXPECT_EQ(mem.kind, netlist::MemoryKind::Ram);
      // Where the estimate counts it (8 x 16 bits: distributed RAM), not
      // left to Yosys.
      EXPECT_EQ(mem.storage, netlist::Storage::Lutram);
    }
  }
  EXPECT_EQ(
      std::count_if(memories.begin(), memories.end(),
                    [](const std::string& n) { return n.find("line0_0") != std::string::npos; }),
      1)
      << ::testing::PrintToString(memories);
  EXPECT_EQ(
      std::count_if(memories.begin(), memories.end(),
                    [](const std::string& n) { return n.find("line1_0") != std::string::npos; }),
      0);
  // 8 x 8 input pixels at II 1: the memory's one read and one write per
  // cycle are enough.
  EXPECT_LE(stage_named(d, "Conv").latency_cycles, 64 + 8);
  expect_lint_clean_and_bit_exact(m, d);
}

// A perfect nest of three loops kept as one (Flatten on the row loop and on
// the column loop inside it): max_pool_2d's rows, columns and channels, one
// channel of one pixel per iteration at II 1, the three variables counted
// like an odometer.
TEST(LoopStage, ThreeLoopsFlattened) {
  const hls::Model m = testing::zoo_model("max_pool_2d");
  RtlOptions o;
  o.directives.loops["MaxPool/oh"] = {std::nullopt, 1, true};
  o.directives.loops["MaxPool/ow"] = {std::nullopt, std::nullopt, true};
  const Design d = build_design(m, o);
  const StageReport& s = stage_named(d, "MaxPool");
  // 7 x 7 x 3 iterations at II 1.
  EXPECT_GE(s.latency_cycles, 147);
  EXPECT_LE(s.latency_cycles, 147 + 10);
  const netlist::Module* pool = d.netlist.find(d.top + "_MaxPool");
  ASSERT_NE(pool, nullptr);
  bool counts_channels = false;
  for (netlist::ValueId v = 0; v < pool->size(); ++v)
    counts_channels |= pool->value(v).op == netlist::Op::Reg && pool->value(v).name == "var2";
  EXPECT_TRUE(counts_channels);
  expect_lint_clean_and_bit_exact(m, d);
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 3);
}

// The nest kept down to the output-channel loop, two copies of its body per
// iteration, the weights and biases banked by copy.
RtlOptions output_channels_by_two() {
  RtlOptions o;
  o.directives.loops["conv/oh"] = {std::nullopt, 1, true};
  for (const char* l : {"conv/ow", "conv/kh", "conv/kw", "conv/g", "conv/ci"})
    o.directives.loops[l] = {std::nullopt, std::nullopt, true};
  o.directives.loops["conv/co"] = loop_config(2, std::nullopt);
  o.directives.buffers["conv_w"] = cyclic(2, 4);
  o.directives.buffers["conv_b"] = cyclic(2, 1);
  return o;
}

// A padded convolution kept down to its output-channel loop, two channels
// per iteration on two multipliers: each iteration starts its accumulators
// from the biases at a window's first product, sums where the padding
// allows, and writes the outputs at its last (loop::sink_nests distributes
// those over co); the accumulators a memory moving with co, the weights and
// biases banked by copy. II 1 over 3 x 3 x 2 x 2 x 2 x 2 iterations.
TEST(LoopStage, ConvolutionKeepsItsOutputChannelLoop) {
  const hls::Model m = hls::testing::parse(R"(
model "t" {}
%x: ap_fixed<8,3>[3x3x2] = Input() @x "x"
%y: ap_fixed<16,6>[3x3x4] = Conv(%x) {in_h=3 in_w=3 c_in=2 out_h=3 out_w=3 c_out=4 kernel_h=2 kernel_w=2 stride_h=1 stride_w=1 pad_top=1 pad_bottom=0 pad_left=1 pad_right=0} @conv constants {weights=[1024,-512,256,2048,-3072,100,7,-9,300,-700,50,900,-20,1500,-1100,60,5,-6,7,-8,900,800,-700,600,11,-22,33,-44,555,-666,777,-888] bias=[64,-32,5,700]}
input %x "x": [1x3x3x2] perm=[0,1,2]
output %y "y": [1x3x3x4] perm=[0,1,2]
)");
  const Design d = build_design(m, output_channels_by_two());
  const StageReport& s = stage_named(d, "conv");
  EXPECT_EQ(s.multiplier_units, 2);
  EXPECT_NE(s.loop_ii.find("II 1"), std::string::npos) << s.loop_ii;
  EXPECT_GE(s.latency_cycles, 144);
  EXPECT_LE(s.latency_cycles, 144 + 12);
  // The accumulators (two banks of two, registers) are written at the
  // element an index computed from the kept variables names: a comparison
  // per element, not one per iteration (144).
  const netlist::Module* conv = d.netlist.find(d.top + "_conv");
  ASSERT_NE(conv, nullptr);
  int compares = 0;
  for (netlist::ValueId v = 0; v < conv->size(); ++v)
    compares += conv->value(v).op == netlist::Op::Eq;
  EXPECT_LT(compares, 72);
  expect_lint_clean_and_bit_exact(m, d);
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 8);
}

// The same convolution at 8 bits (issue 26, "DSPs used fully"): the input
// pixel's products by its output channels' weights, two copies of co per
// iteration, pair up in one DSP slice (product_pairs.h). Yosys counts the
// slices the estimate does, one for both products, and the results stay the
// emulator's in kiln's interpreter and in Icarus.
TEST(LoopStage, EightBitProductsOfOnePixelShareADspSlice) {
  const hls::Model m = hls::testing::parse(R"(
model "t" {}
%x: ap_fixed<8,3>[3x3x2] = Input() @x "x"
%y: ap_fixed<16,6>[3x3x4] = Conv(%x) {in_h=3 in_w=3 c_in=2 out_h=3 out_w=3 c_out=4 kernel_h=2 kernel_w=2 stride_h=1 stride_w=1 pad_top=1 pad_bottom=0 pad_left=1 pad_right=0} @conv config {weight=ap_fixed<8,3> accum=ap_fixed<24,10>} constants {weights=[-128,-1,127,64,-128,100,7,-9,30,-70,50,90,-20,15,-110,60,5,-6,7,-8,-128,-128,-70,60,11,-22,33,-44,55,-66,77,-88] bias=[64,-32,5,70]}
input %x "x": [1x3x3x2] perm=[0,1,2]
output %y "y": [1x3x3x4] perm=[0,1,2]
)");
  const Design d = build_design(m, output_channels_by_two());
  const StageReport& s = stage_named(d, "conv");
  EXPECT_EQ(s.multipliers, 2);
  EXPECT_EQ(s.dsp, 1);
  int pairs = 0;
  for (const netlist::Module& mod : d.netlist.modules)
    for (netlist::ValueId v = 0; v < mod.size(); ++v)
      pairs += mod.value(v).name.rfind("pp", 0) == 0;
  EXPECT_EQ(pairs, 1);
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 8);
  expect_lint_clean_and_bit_exact(m, d);
  kiln::testing::TempDir dir;
  const tools::SynthResult r =
      tools::synthesize(testing::write_files(d, dir.path()), d.top,
                        fpga::device_of_part(m.part).family, dir.path() / "syn");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.total.dsp, 1);
}

// dense_a's input and output loops flattened: one product per iteration, its
// weight w[i][j] read from a two-port ROM at address 8 i + j (a step per kept
// variable), the accumulators a memory moving with j.
TEST(LoopStage, FlattenedDenseReadsItsWeightsFromARom) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/i"] = {std::nullopt, 1, true};
  const Design d = build_design(m, o);
  const netlist::Module* gemm = d.netlist.find(d.top + "_Gemm");
  ASSERT_NE(gemm, nullptr);
  int roms = 0;
  for (const netlist::Memory& mem : gemm->memories())
    roms += mem.kind == netlist::MemoryKind::Rom ? 1 : 0;
  EXPECT_GE(roms, 1);
  EXPECT_TRUE(gemm->tables().empty());
  expect_lint_clean_and_bit_exact(m, d);
  testing::expect_bit_exact(m, d, tools::Simulator::Kiln, 3);
}

TEST(LoopStage, TwoKeptLoopsInOneLayerAreRefused) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/i"] = loop_config(std::nullopt, 1);
  o.directives.loops["Gemm/out"] = loop_config(std::nullopt, 1);
  expect_unsupported(m, o, "one loop per layer");
}

TEST(LoopStage, PartitionsOfComputedBuffersAreRefused) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/i"] = loop_config(std::nullopt, 1);
  o.directives.buffers["input_v"] = cyclic(2, 1);
  expect_unsupported(m, o, "'input_v' holds a model input");
}

TEST(LoopStage, WeightReadsAcrossBanksAreRefused) {
  const hls::Model m = testing::zoo_model("dense_a");
  RtlOptions o;
  o.directives.loops["Gemm/i"] = loop_config(std::nullopt, 1);
  o.directives.buffers["Gemm_w"] = cyclic(2, 1);  // the loop moves along dimension 1 by 1
  expect_unsupported(m, o, "Gemm_w");
}

}  // namespace
}  // namespace kiln::rtl

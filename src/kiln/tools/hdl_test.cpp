#include "kiln/tools/hdl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "kiln/support/testing/test_helpers.h"

namespace kiln::tools {
namespace {

namespace fs = std::filesystem;
using kiln::testing::catch_error;
using kiln::testing::TempDir;
using kiln::testing::text_block;
using kiln::testing::write_bytes;

// y = a * b + c, registered twice (product, then sum), valid alongside.
const char* const kMac2 = R"(
module mac2 (
    input  wire               clk,
    input  wire               rst,
    input  wire               in_valid,
    input  wire signed [15:0] a,
    input  wire signed [15:0] b,
    input  wire signed [31:0] c,
    output reg                out_valid,
    output reg  signed [32:0] y
);
  reg signed [31:0] prod;
  reg signed [31:0] c_d;
  reg               v1;
  always @(posedge clk) begin
    if (rst) begin
      v1 <= 1'b0;
      out_valid <= 1'b0;
    end else begin
      v1 <= in_valid;
      out_valid <= v1;
    end
    prod <= a * b;
    c_d <= c;
    y <= {prod[31], prod} + {c_d[31], c_d};
  end
endmodule
)";

// Drives the vectors of stimulus.hex ({a, b, c} per line) with a bubble every
// third cycle and checks each output against expected.hex; writes the outputs
// to results.txt.
const char* const kMac2Tb = R"(
module mac2_tb;
  localparam integer N = 20;
  reg clk = 1'b0;
  reg rst = 1'b1;
  reg in_valid = 1'b0;
  reg signed [15:0] a = 16'sd0;
  reg signed [15:0] b = 16'sd0;
  reg signed [31:0] c = 32'sd0;
  wire out_valid;
  wire signed [32:0] y;
  reg [63:0] stim[0:N-1];
  reg [32:0] expected[0:N-1];
  integer sent = 0, got = 0, errors = 0, cycles = 0, fd;

  mac2 dut (.clk(clk), .rst(rst), .in_valid(in_valid), .a(a), .b(b), .c(c),
            .out_valid(out_valid), .y(y));

  always #5 clk = ~clk;

  initial begin
    $readmemh("stimulus.hex", stim);
    $readmemh("expected.hex", expected);
    fd = $fopen("results.txt", "w");
    repeat (2) @(posedge clk);
    rst = 1'b0;
  end

  always @(posedge clk) begin
    if (!rst) begin
      cycles <= cycles + 1;
      if (sent < N && cycles % 3 != 2) begin
        in_valid <= 1'b1;
        a <= stim[sent][63:48];
        b <= stim[sent][47:32];
        c <= stim[sent][31:0];
        sent <= sent + 1;
      end else begin
        in_valid <= 1'b0;
      end
    end
  end

  always @(posedge clk) begin
    if (out_valid) begin
      $fwrite(fd, "%0d\n", y);
      if (y !== expected[got]) begin
        $display("FAIL %0d got %0d expected %0d", got, y, $signed(expected[got]));
        errors = errors + 1;
      end
      got = got + 1;
      if (got == N) begin
        if (errors == 0) $display("PASS %0d", N);
        $display("CYCLES %0d", cycles);
        $fclose(fd);
        $finish;
      end
    end
    if (cycles > 1000) begin
      $display("FAIL timeout after %0d cycles", cycles);
      $finish;
    end
  end
endmodule
)";

// Input wider than output: Verilator's WIDTH warning on line 5.
const char* const kNarrow = R"(
module narrow (
    input  wire [15:0] a,
    output wire [7:0]  y
);
  assign y = a;
endmodule
)";

const char* const kAdder = R"(
module adder (
    input  wire        clk,
    input  wire [31:0] a,
    input  wire [31:0] b,
    output reg  [32:0] y
);
  always @(posedge clk) y <= {1'b0, a} + {1'b0, b};
endmodule
)";

const char* const kTwoAdders = R"(
module two_adders (
    input  wire        clk,
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [32:0] y0,
    output wire [32:0] y1
);
  adder u0 (.clk(clk), .a(a), .b(b), .y(y0));
  adder u1 (.clk(clk), .a(b), .b(a), .y(y1));
endmodule
)";

struct Vector {
  int16_t a, b;
  int32_t c;
  int64_t y() const { return int64_t{a} * b + c; }
};

// 20 vectors: the extremes (which need all 33 bits of y), then random ones.
std::vector<Vector> mac_vectors() {
  std::vector<Vector> v = {{-32768, -32768, INT32_MAX}, {32767, -32768, INT32_MIN}, {0, 0, 0}};
  std::mt19937 rng(20240611);
  while (v.size() < 20) {
    const uint32_t ab = rng();
    v.push_back({static_cast<int16_t>(ab >> 16), static_cast<int16_t>(ab & 0xffff),
                 static_cast<int32_t>(rng())});
  }
  return v;
}

fs::path write_file(const TempDir& dir, const std::string& name, const char* text) {
  const fs::path p = dir / name;
  write_bytes(p, text_block(text));
  return p;
}

// The DUT, its testbench and the stimulus files; `corrupt` changes the
// expected value of that vector so the testbench must fail it.
std::vector<fs::path> write_mac_testbench(const TempDir& dir, int corrupt = -1) {
  std::string stim, expected;
  char line[64];
  int i = 0;
  for (const Vector& v : mac_vectors()) {
    std::snprintf(line, sizeof line, "%04x%04x%08x\n", static_cast<uint16_t>(v.a),
                  static_cast<uint16_t>(v.b), static_cast<uint32_t>(v.c));
    stim += line;
    const int64_t y = v.y() + (i++ == corrupt ? 1 : 0);
    std::snprintf(line, sizeof line, "%09" PRIx64 "\n",
                  static_cast<uint64_t>(y) & ((uint64_t{1} << 33) - 1));
    expected += line;
  }
  write_bytes(dir / "stimulus.hex", stim);
  write_bytes(dir / "expected.hex", expected);
  return {write_file(dir, "mac2.v", kMac2), write_file(dir, "mac2_tb.v", kMac2Tb)};
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void expect_pass(const SimResult& r, const fs::path& dir) {
  ASSERT_TRUE(r.ok) << r.error << "\n" << r.build_log;
  EXPECT_CONTAINS(r.out, "PASS 20\n");
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
  // 2 reset cycles aside, 20 vectors over 29 cycles (every third is a
  // bubble) and 2 stages of latency.
  EXPECT_CONTAINS(r.out, "CYCLES 31\n");
  std::string results;
  for (const Vector& v : mac_vectors()) results += std::to_string(v.y()) + "\n";
  EXPECT_EQ(read_text(dir / "results.txt"), results);
}

// Puts only an empty directory on PATH while alive.
class EmptyPath {
 public:
  EmptyPath() {
    const char* old = std::getenv("PATH");
    saved_ = old ? old : "";
    ::setenv("PATH", dir_.path().c_str(), 1);
  }
  ~EmptyPath() { ::setenv("PATH", saved_.c_str(), 1); }

 private:
  TempDir dir_;
  std::string saved_;
};

TEST(HdlTools, FoundWithVersionsAndListedByDetectTools) {
  for (const ToolInfo& t : {find_verilator(), find_iverilog(), find_yosys()}) {
    ASSERT_TRUE(t.found()) << t.name << " is needed by the RTL backend (scripts/install-deps.sh)";
    EXPECT_FALSE(t.version.empty()) << t.name;
  }
  std::vector<std::string> names;
  for (const ToolInfo& t : detect_tools()) names.push_back(t.name);
  for (const char* name : {"verilator", "iverilog", "yosys"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

TEST(HdlTools, MissingToolsNameTheirDebianPackage) {
  TempDir dir;
  const fs::path v = write_file(dir, "adder.v", kAdder);
  EmptyPath empty;
  const SimResult icarus = simulate(Simulator::Icarus, {v}, "adder", dir / "sim");
  EXPECT_FALSE(icarus.ok);
  EXPECT_CONTAINS(icarus.error, "Debian package iverilog");
  const LintResult lint = lint_verilog({v}, "adder");
  EXPECT_FALSE(lint.ok);
  EXPECT_CONTAINS(lint.error, "Debian package verilator");
  const SynthResult synth = synthesize({v}, "adder", fpga::Family::Series7, dir / "synth");
  EXPECT_FALSE(synth.ok);
  EXPECT_CONTAINS(synth.error, "Debian package yosys");
}

TEST(Lint, CleanModuleHasNoDiagnostics) {
  TempDir dir;
  const LintResult r = lint_verilog({write_file(dir, "mac2.v", kMac2)}, "mac2");
  EXPECT_TRUE(r.ok) << r.error << "\n" << r.log;
  EXPECT_TRUE(r.diagnostics.empty());
}

TEST(Lint, WidthMismatchIsReportedWithFileAndLine) {
  TempDir dir;
  const fs::path file = write_file(dir, "narrow.v", kNarrow);
  const LintResult r = lint_verilog({file}, "narrow");
  EXPECT_FALSE(r.ok);
  const auto width =
      std::find_if(r.diagnostics.begin(), r.diagnostics.end(),
                   [](const HdlDiagnostic& d) { return d.code.rfind("WIDTH", 0) == 0; });
  ASSERT_NE(width, r.diagnostics.end()) << r.log;
  EXPECT_FALSE(width->error);
  EXPECT_EQ(fs::path(width->file).filename(), "narrow.v");
  EXPECT_EQ(width->line, 5);
  EXPECT_GT(width->column, 0);
  EXPECT_CONTAINS(r.error, "narrow.v:5:");
}

TEST(Lint, ParsesVerilatorMessages) {
  const std::string log = text_block(R"(
%Warning-WIDTH: /a b/x.v:5:12: Operator ASSIGNW expects 8 bits
                             : ... In instance narrow
%Error: y.v:3: syntax error, unexpected ';'
%Error: Specified --top-module 'nope' was not found in design.
%Error: Exiting due to 3 error(s)
)");
  const std::vector<HdlDiagnostic> d = parse_verilator_diagnostics(log);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].code, "WIDTH");
  EXPECT_EQ(d[0].file, "/a b/x.v");
  EXPECT_EQ(d[0].line, 5);
  EXPECT_EQ(d[0].column, 12);
  EXPECT_EQ(d[0].message, "Operator ASSIGNW expects 8 bits");
  EXPECT_EQ(d[0].text(), "/a b/x.v:5:12: %Warning-WIDTH: Operator ASSIGNW expects 8 bits");
  EXPECT_TRUE(d[1].error);
  EXPECT_EQ(d[1].file, "y.v");
  EXPECT_EQ(d[1].line, 3);
  EXPECT_EQ(d[1].column, 0);
  EXPECT_EQ(d[2].file, "");
  EXPECT_EQ(d[2].message, "Specified --top-module 'nope' was not found in design.");
}

TEST(Simulate, IcarusRunsTheTestbench) {
  TempDir dir;
  const SimResult r = simulate(Simulator::Icarus, write_mac_testbench(dir), "mac2_tb", dir.path());
  expect_pass(r, dir.path());
  std::cout << "icarus: compile " << r.build_seconds << " s, run " << r.run_seconds << " s\n";
}

TEST(Simulate, IcarusTestbenchReportsAWrongResult) {
  TempDir dir;
  const SimResult r =
      simulate(Simulator::Icarus, write_mac_testbench(dir, 7), "mac2_tb", dir.path());
  ASSERT_TRUE(r.ok) << r.error;  // the run itself succeeds
  EXPECT_CONTAINS(r.out, "FAIL 7 got " + std::to_string(mac_vectors()[7].y()));
  EXPECT_EQ(r.out.find("PASS"), std::string::npos) << r.out;
}

TEST(Simulate, VerilatorRunsTheTestbench) {
  TempDir dir;
  const SimResult r =
      simulate(Simulator::Verilator, write_mac_testbench(dir), "mac2_tb", dir.path());
  expect_pass(r, dir.path());
  std::cout << "verilator: build " << r.build_seconds << " s, run " << r.run_seconds << " s\n";
}

TEST(Simulate, CompileErrorNamesToolFileAndLine) {
  TempDir dir;
  const fs::path bad = dir / "broken.v";
  write_bytes(bad, "module broken;\n  wire x = ;\nendmodule\n");
  const SimResult r = simulate(Simulator::Icarus, {bad}, "broken", dir / "sim");
  EXPECT_FALSE(r.ok);
  EXPECT_CONTAINS(r.error, "iverilog: compile failed");
  EXPECT_CONTAINS(r.error, "broken.v:2");
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
}

// Verilator stops on the warning before any C++ is compiled, so this is quick.
TEST(Simulate, VerilatorWarningFailsTheBuildWithItsLocation) {
  TempDir dir;
  const SimResult r =
      simulate(Simulator::Verilator, {write_file(dir, "narrow.v", kNarrow)}, "narrow", dir / "sim");
  EXPECT_FALSE(r.ok);
  EXPECT_CONTAINS(r.error, "verilator: build failed");
  EXPECT_CONTAINS(r.error, "narrow.v:5:");
  EXPECT_CONTAINS(r.error, "%Warning-WIDTH");
}

TEST(Simulate, MissingCompilerIsNamed) {
  TempDir dir;
  SimOptions opts;
  opts.verilator_cxx = "kiln-no-such-cxx";
  const SimResult r = simulate(Simulator::Verilator, {write_file(dir, "adder.v", kAdder)}, "adder",
                               dir / "sim", opts);
  EXPECT_FALSE(r.ok);
  EXPECT_CONTAINS(r.error, "kiln-no-such-cxx not found");
}

TEST(Synthesize, MultiplyAddUsesADspOnUltraScalePlus) {
  TempDir dir;
  const SynthResult r = synthesize({write_file(dir, "mac2.v", kMac2)}, "mac2",
                                   fpga::Family::UltraScalePlus, dir / "synth");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GE(r.total.dsp, 1);
  EXPECT_GT(r.total.ff, 0);
  EXPECT_GE(r.total.cells.count("DSP48E2"), 1u);
  EXPECT_EQ(r.total.cells.count("IBUF"), 0u);  // -noiopad
  ASSERT_TRUE(r.modules.count("mac2"));
  EXPECT_EQ(r.modules.at("mac2").dsp, r.total.dsp);
  EXPECT_EQ(r.script, fs::absolute(dir / "synth" / "synth.ys"));
  EXPECT_CONTAINS(read_text(r.script), "synth_xilinx -family xcup -top mac2");
  std::cout << "yosys (xcup, mac2): " << r.seconds << " s\n";
}

// Yosys over its time limit is out of resources (the design is too big), not
// a failure of the design: `kiln synth` says so with exit 3.
TEST(Synthesize, OverTheTimeLimitIsOutOfResources) {
  TempDir dir;
  const SynthResult r = synthesize({write_file(dir, "mac2.v", kMac2)}, "mac2",
                                   fpga::Family::UltraScalePlus, dir / "synth", 0.05);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.out_of_resources) << r.error;
  EXPECT_CONTAINS(r.error, "timed out");
}

TEST(Synthesize, AddersUseCarryChainsAndCountPerModule) {
  TempDir dir;
  const SynthResult r =
      synthesize({write_file(dir, "adder.v", kAdder), write_file(dir, "two_adders.v", kTwoAdders)},
                 "two_adders", fpga::Family::Series7, dir / "synth");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GT(r.total.carry, 0);
  EXPECT_GT(r.total.lut, 0);
  EXPECT_EQ(r.total.dsp, 0);
  EXPECT_EQ(r.total.ff, 66);  // 2 x 33 output bits
  ASSERT_TRUE(r.modules.count("adder") && r.modules.count("two_adders"));
  EXPECT_EQ(r.total.carry, 2 * r.modules.at("adder").carry);
  EXPECT_EQ(r.modules.at("two_adders").cells.at("adder"), 2);
  EXPECT_EQ(r.modules.at("two_adders").carry, 0);
  std::cout << "yosys (xc7, two_adders): " << r.seconds << " s\n";
}

// Out of context: the instantiated module is a black box, read but not
// synthesized; its instances stay cells and its own cells are not counted.
TEST(Synthesize, BlackBoxesAreInstancesWithoutCells) {
  TempDir dir;
  SynthOptions opts;
  opts.black_boxes = {write_file(dir, "adder.v", kAdder)};
  opts.memory_limit_bytes = uint64_t{4} << 30;
  const SynthResult r = synthesize({write_file(dir, "two_adders.v", kTwoAdders)}, "two_adders",
                                   fpga::Family::Series7, dir / "synth", opts);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_CONTAINS(read_text(r.script), "read_verilog -sv -lib ");
  EXPECT_EQ(r.modules.count("adder"), 0u);
  ASSERT_TRUE(r.modules.count("two_adders"));
  EXPECT_EQ(r.modules.at("two_adders").cells.at("adder"), 2);
  EXPECT_EQ(r.total.carry, 0);
  EXPECT_EQ(r.total.ff, 0);
  EXPECT_GT(r.peak_memory_bytes, 0u);
  EXPECT_FALSE(r.out_of_memory);
}

// A limit Yosys cannot start under: out of memory, which `kiln synth`
// reports as too large for the limit (exit 3), not as a broken design.
TEST(Synthesize, OverTheMemoryLimitIsOutOfResources) {
  TempDir dir;
  SynthOptions opts;
  opts.memory_limit_bytes = uint64_t{32} << 20;
  const SynthResult r = synthesize({write_file(dir, "mac2.v", kMac2)}, "mac2",
                                   fpga::Family::UltraScalePlus, dir / "synth", opts);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.out_of_memory) << r.error;
  EXPECT_TRUE(r.out_of_resources);
  EXPECT_CONTAINS(r.error, "out of memory under its");
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
}

TEST(Synthesize, UnknownTopIsAOneLineYosysError) {
  TempDir dir;
  const SynthResult r =
      synthesize({write_file(dir, "adder.v", kAdder)}, "nope", fpga::Family::Series7, dir.path());
  EXPECT_FALSE(r.ok);
  EXPECT_CONTAINS(r.error, "yosys: synthesis of nope failed");
  EXPECT_CONTAINS(r.error, "ERROR");
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
}

TEST(Synthesize, ParsesStatJsonIntoResources) {
  const std::string stat = text_block(R"(
{"modules": {"\\m": {"num_cells_by_type": {"LUT1": 1, "LUT6": 2, "FDCE": 3, "FDRE": 4,
    "DSP48E1": 1, "RAMB18E2": 1, "RAMB36E1": 2, "CARRY8": 5, "RAM32M": 1, "RAM64X1D": 2,
    "SRLC32E": 3, "SRL16E": 1, "MUXF7": 9}}},
 "design": {"num_cells_by_type": {"LUT6": 7}}}
)");
  CellCounts total;
  std::map<std::string, CellCounts> modules;
  parse_yosys_stat(stat, total, modules);
  ASSERT_TRUE(modules.count("m"));
  const CellCounts& m = modules.at("m");
  // LUT1, LUT6 x 2, the distributed RAMs' 4 + 2 x 2 and the 4 shift registers.
  EXPECT_EQ(m.lut, 3 + 8 + 4);
  EXPECT_EQ(m.ff, 7);
  EXPECT_EQ(m.dsp, 1);
  EXPECT_EQ(m.bram18, 5);
  EXPECT_EQ(m.carry, 5);
  EXPECT_EQ(m.lutram, 8);
  EXPECT_EQ(m.srl, 4);
  EXPECT_EQ(m.cells.at("MUXF7"), 9);
  EXPECT_EQ(total.lut, 7);
  const Error e = catch_error([&] { parse_yosys_stat("not json", total, modules); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
}

// Yosys 0.23 prints the hierarchy of a design whose submodules have
// submodules inside "design"; those lines are not JSON and are skipped.
TEST(Synthesize, StatJsonWithHierarchyLinesParses) {
  const std::string stat = text_block(R"(
{"modules": {"\\top": {"num_cells_by_type": {"LUT6": 2}}},
   "design": {
       top_a             1
       top_a_b           2
      "num_cells_by_type": {"LUT6": 9}
   }
}
)");
  CellCounts total;
  std::map<std::string, CellCounts> modules;
  parse_yosys_stat(stat, total, modules);
  EXPECT_EQ(total.lut, 9);
  EXPECT_EQ(modules.at("top").lut, 2);
}

}  // namespace
}  // namespace kiln::tools

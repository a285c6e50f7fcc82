// The C flow as a user meets it (docs/cflow.md): `kiln compile --set
// Backend=bambu` writes seed 001's C99 project, which gcc compiles with
// -std=c99 -pedantic -Werror and `kiln csim --werror` finds bit-exact with
// kiln's emulator; the project's own `make csim` agrees.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>

#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

class BambuC : public ::testing::TestWithParam<std::string> {};

TEST_P(BambuC, CompilesAsC99AndSimulatesBitExact) {
  TempDir tmp;
  const fs::path out = tmp.path() / "p";
  const ProcessResult c =
      kiln({"compile", zoo(GetParam()), "--set", "Backend=bambu", "-o", out.string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string m = GetParam();
  for (const char* f : {"firmware/kiln_fixed_c.h", "bambu/bambu.sh", "Makefile"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  EXPECT_FALSE(fs::exists(out / "firmware" / (m + ".cpp")));  // C, not the layer library
  const ProcessResult gcc = run_process(
      {"/usr/bin/env", "gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
       "-fsyntax-only", "-I", (out / "firmware").string(), (out / "firmware" / (m + ".c")).string(),
       (out / "tb" / (m + "_test.c")).string()},
      120);
  EXPECT_EQ(gcc.exit_code, 0) << gcc.err;
  const ProcessResult s = kiln({"csim", out.string(), "--samples", "5", "--werror"});
  ASSERT_EQ(s.exit_code, 0) << s.err << s.out;
  EXPECT_NE(s.out.find("5/5 samples bit-exact"), std::string::npos) << s.out;
  // The project checks itself against the emulator's outputs it was written with.
  const ProcessResult make = run_process({"/usr/bin/env", "make", "-C", out.string(), "csim"}, 300);
  EXPECT_EQ(make.exit_code, 0) << make.out << make.err;
  EXPECT_NE(make.out.find("0 differ"), std::string::npos) << make.out;
  // The weights come from firmware/weights/*.dat (seed 001): without one the
  // testbench stops, saying so.
  std::vector<fs::path> dats;
  if (fs::exists(out / "firmware" / "weights"))
    for (const auto& e : fs::directory_iterator(out / "firmware" / "weights"))
      dats.push_back(e.path());
  if (dats.empty()) return;  // a model without weights (vecmul_a)
  fs::remove(dats.front());
  const ProcessResult missing =
      run_process({"/usr/bin/env", "make", "-C", out.string(), "csim"}, 300);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("cannot read the weights"), std::string::npos) << missing.err;
}

// Seed 001's parallel loops: with the Gemm's loop over outputs unrolled (a
// parallel loop of the schedule), the C99 marks it `omp parallel for`,
// bambu.sh passes -fopenmp, and on two threads the C is still bit-exact.
TEST(BambuOpenMp, AnUnrolledLoopOverOutputsRunsOnThreadsBitExact) {
  TempDir tmp;
  const fs::path out = tmp.path() / "p";
  const ProcessResult c =
      kiln({"compile", zoo("mlp"), "--set", "Backend=bambu", "--set", "Loop.fc_Gemm/j.Unroll=5",
            "--set", "Loop.fc_Gemm/i.Unroll=2", "-o", out.string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  std::ifstream in(out / "firmware" / "mlp.c");
  const std::string code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // j (over outputs) is parallel; i (the reduction) is not, though unrolled.
  const std::string pragma = "#pragma omp parallel for\n#endif\n";
  const std::size_t at = code.find(pragma);
  ASSERT_NE(at, std::string::npos) << code;
  EXPECT_NE(code.find("/* j */", at), std::string::npos);
  EXPECT_EQ(code.find(pragma, at + 1), std::string::npos);
  std::ifstream sh(out / "bambu" / "bambu.sh");
  const std::string script((std::istreambuf_iterator<char>(sh)), std::istreambuf_iterator<char>());
  EXPECT_NE(script.find("-fopenmp --pragma-parse"), std::string::npos) << script;
  const ProcessResult make =
      run_process({"/usr/bin/env", "OMP_NUM_THREADS=2", "make", "-B", "-C", out.string(), "csim",
                   "OPENMP=-fopenmp", "CFLAGS=-std=c99 -O2 -Wall -Wextra -pedantic -Werror"},
                  300);
  EXPECT_EQ(make.exit_code, 0) << make.out << make.err;
  EXPECT_NE(make.out.find("-fopenmp"), std::string::npos) << make.out;
  EXPECT_NE(make.out.find(" 0 differ"), std::string::npos) << make.out;
}

// Every loop unrolled: each independent one (with more than one iteration)
// is marked, its body split into a function, and on two threads the C is
// still bit-exact with the emulator. Seed 001's split keeps -Werror clean:
// every parameter of a split body is used.
class BambuOpenMpEveryLoop : public ::testing::TestWithParam<std::string> {};

TEST_P(BambuOpenMpEveryLoop, SplitsEveryParallelBodyAndStaysBitExactOnThreads) {
  TempDir tmp;
  const fs::path out = tmp.path() / "p";
  const ProcessResult loops = kiln({"rtl", zoo(GetParam()), "--list-loops", "--json"});
  ASSERT_EQ(loops.exit_code, 0) << loops.err;
  std::vector<std::string> args = {"compile", zoo(GetParam()), "--set", "Backend=bambu"};
  const nlohmann::json listed = stdout_json(loops);
  for (const nlohmann::json& l : listed["loops"]) {
    args.push_back("--set");
    args.push_back("Loop." + l["name"].get<std::string>() + ".Unroll=full");
  }
  args.insert(args.end(), {"-o", out.string()});
  const ProcessResult c = kiln(args);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  std::ifstream rep(out / "report.json");
  EXPECT_GT(nlohmann::json::parse(rep)["parallel_loops"].get<int>(), 0);
  const ProcessResult make =
      run_process({"/usr/bin/env", "OMP_NUM_THREADS=2", "make", "-B", "-C", out.string(), "csim",
                   "OPENMP=-fopenmp", "CFLAGS=-std=c99 -O1 -Wall -Wextra -pedantic -Werror"},
                  300);
  EXPECT_EQ(make.exit_code, 0) << make.out << make.err;
  EXPECT_NE(make.out.find(" 0 differ"), std::string::npos) << make.out;
}

INSTANTIATE_TEST_SUITE_P(Zoo, BambuOpenMpEveryLoop,
                         ::testing::Values("lenet5", "mlp", "softmax_a", "thxprlsg"));

INSTANTIATE_TEST_SUITE_P(Zoo, BambuC, ::testing::Values("mlp", "lenet5", "softmax_a", "vecmul_a"));

// Style: loops: the same loop nests as C++ for Vitis HLS, each loop labelled
// by its name and the config's Loop and Buffer directives as pragmas; it
// C-simulates bit-exact.
TEST(VitisLoops, CarriesTheDirectivesAsPragmasAndSimulatesBitExact) {
  TempDir tmp;
  const fs::path config = tmp.path() / "loops.yaml";
  std::ofstream(config) << "Style: loops\n"
                           "Loop:\n"
                           "  fc_Gemm/i:\n"
                           "    Pipeline: 2\n"
                           "  fc_Gemm/j:\n"
                           "    Unroll: 5\n"
                           "  Softmax/e:\n"
                           "    Unroll: full\n"
                           "Buffer:\n"
                           "  fc_Gemm_b:\n"
                           "    Storage: registers\n"
                           "  fc_Gemm_w:\n"
                           "    Partition: cyclic\n"
                           "    Factor: 5\n"
                           "    Dim: 2\n";
  const fs::path out = tmp.path() / "p";
  const ProcessResult c = kiln({"compile", zoo("mlp"), "-c", config.string(), "-o", out.string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  std::ifstream in(out / "firmware" / "mlp.cpp");
  const std::string code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* want :
       {"  i:\n", "    j:\n", "KILN_PRAGMA(HLS PIPELINE II=2)", "KILN_PRAGMA(HLS UNROLL factor=5)",
        "KILN_PRAGMA(HLS UNROLL)\n", "type=complete dim=1)",
        // the weights keep their two dimensions, so the partition of the second maps
        "b2_fc_Gemm_w[784][10] = {", "variable=b2_fc_Gemm_w type=cyclic factor=5 dim=2)"})
    EXPECT_NE(code.find(want), std::string::npos) << want;
  EXPECT_TRUE(fs::exists(out / "build_prj.tcl"));
  const ProcessResult s = kiln({"csim", out.string(), "--samples", "5", "--werror"});
  ASSERT_EQ(s.exit_code, 0) << s.err << s.out;
  EXPECT_NE(s.out.find("5/5 samples bit-exact"), std::string::npos) << s.out;
  // Typed values (ap_fixed under Vitis) and the vendor-header build, which
  // refuses a folder without ap_fixed.h (scripts/test.sh ap_types runs it).
  EXPECT_NE(code.find("KILN_FX(16, 6) *"), std::string::npos);
  const ProcessResult apt = run_process(
      {"/usr/bin/make", "-C", out.string(), "csim_ap_types", "AP_TYPES=/nonexistent"}, 300);
  EXPECT_NE(apt.exit_code, 0);
  EXPECT_NE(apt.out.find("no ap_fixed.h there"), std::string::npos) << apt.out << apt.err;
}

// The values a pattern's first group takes in `text`, sorted.
std::vector<std::string> all_of(const std::string& text, const std::string& pattern) {
  std::vector<std::string> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// kiln explore --emit vitis: the chosen point written as a Style: loops
// project whose pragmas are the point's directives, one for one, and which
// C-simulates bit-exact.
TEST(ExploreEmit, TheChosenPointsVitisProjectCarriesItsDirectives) {
  TempDir tmp;
  const fs::path out = tmp.path() / "x";
  const ProcessResult r =
      kiln({"explore", zoo("lenet5"), "--fastest", "4000", "--max-latency", "20000", "--no-design",
            "--emit", "vitis", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["emitted"], nlohmann::json::array({"vitis"}));
  const std::string config =
      read(out / j["points"][j["chosen"].get<int>()]["config"].get<std::string>());
  const std::string code = read(out / "vitis" / "firmware" / "lenet5.cpp");
  const std::vector<std::string> pipelines = all_of(config, R"(\n\s+Pipeline: (\d+))");
  ASSERT_FALSE(pipelines.empty()) << config;
  EXPECT_EQ(all_of(code, R"(HLS PIPELINE II=(\d+))"), pipelines) << config;
  std::vector<std::string> unrolls;
  for (const std::string& u : all_of(config, R"(\n\s+Unroll: (\w+))"))
    if (u != "1") unrolls.push_back(u == "full" ? "full" : u);
  std::vector<std::string> pragmas = all_of(code, R"(HLS UNROLL factor=(\d+))");
  for (std::size_t n = all_of(code, R"(HLS (UNROLL)\))").size(); n > 0; --n)
    pragmas.push_back("full");
  std::sort(pragmas.begin(), pragmas.end());
  EXPECT_EQ(pragmas, unrolls) << config;
  const ProcessResult s = kiln({"csim", (out / "vitis").string(), "--samples", "3", "--werror"});
  ASSERT_EQ(s.exit_code, 0) << s.err << s.out;
  EXPECT_NE(s.out.find("3/3 samples bit-exact"), std::string::npos) << s.out;
}

// kiln csynth runs the tool a project is for and reads its report. Neither
// Vitis HLS nor Bambu is installed where kiln is tested, so stand-ins on
// PATH play them: each checks how kiln called it and answers in its tool's
// report format. RealTool runs the real one when it is on PATH.
void write_tool(const fs::path& path, const std::string& script) {
  std::ofstream(path) << "#!/bin/sh\n" << script;
  fs::permissions(path, fs::perms::owner_all);
}

ProcessResult kiln_with_path(const std::string& path, std::vector<std::string> args) {
  args.insert(args.begin(), {"/usr/bin/env", "PATH=" + path, kiln_binary()});
  return run_process(args, 600);
}

TEST(CsynthCli, SaysWhichToolIsMissingAndExits3) {
  TempDir tmp;
  const fs::path p = tmp.path() / "p";
  ASSERT_EQ(
      kiln({"compile", zoo("vecmul_a"), "--set", "Backend=bambu", "-o", p.string()}).exit_code, 0);
  fs::create_directories(tmp.path() / "bin");
  const ProcessResult r =
      kiln_with_path((tmp.path() / "bin").string() + ":/usr/bin:/bin", {"csynth", p.string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("bambu is not on PATH"), std::string::npos) << r.err;
}

TEST(CsynthCli, RunsTheProjectsBambuScriptAndReadsItsCycles) {
  TempDir tmp;
  const fs::path p = tmp.path() / "p", bin = tmp.path() / "bin";
  ASSERT_EQ(
      kiln({"compile", zoo("vecmul_a"), "--set", "Backend=bambu", "-o", p.string()}).exit_code, 0);
  fs::create_directories(bin);
  // Seed 001's options, as bambu.sh passes them, or no answer.
  write_tool(bin / "bambu",
             "case \"$*\" in *firmware/vecmul_a.c*--top-fname=vecmul_a*--std=c99*--simulate*) ;;\n"
             "  *) echo \"unexpected: $*\" >&2; exit 1 ;; esac\n"
             "echo '  Total number of flip-flops in function vecmul_a: 321'\n"
             "echo '    Estimated number of DSPs: 1'\n"
             "echo '1. Simulation completed with SUCCESS; Execution time 77 cycles;'\n");
  const ProcessResult r =
      kiln_with_path(bin.string() + ":/usr/bin:/bin", {"csynth", p.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = stdout_json(r);
  EXPECT_EQ(j["tool"], "bambu");
  EXPECT_EQ(j["simulated_cycles"], 77);
  EXPECT_EQ(j["ff"], 321);
  EXPECT_EQ(j["dsp"], 1);
  EXPECT_TRUE(fs::exists(p / "bambu" / "bambu.log"));
}

TEST(CsynthCli, RunsVitisSynthesisOnlyAndReadsItsReport) {
  TempDir tmp;
  const fs::path p = tmp.path() / "p", bin = tmp.path() / "bin";
  ASSERT_EQ(kiln({"compile", zoo("vecmul_a"), "--set", "Style=loops", "-o", p.string()}).exit_code,
            0);
  fs::create_directories(bin);
  // It must be asked for csynth alone, through the project's build_prj.tcl.
  write_tool(bin / "vitis_hls",
             "[ \"$1 $2\" = \"-f kiln_csynth.tcl\" ] || exit 1\n"
             "grep -q 'set run_csim 0' kiln_csynth.tcl && grep -q 'source build_prj.tcl' "
             "kiln_csynth.tcl || exit 1\n"
             "top=$(sed -n 's/^set_top //p' build_prj.tcl)\n"
             "d=${top}_prj/solution1/syn/report; mkdir -p $d\n"
             "cat > $d/${top}_csynth.xml <<'X'\n"
             "<profile><PerformanceEstimates><SummaryOfOverallLatency>"
             "<Best-caseLatency>12</Best-caseLatency><Worst-caseLatency>14</Worst-caseLatency>"
             "<Interval-max>15</Interval-max></SummaryOfOverallLatency></PerformanceEstimates>"
             "<AreaEstimates><Resources><BRAM_18K>0</BRAM_18K><DSP>3</DSP><FF>90</FF>"
             "<LUT>250</LUT></Resources></AreaEstimates></profile>\nX\n");
  const ProcessResult r =
      kiln_with_path(bin.string() + ":/usr/bin:/bin", {"csynth", p.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = stdout_json(r);
  EXPECT_EQ(j["tool"], "vitis");
  EXPECT_EQ(j["latency_worst"], 14);
  EXPECT_EQ(j["interval"], 15);
  EXPECT_EQ(j["lut"], 250);
  EXPECT_EQ(j["dsp"], 3);
}

// A tool that fails: exit 2, naming the log it left in the project.
TEST(CsynthCli, AFailingToolIsReportedWithItsLog) {
  TempDir tmp;
  const fs::path p = tmp.path() / "p", bin = tmp.path() / "bin";
  ASSERT_EQ(kiln({"compile", zoo("vecmul_a"), "--set", "Style=loops", "-o", p.string()}).exit_code,
            0);
  fs::create_directories(bin);
  write_tool(bin / "vitis_hls", "echo 'ERROR: [HLS 200-70] no license' >&2\nexit 1\n");
  const ProcessResult r = kiln_with_path(bin.string() + ":/usr/bin:/bin", {"csynth", p.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("vitis_hls failed (exit status 1)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("vitis_hls_csynth.log"), std::string::npos) << r.err;
  std::ifstream log(p / "vitis_hls_csynth.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("no license"), std::string::npos) << text;
}

// The real tools, when installed: synthesis reports some cycles.
TEST(CsynthCli, RealTool) {
  const auto on_path = [&](const std::string& tool) {
    return ProcessResult(run_process({"/bin/sh", "-c", "command -v " + tool}, 10)).exit_code == 0;
  };
  const bool vitis = on_path("vitis_hls"), bambu = on_path("bambu");
  if (!vitis && !bambu)
    GTEST_SKIP() << "neither vitis_hls nor bambu is on PATH: kiln csynth's real run not tested";
  TempDir tmp;
  const fs::path p = tmp.path() / "p";
  ASSERT_EQ(kiln({"compile", zoo("vecmul_a"), "--set", bambu ? "Backend=bambu" : "Style=loops",
                  "-o", p.string()})
                .exit_code,
            0);
  const ProcessResult r = kiln({"csynth", p.string(), "--json"}, 3600);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = stdout_json(r);
  EXPECT_TRUE(j.contains(bambu ? "simulated_cycles" : "latency_worst")) << j.dump();
}

}  // namespace
}  // namespace kiln::testing

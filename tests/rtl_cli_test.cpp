// The RTL commands as a user meets them: `kiln rtl` writes a whole design
// directory or nothing, `kiln rtlsim` is bit-exact with the emulator in both
// simulators and measures the schedule's latency and interval, `kiln synth`
// counts cells; bad input is exit 2 with one line. The RTL config keys leave
// `kiln compile`'s project byte for byte unchanged.
//
// Simulator runs are ~10-20 s each with Verilator; the default suite makes
// five, the `slow` binary (KILN_RTL_SLOW) five more, the `rtl-zoo` binary
// (KILN_RTL_ZOO) every zoo design in both simulators.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

[[maybe_unused]] int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

[[maybe_unused]] std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

[[maybe_unused]] std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_text(e.path());
  return files;
}

// A failing command: the exit code, one line on stderr saying `expected`.
[[maybe_unused]] void expect_error(const ProcessResult& r, int code, const std::string& expected) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_CONTAINS(r.err, expected);
}

// ---- bad input: no simulator needed ---------------------------------------------

#ifndef KILN_RTL_SLOW
TEST(RtlCli, MissingModelIsExit2AndWritesNothing) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  expect_error(kiln({"rtl", (tmp.path() / "none.onnx").string(), "-o", out.string()}), 2,
               "none.onnx");
  EXPECT_FALSE(fs::exists(out));
}

// A layer none of whose plans can be built says why, from the first plan
// kiln tried: model8's 16-bit products on a Series 7 DSP take 7.17 ns, over a
// 7 ns clock. It used to say "no way to build it (0 plans tried)".
TEST(RtlCli, ALayerNoPlanOfWhichBuildsSaysWhy) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  expect_error(kiln({"rtl", zoo("model8"), "-o", out.string(), "--set", "Part=xc7z020clg400-1",
                     "--set", "ClockPeriod=7", "--set", "Model.TargetCycles=20000"}),
               2, "does not fit the 7.00 ns clock");
  EXPECT_FALSE(fs::exists(out));
}

TEST(RtlCli, BadSchedulerListsTheChoices) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  expect_error(kiln({"rtl", zoo("vecmul_a"), "-o", out.string(), "--set", "Model.Scheduler=ilp"}),
               2, "valid values: asap, list, sdc");
  EXPECT_FALSE(fs::exists(out));
}

// MultiplierLimit 0 puts a layer's products of two variables in LUTs (as
// Vitis's bind_op impl=fabric): no DSP in the estimate or in Yosys's count,
// and the same results.
TEST(RtlCli, MultiplierLimitZeroPutsProductsInLuts) {
  TempDir tmp;
  const fs::path cfg = tmp.path() / "rtl.yaml";
  write_bytes(cfg, "LayerType:\n  Binary:\n    MultiplierLimit: 0\n");
  const fs::path out = tmp.path() / "d";
  // vecmul_a multiplies its two inputs element by element: 8 products.
  const ProcessResult built =
      kiln({"rtl", zoo("vecmul_a"), "-c", cfg.string(), "-o", out.string(), "--json"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(nlohmann::json::parse(built.out)["estimate"]["dsp"].get<double>(), 0) << built.out;
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "4", "--simulator", "icarus"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  EXPECT_CONTAINS(sim.out, "bit-exact");
  const ProcessResult syn = kiln({"synth", out.string(), "--json"});
  ASSERT_EQ(syn.exit_code, 0) << syn.err;
  EXPECT_EQ(nlohmann::json::parse(syn.out)["dsp"].get<long>(), 0) << syn.out;
  fs::remove_all(out);
  // A layer without such products takes 0 (seed 004's max pool, which Vitis built with no DSP).
  write_bytes(cfg, "Model:\n  MultiplierLimit: 0\n");
  const ProcessResult ok = kiln({"rtl", zoo("maxpool_a"), "-c", cfg.string(), "-o", out.string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// ConstantProducts: DSP puts a layer's products by its weights on DSP slices
// (Vitis's bind_op impl=dsp) instead of shifts and adds: dense_a fully
// unrolled has 60 whose weights have three or more signed digits. The
// estimate's DSPs are Yosys's, the results the same, and plans.yaml keeps
// the choice.
TEST(RtlCli, ConstantProductsOnDspsAreDspSlices) {
  TempDir tmp;
  const fs::path luts = tmp.path() / "luts", dsps = tmp.path() / "dsps";
  const ProcessResult in_luts = kiln({"rtl", zoo("dense_a"), "-o", luts.string(), "--json"});
  ASSERT_EQ(in_luts.exit_code, 0) << in_luts.err;
  EXPECT_EQ(nlohmann::json::parse(in_luts.out)["estimate"]["dsp"].get<double>(), 0);
  const ProcessResult built = kiln({"rtl", zoo("dense_a"), "--set", "Model.ConstantProducts=DSP",
                                    "-o", dsps.string(), "--json"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const double dsp = nlohmann::json::parse(built.out)["estimate"]["dsp"].get<double>();
  EXPECT_EQ(dsp, 60);
  EXPECT_CONTAINS(read_text(dsps / "plans.yaml"), "ConstantProducts: DSP");
  const ProcessResult sim =
      kiln({"rtlsim", dsps.string(), "--samples", "4", "--simulator", "icarus"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  EXPECT_CONTAINS(sim.out, "bit-exact");
  const ProcessResult syn = kiln({"synth", dsps.string(), "--json"});
  ASSERT_EQ(syn.exit_code, 0) << syn.err;
  EXPECT_EQ(nlohmann::json::parse(syn.out)["dsp"].get<double>(), dsp) << syn.out;
  const fs::path again = tmp.path() / "again";
  const ProcessResult rebuilt = kiln({"rtl", zoo("dense_a"), "-c", (dsps / "plans.yaml").string(),
                                      "-o", again.string(), "--json"});
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_EQ(nlohmann::json::parse(rebuilt.out)["estimate"]["dsp"].get<double>(), dsp);
  expect_error(kiln({"rtl", zoo("dense_a"), "--set", "Model.ConstantProducts=BRAM", "-o",
                     (tmp.path() / "bad").string()}),
               2, "ConstantProducts");
}

// One device table (fpga/devices.h): a part kiln does not know is refused
// before anything is built, naming the known ones, never priced as a VU9P;
// a known one is reported with its capacity, shares are of it.
TEST(RtlCli, UnknownPartIsExit2AndKnownOnesCarryTheirCapacity) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  expect_error(
      kiln({"rtl", zoo("vecmul_a"), "--set", "Part=xcvu7777p-flga2104-2L-e", "-o", out.string()}),
      2, "kiln knows xcvu9p");
  EXPECT_FALSE(fs::exists(out));
  const ProcessResult r = kiln(
      {"rtl", zoo("vecmul_a"), "--set", "Part=xcu280-fsvh2892-2L-e", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json dev = nlohmann::json::parse(r.out)["device"];
  EXPECT_EQ(dev["part"], "xcu280-fsvh2892-2L-e");
  EXPECT_EQ(dev["lut"], 1303680);
  EXPECT_EQ(dev["dsp"], 9024);
  EXPECT_EQ(dev["bram18"], 4032);
  EXPECT_EQ(dev["uram"], 960);
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "report.json"))["device"], dev);
  // The HLS flow refuses it too, and reports the device it priced.
  expect_error(kiln({"compile", zoo("vecmul_a"), "--set", "Part=xc7z999clg400-1", "-o",
                     (tmp.path() / "p").string()}),
               2, "unknown FPGA part");
  const ProcessResult c = kiln({"compile", zoo("vecmul_a"), "--set", "Part=xc7z020clg400-1", "-o",
                                (tmp.path() / "p").string(), "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(nlohmann::json::parse(c.out)["device"]["dsp"], 220);
  EXPECT_EQ(nlohmann::json::parse(read_text(tmp.path() / "p" / "report.json"))["device"]["lut"],
            53200);
}

// A search never hands back a design over the part: the MLP at 20 cycles on
// a Zynq-7020 needs far more DSPs than it has, which is exit 2 naming the
// resources and the part, with no directory left; --over-capacity writes it.
TEST(RtlCli, SearchedDesignOverThePartIsRefusedNamingTheResources) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const std::vector<std::string> args = {
      "rtl", zoo("mlp"),  "--set", "Part=xc7z020clg400-1", "--set", "Model.TargetCycles=20",
      "-o",  out.string()};
  const ProcessResult r = kiln(args);
  expect_error(r, 2, "the searched design needs ");
  EXPECT_NE(r.err.find(" of 220 "), std::string::npos) << r.err;  // the part's DSPs
  EXPECT_NE(r.err.find("xc7z020clg400-1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  std::vector<std::string> forced = args;
  forced.push_back("--over-capacity");
  const ProcessResult w = kiln(forced);
  EXPECT_EQ(w.exit_code, 0) << w.err;
  EXPECT_TRUE(fs::exists(out / "report.json"));
}

// A searched design keeps its plans as a config (plans.yaml): passed as a
// second -c, every layer is built as the search built it and none is
// searched again.
TEST(RtlCli, PlansYamlRebuildsTheSearchedDesign) {
  TempDir tmp;
  const std::vector<std::string> sets = {"--set", "ClockPeriod=5",
                                         "--set", "Model.Precision.weight=ap_fixed<8,2>",
                                         "--set", "Model.Precision.result=ap_fixed<8,4>"};
  std::vector<std::string> searched = {
      "rtl",   zoo("lenet5"),           "-o", (tmp.path() / "a").string(), "--json",
      "--set", "Model.TargetCycles=400"};
  searched.insert(searched.end(), sets.begin(), sets.end());
  const ProcessResult a = kiln(searched);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const fs::path plans = tmp.path() / "a" / "plans.yaml";
  ASSERT_TRUE(fs::is_regular_file(plans));
  std::vector<std::string> kept = {
      "rtl", zoo("lenet5"), "-c", plans.string(), "-o", (tmp.path() / "b").string(), "--json"};
  kept.insert(kept.end(), sets.begin(), sets.end());
  const ProcessResult b = kiln(kept);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["latency_cycles"], jb["latency_cycles"]);
  EXPECT_EQ(ja["interval_cycles"], jb["interval_cycles"]);
  EXPECT_EQ(ja["estimate"], jb["estimate"]);
  ASSERT_EQ(ja["stages"].size(), jb["stages"].size());
  for (std::size_t i = 0; i < jb["stages"].size(); ++i) {
    EXPECT_CONTAINS(ja["stages"][i]["plan"].get<std::string>(), "TargetCycles 400");
    EXPECT_EQ(jb["stages"][i]["plan"].get<std::string>().find("TargetCycles"), std::string::npos)
        << jb["stages"][i]["plan"];
  }
}

TEST(RtlCli, ExistingDirectoryNeedsForce) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "d");
  write_bytes(tmp.path() / "d" / "keep.txt", "mine");
  expect_error(kiln({"rtl", zoo("vecmul_a"), "-o", (tmp.path() / "d").string()}), 2,
               "pass --force");
  EXPECT_EQ(read_text(tmp.path() / "d" / "keep.txt"), "mine");
}

TEST(RtlCli, WithoutAnOutputDirectoryIsExit2) {
  expect_error(kiln({"rtl", zoo("vecmul_a")}), 2, "pass -o DIR");
}

// Stable names, in program order, with the trip counts of the lowering
// (dense_a: one 8x8 Dense, its accumulators initialized, the products
// summed over i and j, the outputs written); nothing is written.
TEST(RtlCli, ListLoopsNamesEveryLoopWithItsTripCount) {
  const ProcessResult r = kiln({"rtl", "--list-loops", zoo("dense_a"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& l : j.at("loops")) names.push_back(l.at("name").get<std::string>());
  EXPECT_EQ(names, (std::vector<std::string>{"Gemm/init", "Gemm/i", "Gemm/j", "Gemm/out"}));
  for (const auto& l : j.at("loops")) {
    EXPECT_EQ(l.at("trip").get<int64_t>(), 8) << l;
    EXPECT_TRUE(l.at("directives").at("unroll").is_null()) << l;  // nothing set: kiln decides
  }
  EXPECT_EQ(j.at("loops").at(2).at("parent"), "Gemm/i");
  // The buffers, by the names Buffer blocks take: the weights are 8x8 constants.
  bool weights = false;
  for (const auto& b : j.at("buffers"))
    if (b.at("name") == "Gemm_w") {
      weights = true;
      EXPECT_EQ(b.at("role"), "const");
      EXPECT_EQ(b.at("shape"), nlohmann::json::array({8, 8}));
    }
  EXPECT_TRUE(weights) << r.out;
  const ProcessResult text = kiln({"rtl", "--list-loops", zoo("dense_a")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const std::string& n : names) EXPECT_CONTAINS(text.out, n);
}

// What pipelining each top-level loop would give, from the same directives:
// dense_a's main loop reads eight weights a cycle from one dual-port memory
// (II 4) until the weights are partitioned by output (II 1 with eight
// multipliers, 2 with four).
TEST(RtlCli, ListLoopsEstimatesEachTopLevelLoopPipelined) {
  auto main_loop = [](const std::vector<std::string>& sets) {
    std::vector<std::string> args = {"rtl", "--list-loops", zoo("dense_a"), "--json"};
    for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
    const ProcessResult r = kiln(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (const auto& p : j.at("pipelines"))
      if (p.at("loop") == "Gemm/i") return p;
    ADD_FAILURE() << r.out;
    return nlohmann::json();
  };
  const nlohmann::json plain = main_loop({});
  EXPECT_EQ(plain.at("ii"), 4) << plain;
  EXPECT_EQ(plain.at("iterations"), 8);
  EXPECT_CONTAINS(plain.at("why").get<std::string>(), "@Gemm_w");
  const std::vector<std::string> columns = {"Buffer.Gemm_w.Partition=complete",
                                            "Buffer.Gemm_w.Dim=2"};
  EXPECT_EQ(main_loop(columns).at("ii"), 1);
  std::vector<std::string> four = columns;
  four.push_back("Model.MultiplierLimit=4");
  const nlohmann::json limited = main_loop(four);
  EXPECT_EQ(limited.at("ii"), 2) << limited;
  EXPECT_CONTAINS(limited.at("why").get<std::string>(), "mul");
  const ProcessResult text = kiln({"rtl", "--list-loops", zoo("dense_a")});
  EXPECT_CONTAINS(text.out, "if pipelined");
  // Fully unrolled, the loop is one iteration (seed 003's rule).
  const nlohmann::json full = main_loop({"Loop.Gemm/i.Unroll=full"});
  EXPECT_EQ(full.at("iterations"), 1);
  EXPECT_CONTAINS(full.at("why").get<std::string>(), "pipelining changes nothing");
}

// Loop directives are checked against the model's loops (exit 2 with the
// valid factors), shown by --list-loops, and refused by `kiln rtl` where the
// design cannot honour them yet (exit 3), never ignored.
TEST(RtlCli, LoopDirectivesAreValidatedListedAndNeverIgnored) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  expect_error(kiln({"rtl", zoo("dense_a"), "-o", out.string(), "--set", "Loop.Gemm/i.Unroll=3"}),
               2, "3 does not divide the trip count 8 of Gemm/i; valid: 1, 2, 4, 8 or full");
  expect_error(kiln({"rtl", zoo("dense_a"), "-o", out.string(), "--set", "Loop.Gemm/q.Unroll=2"}),
               2, "the model has no loop 'Gemm/q'");
  expect_error(kiln({"rtl", zoo("dense_a"), "-o", out.string(), "--set", "Loop.Gemm/j.Pipeline=1"}),
               3, "loop Gemm/j: only a loop at its layer's top level can be kept as a loop");
  EXPECT_FALSE(fs::exists(out));
  const ProcessResult listed = kiln({"rtl", "--list-loops", zoo("dense_a"), "--set",
                                     "Loop.Gemm/j.Pipeline=2", "--set", "Loop.Gemm/i.Unroll=4"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_CONTAINS(listed.out, "pipeline=2");
  EXPECT_CONTAINS(listed.out, "unroll=4");
  // Full unrolling is what the design does: accepted.
  const ProcessResult full =
      kiln({"rtl", zoo("dense_a"), "-o", out.string(), "--set", "Loop.Gemm/i.Unroll=full"});
  EXPECT_EQ(full.exit_code, 0) << full.err;
}

// A pipelined loop in hardware: the simulation measures the latency the
// loop's modulo schedule gives, and the results are the emulator's.
TEST(RtlCli, PipelinedLoopSimulatesBitExactAtItsScheduledLatency) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const ProcessResult built =
      kiln({"rtl", zoo("dense_a"), "-o", out.string(), "--set", "Loop.Gemm/i.Pipeline=1", "--set",
            "Buffer.Gemm_w.Partition=cyclic", "--set", "Buffer.Gemm_w.Factor=2", "--set",
            "Buffer.Gemm_w.Dim=2"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "3", "--simulator", "icarus"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  EXPECT_CONTAINS(sim.out, "3 samples bit-exact");
  EXPECT_CONTAINS(sim.out, "agrees");
}

// Issue 10's MLP target in small: the 784->10 MLP folded onto 9 DSPs (the
// Gemm's input loop unrolled by 8 and pipelined over 8 weight banks, the
// Softmax's products in LUTs) takes at most 1,000 cycles, simulated
// bit-exact at the schedule's latency (bench/rtl_mlp.sh adds Yosys's count).
TEST(RtlCli, FoldedMlpOnNineDspsTakesUnderAThousandCycles) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const ProcessResult built =
      kiln({"rtl", zoo("mlp"), "-o", out.string(), "--json", "--set", "Model.MultiplierLimit=9",
            "--set", "LayerName.Softmax.MultiplierLimit=0", "--set", "Loop.fc_Gemm/i.Unroll=8",
            "--set", "Loop.fc_Gemm/i.Pipeline=1", "--set", "Buffer.fc_Gemm_w.Partition=cyclic",
            "--set", "Buffer.fc_Gemm_w.Factor=8", "--set", "Buffer.fc_Gemm_w.Dim=1"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const nlohmann::json j = nlohmann::json::parse(built.out);
  EXPECT_EQ(j["estimate"]["dsp"].get<double>(), 9) << built.out.substr(0, 2000);
  EXPECT_LE(j["latency_cycles"].get<int>(), 1000);
  EXPECT_GE(j["latency_cycles"].get<int>(), 871);  // 7,840 products on 9 multipliers
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "2", "--simulator", "icarus"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  EXPECT_CONTAINS(sim.out, "2 samples bit-exact");
  EXPECT_CONTAINS(sim.out, "agrees");
}

// H-rtl-fits's ResNet-8 row without the simulation and synthesis: on the
// Zynq-7020 at 7 ns under LatencyCycles 58714, the sum-of-latencies design is
// over the part (335 DSPs); the paced design (search.h paced_pick) is within
// the bound and fits by estimate, its third stack paced at half. About 36 s.
TEST(RtlCli, ResNet8IsPacedIntoTheZynq7020WithinItsBound) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const std::string model =
      (fs::path(source_dir()) / "models" / "mlperf_tiny" / "resnet8" / "model.onnx").string();
  const ProcessResult built =
      kiln({"rtl", model, "-o", out.string(), "--json", "--set", "Part=xc7z020clg400-1", "--set",
            "ClockPeriod=7", "--set", "Model.Precision.weight=ap_fixed<8,3>", "--set",
            "Model.Precision.result=ap_fixed<8,4>", "--set", "Model.LatencyCycles=58714"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const nlohmann::json j = nlohmann::json::parse(built.out);
  EXPECT_LE(j["latency_cycles"].get<int>(), 58714);
  EXPECT_LE(j["estimate"]["dsp"].get<double>(), 220);
  EXPECT_LE(j["estimate"]["lut"].get<double>(), 53200);
  int paced = 0, tail = 0;
  for (const nlohmann::json& s : j["stages"]) {
    const std::string plan = s["plan"].get<std::string>();
    paced += plan.find("paced at") != std::string::npos;
    tail += plan.find("after the slowest layers") != std::string::npos;
  }
  EXPECT_GT(paced, tail);
  EXPECT_GT(tail, 0);
}

// TargetCycles picks a layer's loop plan: the cheapest that meets it,
// simulated at the interval it promised; a target no plan meets names the
// layer and the closest plan (exit 2). With its products by weights on DSPs
// (in LUTs, dense_a fully unrolled with its sums shared is the cheapest).
TEST(RtlCli, TargetCyclesPicksTheCheapestLoopPlanThatMeetsIt) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const ProcessResult built =
      kiln({"rtl", zoo("dense_a"), "-o", out.string(), "--set", "Model.TargetCycles=12", "--set",
            "Model.ConstantProducts=DSP"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_CONTAINS(built.out, "Gemm: TargetCycles 12: loop Gemm/i");
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "3", "--simulator", "icarus", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  const nlohmann::json j = nlohmann::json::parse(sim.out);
  EXPECT_TRUE(j["bit_exact"].get<bool>());
  EXPECT_LE(j["interval_cycles"].get<int>(), 12);
  EXPECT_GT(j["interval_cycles"].get<int>(), 1);  // folded, not the unrolled design
  // Eight products of two inputs on one multiplier cannot come every 2 cycles.
  expect_error(kiln({"rtl", zoo("vecmul_a"), "-o", (tmp.path() / "v").string(), "--set",
                     "Model.TargetCycles=2", "--set", "Model.MultiplierLimit=1"}),
               2, "cannot meet TargetCycles 2");
  EXPECT_FALSE(fs::exists(tmp.path() / "v"));
}

// One sample runs twice back to back, so that its interval is measured too.
TEST(RtlCli, OneSampleStillMeasuresTheInterval) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const ProcessResult built =
      kiln({"rtl", zoo("dense_a"), "-o", out.string(), "--set", "Model.TargetCycles=12"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "1", "--simulator", "kiln", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  const nlohmann::json j = nlohmann::json::parse(sim.out);
  EXPECT_TRUE(j["bit_exact"].get<bool>());
  EXPECT_TRUE(j["repeated_sample"].get<bool>());
  ASSERT_TRUE(j["interval_cycles"].is_number()) << sim.out;
  EXPECT_EQ(j["interval_cycles"].get<int>(), j["schedule"]["interval_cycles"].get<int>());
}

// The same keys as kiln compile: an explicit ReuseFactor asks for the II it
// gives in kiln compile's estimate (a Dense in io_parallel: RF cycles), and
// TargetCycles at the same level wins over it.
TEST(RtlCli, ReuseFactorAsksForTheIntervalItGivesInKilnCompile) {
  TempDir tmp;
  const ProcessResult rf = kiln(
      {"rtl", zoo("dense_a"), "-o", (tmp.path() / "a").string(), "--set", "Model.ReuseFactor=64"});
  ASSERT_EQ(rf.exit_code, 0) << rf.err;
  EXPECT_CONTAINS(rf.out, "Gemm: ReuseFactor 64 (II 64 in kiln compile's estimate): loop Gemm/i");
  const ProcessResult both =
      kiln({"rtl", zoo("dense_a"), "-o", (tmp.path() / "b").string(), "--set",
            "Model.ReuseFactor=64", "--set", "Model.TargetCycles=12"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_CONTAINS(both.out, "Gemm: TargetCycles 12: ");
}

// LatencyCycles raises the searched layers' plans until their latencies add
// up to it (dense_b: the loop over inputs unrolled by 2 instead of not at
// all), simulated within it; a bound even the fastest plans miss (dense_b
// fully unrolled takes 2 cycles) is exit 2 with their sum, and nothing
// written.
// A GRU and an LSTM at TargetCycles 2000 keep their time loop: each step's
// products on the layer's multipliers, the state carried in registers. The
// plans that flatten the step's loops read the state at fixed and at moving
// elements (refused), and the time loop's step is over 16 times the
// parallelism the target needs, which the search skips until nothing else
// meets the target. Bit-exact in Verilator.
TEST(RtlCli, RecurrentLayersKeepTheirTimeLoop) {
  for (const char* m : {"gru_tagger", "lstm_tagger"}) {
    TempDir tmp;
    const fs::path out = tmp.path() / "d";
    const std::string model =
        (fs::path(source_dir()) / "models" / "coverage" / m / "model.onnx").string();
    const ProcessResult r =
        kiln({"rtl", model, "--set", "Model.TargetCycles=2000", "-o", out.string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << m << ": " << r.err;
    bool kept = false;
    const nlohmann::json report = stdout_json(r);
    for (const nlohmann::json& st : report["stages"])
      kept = kept || st["plan"].get<std::string>().find("/t, pipelined") != std::string::npos;
    EXPECT_TRUE(kept) << m << ": " << r.out;
    const ProcessResult sim =
        kiln({"rtlsim", out.string(), "--samples", "2", "--simulator", "verilator", "--json"});
    ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
    EXPECT_TRUE(stdout_json(sim)["bit_exact"].get<bool>()) << m;
  }
}

// small_unet at TargetCycles 2000: its concatenations read the encoders'
// maps (skips) and keep a loop, so each skipped map waits in a channel's
// memory instead of the top's delay registers (23 Mbit of them for the first
// encoder's map, over kiln's bound, before). Bit-exact in Verilator.
TEST(RtlCli, UNetSkipsGoThroughChannels) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const std::string model =
      (fs::path(source_dir()) / "models" / "coverage" / "small_unet" / "model.onnx").string();
  const ProcessResult r =
      kiln({"rtl", model, "--set", "Model.TargetCycles=2000", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = stdout_json(r);
  int skips = 0;
  for (const nlohmann::json& h : report["handoffs"])
    if (h["to"].get<std::string>().rfind("Concat", 0) == 0 &&
        h["from"].get<std::string>().rfind("enc", 0) == 0) {
      EXPECT_EQ(h["through"], "channel") << h;
      ++skips;
    }
  EXPECT_EQ(skips, 2);
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "2", "--simulator", "verilator", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  EXPECT_TRUE(stdout_json(sim)["bit_exact"].get<bool>());
}

// BraggNN's attention block at TargetCycles 2000: its Transposes only move
// data, and after a producer that keeps a loop each keeps one too, so no
// value waits in the top's delay lines (176 Kbit of them when the
// Transposes were fully unrolled, their results valid for one cycle and read
// by looping consumers over a thousand). Bit-exact in Verilator.
TEST(RtlCli, DataMovementAfterALoopKeepsALoop) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const ProcessResult r = kiln(
      {"rtl", zoo("braggnn1"), "--set", "Model.TargetCycles=2000", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = stdout_json(r);
  EXPECT_LE(report["top_estimate"]["delay_register_bits"].get<int64_t>(), 64 * 1024);
  for (const nlohmann::json& h : report["handoffs"])
    if (h["through"] == "registers") {
      EXPECT_LE(h["register_bits"].get<int64_t>(), 64 * 1024) << h;
    }
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "2", "--simulator", "verilator", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  EXPECT_TRUE(stdout_json(sim)["bit_exact"].get<bool>());
}

TEST(RtlCli, LatencyCyclesRaisesThePlansUntilTheyFit) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const ProcessResult built = kiln({"rtl", zoo("dense_b"), "-o", out.string(), "--set",
                                    "Model.TargetCycles=80", "--set", "Model.LatencyCycles=40"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_CONTAINS(built.out, "Gemm: TargetCycles 80, LatencyCycles 40: loop Gemm/i unrolled by 2");
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "2", "--simulator", "icarus", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  const nlohmann::json j = nlohmann::json::parse(sim.out);
  EXPECT_TRUE(j["bit_exact"].get<bool>());
  EXPECT_LE(j["latency_cycles"].get<int>(), 40);
  expect_error(kiln({"rtl", zoo("dense_b"), "-o", (tmp.path() / "v").string(), "--set",
                     "Model.TargetCycles=80", "--set", "Model.LatencyCycles=1"}),
               2, "cannot meet 1: the fastest plans kiln tried for each layer add up to 2");
  EXPECT_FALSE(fs::exists(tmp.path() / "v"));
}

// Layers that hand their tensors on overlap: thxprlsg's four element-wise
// layers, each 10 cycles alone, add up to 40, over a bound of 30, yet the
// design built from those plans takes 16. The search lets the sum grow while
// the placed design stays within the bound, and says so; simulated within it.
TEST(RtlCli, LatencyCyclesCountsTheLayersOverlap) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const ProcessResult built =
      kiln({"rtl", zoo("thxprlsg"), "-o", out.string(), "--set", "Model.LatencyCycles=30"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_CONTAINS(built.out,
                  "Tanh: LatencyCycles 30, LatencyCycles 30 (the layers overlap: their latencies "
                  "may add up to 40): loop Tanh/d0, pipelined, 10 cycles per sample");
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "2", "--simulator", "icarus", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  const nlohmann::json j = nlohmann::json::parse(sim.out);
  EXPECT_TRUE(j["bit_exact"].get<bool>());
  EXPECT_LE(j["latency_cycles"].get<int>(), 30);
}

// LeNet-5 as issue 26's row asks (8 bits, 5 ns, TargetCycles 400 and
// LatencyCycles 450): its second convolution reads one bank of a channel
// whose banks are written unequally often, keeping some of that bank's
// writes (channels.h ChannelRead::takes); built, verified and bit-exact in
// kiln's netlist interpreter within the bound.
TEST(RtlCli, LeNet5AtEightBitsKeepsSomeOfABanksWrites) {
  TempDir tmp;
  const fs::path out = tmp.path() / "d";
  const ProcessResult built = kiln(
      {"rtl", zoo("lenet5"), "-o", out.string(), "--set", "ClockPeriod=5", "--set",
       "Model.TargetCycles=400", "--set", "Model.LatencyCycles=450", "--set",
       "Model.Precision.weight=ap_fixed<8,2>", "--set", "Model.Precision.result=ap_fixed<8,4>"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const ProcessResult sim =
      kiln({"rtlsim", out.string(), "--samples", "2", "--simulator", "kiln", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  const nlohmann::json j = nlohmann::json::parse(sim.out);
  EXPECT_TRUE(j["bit_exact"].get<bool>());
  EXPECT_LE(j["latency_cycles"].get<int>(), 450);
}

TEST(RtlCli, UnknownSimulatorIsExit2) {
  TempDir tmp;
  expect_error(kiln({"rtlsim", tmp.path().string(), "--simulator", "modelsim"}), 2,
               "use verilator (the default), icarus, or kiln");
}

TEST(RtlCli, RtlsimAndSynthRefuseWhatIsNotADesign) {
  TempDir tmp;
  expect_error(kiln({"rtlsim", (tmp.path() / "none").string()}), 2, "not a directory");
  expect_error(kiln({"rtlsim", tmp.path().string()}), 2, "not a kiln rtl design");
  expect_error(kiln({"synth", tmp.path().string()}), 2, "not a kiln rtl design");
  // An HLS project has a report.json too, of another kind.
  write_bytes(tmp.path() / "report.json", R"({"estimate": {}})");
  expect_error(kiln({"rtlsim", tmp.path().string()}), 2, "not the report of a kiln rtl design");
}

TEST(RtlCli, RtlKeysLeaveTheHlsProjectUnchanged) {
  TempDir tmp;
  const fs::path cfg = tmp.path() / "config.yaml";
  const std::string base = "Model:\n  ReuseFactor: 1\n";
  write_bytes(cfg, base);
  const fs::path a = tmp.path() / "a", b = tmp.path() / "b";
  ProcessResult r = kiln({"compile", zoo("dense_a"), "-c", cfg.string(), "-o", a.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The same config path, now with the RTL keys at every level.
  write_bytes(cfg, base +
                       "  Scheduler: sdc\n  MultiplierLimit: 2\nLayerType:\n  Dense:\n"
                       "    MultiplierLimit: 3\n");
  r = kiln({"compile", zoo("dense_a"), "-c", cfg.string(), "-o", b.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(tree(a) == tree(b)) << "the RTL keys changed the HLS project";
}

#endif  // KILN_RTL_SLOW

// ---- end to end: needs rtl::build_design ----------------------------------------

// The design of `model` written once per test binary (kiln rtl is the slow
// part), with `--json`'s report.
struct Written {
  fs::path dir;
  nlohmann::json report;
  std::string skip;  // why the design could not be written
};

const Written& design_of(const std::string& model) {
  static TempDir root;
  static std::map<std::string, Written> cache;
  auto it = cache.find(model);
  if (it != cache.end()) return it->second;
  Written w;
  w.dir = root.path() / model;
  const ProcessResult r = kiln({"rtl", zoo(model), "-o", w.dir.string(), "--json"});
  if (r.exit_code == 3 && r.err.find("kiln rtl is being built") != std::string::npos)
    w.skip = "rtl::build_design is still a stub on this branch";
  else if (r.exit_code != 0)
    ADD_FAILURE() << "kiln rtl " << model << ": " << r.err;
  else
    w.report = stdout_json(r);
  return cache.emplace(model, std::move(w)).first->second;
}

#define REQUIRE_DESIGN(w)                            \
  do {                                               \
    if (!(w).skip.empty()) GTEST_SKIP() << (w).skip; \
    ASSERT_TRUE((w).report.is_object());             \
  } while (0)

#ifndef KILN_RTL_SLOW
TEST(RtlCli, WritesEveryFileAndTheReport) {
  const Written& w = design_of("vecmul_a");
  REQUIRE_DESIGN(w);
  const nlohmann::json& j = w.report;
  for (const char* key : {"latency_cycles", "interval_cycles", "clock_ns", "critical_path_ns",
                          "timing_note", "stages", "ops", "estimate", "inputs", "outputs", "top"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_GE(j["latency_cycles"].get<int>(), 0);
  EXPECT_GE(j["interval_cycles"].get<int>(), 1);
  EXPECT_GT(j["clock_ns"].get<double>(), 0);
  ASSERT_FALSE(j["stages"].empty());
  for (const char* key :
       {"name", "loop_ops", "nodes", "multipliers", "multiplier_units", "const_multipliers",
        "adders", "product_adders", "sum_adders", "adder_depth", "lookups", "start_cycle",
        "latency_cycles", "interval_cycles", "register_bits", "critical_path_ns", "estimate"})
    EXPECT_TRUE(j["stages"][0].contains(key)) << key;
  for (const char* key : {"lut", "ff", "dsp", "carry"})
    EXPECT_TRUE(j["estimate"].contains(key)) << key;
  for (const auto& f : j["files"]) EXPECT_TRUE(fs::is_regular_file(w.dir / f.get<std::string>()));
  for (const char* f : {"tb.sv", "synth.ys", "kiln_model.json", "report.json"})
    EXPECT_TRUE(fs::is_regular_file(w.dir / f)) << f;
  EXPECT_CONTAINS(read_text(w.dir / "synth.ys"),
                  "synth_xilinx -family xcup -top " + j["top"].get<std::string>());
  const nlohmann::json on_disk = nlohmann::json::parse(read_text(w.dir / "report.json"));
  EXPECT_EQ(on_disk["latency_cycles"], j["latency_cycles"]);
  EXPECT_EQ(on_disk["testbench"]["max_samples"], 1024);
}

TEST(RtlCli, HumanSummarySaysTheClockIsAnEstimate) {
  const Written& w = design_of("vecmul_a");
  REQUIRE_DESIGN(w);
  TempDir tmp;
  const ProcessResult r = kiln({"rtl", zoo("vecmul_a"), "-o", (tmp.path() / "d").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "latency");
  EXPECT_CONTAINS(r.out, "delay-model estimates");
}

// `kiln netlist` reads what `kiln rtl` wrote, verifies it and writes the same
// bytes; a file with a broken rule or an undefined name is exit 2 with one
// line saying where.
TEST(RtlCli, NetlistRewritesTheSameBytesAndRefusesBrokenOnes) {
  const Written& w = design_of("vecmul_a");
  REQUIRE_DESIGN(w);
  const fs::path knl = w.dir / "netlist.knl";
  const std::string text = read_text(knl);
  ASSERT_FALSE(text.empty());
  TempDir tmp;
  const fs::path out = tmp.path() / "again.knl";
  ProcessResult r = kiln({"netlist", knl.string(), "--verify", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "every rule of netlist::verify holds");
  EXPECT_EQ(read_text(out), text);
  expect_error(kiln({"netlist", knl.string(), "-o", out.string()}), 2, "pass --force");
  expect_error(kiln({"netlist", (tmp.path() / "none.knl").string()}), 2, "cannot read");
  // A concatenation narrower than its parts, then a name nothing defines.
  std::string narrow = text;
  const std::size_t at = narrow.find(" : 128 = concat");
  ASSERT_NE(at, std::string::npos);
  narrow.replace(at, 15, " : 120 = concat");
  const fs::path bad = tmp.path() / "bad.knl";
  std::ofstream(bad, std::ios::binary) << narrow;
  expect_error(kiln({"netlist", bad.string(), "--verify"}), 2, "not a valid netlist");
  std::string undefined = text;
  const std::size_t slice = undefined.find("= slice %i0");
  ASSERT_NE(slice, std::string::npos);
  undefined.replace(slice, 11, "= slice %zz");
  std::ofstream(bad, std::ios::binary | std::ios::trunc) << undefined;
  expect_error(kiln({"netlist", bad.string()}), 2, "undefined value %zz");
}

// `rtlsim --simulator kiln`: the netlist interpreter, bit-exact with the
// emulator at the schedule's latency and interval, with no build.
TEST(RtlCli, RtlsimInKilnsNetlistInterpreter) {
  const Written& w = design_of("vecmul_a");
  REQUIRE_DESIGN(w);
  const ProcessResult r =
      kiln({"rtlsim", w.dir.string(), "--simulator", "kiln", "--samples", "16", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["simulator"], "kiln");
  EXPECT_EQ(j["bit_exact"], true);
  EXPECT_EQ(j["samples"], 16);
  EXPECT_EQ(j["latency_agrees"], true);
  EXPECT_EQ(j["interval_agrees"], true);
}

TEST(RtlCli, RtlsimRefusesMoreSamplesThanTheTestbenchHolds) {
  const Written& w = design_of("vecmul_a");
  REQUIRE_DESIGN(w);
  expect_error(kiln({"rtlsim", w.dir.string(), "--samples", "1025"}), 2, "(1024)");
  expect_error(kiln({"rtlsim", w.dir.string(), "--input", "nope=x.npy"}), 2, "nope");
}

// A simulator over its time limit is a design too large, not a kiln bug: a
// Verilator build (a C++ compile) takes more than a second.
// Its own design directory: no earlier build to reuse.
TEST(RtlCli, RtlsimOverItsTimeLimitIsExit3WithTheLimit) {
  TempDir t;
  const fs::path dir = t.path() / "d";
  const ProcessResult r = kiln({"rtl", zoo("vecmul_a"), "-o", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_error(kiln({"rtlsim", dir.string(), "--simulator", "verilator", "--timeout", "1"}), 3,
               "raise --timeout");
}

#endif  // KILN_RTL_SLOW

struct SimCase {
  std::string model;
  std::string simulator;
};

// Named in ctest's listing rather than dumped as bytes.
void PrintTo(const SimCase& c, std::ostream* os) {
  *os << c.model << " in " << c.simulator;
}

class RtlSim : public ::testing::TestWithParam<SimCase> {};

TEST_P(RtlSim, BitExactWithScheduleTiming) {
  const Written& w = design_of(GetParam().model);
  REQUIRE_DESIGN(w);
  const ProcessResult r = kiln(
      {"rtlsim", w.dir.string(), "--simulator", GetParam().simulator, "--samples", "6", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json j = stdout_json(r);
  EXPECT_EQ(j["bit_exact"], true);
  EXPECT_EQ(j["samples"], 6);
  EXPECT_EQ(j["simulator"], GetParam().simulator);
  EXPECT_EQ(j["latency_cycles"], w.report["latency_cycles"]);
  EXPECT_EQ(j["interval_cycles"], w.report["interval_cycles"]);
  EXPECT_EQ(j["latency_agrees"], true);
  EXPECT_EQ(j["interval_agrees"], true);
}

#ifndef KILN_RTL_SLOW
INSTANTIATE_TEST_SUITE_P(
    Zoo, RtlSim,
    ::testing::Values(SimCase{"vecmul_a", "verilator"}, SimCase{"vecmul_a", "icarus"},
                      SimCase{"dense_a", "verilator"}, SimCase{"dense_a", "icarus"},
                      SimCase{"conv2d_a", "icarus"}),
    [](const auto& info) { return info.param.model + "_" + info.param.simulator; });

// `kiln synth` counts cells next to the estimate: by default in one Yosys
// run of the whole design; with `--jobs N` each module on its own, the
// modules it instantiates as black boxes, summed. dense_a with its loop kept
// has three levels (top, the stage, its before/body/after). The sum is the
// whole run's up to what out-of-context synthesis cannot see (constants
// across ports): the same DSPs, LUT and FF within 5%. About 17 s on two cores.
TEST(RtlCli, SynthPerModuleSumsToTheWholeRun) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "d";
  const ProcessResult built =
      kiln({"rtl", zoo("dense_a"), "--set", "Loop.Gemm/i.Pipeline=1", "-o", dir.string()});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const ProcessResult whole_run = kiln({"synth", dir.string(), "--json"});  // --whole
  ASSERT_EQ(whole_run.exit_code, 0) << whole_run.err;
  const ProcessResult split_run = kiln({"synth", dir.string(), "--jobs", "2", "--json"});
  ASSERT_EQ(split_run.exit_code, 0) << split_run.err;
  const nlohmann::json whole = stdout_json(whole_run), split = stdout_json(split_run);
  for (const char* key : {"lut", "ff", "dsp", "bram18", "carry", "modules", "estimate", "error"}) {
    EXPECT_TRUE(whole.contains(key)) << key;
    EXPECT_TRUE(split.contains(key)) << key;
  }
  EXPECT_EQ(whole["family"], "xcup");
  std::cout << "dense_a, loop kept: whole LUT " << whole["lut"] << " FF " << whole["ff"] << " DSP "
            << whole["dsp"] << " (" << whole["seconds"] << " s); per module LUT " << split["lut"]
            << " FF " << split["ff"] << " DSP " << split["dsp"] << " (" << split["seconds"]
            << " s)\n";
  EXPECT_EQ(whole["mode"], "whole");
  EXPECT_EQ(whole["jobs"], 1);
  EXPECT_EQ(split["mode"], "per-module");
  EXPECT_EQ(split["jobs"], 2);
  EXPECT_TRUE(split["note"].get<std::string>().find("out of context") != std::string::npos);
  EXPECT_EQ(split["dsp"], whole["dsp"]);
  EXPECT_GT(whole["dsp"].get<long>(), 0);
  EXPECT_EQ(split["bram18"], whole["bram18"]);
  for (const char* key : {"lut", "ff", "carry"})
    EXPECT_NEAR(split[key].get<double>(), whole[key].get<double>(),
                0.05 * whole[key].get<double>() + 2)
        << key;
  // Every module has its row, its own run, and its counts with its submodules;
  // the top's are the total.
  std::map<std::string, nlohmann::json> rows;
  for (const nlohmann::json& m : split["modules"]) rows[m["module"].get<std::string>()] = m;
  ASSERT_EQ(rows.size(), 5u) << split["modules"];
  for (const nlohmann::json& m : whole["modules"]) {
    const std::string name = m["module"].get<std::string>();
    ASSERT_TRUE(rows.count(name)) << name;
    EXPECT_EQ(rows[name]["dsp"], m["dsp"]) << name;
    EXPECT_GT(rows[name]["seconds"].get<double>(), 0) << name;
    EXPECT_GT(rows[name]["peak_mb"].get<double>(), 10) << name;
    EXPECT_TRUE(fs::exists(rows[name]["log"].get<std::string>())) << name;
    EXPECT_TRUE(fs::exists(dir / "synth" / "modules" / name / "stat.json")) << name;
    EXPECT_TRUE(m["seconds"].is_null());
  }
  const nlohmann::json& top = rows[split["top"].get<std::string>()];
  EXPECT_EQ(top["with_submodules"]["lut"], split["lut"]);
  EXPECT_EQ(top["with_submodules"]["dsp"], split["dsp"]);
  EXPECT_GT(split["memory_limit_gb"].get<double>(), 0);
  // The stage's row is compared with its estimate, with its submodules.
  EXPECT_FALSE(rows["dense_a_Gemm"]["estimate"].is_null());
  EXPECT_EQ(rows["dense_a_Gemm"]["with_submodules"]["dsp"], split["dsp"]);
}

// Bad --jobs and --memory-limit values are exit 2 with one line, before any
// Yosys run; a module that runs out of its memory limit is exit 3 naming
// the module and its log. vecmul_a has two modules: one Yosys run's time.
TEST(RtlCli, SynthJobsAndMemoryLimitAreChecked) {
  const Written& w = design_of("vecmul_a");
  REQUIRE_DESIGN(w);
  const std::string dir = w.dir.string();
  expect_error(kiln({"synth", dir, "--jobs", "0"}), 2, "--jobs");
  expect_error(kiln({"synth", dir, "--jobs", "two"}), 2, "--jobs");
  expect_error(kiln({"synth", dir, "--jobs", "2", "--whole"}), 2, "--whole");
  expect_error(kiln({"synth", dir, "--memory-limit", "0"}), 2, "--memory-limit");
  expect_error(kiln({"synth", dir, "--memory-limit", "lots"}), 2, "--memory-limit");
  // The text: a row per module with its run's seconds and peak, the caveat.
  const ProcessResult text = kiln({"synth", dir, "--jobs", "3", "--memory-limit", "2"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_CONTAINS(text.out, "each module on its own, 3 at once under 2.0 GB each");
  EXPECT_CONTAINS(text.out, "peak MB");
  EXPECT_CONTAINS(text.out, "vecmul_a_Mul ");
  EXPECT_CONTAINS(text.out, "total (Yosys, sum of modules)");
  EXPECT_CONTAINS(text.out, "out of context");
  // 20 MB: Yosys cannot even read its cell library.
  const ProcessResult r = kiln({"synth", dir, "--jobs", "1", "--memory-limit", "0.02"});
  expect_error(r, 3, "out of memory under its 20 MB limit");
  EXPECT_CONTAINS(r.err, "synth/modules/");
  EXPECT_CONTAINS(r.err, "yosys.log");
  EXPECT_CONTAINS(r.err, "--memory-limit");
}

// softmax_a reads two of its nine 1024 x 18 lookups only from their
// registers; Yosys puts exactly those in block RAM, and the estimate knows.
TEST(RtlCli, SynthTablesInBlockRamAsEstimated) {
  const Written& w = design_of("softmax_a");
  REQUIRE_DESIGN(w);
  const ProcessResult r = kiln({"synth", w.dir.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = stdout_json(r);
  EXPECT_EQ(j["bram18"], 2);
  EXPECT_EQ(j["estimate"]["bram18"], j["bram18"]);
}
#elif defined(KILN_RTL_ZOO)
// The rtl-zoo tier (ctest -L rtl-zoo, scripts/test.sh rtl-zoo): every design
// of ../shared/checks/C-rtl-zoo in both simulators, conv2d_b's 6.6 MB stage
// included (its Verilator build is about 5 minutes here).
std::vector<SimCase> zoo_matrix() {
  std::vector<SimCase> cases;
  for (const char* m : {"vecmul_a", "vecmul_b", "dense_a", "dense_b", "softmax_a", "softmax_b",
                        "conv2d_a", "conv2d_b", "maxpool_a", "maxpool_b", "thxprlsg", "mlp",
                        "addmm", "batch_norm_2d", "conv_2d", "max_pool_2d", "soft_max"})
    for (const char* sim : {"icarus", "verilator"}) cases.push_back({m, sim});
  return cases;
}
INSTANTIATE_TEST_SUITE_P(Zoo, RtlSim, ::testing::ValuesIn(zoo_matrix()), [](const auto& info) {
  return info.param.model + "_" + info.param.simulator;
});
#else
INSTANTIATE_TEST_SUITE_P(
    Zoo, RtlSim,
    ::testing::Values(SimCase{"conv2d_a", "verilator"}, SimCase{"vecmul_b", "verilator"},
                      SimCase{"softmax_a", "verilator"}, SimCase{"dense_b", "icarus"},
                      SimCase{"maxpool_a", "icarus"}),
    [](const auto& info) { return info.param.model + "_" + info.param.simulator; });
#endif

}  // namespace
}  // namespace kiln::testing

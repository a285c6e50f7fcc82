// `kiln explore` as a user meets it: the frontier of a zoo model written
// whole, every point's config rebuilt by `kiln rtl -c` into the design the
// frontier priced (latency, interval and every resource equal), one of them
// simulated in Icarus with that latency; bad input is exit 2 with one line
// and no directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

// The error lines (progress lines say "kiln explore: ...").
int error_lines(const std::string& s) {
  int n = 0;
  for (std::size_t at = 0; at < s.size();) {
    const std::size_t nl = s.find('\n', at);
    n += s.compare(at, 6, "kiln: ") == 0;
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return n;
}

TEST(ExploreCli, EveryPointRebuildsIntoTheDesignItPriced) {
  TempDir tmp;
  const fs::path out = tmp.path() / "x";
  const ProcessResult r = kiln(
      {"explore", zoo("thxprlsg"), "--part", "xcvu9p-flga2104-2L-e", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json f = nlohmann::json::parse(r.out);
  EXPECT_EQ(f["strategy"], "kiln");
  EXPECT_GT(f["points_priced"].get<int64_t>(), f["points_placed"].get<int64_t>());
  const nlohmann::json& points = f["points"];
  ASSERT_GE(points.size(), 3u);
  int64_t last = 0;
  int index = 0;
  for (const nlohmann::json& p : points) {
    // By latency (points of equal latency trade one resource for another).
    EXPECT_GE(p["latency_cycles"].get<int64_t>(), last);
    last = p["latency_cycles"].get<int64_t>();
    const fs::path config = out / p["config"].get<std::string>();
    ASSERT_TRUE(fs::exists(config)) << config;
    const fs::path d = tmp.path() / ("d" + std::to_string(index++));
    const ProcessResult b =
        kiln({"rtl", zoo("thxprlsg"), "-c", config.string(), "-o", d.string(), "--json"});
    ASSERT_EQ(b.exit_code, 0) << b.err;
    const nlohmann::json rep = nlohmann::json::parse(b.out);
    EXPECT_EQ(rep["latency_cycles"], p["latency_cycles"]) << config;
    EXPECT_EQ(rep["interval_cycles"], p["interval_cycles"]) << config;
    for (const char* k : {"lut", "ff", "dsp", "bram18"})
      EXPECT_DOUBLE_EQ(rep["estimate"][k].get<double>(), p[k].get<double>()) << k << " " << config;
  }
  // The middle point in Icarus: bit-exact, with the frontier's latency.
  const nlohmann::json& mid = points[points.size() / 2];
  const fs::path d = tmp.path() / ("d" + std::to_string(points.size() / 2));
  const ProcessResult sim =
      kiln({"rtlsim", d.string(), "--samples", "2", "--simulator", "icarus", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  const nlohmann::json s = nlohmann::json::parse(sim.out);
  EXPECT_TRUE(s["bit_exact"].get<bool>());
  EXPECT_EQ(s["latency_cycles"], mid["latency_cycles"]);
}

// Seed 003's strategy: stage 1's counts add up (every neighbour set is a
// run or answered after Simplify), stage 2 places the base, the single
// partitions and the runs of adjacent ones, and its frontier's points
// rebuild into the designs it placed, as kiln's strategy's do.
TEST(ExploreCli, SeedStrategyCountsItsRunsAndItsPointsRebuild) {
  TempDir tmp;
  const fs::path out = tmp.path() / "x";
  const ProcessResult r = kiln(
      {"explore", zoo("thxprlsg"), "--strategy", "deepflexihls", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json f = nlohmann::json::parse(r.out);
  EXPECT_EQ(f["strategy"], "deepflexihls");
  const nlohmann::json& d = f["deepflexihls"];
  EXPECT_EQ(d["neighbours"].get<int64_t>(),
            d["runs"].get<int64_t>() + d["simplified"].get<int64_t>());
  EXPECT_GT(d["simplified"].get<int64_t>(), 0);
  EXPECT_EQ(d["cds"].size(), 4u);  // one directive set per layer
  // 4 partitions in a chain: the base, 4 single ones and 3 + 2 + 1 runs.
  EXPECT_LE(d["selected_runs"].get<int64_t>(), 11);
  ASSERT_FALSE(f["points"].empty());
  const nlohmann::json& p = f["points"][0];
  const fs::path dir = tmp.path() / "d";
  const ProcessResult b =
      kiln({"rtl", zoo("thxprlsg"), "-c", (out / p["config"].get<std::string>()).string(), "-o",
            dir.string(), "--json"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const nlohmann::json rep = nlohmann::json::parse(b.out);
  EXPECT_EQ(rep["latency_cycles"], p["latency_cycles"]);
  EXPECT_DOUBLE_EQ(rep["estimate"]["lut"].get<double>(), p["lut"].get<double>());
}

// Pricing and placing on two threads (a pricer each) gives the same
// frontier as one, and so does a graph cache of 1 MB (every graph dropped
// and made again as plans and designs need it).
TEST(ExploreCli, JobsAndTheCacheGiveTheSameFrontier) {
  TempDir tmp;
  std::vector<nlohmann::json> points;
  for (const auto& [jobs, cache] : {std::pair{"1", "1024"}, {"2", "1024"}, {"2", "1"}}) {
    const fs::path out = tmp.path() / (std::string("x") + jobs + "_" + cache);
    const ProcessResult r =
        kiln({"explore", zoo("lenet5"), "--jobs", jobs, "--cache-memory", cache, "--fastest",
              "4000", "--max-latency", "20000", "--set", "Model.Precision.weight=ap_fixed<6,2>",
              "--no-design", "-o", out.string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    points.push_back(nlohmann::json::parse(r.out)["points"]);
  }
  EXPECT_EQ(points[0], points[1]);
  EXPECT_EQ(points[0], points[2]);
  // A point's config is kiln compile's too: each product layer gets the
  // reuse factor its interval implies.
  const fs::path config = tmp.path() / "x1_1024" / points[0][0]["config"].get<std::string>();
  std::ifstream in(config);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("ReuseFactor:"), std::string::npos) << text;
  const ProcessResult c =
      kiln({"compile", zoo("lenet5"), "-c", config.string(), "-o", (tmp.path() / "hls").string()});
  EXPECT_EQ(c.exit_code, 0) << c.err;
}

// --strategy exhaustive places every design of the space on the --jobs
// threads, in the same order: the same true frontier at 1 and 2 threads.
TEST(ExploreCli, ExhaustiveGivesTheSameFrontierOnTwoThreads) {
  TempDir tmp;
  std::vector<nlohmann::json> runs;
  for (const char* jobs : {"1", "2"}) {
    const ProcessResult r =
        kiln({"explore", zoo("mlp"), "--part", "xcvu9p-flga2104-2L-e", "--strategy", "exhaustive",
              "--jobs", jobs, "--no-design", "-o", (tmp.path() / jobs).string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    runs.push_back(nlohmann::json::parse(r.out));
  }
  EXPECT_EQ(runs[0]["points"], runs[1]["points"]);
  EXPECT_EQ(runs[0]["points_priced"], runs[1]["points_priced"]);
  EXPECT_GT(runs[0]["points"].size(), 10u);
}

// conv2d_b's 64x64 input in registers takes over 90,000 flip-flops, so under
// 60,000 no design fits; kiln explore then streams the inputs, says so, and
// every point's config carries IOType: io_stream. A config that sets IOType
// itself is not overridden.
TEST(ExploreCli, StreamsTheInputsWhenNoDesignFitsWithThemInRegisters) {
  TempDir tmp;
  const ProcessResult r =
      kiln({"explore", zoo("conv2d_b"), "--part", "xcvu9p-flga2104-2L-e", "--max", "ff=60000",
            "--no-design", "-o", (tmp.path() / "x").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["io_stream_chosen"].get<bool>());
  EXPECT_NE(r.err.find("exploring again with the inputs streamed"), std::string::npos) << r.err;
  std::ifstream in(tmp.path() / "x" / j["points"][0]["config"].get<std::string>());
  const std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(config.find("IOType: io_stream"), std::string::npos) << config;
  for (const nlohmann::json& p : j["points"]) EXPECT_LE(p["ff"].get<double>(), 60000);
  const ProcessResult kept =
      kiln({"explore", zoo("conv2d_b"), "--part", "xcvu9p-flga2104-2L-e", "--max", "ff=60000",
            "--set", "IOType=io_parallel", "--no-design", "-o", (tmp.path() / "y").string()});
  EXPECT_EQ(kept.exit_code, 2) << kept.err;
  EXPECT_NE(kept.err.find("none of the designs placed is within the limits"), std::string::npos)
      << kept.err;
}

// --validate 1: the fastest point built from its config, simulated
// bit-exact with the frontier's latency, and counted by Yosys per module.
TEST(ExploreCli, ValidateBuildsSimulatesAndCounts) {
  TempDir tmp;
  const fs::path out = tmp.path() / "x";
  const ProcessResult r =
      kiln({"explore", zoo("thxprlsg"), "--validate", "1", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json f = nlohmann::json::parse(r.out);
  const nlohmann::json& p = f["points"][0];
  EXPECT_TRUE(p["validated"].get<bool>()) << p.dump(2);
  const nlohmann::json& v = p["validation"];
  EXPECT_TRUE(v["bit_exact"].get<bool>());
  EXPECT_EQ(v["latency_cycles"], p["latency_cycles"]);
  EXPECT_GT(v["yosys"]["lut"].get<double>(), 0);
  EXPECT_TRUE(v["estimate_error"].contains("lut"));
  EXPECT_TRUE(fs::exists(out / v["dir"].get<std::string>() / "report.json"));
  EXPECT_FALSE(f["points"][1].contains("validation"));
}

// `kiln report DIR` of an explore directory: its table, its JSON, and an
// HTML page with the Pareto plot.
TEST(ExploreCli, ReportShowsTheFrontier) {
  TempDir tmp;
  const fs::path out = tmp.path() / "x";
  ASSERT_EQ(kiln({"explore", zoo("thxprlsg"), "-o", out.string()}).exit_code, 0);
  const ProcessResult text = kiln({"report", out.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("points/p0.yaml  (chosen)"), std::string::npos) << text.out;
  const ProcessResult j = kiln({"report", out.string(), "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["format"], "kiln-explore");
  const fs::path page = tmp.path() / "x.html";
  const ProcessResult h = kiln({"report", out.string(), "--html", page.string()});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<h1>kiln explore: thxprlsg</h1>"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  // The chosen point's design, built into DIR/design, and its stages.
  EXPECT_TRUE(fs::exists(out / "design" / "report.json"));
  EXPECT_NE(html.find("RTL design of the chosen point"), std::string::npos);
  EXPECT_NE(html.find("share of the part"), std::string::npos);
}

// --accuracy: each precision variant's accuracy measured by the emulator on
// the samples; every point of a variant other than the configured one meets
// the goal, narrower variants cost fewer LUTs at the same latency, and a
// narrow point's config rebuilds into its design, bit-exact in simulation.
TEST(ExploreCli, PrecisionSearchMeasuresEveryPoint) {
  TempDir tmp;
  const fs::path out = tmp.path() / "x";
  const ProcessResult r = kiln({"explore", zoo("thxprlsg"), "--accuracy", "random:200",
                                "--max-error", "0.05", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json f = nlohmann::json::parse(r.out);
  EXPECT_EQ(f["accuracy_goal"]["max_error"], 0.05);
  const nlohmann::json& variants = f["precision_variants"];
  ASSERT_GE(variants.size(), 2u);
  EXPECT_EQ(variants[0]["variant"], "as configured");
  EXPECT_GE(f["precision_evaluations"].get<int>(), static_cast<int>(variants.size()));
  for (std::size_t v = 1; v < variants.size(); ++v) {
    EXPECT_TRUE(variants[v]["meets_goal"].get<bool>()) << variants[v].dump();
    EXPECT_LE(variants[v]["bits"].get<int>(), variants[0]["bits"].get<int>());
  }
  const nlohmann::json* narrow = nullptr;

  for (const nlohmann::json& p : f["points"]) {
    ASSERT_TRUE(p["accuracy"].is_object()) << p.dump();
    EXPECT_EQ(p["accuracy"]["samples"], 200);
    if (p["precision"]["variant"] != "as configured") {
      EXPECT_LE(p["accuracy"]["max_error"].get<double>(), 0.05);
      if (!narrow) narrow = &p;
    }
  }
  ASSERT_NE(narrow, nullptr) << "no narrower variant on the frontier";
  const fs::path d = tmp.path() / "d";
  const ProcessResult b =
      kiln({"rtl", zoo("thxprlsg"), "-c", (out / (*narrow)["config"].get<std::string>()).string(),
            "-o", d.string(), "--json"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const nlohmann::json rep = nlohmann::json::parse(b.out);
  EXPECT_EQ(rep["latency_cycles"], (*narrow)["latency_cycles"]);
  EXPECT_DOUBLE_EQ(rep["estimate"]["lut"].get<double>(), (*narrow)["lut"].get<double>());
  const ProcessResult sim =
      kiln({"rtlsim", d.string(), "--samples", "4", "--simulator", "kiln", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  EXPECT_TRUE(nlohmann::json::parse(sim.out)["bit_exact"].get<bool>());
}

TEST(ExploreCli, LimitsBoundEveryPoint) {
  TempDir tmp;
  const fs::path out = tmp.path() / "x";
  const ProcessResult r = kiln({"explore", zoo("thxprlsg"), "--max", "lut=4000", "--max-latency",
                                "15", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json f = nlohmann::json::parse(r.out);
  ASSERT_FALSE(f["points"].empty());
  for (const nlohmann::json& p : f["points"]) {
    EXPECT_LE(p["lut"].get<double>(), 4000);
    EXPECT_LE(p["latency_cycles"].get<int64_t>(), 15);
  }
}

TEST(ExploreCli, BadInputIsOneLineAndNoDirectory) {
  TempDir tmp;
  const fs::path out = tmp.path() / "x";
  struct Case {
    std::vector<std::string> args;
    std::string says;
    int code = 2;  // invalid input; 3: not supported (yet)
  };
  const std::vector<Case> cases = {
      {{"--objective", "speed"}, "is not an objective"},
      {{"--strategy", "genetic"}, "is not a strategy"},
      {{"--max", "lut=many"}, "expects RESOURCE=N items"},
      {{"--max", "luts=5"}, "unknown resource 'luts'"},
      {{"--executor", "pbs"}, "is not an executor"},
      {{"--min-top1", "0.9"}, "needs --accuracy DATA"},
      {{"--accuracy", "random:0"}, "expects random:N"},
      {{"--accuracy", "nowhere.txt"}, "is neither random:N, a directory nor a .npy file"},
      {{"--max", "lut=10"}, "no design of thxprlsg is within the limits"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"explore", zoo("thxprlsg"), "-o", out.string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const ProcessResult r = kiln(args);
    EXPECT_EQ(r.exit_code, c.code) << c.says << ": " << r.err;
    EXPECT_EQ(error_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.says;
  }
}

}  // namespace
}  // namespace kiln::testing

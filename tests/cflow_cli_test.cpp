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
                           "    Storage: registers\n";
  const fs::path out = tmp.path() / "p";
  const ProcessResult c = kiln({"compile", zoo("mlp"), "-c", config.string(), "-o", out.string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  std::ifstream in(out / "firmware" / "mlp.cpp");
  const std::string code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* want :
       {"  i:\n", "    j:\n", "KILN_PRAGMA(HLS PIPELINE II=2)", "KILN_PRAGMA(HLS UNROLL factor=5)",
        "KILN_PRAGMA(HLS UNROLL)\n", "type=complete dim=1)"})
    EXPECT_NE(code.find(want), std::string::npos) << want;
  EXPECT_TRUE(fs::exists(out / "build_prj.tcl"));
  const ProcessResult s = kiln({"csim", out.string(), "--samples", "5", "--werror"});
  ASSERT_EQ(s.exit_code, 0) << s.err << s.out;
  EXPECT_NE(s.out.find("5/5 samples bit-exact"), std::string::npos) << s.out;
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

}  // namespace
}  // namespace kiln::testing

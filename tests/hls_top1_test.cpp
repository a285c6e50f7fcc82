// Classifiers compiled with `Precision: auto` (kiln profile) agree with the
// float model on the top class for at least 99 of 100 random inputs, and the
// C simulation stays bit-exact with kiln's emulator.
//
// Built twice: hls_top1_test (the default suite) and, with KILN_TOP1_SLOW,
// hls_top1_slow_test for the classifiers whose 100-sample C simulation takes
// minutes on a 2-core machine (superwide: ~7 of the default suite's 11
// minutes); that one carries the ctest label `slow` (scripts/test.sh slow).
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

class HlsTop1 : public ::testing::TestWithParam<std::string> {};

TEST_P(HlsTop1, ProfiledPrecisionKeepsTop1) {
  TempDir tmp;
  const fs::path prj = tmp.path() / "prj";
  const ProcessResult comp =
      run_process({kiln_binary(), "compile", zoo_model(GetParam()).string(), "-o", prj.string(),
                   "--set", "Model.Precision=auto", "--set", "IOType=io_stream"},
                  300.0);
  ASSERT_EQ(comp.exit_code, 0) << comp.out << comp.err;
  const ProcessResult sim =
      run_process({kiln_binary(), "csim", prj.string(), "--samples", "100", "--json"}, 900.0);
  EXPECT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  const nlohmann::json j = stdout_json(sim);
  EXPECT_EQ(j.value("bit_exact_samples", -1), 100) << sim.out;
  ASSERT_TRUE(j.contains("float_reference") && j["float_reference"].is_object()) << sim.out;
  const nlohmann::json& f = j["float_reference"];
  EXPECT_GE(f.value("top1_agree", -1), 99) << sim.out;
  std::cout << GetParam() << ": top-1 " << f.value("top1_agree", -1) << "/100, max abs error "
            << f.value("max_abs_error", -1.0) << "\n";
}

#ifdef KILN_TOP1_SLOW
INSTANTIATE_TEST_SUITE_P(SlowClassifiers, HlsTop1, ::testing::Values("superwide"),
                         [](const auto& info) { return info.param; });
#else
INSTANTIATE_TEST_SUITE_P(Classifiers, HlsTop1,
                         ::testing::Values("mlp", "lenet5", "model4", "model8", "model32",
                                           "model64"),
                         [](const auto& info) { return info.param; });
#endif

}  // namespace
}  // namespace kiln::testing

// The large tier of the HLS flow (`scripts/test.sh large`, label "large"):
// superwide (1.2 GMAC per sample) with profiled precisions keeps top-1
// agreement with the float model on 100 random inputs. Takes about an hour on
// two cores, nearly all of it kiln's emulator.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kiln/support/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

TEST(HlsLarge, SuperwideProfiledPrecisionKeepsTop1) {
  TempDir tmp;
  const fs::path prj = tmp.path() / "prj";
  const fs::path model = fs::path(source_dir()) / "models" / "zoo" / "superwide" / "model.onnx";
  const ProcessResult comp =
      run_process({kiln_binary(), "compile", model.string(), "-o", prj.string(), "--set",
                   "Model.Precision=auto", "--set", "IOType=io_stream"},
                  1800.0);
  ASSERT_EQ(comp.exit_code, 0) << comp.out << comp.err;
  const ProcessResult sim =
      run_process({kiln_binary(), "csim", prj.string(), "--samples", "100", "--json"}, 14400.0);
  EXPECT_EQ(sim.exit_code, 0) << sim.out << sim.err;
  const nlohmann::json j = nlohmann::json::parse(sim.out);
  EXPECT_EQ(j.value("bit_exact_samples", -1), 100) << sim.out;
  const nlohmann::json& f = j["float_reference"];
  EXPECT_GE(f.value("top1_agree", -1), 99) << sim.out;
  std::cout << "superwide: top-1 " << f.value("top1_agree", -1) << "/100, max abs error "
            << f.value("max_abs_error", -1.0) << "\n";
}

}  // namespace
}  // namespace kiln::testing

// Designs of the small zoo models: Verilator lint clean, and bit-exact with
// the emulator in simulation (Icarus here; kiln rtlsim runs both).
#include "kiln/rtl/design.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "kiln/hls/emulate/emulator.h"
#include "kiln/rtl/testing/sim_check.h"
#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {
namespace {

namespace fs = std::filesystem;

class ZooDesign : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooDesign, LintsCleanAndSimulatesBitExactInIcarus) {
  const hls::Model m = testing::zoo_model(GetParam());
  const Design d = build_design(m, {});
  kiln::testing::TempDir dir;
  const auto files = testing::write_files(d, dir.path());
  const tools::LintResult lint = tools::lint_verilog(files, d.top);
  ASSERT_TRUE(lint.ok) << lint.error << "\n" << lint.log.substr(0, 3000);
  testing::expect_bit_exact(m, d, tools::Simulator::Icarus, 3);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooDesign,
                         ::testing::Values("vecmul_a", "vecmul_b", "dense_a", "softmax_a",
                                           "softmax_b", "conv2d_a", "maxpool_a", "maxpool_b",
                                           "thxprlsg", "batch_norm_2d"));
// dense_b (4,096 multiplies) and conv2d_b (34,596) take minutes in the
// simulators: the slow tier runs them through kiln rtlsim (tests/).

}  // namespace
}  // namespace kiln::rtl

// `kiln explore --executor slurm` through a real one-node Slurm cluster
// (slurmctld, slurmd and munge from Debian, started and stopped by
// scripts/slurm_local.sh): the validations run as a job array, their results
// come back into the frontier, and a run started again after one point's
// results were lost submits only that point.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kiln/support/testing/test_helpers.h"
#include "subprocess.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

std::string slurm_local() {
  return (fs::path(source_dir()) / "scripts" / "slurm_local.sh").string();
}

class ExploreSlurm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() != 0) return;  // the test skips itself, saying why
    const ProcessResult r = run_process({"/bin/bash", slurm_local(), "start"}, 120);
    started_ = r.exit_code == 0;
    start_log_ = r.out + r.err;
  }
  static void TearDownTestSuite() {
    if (started_) run_process({"/bin/bash", slurm_local(), "stop"}, 60);
  }
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "a local Slurm cluster needs root (slurmd, munged)";
    ASSERT_TRUE(started_) << "scripts/slurm_local.sh start failed: " << start_log_;
  }
  static bool started_;
  static std::string start_log_;
};
bool ExploreSlurm::started_ = false;
std::string ExploreSlurm::start_log_;

nlohmann::json explore(const fs::path& out, const fs::path& work) {
  const std::string model =
      (fs::path(source_dir()) / "models" / "zoo" / "thxprlsg" / "model.onnx").string();
  const ProcessResult r = run_process(
      {kiln_binary(), "explore", model, "--part", "xcvu9p-flga2104-2L-e", "--executor", "slurm",
       "--validate", "2", "--work-dir", work.string(), "-o", out.string(), "--json"},
      900);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return stdout_json(r);
}

TEST_F(ExploreSlurm, ValidatesAsAJobArrayAndResumes) {
  TempDir tmp;
  const fs::path work = tmp.path() / "work";
  const nlohmann::json f = explore(tmp.path() / "a", work);
  ASSERT_TRUE(f.is_object());
  const nlohmann::json& v = f["validation"];
  EXPECT_EQ(v["executor"], "slurm");
  const std::string job = v["slurm_job"].get<std::string>();
  ASSERT_FALSE(job.empty());
  EXPECT_TRUE(v["failures"].empty()) << v.dump(2);
  for (int i = 0; i < 2; ++i) {
    const nlohmann::json& p = f["points"][i];
    EXPECT_TRUE(p["validated"].get<bool>()) << p.dump(2);
    EXPECT_FALSE(p["validation"]["cached"].get<bool>());
    EXPECT_GT(p["validation"]["yosys"]["lut"].get<double>(), 0);
    // Slurm wrote each array task's log, named by the job and the task.
    EXPECT_TRUE(fs::exists(fs::path(v["log_dir"].get<std::string>()) /
                           (job + "_" + std::to_string(i) + ".log")));
    EXPECT_TRUE(
        fs::exists(tmp.path() / "a" / p["validation"]["dir"].get<std::string>() / "report.json"));
  }
  // One point's results lost (an interrupted run): only it is submitted again.
  const std::string lost = f["points"][1]["validation"]["key"].get<std::string>();
  fs::remove(work / "points" / lost / "done");
  const nlohmann::json g = explore(tmp.path() / "b", work);
  ASSERT_TRUE(g.is_object());
  EXPECT_NE(g["validation"]["slurm_job"].get<std::string>(), job);
  EXPECT_TRUE(g["points"][0]["validation"]["cached"].get<bool>());
  EXPECT_FALSE(g["points"][1]["validation"]["cached"].get<bool>());
  EXPECT_EQ(g["points"][1]["validation"]["yosys"], f["points"][1]["validation"]["yosys"]);
  EXPECT_TRUE(g["points"][1]["validated"].get<bool>());
}

}  // namespace
}  // namespace kiln::testing

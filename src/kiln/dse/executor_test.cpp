// The local executor runs every task of a batch, at most `jobs` at once, and
// names the ones that failed; a batch of no tasks runs nothing.
#include "kiln/dse/executor.h"

#include <gtest/gtest.h>

#include <fstream>

#include "kiln/support/error.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::dse {
namespace {

namespace fs = std::filesystem;

TEST(Executor, LocalRunsEveryTaskAndNamesTheFailures) {
  testing::TempDir tmp;
  const fs::path script = tmp.path() / "task.sh";
  // Task 3 fails; every task leaves a file named by its index.
  std::ofstream(script) << "echo ran > \"out_$1\"\n[ \"$1\" != 3 ]\n";
  ExecutorOptions o;
  o.jobs = 2;
  std::vector<std::string> heard;
  const BatchRun run = run_batch(script, {0, 1, 3, 5}, tmp.path() / "logs", o,
                                 [&](const std::string& s) { heard.push_back(s); });
  EXPECT_EQ(run.kind, ExecutorKind::Local);
  for (int t : {0, 1, 3, 5}) EXPECT_TRUE(fs::exists(tmp.path() / ("out_" + std::to_string(t))));
  EXPECT_FALSE(fs::exists(tmp.path() / "out_2"));
  ASSERT_EQ(run.failures.size(), 1u);
  EXPECT_EQ(run.failures[0].rfind("task 3: exit status 1", 0), 0u) << run.failures[0];
  EXPECT_TRUE(fs::exists(tmp.path() / "logs" / "task_5.log"));
  EXPECT_EQ(heard.size(), 4u);
}

TEST(Executor, NoTasksRunNothing) {
  testing::TempDir tmp;
  ExecutorOptions o;
  o.kind = ExecutorKind::Slurm;  // no sbatch needed when nothing is submitted
  const BatchRun run = run_batch(tmp.path() / "absent.sh", {}, tmp.path() / "logs", o);
  EXPECT_TRUE(run.failures.empty());
  EXPECT_TRUE(run.job_id.empty());
}

TEST(Executor, NamesAndKeys) {
  EXPECT_EQ(parse_executor("slurm"), ExecutorKind::Slurm);
  EXPECT_STREQ(executor_name(parse_executor("local")), "local");
  EXPECT_THROW(parse_executor("pbs"), Error);
  EXPECT_EQ(content_key("a"), content_key("a"));
  EXPECT_NE(content_key("a"), content_key("b"));
  EXPECT_EQ(content_key("").size(), 16u);
}

}  // namespace
}  // namespace kiln::dse

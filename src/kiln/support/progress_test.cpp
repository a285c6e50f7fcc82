// Progress lines: nothing unless enabled; when enabled, the task, the phase,
// how far and the time left, and a cleared line at the end.
#include "kiln/support/progress.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace kiln {
namespace {

// Restores the process-wide switch whatever a test sets.
struct ProgressSwitch {
  explicit ProgressSwitch(bool on) : was(progress_enabled()) { set_progress_enabled(on); }
  ~ProgressSwitch() { set_progress_enabled(was); }
  bool was;
};

std::string run_progress(bool on, const std::string& task) {
  ProgressSwitch sw(on);
  ::testing::internal::CaptureStderr();
  {
    Progress p(task, 4);
    p.phase("emulating");
    p.advance(2);
    p.phase("comparing");  // a phase change is drawn at once
  }
  return ::testing::internal::GetCapturedStderr();
}

TEST(Progress, SilentUnlessEnabled) {
  EXPECT_EQ(run_progress(false, "csim m"), "");
  EXPECT_EQ(run_progress(true, ""), "");  // no task, nothing to say
}

TEST(Progress, SaysWhatHowFarAndClearsItsLine) {
  const std::string err = run_progress(true, "csim m");
  EXPECT_NE(err.find("csim m: emulating (0 s), 0/4 (0%)"), std::string::npos) << err;
  EXPECT_NE(err.find("csim m: comparing (0 s), 2/4 (50%), about "), std::string::npos) << err;
  EXPECT_NE(err.find(" left"), std::string::npos) << err;
  // The last thing written blanks the line and returns to its start.
  ASSERT_GE(err.size(), 2u);
  EXPECT_EQ(err.back(), '\r');
  EXPECT_EQ(err.find('\n'), std::string::npos) << "one line, rewritten in place";
}

TEST(Progress, WantedOnlyForPeopleAndOverriddenByTheEnvironment) {
  const char* old = std::getenv("KILN_PROGRESS");
  const std::string saved = old ? old : "";
  setenv("KILN_PROGRESS", "1", 1);
  EXPECT_TRUE(progress_wanted(false));
  EXPECT_FALSE(progress_wanted(true));  // --json: never
  setenv("KILN_PROGRESS", "0", 1);
  EXPECT_FALSE(progress_wanted(false));
  if (old)
    setenv("KILN_PROGRESS", saved.c_str(), 1);
  else
    unsetenv("KILN_PROGRESS");
}

}  // namespace
}  // namespace kiln

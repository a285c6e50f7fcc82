#include "kiln/support/atomic_dir.h"

#include <gtest/gtest.h>

#include <fstream>

#include "kiln/support/error.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

fs::path fresh_tmp(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("kiln_atomic_" + name + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

TEST(AtomicDir, CommitMovesEverythingIntoPlace) {
  fs::path target = fresh_tmp("commit");
  {
    AtomicDir dir(target);
    std::ofstream(dir.staging() / "a.txt") << "hello";
    EXPECT_FALSE(fs::exists(target));
    dir.commit();
  }
  EXPECT_TRUE(fs::exists(target / "a.txt"));
  fs::remove_all(target);
}

TEST(AtomicDir, FailureLeavesNothingBehind) {
  fs::path target = fresh_tmp("fail");
  fs::path staging;
  try {
    AtomicDir dir(target);
    staging = dir.staging();
    std::ofstream(dir.staging() / "half.txt") << "half";
    throw std::runtime_error("writer failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(fs::exists(staging));
}

TEST(AtomicDir, RefusesNonEmptyTarget) {
  fs::path target = fresh_tmp("nonempty");
  fs::create_directories(target);
  std::ofstream(target / "keep.txt") << "keep";
  EXPECT_THROW(AtomicDir dir(target), Error);
  EXPECT_TRUE(fs::exists(target / "keep.txt"));
  fs::remove_all(target);
}

}  // namespace
}  // namespace kiln

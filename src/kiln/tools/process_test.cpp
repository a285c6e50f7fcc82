#include "kiln/tools/process.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "kiln/support/testing/test_helpers.h"
#include "kiln/tools/compilers.h"

namespace kiln::tools {
namespace {

using kiln::testing::TempDir;

TEST(Process, CapturesStdoutStderrAndExitStatus) {
  const ProcessResult r = run_process("sh", {"-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status_text(), "exit status 3");
}

TEST(Process, ArgumentsAreNotInterpretedByAShell) {
  // With a shell, "$HOME" and ';' would be expanded/split.
  const ProcessResult r = run_process("printf", {"%s|", "a b", "$HOME", "x;y"});
  ASSERT_TRUE(r.ok()) << r.status_text();
  EXPECT_EQ(r.out, "a b|$HOME|x;y|");
}

TEST(Process, RunsInTheWorkingDirectory) {
  TempDir dir;
  ProcessOptions opts;
  opts.cwd = dir.path();
  const ProcessResult r = run_process("pwd", {}, opts);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::filesystem::canonical(r.out.substr(0, r.out.size() - 1)),
            std::filesystem::canonical(dir.path()));
}

TEST(Process, TimeoutKillsTheProgramAndItsChildren) {
  ProcessOptions opts;
  opts.timeout_seconds = 0.5;
  // The shell's child `sleep` holds stdout open: only killing the group ends it.
  const ProcessResult r = run_process("sh", {"-c", "sleep 30; echo never"}, opts);
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.seconds, 10.0);
  EXPECT_EQ(r.out, "");
}

TEST(Process, MissingProgramIsReportedNotThrown) {
  const ProcessResult r = run_process("kiln-no-such-program-xyz", {"a"});
  EXPECT_FALSE(r.started);
  EXPECT_FALSE(r.ok());
  EXPECT_CONTAINS(r.start_error, "No such file");
}

TEST(Process, MissingWorkingDirectoryIsReported) {
  ProcessOptions opts;
  opts.cwd = "/nonexistent/kiln/dir";
  const ProcessResult r = run_process("true", {}, opts);
  EXPECT_FALSE(r.started);
  EXPECT_CONTAINS(r.start_error, "/nonexistent/kiln/dir");
}

TEST(Process, SignalIsReported) {
  const ProcessResult r = run_process("sh", {"-c", "kill -9 $$"});
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.signal, 9);
  EXPECT_EQ(r.status_text(), "killed by signal 9");
}

TEST(Process, LargeOutputOnBothStreamsDoesNotDeadlock) {
  // 1 MB on each stream: more than a pipe buffer, so both must be drained.
  ProcessOptions opts;
  opts.timeout_seconds = 30;
  const ProcessResult r =
      run_process("sh", {"-c", "head -c 1048576 /dev/zero; head -c 1048576 /dev/zero >&2"}, opts);
  ASSERT_TRUE(r.ok()) << r.status_text();
  EXPECT_EQ(r.out.size(), 1048576u);
  EXPECT_EQ(r.err.size(), 1048576u);
}

// perl (Debian's perl-base, always installed) builds a string of N MB: past
// its memory limit it says "Out of memory!" and fails.
ProcessResult allocate_mb(int mb, std::optional<uint64_t> limit) {
  ProcessOptions opts;
  opts.timeout_seconds = 60;
  opts.memory_limit_bytes = limit;
  return run_process(
      "perl", {"-e", "my $x = 'a' x ($ARGV[0] << 20); print length($x)", std::to_string(mb)}, opts);
}

TEST(Process, MemoryLimitStopsAProgramThatAllocatesPastIt) {
  const ProcessResult over = allocate_mb(256, uint64_t{64} << 20);
  EXPECT_TRUE(over.started);
  EXPECT_FALSE(over.ok());
  EXPECT_TRUE(over.out_of_memory) << over.status_text() << over.err;
  EXPECT_EQ(over.memory_limit_bytes, uint64_t{64} << 20);
  EXPECT_CONTAINS(over.status_text(), "out of memory under its 64 MB limit");
  EXPECT_LT(over.peak_memory_bytes, uint64_t{64} << 20);

  const ProcessResult under = allocate_mb(256, uint64_t{1} << 30);
  ASSERT_TRUE(under.ok()) << under.status_text() << under.err;
  EXPECT_FALSE(under.out_of_memory);
  EXPECT_EQ(under.out, std::to_string(256 << 20));
  // Its peak holds the string.
  EXPECT_GE(under.peak_memory_bytes, uint64_t{256} << 20);
  EXPECT_LT(under.peak_memory_bytes, uint64_t{1} << 30);
}

TEST(Process, AFailureUnderAMemoryLimitIsNotOutOfMemoryByItself) {
  ProcessOptions opts;
  opts.memory_limit_bytes = uint64_t{1} << 30;
  const ProcessResult r = run_process("sh", {"-c", "exit 3"}, opts);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.out_of_memory);
  EXPECT_EQ(r.status_text(), "exit status 3");
  // Without a limit nothing is out of memory, whatever it says.
  const ProcessResult said = run_process("sh", {"-c", "echo 'std::bad_alloc' >&2; exit 1"});
  EXPECT_FALSE(said.out_of_memory);
}

TEST(Process, CancelKillsTheProgramAndItsChildren) {
  std::atomic<bool> cancel = false;
  ProcessOptions opts;
  opts.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  const ProcessResult r = run_process("sh", {"-c", "sleep 30; echo never"}, opts);
  canceller.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.seconds, 10.0);
  EXPECT_EQ(r.out, "");
  EXPECT_CONTAINS(r.status_text(), "stopped after");
}

TEST(Process, TotalMemoryIsKnownOnLinux) {
  const std::optional<uint64_t> total = total_memory_bytes();
  ASSERT_TRUE(total.has_value());
  EXPECT_GT(*total, uint64_t{64} << 20);
}

TEST(FindProgram, FindsOnPathAndRejectsMissing) {
  const auto sh = find_program("sh");
  ASSERT_TRUE(sh.has_value());
  EXPECT_TRUE(sh->is_absolute());
  EXPECT_FALSE(find_program("kiln-no-such-program-xyz").has_value());
  EXPECT_FALSE(find_program("/nonexistent/x").has_value());
}

TEST(ParseVersion, Banners) {
  EXPECT_EQ(parse_version("12.2.0\n"), "12.2.0");
  EXPECT_EQ(parse_version("****** Vitis HLS - High-Level Synthesis from C, C++ and OpenCL "
                          "v2023.1 (64-bit)\n  **** SW Build 3854077"),
            "2023.1");
  EXPECT_EQ(parse_version("PandA-bambu\nVersion: PandA 2023.2 - Revision 123"), "2023.2");
  EXPECT_EQ(parse_version("no digits here 42"), "");
  EXPECT_EQ(parse_version("x86_64-linux 1.2abc"), "");
}

// A fake tool on PATH proves detection runs it and reads its banner.
TEST(DetectTools, FindsAFakeBambuOnPath) {
  TempDir dir;
  const auto fake = dir.path() / "bambu";
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\necho 'PandA-bambu 2024.10 (fake)'\n";
  }
  ::chmod(fake.c_str(), 0755);
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", (dir.path().string() + ":" + saved).c_str(), 1);
  const ToolInfo info = detect_bambu();
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_TRUE(info.found());
  EXPECT_EQ(*info.path, fake);
  EXPECT_EQ(info.version, "2024.10");
}

TEST(DetectTools, CxxIsFoundWithAVersion) {
  const ToolInfo cxx = find_cxx();
  ASSERT_TRUE(cxx.found()) << "g++ is needed for C simulation";
  EXPECT_FALSE(cxx.version.empty());
}

}  // namespace
}  // namespace kiln::tools

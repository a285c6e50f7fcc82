// Runs external programs (g++, vitis_hls, bambu, a built testbench) without a
// shell: arguments are passed as they are, output is captured, a time limit
// kills the program and everything it started, and a memory limit bounds it.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kiln::tools {

struct ProcessOptions {
  std::filesystem::path cwd;   // empty: the current directory
  double timeout_seconds = 0;  // <= 0: no limit
  // The program's address space in bytes (RLIMIT_AS, set in the child before
  // exec; the programs it starts inherit it, each with its own). Past it an
  // allocation fails: C++ programs abort with std::bad_alloc, others say
  // "out of memory" or die of a signal. nullopt: no limit.
  std::optional<uint64_t> memory_limit_bytes;
  // When given and it becomes true, the program and its children are killed
  // (looked at every 0.1 s): another job's failure makes this one pointless.
  const std::atomic<bool>* cancel = nullptr;
  // stdin is always /dev/null: no tool kiln runs reads it.
};

struct ProcessResult {
  bool started = false;     // false: the program could not be run (see start_error)
  std::string start_error;  // e.g. "g++: No such file or directory"
  int exit_code = -1;       // valid when exited normally
  int signal = 0;           // the signal that ended it, if any
  bool timed_out = false;   // killed because the time limit passed
  bool cancelled = false;   // killed because options.cancel became true
  // It failed, and the memory limit is why: it said so (std::bad_alloc, "out
  // of memory", "Cannot allocate memory", MemoryError) or its peak reached
  // 80% of the limit (the rest of the address space is its code and
  // libraries). Only with options.memory_limit_bytes.
  bool out_of_memory = false;
  std::string out, err;
  double seconds = 0;  // wall time
  // The largest resident set of the program or of any program it started and
  // waited for (wait4's ru_maxrss), in bytes; 0 when it could not be run.
  uint64_t peak_memory_bytes = 0;
  uint64_t memory_limit_bytes = 0;  // the limit it ran under; 0: none
  bool ok() const { return started && !timed_out && !cancelled && signal == 0 && exit_code == 0; }
  // One line for messages: "exit status 1", "killed by signal 11", "timed out after 5 s",
  // "out of memory under its 2.0 GB limit (killed by signal 6)" (MB under 1 GB), ...
  std::string status_text() const;
};

// Runs `program` (a path, or a name looked up on PATH) with `args` (argv[1..]).
// Never throws for a failing program; throws kiln::Error(Internal) only if the
// operating system refuses a pipe or fork.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          const ProcessOptions& options = {});

// "640 MB", "10.5 GB" (2^20 and 2^30 bytes): MB under 1 GB.
std::string memory_text(uint64_t bytes);

// The machine's memory (MemTotal of /proc/meminfo) in bytes; nullopt where
// it cannot be read.
std::optional<uint64_t> total_memory_bytes();

// The executable `name` resolves to on PATH (or `name` itself if it contains a
// '/' and is executable); nullopt if none.
std::optional<std::filesystem::path> find_program(const std::string& name);

}  // namespace kiln::tools

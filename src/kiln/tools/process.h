// Runs external programs (g++, vitis_hls, bambu, a built testbench) without a
// shell: arguments are passed as they are, output is captured, and a time
// limit kills the program and everything it started.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kiln::tools {

struct ProcessOptions {
  std::filesystem::path cwd;   // empty: the current directory
  double timeout_seconds = 0;  // <= 0: no limit
  // stdin is always /dev/null: no tool kiln runs reads it.
};

struct ProcessResult {
  bool started = false;     // false: the program could not be run (see start_error)
  std::string start_error;  // e.g. "g++: No such file or directory"
  int exit_code = -1;       // valid when exited normally
  int signal = 0;           // the signal that ended it, if any
  bool timed_out = false;   // killed because the time limit passed
  std::string out, err;
  double seconds = 0;  // wall time
  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  // One line for messages: "exit status 1", "killed by signal 11", "timed out after 5 s", ...
  std::string status_text() const;
};

// Runs `program` (a path, or a name looked up on PATH) with `args` (argv[1..]).
// Never throws for a failing program; throws kiln::Error(Internal) only if the
// operating system refuses a pipe or fork.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          const ProcessOptions& options = {});

// The executable `name` resolves to on PATH (or `name` itself if it contains a
// '/' and is executable); nullopt if none.
std::optional<std::filesystem::path> find_program(const std::string& name);

}  // namespace kiln::tools

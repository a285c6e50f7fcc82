// Runs the kiln CLI as a child process, as a user would, with a time limit.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/support/testing/test_helpers.h"  // source_dir(), zoo_models()

namespace kiln::testing {

struct ProcessResult {
  int exit_code = -1;  // valid when !signaled && !timed_out
  int signal = 0;      // the signal that killed it (a crash), if any
  bool timed_out = false;
  std::string out, err;
  bool crashed() const { return signal != 0 && !timed_out; }
};

// What a `--json` command printed; output that is not JSON fails the test
// (showing it) and gives null.
nlohmann::json stdout_json(const ProcessResult& r);

// Runs `argv` (argv[0] is a path) with stdin closed; kills it after `timeout_seconds`.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds);

// Path of the kiln binary under test (set by CMake).
std::string kiln_binary();

// `kiln ARGS...` run as a user runs it.
inline ProcessResult kiln(std::vector<std::string> args, double timeout = 600) {
  args.insert(args.begin(), kiln_binary());
  return run_process(args, timeout);
}

// A committed zoo model's ONNX file, as a command-line argument.
inline std::string zoo(const std::string& name) {
  return zoo_model(name).string();
}

}  // namespace kiln::testing

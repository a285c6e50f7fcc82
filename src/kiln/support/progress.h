// Progress of long work (C simulation, profiles over many data sets, RTL
// simulation, synthesis) on stderr: one line rewritten in place, saying what
// is being done, how far it is and, when the amount of work is known, the
// time left. Shown only when the program allows it: the CLI turns it on when
// stderr is a terminal and --json is not given (KILN_PROGRESS=1 forces it, for
// tests); libraries report freely and print nothing otherwise.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace kiln {

// Whether progress lines are printed (off by default).
void set_progress_enabled(bool on);
bool progress_enabled();
// The CLI's rule: on when stderr is a terminal or KILN_PROGRESS=1, and not
// for machine-readable output.
bool progress_wanted(bool json_output);

class Progress {
 public:
  // `task` names the work ("csim lenet5"; empty: show nothing); `total`
  // units of it, 0 if unknown.
  explicit Progress(std::string task, int64_t total = 0);
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // What is being done now ("building the testbench with g++"); the line is
  // refreshed every half second while it lasts, with the time spent on it
  // and, if given, what `detail` says then (a tool's current step).
  void phase(const std::string& what, std::function<std::string()> detail = {});
  // `done` of `total` units finished (the time left is extrapolated).
  void advance(int64_t done);

 private:
  void draw(bool force);
  void tick();

  std::string task_, phase_;
  std::function<std::string()> detail_;
  int64_t total_ = 0, done_ = 0;
  std::chrono::steady_clock::time_point started_, phase_started_, last_draw_;
  bool on_ = false, stop_ = false;
  std::size_t width_ = 0;  // of the line drawn last, to clear it
  std::mutex mu_;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace kiln

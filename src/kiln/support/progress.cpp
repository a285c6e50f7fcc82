#include "kiln/support/progress.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kiln {

namespace {
std::atomic<bool> g_enabled{false};

std::string duration_text(double s) {
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%d min %02d s", static_cast<int>(s) / 60,
                  static_cast<int>(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%d h %02d min", static_cast<int>(s) / 3600,
                  static_cast<int>(s) / 60 % 60);
  return buf;
}
}  // namespace

void set_progress_enabled(bool on) {
  g_enabled = on;
}
bool progress_enabled() {
  return g_enabled;
}

bool progress_wanted(bool json_output) {
  if (json_output) return false;
  const char* force = std::getenv("KILN_PROGRESS");
  if (force && std::strcmp(force, "1") == 0) return true;
  if (force && std::strcmp(force, "0") == 0) return false;
  return isatty(STDERR_FILENO) == 1;
}

Progress::Progress(std::string task, int64_t total)
    : task_(std::move(task)), total_(total), on_(g_enabled && !task_.empty()) {
  started_ = phase_started_ = last_draw_ = std::chrono::steady_clock::now();
  if (!on_) return;
  ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  if (!on_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();  // without waiting out the ticker's half second
  ticker_.join();
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
  std::fflush(stderr);
}

void Progress::phase(const std::string& what, std::function<std::string()> detail) {
  if (!on_) return;
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = what;
  detail_ = std::move(detail);
  phase_started_ = std::chrono::steady_clock::now();
  draw(true);
}

void Progress::advance(int64_t done) {
  if (!on_) return;
  std::lock_guard<std::mutex> lock(mu_);
  done_ = done;
  draw(false);
}

// Called with mu_ held.
void Progress::draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  const double spent = std::chrono::duration<double>(now - started_).count();
  std::string line = task_;
  if (!phase_.empty()) {
    const double in_phase = std::chrono::duration<double>(now - phase_started_).count();
    line += ": " + phase_ + " (" + duration_text(in_phase);
    if (detail_) {
      const std::string d = detail_();
      if (!d.empty()) line += ", " + d;
    }
    line += ")";
  }
  if (total_ > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, ", %lld/%lld (%.0f%%)", static_cast<long long>(done_),
                  static_cast<long long>(total_), 100.0 * static_cast<double>(done_) / total_);
    line += buf;
    if (done_ > 0 && done_ < total_)
      line += ", about " + duration_text(spent / static_cast<double>(done_) * (total_ - done_)) +
              " left";
  }
  const std::size_t w = line.size();
  if (w < width_) line.append(width_ - w, ' ');
  width_ = std::max(width_, w);
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
}

void Progress::tick() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; }))
    draw(true);
}

}  // namespace kiln

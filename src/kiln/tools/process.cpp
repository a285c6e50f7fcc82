#include "kiln/tools/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>

#include "kiln/support/error.h"

namespace kiln::tools {

namespace fs = std::filesystem;

std::string memory_text(uint64_t bytes) {
  char buf[32];
  if (bytes < (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.0f MB", static_cast<double>(bytes) / double(1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / double(1ull << 30));
  return buf;
}

std::string ProcessResult::status_text() const {
  if (!started) return "could not start: " + start_error;
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(seconds)) + " s";
  if (cancelled) return "stopped after " + std::to_string(static_cast<int>(seconds)) + " s";
  const std::string ended = signal != 0 ? "killed by signal " + std::to_string(signal)
                                        : "exit status " + std::to_string(exit_code);
  if (out_of_memory)
    return "out of memory under its " + memory_text(memory_limit_bytes) + " limit (" + ended + ")";
  return ended;
}

namespace {

// Whether a program's output says an allocation failed.
bool says_out_of_memory(std::string_view text) {
  static constexpr std::string_view kMarks[] = {"bad_alloc", "out of memory",
                                                "cannot allocate memory", "memoryerror"};
  const auto lower_equal = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  };
  for (std::string_view mark : kMarks)
    if (std::search(text.begin(), text.end(), mark.begin(), mark.end(), lower_equal) != text.end())
      return true;
  return false;
}

bool is_executable_file(const fs::path& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::optional<uint64_t> total_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  uint64_t value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemTotal:") return value * 1024;  // kB
  }
  return std::nullopt;
}

std::optional<fs::path> find_program(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    if (is_executable_file(name)) return fs::path(name);
    return std::nullopt;
  }
  const char* path_env = std::getenv("PATH");
  const std::string path = path_env ? path_env : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = end > start ? path.substr(start, end - start) : ".";
    const fs::path candidate = fs::path(dir) / name;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          const ProcessOptions& options) {
  ProcessResult r;
  const auto t0 = std::chrono::steady_clock::now();
  // out, err, and a close-on-exec pipe that carries errno if exec fails.
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, exec_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(exec_pipe, O_CLOEXEC) != 0)
    throw_error(ErrorKind::Internal, program, std::string("pipe failed: ") + std::strerror(errno));

  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string cwd = options.cwd.string();
  const bool memory_limited = options.memory_limit_bytes.has_value();
  rlimit memory_limit{};
  if (memory_limited)
    memory_limit.rlim_cur = memory_limit.rlim_max =
        static_cast<rlim_t>(*options.memory_limit_bytes);

  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int* p : {out_pipe, err_pipe, exec_pipe}) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
    throw_error(ErrorKind::Internal, program, std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec. Its own process group,
    // so a timeout can kill the compiler drivers' children too.
    ::setpgid(0, 0);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    int err = 0;
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      err = errno;
    } else if (memory_limited && ::setrlimit(RLIMIT_AS, &memory_limit) != 0) {
      err = errno;
    } else {
      ::execvp(argv[0], argv.data());
      err = errno;
    }
    const ssize_t ignored = ::write(exec_pipe[1], &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so a kill never races the child's call
  close_fd(out_pipe[1]);
  close_fd(err_pipe[1]);
  close_fd(exec_pipe[1]);

  int child_errno = 0;
  const ssize_t n_err = ::read(exec_pipe[0], &child_errno, sizeof child_errno);
  close_fd(exec_pipe[0]);
  if (n_err == static_cast<ssize_t>(sizeof child_errno)) {
    r.started = false;
    r.start_error = (!cwd.empty() && !fs::is_directory(cwd) ? cwd : program) + ": " +
                    std::strerror(child_errno);
  } else {
    r.started = true;
  }

  const bool limited = options.timeout_seconds > 0;
  const auto deadline =
      t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(limited ? options.timeout_seconds : 0.0));
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (options.cancel && options.cancel->load()) {
      r.cancelled = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    int wait_ms = options.cancel ? 100 : -1;
    if (limited) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) {
        r.timed_out = true;
        ::kill(-pid, SIGKILL);
        break;
      }
      wait_ms = wait_ms < 0 ? static_cast<int>(left) : std::min<int>(wait_ms, left);
    }
    const int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close_fd(fds[i].fd);
        --open_fds;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  for (pollfd& f : fds) close_fd(f.fd);

  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.started) r.exit_code = -1;
  if (r.started) r.peak_memory_bytes = static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // KB
  if (memory_limited) {
    r.memory_limit_bytes = *options.memory_limit_bytes;
    r.out_of_memory = r.started && !r.ok() && !r.timed_out && !r.cancelled &&
                      (says_out_of_memory(r.err) || says_out_of_memory(r.out) ||
                       static_cast<double>(r.peak_memory_bytes) >=
                           0.8 * static_cast<double>(r.memory_limit_bytes));
  }
  return r;
}

}  // namespace kiln::tools

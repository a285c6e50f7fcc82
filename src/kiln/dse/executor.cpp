#include "kiln/dse/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "kiln/support/error.h"
#include "kiln/tools/process.h"

namespace kiln::dse {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string first_line(const std::string& s) {
  const std::size_t start = s.find_first_not_of(" \n");
  if (start == std::string::npos) return {};
  return s.substr(start, s.find('\n', start) - start);
}

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

BatchRun run_local(const fs::path& script, const std::vector<int>& tasks, const fs::path& log_dir,
                   const ExecutorOptions& options,
                   const std::function<void(const std::string&)>& progress) {
  BatchRun run;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> finished{0};
  std::atomic<bool> cancel{false};
  std::mutex mu;
  const auto t0 = Clock::now();
  auto worker = [&] {
    for (std::size_t k; (k = next++) < tasks.size();) {
      tools::ProcessOptions po;
      po.cwd = script.parent_path();
      po.cancel = &cancel;
      if (options.timeout_seconds > 0)
        po.timeout_seconds = std::max(1.0, options.timeout_seconds - since(t0));
      const int task = tasks[k];
      const tools::ProcessResult r =
          tools::run_process("bash", {script.string(), std::to_string(task)}, po);
      write_text(log_dir / fmt::format("task_{}.log", task), r.out + r.err);
      std::lock_guard<std::mutex> lock(mu);
      if (!r.ok())
        run.failures.push_back(fmt::format("task {}: {} (log {})", task, r.status_text(),
                                           (log_dir / fmt::format("task_{}.log", task)).string()));
      if (r.timed_out) cancel = true;
      if (progress)
        progress(
            fmt::format("{} of {} tasks done ({:.0f} s)", ++finished, tasks.size(), since(t0)));
    }
  };
  const int n = std::clamp<int>(options.jobs, 1, static_cast<int>(tasks.size()));
  std::vector<std::thread> pool;
  for (int i = 1; i < n; ++i) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (cancel)
    throw_error(ErrorKind::Unsupported, "kiln explore's local executor",
                fmt::format("the batch outlived its {:.0f} s limit", options.timeout_seconds),
                "raise the limit or validate fewer points");
  return run;
}

tools::ProcessResult squeue(const std::string& job) {
  return tools::run_process("squeue", {"-h", "-r", "-j", job, "-o", "%i %T"});
}

BatchRun run_slurm(const fs::path& script, const std::vector<int>& tasks, const fs::path& log_dir,
                   const ExecutorOptions& options,
                   const std::function<void(const std::string&)>& progress) {
  for (const char* program : {"sbatch", "squeue"})
    if (!tools::find_program(program))
      throw_error(ErrorKind::Unsupported, "--executor slurm",
                  fmt::format("{} not found on PATH", program),
                  "install Slurm's client (Debian: slurm-client) and point it at the cluster, or "
                  "use --executor local");
  BatchRun run;
  run.kind = ExecutorKind::Slurm;
  std::string array;
  for (int t : tasks) array += (array.empty() ? "" : ",") + std::to_string(t);
  // Each task leaves its exit status beside its log: squeue forgets a task
  // once it ends, and a cluster without accounting has no sacct to ask.
  const std::string wrap = fmt::format(
      "bash '{}' \"$SLURM_ARRAY_TASK_ID\"; echo $? > '{}'/exit_\"$SLURM_ARRAY_TASK_ID\"",
      script.string(), log_dir.string());
  std::vector<std::string> args = {"--parsable", "--job-name=kiln-explore", "--array=" + array,
                                   "--chdir=" + script.parent_path().string(),
                                   "--output=" + (log_dir / "%A_%a.log").string()};
  args.insert(args.end(), options.sbatch_options.begin(), options.sbatch_options.end());
  args.push_back("--wrap=" + wrap);
  // An earlier run of this batch (interrupted) may have left them.
  for (int t : tasks) fs::remove(log_dir / fmt::format("exit_{}", t));
  const auto t0 = Clock::now();
  const tools::ProcessResult submitted = tools::run_process("sbatch", args);
  run.job_id = first_line(submitted.out).substr(0, first_line(submitted.out).find(';'));
  if (!submitted.ok() || run.job_id.empty())
    throw_error(ErrorKind::Unsupported, "--executor slurm",
                "sbatch refused the job array: " + first_line(submitted.err + submitted.out),
                "check the cluster with sinfo, or pass sbatch's options with --sbatch");
  if (progress)
    progress(fmt::format("Slurm job array {} submitted ({} tasks, logs in {})", run.job_id,
                         tasks.size(), log_dir.string()));
  std::size_t last = tasks.size() + 1;
  for (;;) {
    const tools::ProcessResult q = squeue(run.job_id);
    // A finished job is forgotten: squeue then says "Invalid job id".
    std::size_t left = 0;
    if (q.ok()) {
      std::istringstream lines(q.out);
      for (std::string line; std::getline(lines, line);) left += !line.empty();
    }
    if (left != last && progress)
      progress(fmt::format("Slurm job {}: {} of {} tasks left ({:.0f} s)", run.job_id, left,
                           tasks.size(), since(t0)));
    last = left;
    if (left == 0) break;
    if (options.timeout_seconds > 0 && since(t0) > options.timeout_seconds) {
      tools::run_process("scancel", {run.job_id});
      throw_error(ErrorKind::Unsupported, "--executor slurm",
                  fmt::format("job {} outlived its {:.0f} s limit and was cancelled", run.job_id,
                              options.timeout_seconds),
                  "raise the limit; results already written are kept and not run again");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  for (int t : tasks) {
    std::ifstream in(log_dir / fmt::format("exit_{}", t));
    int code = -1;
    if (!(in >> code))
      run.failures.push_back(
          fmt::format("task {}: ended without an exit status (cancelled or its "
                      "node lost; log {}_{}.log)",
                      t, run.job_id, t));
    else if (code != 0)
      run.failures.push_back(
          fmt::format("task {}: exit status {} (log {}_{}.log)", t, code, run.job_id, t));
  }
  return run;
}

}  // namespace

ExecutorKind parse_executor(const std::string& name) {
  if (name == "local") return ExecutorKind::Local;
  if (name == "slurm") return ExecutorKind::Slurm;
  throw_error(ErrorKind::Usage, "--executor " + name, "is not an executor", "use local or slurm");
}

const char* executor_name(ExecutorKind kind) {
  return kind == ExecutorKind::Slurm ? "slurm" : "local";
}

BatchRun run_batch(const fs::path& script, const std::vector<int>& tasks, const fs::path& log_dir,
                   const ExecutorOptions& options,
                   const std::function<void(const std::string&)>& progress) {
  std::error_code ec;
  fs::create_directories(log_dir, ec);
  if (ec)
    throw_error(ErrorKind::Io, log_dir.string(), "cannot create the log directory: " + ec.message(),
                "choose a writable work directory");
  if (tasks.empty()) {
    BatchRun none;
    none.kind = options.kind;
    none.log_dir = log_dir;
    return none;
  }
  const auto t0 = Clock::now();
  BatchRun run = options.kind == ExecutorKind::Slurm
                     ? run_slurm(script, tasks, log_dir, options, progress)
                     : run_local(script, tasks, log_dir, options, progress);
  run.log_dir = log_dir;
  run.seconds = since(t0);
  return run;
}

std::string content_key(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

}  // namespace kiln::dse

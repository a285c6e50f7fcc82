// Where kiln explore's expensive runs (a frontier point built, simulated and
// counted by Yosys) execute: a pool of processes on this machine, or a Slurm
// job array over a directory the cluster's nodes share. A batch is one script
// run once per task index (`bash SCRIPT I`, or SLURM_ARRAY_TASK_ID under
// Slurm); the script writes its results to disk by the task's key, so a batch
// interrupted and started again runs only the tasks without results
// (PointCache). No scheduler of kiln's own: Slurm decides where and when.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln::dse {

enum class ExecutorKind { Local, Slurm };

// "local" | "slurm" (Usage error otherwise), and back.
ExecutorKind parse_executor(const std::string& name);
const char* executor_name(ExecutorKind kind);

struct ExecutorOptions {
  ExecutorKind kind = ExecutorKind::Local;
  int jobs = 1;  // Local: tasks at once
  // Slurm: sbatch's options beyond kiln's own (e.g. "--partition=fpga",
  // "--time=2:00:00", "--cpus-per-task=4"), passed as they are.
  std::vector<std::string> sbatch_options;
  double timeout_seconds = 0;  // the whole batch; <= 0: none
};

struct BatchRun {
  ExecutorKind kind = ExecutorKind::Local;
  std::string job_id;                 // Slurm's array job id; empty for Local
  std::vector<std::string> failures;  // per task that failed to run: "task I: why"
  std::filesystem::path log_dir;      // a log per task: task_I.log, or JOBID_I.log under Slurm
  double seconds = 0;
};

// Runs `bash script I` for each I in `tasks`. The script's own results are
// its business; a task whose script exits non-zero is listed in failures.
// Slurm: one `sbatch --array` of the tasks, the script's directory as the
// working directory, watched with squeue until none is left; a task that left
// no exit status (cancelled, its node lost) is a failure too. Throws
// Error(Unsupported) if sbatch is missing or refuses the job, or the batch
// outlives the timeout (the job cancelled). `progress` hears one line at a time.
BatchRun run_batch(const std::filesystem::path& script, const std::vector<int>& tasks,
                   const std::filesystem::path& log_dir, const ExecutorOptions& options,
                   const std::function<void(const std::string&)>& progress = {});

// A 16-hex-digit key of `text` (FNV-1a, 64 bits): the name of a task's
// results on disk, derived from everything that decides them.
std::string content_key(const std::string& text);

}  // namespace kiln::dse

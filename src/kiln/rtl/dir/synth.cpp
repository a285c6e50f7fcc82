#include "kiln/rtl/dir/synth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "kiln/fpga/devices.h"
#include "kiln/support/error.h"
#include "kiln/support/progress.h"
#include "kiln/tools/process.h"

namespace kiln::rtl {

namespace fs = std::filesystem;

std::optional<double> relative_error(double estimate, double yosys) {
  if (yosys == 0) return estimate == 0 ? std::optional<double>(0.0) : std::nullopt;
  return (estimate - yosys) / yosys;
}

tools::CellCounts with_submodules(const std::string& module,
                                  const std::map<std::string, tools::CellCounts>& modules) {
  const auto it = modules.find(module);
  if (it == modules.end()) return {};
  tools::CellCounts sum;
  const tools::CellCounts& own = it->second;
  auto add = [&](const tools::CellCounts& c, long n) {
    sum += static_cast<const fpga::Resources&>(c) * static_cast<double>(n);
  };
  add(own, 1);
  for (const auto& [type, n] : own.cells)
    if (type != module && modules.count(type)) add(with_submodules(type, modules), n);
  return sum;
}

namespace {

// "pass 50.35 XILINX_SRL": the last "N. Executing X pass" line of Yosys's log
// (its last 64 KB), or "" before there is one.
std::string last_pass(const fs::path& log) {
  std::ifstream in(log, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - 65536);
  in.seekg(from);
  std::string tail(static_cast<std::size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  static const std::regex kPass(R"((\d+(?:\.\d+)*)\. Executing (\S+) pass)");
  std::string found;
  for (std::sregex_iterator it(tail.begin(), tail.end(), kPass), end; it != end; ++it)
    found = "pass " + (*it)[1].str() + " " + (*it)[2].str();
  return found;
}

}  // namespace

std::optional<uint64_t> default_memory_limit(int jobs) {
  const std::optional<uint64_t> total = tools::total_memory_bytes();
  if (!total || jobs < 1) return std::nullopt;
  return *total / 8 * 7 / static_cast<uint64_t>(jobs);
}

std::vector<std::pair<std::string, std::vector<std::string>>> module_hierarchy(
    const netlist::Design& design, const std::string& top) {
  // The modules `top` reaches, by name; then the design's order (each module
  // before those that instantiate it, which verify() checks) gives ours.
  std::set<std::string> reached;
  std::vector<std::string> work = {top};
  while (!work.empty()) {
    const std::string name = work.back();
    work.pop_back();
    if (!reached.insert(name).second) continue;
    const netlist::Module* m = design.find(name);
    if (!m)
      throw_error(ErrorKind::InvalidModel, "netlist",
                  "module " + name + " is instantiated or named the top but not defined");
    for (const netlist::Instance& inst : m->instances()) work.push_back(inst.module);
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> order;
  for (const netlist::Module& m : design.modules) {
    if (!reached.count(m.name())) continue;
    std::vector<std::string> children;
    for (const netlist::Instance& inst : m.instances())
      if (std::find(children.begin(), children.end(), inst.module) == children.end())
        children.push_back(inst.module);
    order.emplace_back(m.name(), std::move(children));
  }
  KILN_ASSERT(!order.empty() && order.back().first == top,
              "the top is not the last module its design reaches");
  return order;
}

namespace {

// A stage's module carries its layer's name (support/names identifiers),
// maybe behind a prefix: the exact name first, else a unique suffix.
std::optional<fpga::Resources> stage_estimate(const std::string& module, const DesignDir& d) {
  int suffix_matches = 0;
  std::optional<fpga::Resources> by_suffix;
  for (const auto& [stage, e] : d.stage_estimates) {
    if (module == stage) return e;
    if (module.ends_with("_" + stage)) {
      ++suffix_matches;
      by_suffix = e;
    }
  }
  return suffix_matches == 1 ? by_suffix : std::nullopt;
}

// Throws for a failed Yosys run: out of time or memory is Unsupported (the
// design, or that module, is too large for the limits), anything else
// Internal (kiln's Verilog should always synthesize).
[[noreturn]] void throw_synth_failure(const tools::SynthResult& r, const fs::path& work_dir,
                                      const SynthOptions& options) {
  if (r.out_of_memory)
    throw_error(ErrorKind::Unsupported, work_dir.string(), r.error,
                "give each Yosys run more memory with --memory-limit GB (fewer --jobs share "
                "the machine's memory), synthesize on a larger machine or make the design "
                "smaller");
  if (r.out_of_resources)
    throw_error(ErrorKind::Unsupported, work_dir.string(), r.error,
                "Yosys ran out of time (--timeout " +
                    std::to_string(static_cast<long>(options.timeout_seconds)) +
                    " s) or memory on this design (signal 9 is usually the out-of-memory "
                    "killer); synthesize on a larger machine or make the design smaller");
  throw_error(ErrorKind::Internal, work_dir.string(), r.error,
              "the Yosys log is in " + r.log_file.string() + "; please report this with the model");
}

// The whole design in one Yosys run: each module's own cells.
std::map<std::string, tools::CellCounts> synth_whole(const fs::path& dir, const DesignDir& d,
                                                     const SynthOptions& options, SynthRun& r) {
  std::vector<fs::path> files;
  for (const std::string& f : d.files) files.push_back(dir / f);
  // Yosys's log says which pass it is in.
  Progress progress("synth " + d.model.name);
  progress.phase("Yosys synth_xilinx",
                 [log = dir / "synth" / "yosys.log"] { return last_pass(log); });
  tools::SynthOptions so;
  so.timeout_seconds = options.timeout_seconds;
  so.memory_limit_bytes = r.memory_limit_bytes;
  const tools::SynthResult s = tools::synthesize(files, d.top, r.family, dir / "synth", so);
  r.peak_memory_bytes = s.peak_memory_bytes;
  r.log = s.log_file;
  if (!s.ok) throw_synth_failure(s, dir / "synth", options);
  r.total = s.total;
  return s.modules;
}

// One module out of context.
struct ModuleJob {
  std::string module;
  fs::path file;                      // its Verilog
  std::vector<fs::path> black_boxes;  // its children's Verilog
  fs::path work_dir;
  uintmax_t size = 0;  // of its Verilog: the biggest start first
  tools::SynthResult result;
  bool ran = false;
  std::exception_ptr thrown;  // synthesize() could not write the work directory
};

// Every module the top reaches in its own Yosys run, up to options.jobs at
// once; the first failure stops the others and is thrown. Each run's time,
// peak and log go into `runs`.
std::map<std::string, tools::CellCounts> synth_per_module(
    const fs::path& dir, const DesignDir& d, const SynthOptions& options, SynthRun& r,
    std::map<std::string, SynthModuleRow>& runs) {
  const netlist::Design netlist = load_netlist(dir);
  if (netlist.top != d.top)
    throw_error(ErrorKind::InvalidModel, (dir / kNetlistFile).string(),
                "its top " + netlist.top + " is not report.json's " + d.top,
                "write the directory again with kiln rtl");
  const std::set<std::string> files(d.files.begin(), d.files.end());
  const auto file_of = [&](const std::string& module) {
    const std::string name = module + ".v";
    if (!files.count(name))
      throw_error(ErrorKind::InvalidModel, (dir / kReportFile).string(),
                  "no Verilog file for module " + module + " (" + name + ") among its files",
                  "write the directory again with kiln rtl");
    return dir / name;
  };
  std::vector<ModuleJob> jobs;
  for (const auto& [module, children] : module_hierarchy(netlist, d.top)) {
    ModuleJob job;
    job.module = module;
    job.file = file_of(module);
    for (const std::string& c : children) job.black_boxes.push_back(file_of(c));
    job.work_dir = dir / "synth" / "modules" / module;
    std::error_code ec;
    job.size = fs::file_size(job.file, ec);
    jobs.push_back(std::move(job));
  }
  r.log = dir / "synth" / "modules";
  // The biggest Verilog first: the long runs start early and the short ones
  // fill in around them.
  std::vector<std::size_t> order(jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].size > jobs[b].size; });

  std::mutex mu;
  std::vector<std::size_t> running;   // under mu
  std::optional<std::size_t> failed;  // the first job that failed, under mu
  std::size_t next = 0;               // under mu
  int64_t done = 0;                   // under mu
  std::atomic<bool> cancel = false;
  Progress progress("synth " + d.model.name + " per module", static_cast<int64_t>(jobs.size()));
  progress.phase("Yosys synth_xilinx, " + std::to_string(options.jobs) + " at once", [&] {
    std::lock_guard<std::mutex> lock(mu);
    std::string s;
    for (std::size_t i : running) {
      if (!s.empty()) s += "; ";
      s += jobs[i].module;
      const std::string pass = last_pass(jobs[i].work_dir / "yosys.log");
      if (!pass.empty()) s += " " + pass;
    }
    return s;
  });
  const auto worker = [&] {
    for (;;) {
      std::size_t i = 0;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next == order.size() || cancel) return;
        i = order[next++];
        running.push_back(i);
      }
      ModuleJob& job = jobs[i];
      tools::SynthOptions so;
      so.black_boxes = job.black_boxes;
      so.timeout_seconds = options.timeout_seconds;
      so.memory_limit_bytes = r.memory_limit_bytes;
      so.cancel = &cancel;
      tools::SynthResult result;
      std::exception_ptr thrown;
      try {
        result = tools::synthesize({job.file}, job.module, r.family, job.work_dir, so);
      } catch (...) {
        thrown = std::current_exception();
      }
      int64_t now_done = 0;
      {
        std::lock_guard<std::mutex> lock(mu);
        job.result = std::move(result);
        job.thrown = thrown;
        job.ran = true;
        running.erase(std::find(running.begin(), running.end(), i));
        if (!job.result.ok && !cancel) {
          failed = i;
          cancel = true;
        }
        now_done = ++done;
      }
      progress.advance(now_done);
    }
  };
  std::vector<std::thread> threads;
  const std::size_t n_threads =
      std::min<std::size_t>(static_cast<std::size_t>(options.jobs), jobs.size());
  for (std::size_t t = 0; t < n_threads; ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();

  if (failed) {
    const ModuleJob& job = jobs[*failed];
    if (job.thrown) std::rethrow_exception(job.thrown);
    throw_synth_failure(job.result, job.work_dir, options);
  }
  std::map<std::string, tools::CellCounts> own;
  for (const ModuleJob& job : jobs) {
    KILN_ASSERT(job.ran && job.result.ok, "module " + job.module + " was not synthesized");
    const auto it = job.result.modules.find(job.module);
    if (it == job.result.modules.end())
      throw_error(ErrorKind::Internal, job.result.stat_json.string(),
                  "Yosys's cell report has no module " + job.module,
                  "the Yosys log is in " + job.result.log_file.string() +
                      "; please report this with the model");
    own[job.module] = it->second;
    r.peak_memory_bytes = std::max(r.peak_memory_bytes, job.result.peak_memory_bytes);
    SynthModuleRow& row = runs[job.module];
    row.seconds = job.result.seconds;
    row.peak_memory_bytes = job.result.peak_memory_bytes;
    row.log_file = job.result.log_file;
  }
  r.total = with_submodules(d.top, own);
  return own;
}

}  // namespace

SynthRun run_synth(const fs::path& dir, const SynthOptions& options) {
  if (options.jobs < 1)
    throw_error(ErrorKind::Usage, "kiln synth",
                "--jobs " + std::to_string(options.jobs) + " runs nothing",
                "give 1 or more Yosys runs at once");
  if (options.memory_limit_bytes && *options.memory_limit_bytes == 0)
    throw_error(ErrorKind::Usage, "kiln synth", "a memory limit of 0 bytes",
                "give each Yosys run a positive --memory-limit in GB");
  const auto t0 = std::chrono::steady_clock::now();
  const DesignDir d = load_design_dir(dir);
  SynthRun r;
  r.model = d.model.name;
  r.top = d.top;
  r.part = d.model.part;
  r.family = fpga::device_of_part(d.model.part).family;
  r.estimate = d.estimate;
  r.mode = options.mode;
  r.jobs = options.mode == SynthMode::Whole ? 1 : options.jobs;
  r.memory_limit_bytes =
      options.memory_limit_bytes ? options.memory_limit_bytes : default_memory_limit(r.jobs);
  if (!tools::find_yosys().found())
    throw_error(ErrorKind::Unsupported, "kiln synth", "yosys not found on PATH",
                "install the Debian package yosys (scripts/install-deps.sh)");
  std::map<std::string, SynthModuleRow> rows;  // by module name
  const std::map<std::string, tools::CellCounts> own =
      options.mode == SynthMode::Whole ? synth_whole(dir, d, options, r)
                                       : synth_per_module(dir, d, options, r, rows);
  for (const auto& [module, cells] : own) {
    SynthModuleRow& row = rows[module];
    row.module = module;
    row.cells = cells;
    row.with_submodules = with_submodules(module, own);
    row.estimate = stage_estimate(module, d);
    r.modules.push_back(std::move(row));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace kiln::rtl

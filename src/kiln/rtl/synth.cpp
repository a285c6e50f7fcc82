#include "kiln/rtl/synth.h"

#include <algorithm>
#include <fstream>
#include <regex>

#include "kiln/fpga/devices.h"
#include "kiln/support/error.h"
#include "kiln/support/progress.h"

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

SynthRun run_synth(const fs::path& dir, double timeout_seconds) {
  const DesignDir d = load_design_dir(dir);
  SynthRun r;
  r.model = d.model.name;
  r.top = d.top;
  r.part = d.model.part;
  r.family = fpga::device_of_part(d.model.part).family;
  r.estimate = d.estimate;
  if (!tools::find_yosys().found())
    throw_error(ErrorKind::Unsupported, "kiln synth", "yosys not found on PATH",
                "install the Debian package yosys (scripts/install-deps.sh)");
  std::vector<fs::path> files;
  for (const std::string& f : d.files) files.push_back(dir / f);
  // Yosys's log says which pass it is in.
  Progress progress("synth " + d.model.name);
  progress.phase("Yosys synth_xilinx",
                 [log = dir / "synth" / "yosys.log"] { return last_pass(log); });
  r.synth = tools::synthesize(files, d.top, r.family, dir / "synth", timeout_seconds);
  if (!r.synth.ok && r.synth.out_of_resources)
    throw_error(ErrorKind::Unsupported, (dir / "synth").string(), r.synth.error,
                "Yosys ran out of time or memory on this design (signal 9 is usually the "
                "out-of-memory killer); synthesize on a larger machine or make the design smaller");
  if (!r.synth.ok)
    throw_error(
        ErrorKind::Internal, (dir / "synth").string(), r.synth.error,
        "the Yosys log is in " + r.synth.log_file.string() + "; please report this with the model");
  for (const auto& [module, cells] : r.synth.modules) {
    SynthModuleRow row{module, cells, with_submodules(module, r.synth.modules), std::nullopt};
    // A stage's module carries its layer's name (support/names identifiers),
    // maybe behind a prefix: the exact name first, else a unique suffix.
    int suffix_matches = 0;
    std::optional<fpga::Resources> by_suffix;
    for (const auto& [stage, e] : d.stage_estimates) {
      if (module == stage) row.estimate = e;
      if (module.ends_with("_" + stage)) {
        ++suffix_matches;
        by_suffix = e;
      }
    }
    if (!row.estimate && suffix_matches == 1) row.estimate = by_suffix;
    r.modules.push_back(std::move(row));
  }
  return r;
}

}  // namespace kiln::rtl

// Synthesis of a design directory (`kiln synth DIR`): Yosys synth_xilinx for
// the part's family on the design's Verilog (not the testbench), cell counts
// per module and in total, next to the operator library's estimate.
//
// Two ways to run Yosys. Whole: one run over every file with the design's
// top (what DIR/synth.ys does). Per module: each module the top reaches, the
// top included, synthesized out of context in its own run, the modules it
// instantiates read as black boxes (`read_verilog -lib`), up to `jobs` runs
// at once, each under a memory limit; a module's total is then its own cells
// plus its children's totals times their instances, as the whole run's
// per-module counts are summed. Out of context, a constant on a module's port
// is not propagated into it, so counts can be a little higher than the whole
// run's; no single Yosys process holds the whole design.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/rtl/dir/design_dir.h"
#include "kiln/support/enum_table.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {

enum class SynthMode { Whole, PerModule };

struct SynthOptions {
  SynthMode mode = SynthMode::Whole;
  int jobs = 1;                   // PerModule: Yosys runs at once, >= 1
  double timeout_seconds = 3600;  // each Yosys run
  // Each Yosys run's address space; nullopt: default_memory_limit(jobs).
  std::optional<uint64_t> memory_limit_bytes;
};

// 7/8 of the machine's memory (the rest for kiln, the system and the page
// cache), shared by `jobs` runs; nullopt where the machine's memory is not
// known (then the runs have no limit).
std::optional<uint64_t> default_memory_limit(int jobs);

struct SynthModuleRow {
  std::string module;
  tools::CellCounts cells;  // its own
  // With the cells of the modules it instantiates, as its stage's estimate
  // counts them (a loop stage's before, body and after modules).
  tools::CellCounts with_submodules;
  std::optional<fpga::Resources> estimate;  // the stage's, when the module is one
  // PerModule: its own Yosys run, in DIR/synth/modules/<module>/.
  double seconds = 0;
  uint64_t peak_memory_bytes = 0;
  std::filesystem::path log_file;
};

// `module`'s cells plus, for each instance of another module of `modules` in
// it, that module's (recursively). Counts only the resource fields.
tools::CellCounts with_submodules(const std::string& module,
                                  const std::map<std::string, tools::CellCounts>& modules);

// The modules `top` instantiates, directly or below, each after the modules
// it instantiates, `top` last; with each one's direct children (by name, each
// once). Throws InvalidModel when `top` or an instantiated module is missing.
std::vector<std::pair<std::string, std::vector<std::string>>> module_hierarchy(
    const netlist::Design& design, const std::string& top);

struct SynthRun {
  std::string model, top, part;
  fpga::Family family = fpga::Family::UltraScalePlus;
  SynthMode mode = SynthMode::Whole;
  int jobs = 1;
  std::optional<uint64_t> memory_limit_bytes;  // each run's, as applied
  std::vector<SynthModuleRow> modules;         // by module name
  // Whole: Yosys's count of the design; PerModule: the top's with_submodules.
  tools::CellCounts total;
  double seconds = 0;              // wall time of all of it
  uint64_t peak_memory_bytes = 0;  // the largest of any Yosys run
  // Whole: DIR/synth/yosys.log; PerModule: DIR/synth/modules (a directory
  // per module, each with its synth.ys, yosys.log and stat.json).
  std::filesystem::path log;
  fpga::Resources estimate;  // the design's (report.json)
};

// (estimate - yosys) / yosys; 0 when both are 0, nullopt when only Yosys's is.
std::optional<double> relative_error(double estimate, double yosys);

// Throws kiln::Error: Io/InvalidModel for a directory that is not a design,
// Usage for jobs < 1 or a zero memory limit, Unsupported when Yosys is not
// installed or a run takes longer than the timeout or runs out of memory,
// Internal when synthesis fails (naming the module and its log).
SynthRun run_synth(const std::filesystem::path& dir, const SynthOptions& options = {});

}  // namespace kiln::rtl

namespace kiln {
template <>
struct EnumNames<rtl::SynthMode> {
  static constexpr std::pair<rtl::SynthMode, std::string_view> kNames[] = {
      {rtl::SynthMode::Whole, "whole"},
      {rtl::SynthMode::PerModule, "per-module"},
  };
};
}  // namespace kiln

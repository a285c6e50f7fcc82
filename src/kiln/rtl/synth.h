// Synthesis of a design directory (`kiln synth DIR`): Yosys synth_xilinx for
// the part's family on the design's Verilog (not the testbench), cell counts
// per module and in total, next to the operator library's estimate.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kiln/rtl/design_dir.h"
#include "kiln/tools/hdl.h"

namespace kiln::rtl {

struct SynthModuleRow {
  std::string module;
  tools::CellCounts cells;  // its own
  // With the cells of the modules it instantiates, as its stage's estimate
  // counts them (a loop stage's before, body and after modules).
  tools::CellCounts with_submodules;
  std::optional<fpga::Resources> estimate;  // the stage's, when the module is one
};

// `module`'s cells plus, for each instance of another module of `modules` in
// it, that module's (recursively). Counts only the resource fields.
tools::CellCounts with_submodules(const std::string& module,
                                  const std::map<std::string, tools::CellCounts>& modules);

struct SynthRun {
  std::string model, top, part;
  fpga::Family family = fpga::Family::UltraScalePlus;
  tools::SynthResult synth;  // ok; total and per-module counts
  std::vector<SynthModuleRow> modules;
  fpga::Resources estimate;  // the design's (report.json)
};

// (estimate - yosys) / yosys; 0 when both are 0, nullopt when only Yosys's is.
std::optional<double> relative_error(double estimate, double yosys);

// Throws kiln::Error: Io/InvalidModel for a directory that is not a design,
// Unsupported when Yosys is not installed, Internal when synthesis fails.
SynthRun run_synth(const std::filesystem::path& dir, double timeout_seconds = 3600);

}  // namespace kiln::rtl

// Runners for the open HDL tools the RTL backend uses on the Verilog it writes
// (docs/rtl-design.md): Verilator to lint and simulate, Icarus Verilog to
// simulate, Yosys to synthesize for a Xilinx family and count cells.
//
// Like run_process, these never throw for a failing or missing tool: the
// result says ok = false and `error` is one line naming the tool and its first
// error (for a missing tool, the Debian package that installs it). They throw
// kiln::Error only when kiln cannot write into the work directory.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kiln/fpga/family.h"
#include "kiln/fpga/resources.h"
#include "kiln/tools/compilers.h"

namespace kiln::tools {

// `verilator --version`, `iverilog -V`, `yosys -V`. Icarus counts as found only
// if its runtime `vvp` is on PATH too (Debian ships both in `iverilog`).
ToolInfo find_verilator();
ToolInfo find_iverilog();
ToolInfo find_yosys();

// --- Lint ------------------------------------------------------------------

// One Verilator message ("%Warning-WIDTH: a.v:5:12: Operator ...").
struct HdlDiagnostic {
  bool error = false;  // %Error; else %Warning
  std::string code;    // "WIDTH", "UNUSEDSIGNAL", ...; empty for plain errors
  std::string file;    // as given to the tool; empty when the message has no location
  int line = 0, column = 0;
  std::string message;
  // "a.v:5:12: %Warning-WIDTH: Operator ..." (no location part if none).
  std::string text() const;
};

struct LintResult {
  bool ok = false;  // no warning and no error under -Wall
  std::vector<HdlDiagnostic> diagnostics;
  std::string log;    // Verilator's full output
  std::string error;  // one line when !ok
  double seconds = 0;
};

// `verilator --lint-only -Wall --top-module top files...`.
LintResult lint_verilog(const std::vector<std::filesystem::path>& files, const std::string& top,
                        double timeout_seconds = 120);

// The "%Warning-..."/"%Error..." lines of a Verilator log (the summary line
// "Exiting due to N warning(s)" left out).
std::vector<HdlDiagnostic> parse_verilator_diagnostics(const std::string& log);

// --- Simulation --------------------------------------------------------------

// Kiln is kiln's own netlist interpreter (rtl/dir/netlist_sim.h runs it;
// simulate() below runs only the external tools).
enum class Simulator { Verilator, Icarus, Kiln };
const char* to_string(Simulator s);  // "verilator", "icarus", "kiln"

struct SimOptions {
  double timeout_seconds = 600;  // for the build and for the run, each
  // Verilator only: the C++ compiler for the verilated model and the
  // optimization of its code and runtime library. Low, because kiln's
  // testbenches are short and the C++ build dominates.
  std::string verilator_cxx = "clang++";
  std::string verilator_opt = "-O0";
  int build_jobs = 2;
  // Verilator only: more arguments for the build (e.g.
  // -fno-const-bit-op-tree, around Verilator 5's wrong results from that
  // optimization: verilator#4059, #4709, #5186).
  std::vector<std::string> verilator_args;
};

struct SimResult {
  bool ok = false;  // built, and the run exited with status 0
  double build_seconds = 0, run_seconds = 0;
  std::string out, err;    // of the run
  std::string build_log;   // the build's stdout and stderr
  std::string error;       // one line when !ok
  bool timed_out = false;  // the build or the run exceeded timeout_seconds
};

// Builds and runs a self-contained testbench: `top` is a module without ports
// that reads its stimulus from files in work_dir ($readmemh), reports with
// $display/$fwrite and ends with $finish. The run's working directory is
// work_dir (created if needed), which also holds the build: obj_verilator/ or
// sim.vvp. Verilator: `verilator --binary` (timing on, so `#` delays and
// `@(posedge clk)` work; modules without `timescale get 1ns/1ps). Icarus:
// `iverilog -g2012 -o sim.vvp -s top files...` and `vvp -n sim.vvp`.
SimResult simulate(Simulator simulator, const std::vector<std::filesystem::path>& files,
                   const std::string& top, const std::filesystem::path& work_dir,
                   const SimOptions& options = {});

// --- Synthesis -----------------------------------------------------------------

// Cells of a synthesized netlist: the resources they use (fpga::Resources:
// LUTs counting those used as distributed RAM and shift registers, LUTRAM and
// SRL of those; FDRE/FDSE/FDCE/FDPE; DSP48E1/E2; RAMB18 + 2 x RAMB36; URAM288;
// CARRY4/CARRY8), and every cell type as Yosys names it, including IO buffers
// and instances of the design's own modules (by module name).
struct CellCounts : fpga::Resources {
  std::map<std::string, long> cells;
};
// Adds a cell type's count to the resource it uses.
void add_cells(CellCounts& counts, const std::string& type, long n);

struct SynthResult {
  bool ok = false;
  double seconds = 0;
  std::filesystem::path script;               // work_dir/synth.ys, to rerun with `yosys -s`
  std::filesystem::path stat_json;            // work_dir/stat.json
  std::filesystem::path log_file;             // work_dir/yosys.log
  CellCounts total;                           // the top with everything below it
  std::map<std::string, CellCounts> modules;  // each module's own cells
  std::string error;                          // one line when !ok
  // The largest resident set of Yosys or of the ABC runs it started, in bytes.
  uint64_t peak_memory_bytes = 0;
  // Yosys failed for want of memory under SynthOptions::memory_limit_bytes
  // (ProcessResult::out_of_memory).
  bool out_of_memory = false;
  // Yosys ran over its time limit or out of memory, or was killed (SIGKILL:
  // on Linux most likely the out-of-memory killer): the design is too large,
  // not broken.
  bool out_of_resources = false;
};

// How synthesize() runs Yosys.
struct SynthOptions {
  // Verilog whose modules are instantiated but not synthesized: read with
  // `read_verilog -sv -lib`, they are black boxes, and their instances stay
  // cells named after the module (out-of-context synthesis of one module).
  std::vector<std::filesystem::path> black_boxes;
  double timeout_seconds = 1800;
  std::optional<uint64_t> memory_limit_bytes;  // Yosys's address space; nullopt: none
  const std::atomic<bool>* cancel = nullptr;   // ProcessOptions::cancel
};

// The Yosys script synthesize() runs: read_verilog -sv of each file and
// read_verilog -sv -lib of each black box (paths as given, so relative ones
// resolve from where Yosys runs), synth_xilinx for the family, and the cell
// report into stat.json.
std::string synth_script(const std::vector<std::filesystem::path>& files, const std::string& top,
                         fpga::Family family,
                         const std::vector<std::filesystem::path>& black_boxes = {});

// Writes work_dir/synth.ys (read_verilog -sv; synth_xilinx -family F -top top
// -noiopad -noclkbuf, since kiln's top sits inside a platform shell, not on
// the pins; stat -json into stat.json) and runs `yosys -q -l yosys.log -s
// synth.ys` in work_dir.
SynthResult synthesize(const std::vector<std::filesystem::path>& files, const std::string& top,
                       fpga::Family family, const std::filesystem::path& work_dir,
                       const SynthOptions& options);
SynthResult synthesize(const std::vector<std::filesystem::path>& files, const std::string& top,
                       fpga::Family family, const std::filesystem::path& work_dir,
                       double timeout_seconds = 1800);

// The cell counts of a `stat -json` report: each module's, and the design's
// total. Throws kiln::Error(InvalidModel) if the text is not such a report.
void parse_yosys_stat(const std::string& json_text, CellCounts& total,
                      std::map<std::string, CellCounts>& modules);

}  // namespace kiln::tools

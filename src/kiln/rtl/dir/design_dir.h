// The design directory `kiln rtl` writes and `kiln rtlsim` / `kiln synth`
// read: the Verilog of Design::files, tb.sv, synth.ys, kiln_model.json (the
// configured hls::Model) and report.json, which carries everything about the
// Design the other commands need (top, ports, files, schedule, estimate), so
// they never rebuild it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "kiln/fpga/resources.h"
#include "kiln/hls/model.h"
#include "kiln/netlist/netlist.h"
#include "kiln/rtl/lower/design.h"

namespace kiln::rtl {

inline constexpr const char* kReportFile = "report.json";
inline constexpr const char* kTestbenchFile = "tb.sv";
inline constexpr const char* kTestbenchTop = "tb";
inline constexpr const char* kSynthScriptFile = "synth.ys";
inline constexpr const char* kPlansFile = "plans.yaml";     // Design::plans
inline constexpr const char* kNetlistFile = "netlist.knl";  // Design::netlist
inline constexpr const char* kReportFormat = "kiln-rtl-design";
inline constexpr int kReportVersion = 2;  // 2: the netlist (netlist.knl)
// Samples the tb.sv that `kiln rtl` writes can hold (report.json's
// testbench.max_samples); `kiln rtlsim` refuses more. 1024, or fewer for
// large inputs: the testbench's stimulus memories hold capacity x the input
// elements, kept under 4M words so simulators allocate them quickly.
inline constexpr int kTestbenchCapacity = 1024;
inline constexpr int64_t kTestbenchMaxWords = int64_t{1} << 22;
int testbench_capacity(const Design& design);

// report.json's content. `tb_capacity` is the tb.sv's sample capacity.
nlohmann::json design_report(const Design& design, const hls::Model& model,
                             const RtlOptions& options, int tb_capacity);

struct DesignDir {
  std::filesystem::path dir;
  hls::Model model;
  nlohmann::json report;
  std::string top;
  std::vector<std::string> files;  // Verilog, relative to dir, tb.sv not included
  std::vector<Port> inputs, outputs;
  std::vector<std::string> input_onnx_names;  // ONNX names of `inputs`, for --input
  int latency_cycles = 0, interval_cycles = 1;
  double clock_ns = 0;
  int testbench_capacity = 0;
  fpga::Resources estimate;
  std::vector<std::pair<std::string, fpga::Resources>> stage_estimates;  // by stage (layer) name
};

// Io if `dir` is not a directory; InvalidModel if it is not a design written
// by `kiln rtl` (no report.json of the format) or a file is missing.
DesignDir load_design_dir(const std::filesystem::path& dir);

// A netlist text file read, parsed and verified. Io when it cannot be read;
// InvalidModel naming the file (and line) when it is not a netlist or breaks
// one of verify()'s rules.
netlist::Design read_netlist(const std::filesystem::path& file);
// The design directory's netlist.knl, read_netlist()'s way.
netlist::Design load_netlist(const std::filesystem::path& dir);

}  // namespace kiln::rtl

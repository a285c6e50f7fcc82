// High-level synthesis of a written project by the vendor or open HLS tool it
// was written for (`kiln csynth DIR`): Vitis HLS for a project with
// build_prj.tcl, Bambu for one with bambu/bambu.sh. kiln never needs either
// tool; when the one a project needs is not on PATH it says so (Unsupported).
// The tool's own report is read back: cycles and resources as the tool
// states them, not kiln's estimates.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "kiln/support/enum_table.h"

namespace kiln::hls {

enum class HlsTool : uint8_t { Vitis, Bambu };

// What an HLS tool reported. Every figure is the tool's; absent when its
// report does not carry it (Bambu reports no LUTs without a synthesis
// back end; Vitis no simulated cycles from csynth).
struct CsynthReport {
  HlsTool tool = HlsTool::Vitis;
  std::optional<int64_t> latency_best, latency_worst;  // cycles (Vitis: csynth's estimate)
  std::optional<int64_t> interval;                     // cycles between samples (Vitis)
  std::optional<int64_t> simulated_cycles;  // Bambu --simulate: the runs' cycles, averaged
  int simulated_runs = 0;
  std::optional<double> clock_ns;  // the tool's estimated clock period
  std::optional<int64_t> lut, ff, dsp, bram18;
  std::optional<int64_t> bambu_area;    // Bambu's "Total estimated area" (its own unit)
  std::optional<int64_t> bambu_states;  // FSM states of the top function
};

// Vitis HLS's <top>_csynth.xml (PerformanceEstimates and AreaEstimates).
// Throws kiln::Error(InvalidModel, `where`) when it has neither.
CsynthReport parse_vitis_csynth_xml(const std::string& xml, const std::string& where);
// Bambu's log: "N. Simulation completed with SUCCESS; Execution time C
// cycles;" per run, the top function's flip-flops, DSPs, area and states (the
// last of each, as Bambu reports the top function last). Throws
// kiln::Error(InvalidModel, `where`) when no figure is found.
CsynthReport parse_bambu_log(const std::string& log, const std::string& where);

struct CsynthOptions {
  double timeout_seconds = 24 * 3600;
};

struct CsynthResult {
  CsynthReport report;
  std::filesystem::path log;  // the tool's output, kept in the project
  double seconds = 0;
};

// The tool a project is for: Vitis with build_prj.tcl, Bambu with
// bambu/bambu.sh. Throws kiln::Error(InvalidModel) for a folder that is
// neither.
HlsTool project_tool(const std::filesystem::path& dir);

// Runs the project's tool (csynth only for Vitis, through build_prj.tcl; the
// project's bambu.sh for Bambu), keeps its log in the project and parses the
// report. Throws kiln::Error(Unsupported) when the tool is not on PATH,
// saying which and that kiln's own flows need neither; Error(InvalidModel)
// when the tool fails or writes no report, with the log's path.
CsynthResult run_csynth(const std::filesystem::path& dir, const CsynthOptions& options = {});

nlohmann::json to_json(const CsynthReport& report);

}  // namespace kiln::hls

namespace kiln {
template <>
struct EnumNames<hls::HlsTool> {
  static constexpr std::pair<hls::HlsTool, std::string_view> kNames[] = {
      {hls::HlsTool::Vitis, "vitis"}, {hls::HlsTool::Bambu, "bambu"}};
};
}  // namespace kiln

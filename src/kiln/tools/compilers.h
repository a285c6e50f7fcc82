// The external tools kiln can use: a C++ compiler for C simulation (required
// by `kiln csim`), Vitis HLS and Bambu, which kiln only reports on (they are
// never required; users run them on the written project), and the open HDL
// tools of the RTL backend (hdl.h).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kiln::tools {

struct ToolInfo {
  std::string name;                           // "g++", "vitis_hls", "bambu"
  std::optional<std::filesystem::path> path;  // where it was found; nullopt: absent
  std::string version;                        // e.g. "12.2.0", "2023.1"; empty if unknown
  bool found() const { return path.has_value(); }
};

// The C++ compiler for C simulation: $KILN_CXX if set, else g++ on PATH.
// Version from `-dumpfullversion`.
ToolInfo find_cxx();
// The C compiler for the C projects (`Backend: bambu`): $KILN_CC if set, else
// gcc on PATH.
ToolInfo find_cc();
// `vitis_hls -version` / `bambu --version` (short time limit) when on PATH.
ToolInfo detect_vitis_hls();
ToolInfo detect_bambu();
// All of the above and the HDL tools (Verilator, Icarus, Yosys), for `kiln
// info`-style reports.
std::vector<ToolInfo> detect_tools();

// `program` looked up on PATH and, if found, run with `version_args` (short
// time limit) to read its version from the banner; named `name`.
ToolInfo probe_tool(const std::string& name, const std::string& program,
                    const std::vector<std::string>& version_args);

// The version number in a tool's banner: the first token that looks like
// digits separated by dots (with an optional leading 'v'), e.g.
// "Vitis HLS ... v2023.1 (64-bit)" -> "2023.1". Empty if none.
std::string parse_version(const std::string& banner);

}  // namespace kiln::tools

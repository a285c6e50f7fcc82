#include "kiln/tools/compilers.h"

#include <cctype>
#include <cstdlib>

#include "kiln/tools/hdl.h"
#include "kiln/tools/process.h"

namespace kiln::tools {

namespace {

constexpr double kVersionTimeout = 20.0;

}  // namespace

ToolInfo probe_tool(const std::string& name, const std::string& program,
                    const std::vector<std::string>& version_args) {
  ToolInfo info;
  info.name = name;
  info.path = find_program(program);
  if (!info.path) return info;
  ProcessOptions opts;
  opts.timeout_seconds = kVersionTimeout;
  const ProcessResult r = run_process(info.path->string(), version_args, opts);
  if (r.started && !r.timed_out) info.version = parse_version(r.out + "\n" + r.err);
  return info;
}

std::string parse_version(const std::string& banner) {
  const std::size_t n = banner.size();
  for (std::size_t i = 0; i < n; ++i) {
    // A token starts at the beginning or after a non-alphanumeric character.
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(banner[i - 1])) || banner[i - 1] == '.'))
      continue;
    std::size_t j = i;
    if (banner[j] == 'v' || banner[j] == 'V') ++j;
    const std::size_t start = j;
    bool dot = false;
    while (j < n && (std::isdigit(static_cast<unsigned char>(banner[j])) || banner[j] == '.')) {
      if (banner[j] == '.') dot = true;
      ++j;
    }
    if (j == start || !dot || !std::isdigit(static_cast<unsigned char>(banner[start]))) continue;
    // The token must end here (not "1.2abc"), and trailing dots are dropped.
    if (j < n && std::isalpha(static_cast<unsigned char>(banner[j]))) continue;
    std::string v = banner.substr(start, j - start);
    while (!v.empty() && v.back() == '.') v.pop_back();
    if (v.find('.') != std::string::npos) return v;
  }
  return {};
}

ToolInfo find_cxx() {
  const char* env = std::getenv("KILN_CXX");
  const std::string program = env && *env ? env : "g++";
  ToolInfo info = probe_tool(program, program, {"-dumpfullversion"});
  info.name = program;
  return info;
}

ToolInfo find_cc() {
  const char* env = std::getenv("KILN_CC");
  const std::string program = env && *env ? env : "gcc";
  ToolInfo info = probe_tool(program, program, {"-dumpfullversion"});
  info.name = program;
  return info;
}

ToolInfo detect_vitis_hls() {
  return probe_tool("vitis_hls", "vitis_hls", {"-version"});
}

ToolInfo detect_bambu() {
  return probe_tool("bambu", "bambu", {"--version"});
}

std::vector<ToolInfo> detect_tools() {
  return {find_cxx(),       detect_vitis_hls(), detect_bambu(),
          find_verilator(), find_iverilog(),    find_yosys()};
}

}  // namespace kiln::tools

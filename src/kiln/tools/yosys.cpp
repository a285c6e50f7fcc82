// Yosys synthesis for Xilinx families and its cell counts.
#include <algorithm>
#include <cctype>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "kiln/support/error.h"
#include "kiln/tools/hdl.h"
#include "kiln/tools/process.h"

namespace kiln::tools {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kScript = "synth.ys";
constexpr const char* kStat = "stat.json";
constexpr const char* kLog = "yosys.log";

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// A path in a Yosys script: quoted, so spaces survive.
std::string quoted(const fs::path& p) {
  return "\"" + p.string() + "\"";
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return {};
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The first "ERROR: ..." line of Yosys's output, else its first non-empty line.
std::string yosys_error_line(const std::string& log) {
  std::istringstream in(log);
  std::string line, first;
  while (std::getline(in, line)) {
    if (starts_with(line, "ERROR:")) return line;
    if (first.empty() && line.find_first_not_of(" \t\r") != std::string::npos) first = line;
  }
  return first;
}

CellCounts counts_of(const json& module) {
  CellCounts c;
  const auto it = module.find("num_cells_by_type");
  if (it == module.end()) return c;
  for (const auto& [type, n] : it->items()) {
    std::string name = type;
    if (!name.empty() && name[0] == '\\') name.erase(0, 1);
    add_cells(c, name, n.get<long>());
  }
  return c;
}

}  // namespace

std::string synth_script(const std::vector<fs::path>& files, const std::string& top,
                         fpga::Family family, const std::vector<fs::path>& black_boxes) {
  std::string script =
      "# Written by kiln; rerun in this directory with: yosys -s " + std::string(kScript) + "\n";
  for (const fs::path& f : files) script += "read_verilog -sv " + quoted(f) + "\n";
  for (const fs::path& f : black_boxes) script += "read_verilog -sv -lib " + quoted(f) + "\n";
  script += "synth_xilinx -family " + std::string(fpga::synth_family_name(family)) + " -top " +
            top + " -noiopad -noclkbuf\n";
  script += "tee -q -o " + std::string(kStat) + " stat -json\n";
  return script;
}

ToolInfo find_yosys() {
  return probe_tool("yosys", "yosys", {"-V"});
}

namespace {

// LUTs per distributed RAM primitive: one LUT holds 64 x 1 bits (32 x 2);
// the dual-port and multi-port ones take one more per port.
long lutram_luts(const std::string& type) {
  static const std::map<std::string, long> kLuts = {
      {"RAM32X1S", 1},  {"RAM32X1S_1", 1}, {"RAM64X1S", 1},   {"RAM64X1S_1", 1}, {"RAM128X1S", 2},
      {"RAM256X1S", 4}, {"RAM512X1S", 8},  {"RAM32X2S", 2},   {"RAM64X2S", 2},   {"RAM32X4S", 4},
      {"RAM32X8S", 8},  {"RAM32X1D", 2},   {"RAM32X1D_1", 2}, {"RAM64X1D", 2},   {"RAM128X1D", 4},
      {"RAM256X1D", 8}, {"RAM32M", 4},     {"RAM64M", 4},     {"RAM32M16", 8},   {"RAM64M8", 8},
      {"RAM64X8SW", 8}};
  const auto it = kLuts.find(type);
  return it == kLuts.end() ? 1 : it->second;
}

}  // namespace

void add_cells(CellCounts& c, const std::string& type, long n) {
  c.cells[type] += n;
  const auto is = [&](const char* prefix) { return starts_with(type, prefix); };
  if (type.size() == 4 && is("LUT") && type[3] >= '1' && type[3] <= '6') {
    c.lut += n;
  } else if (is("FD")) {
    c.ff += n;
  } else if (is("DSP48")) {
    c.dsp += n;
  } else if (is("RAMB18")) {
    c.bram18 += n;
  } else if (is("RAMB36")) {
    c.bram18 += 2 * n;
  } else if (is("URAM")) {
    c.uram += n;
  } else if (type == "CARRY4" || type == "CARRY8") {
    c.carry += n;
  } else if (is("RAM")) {  // the distributed RAMs: RAM32M, RAM64M, RAM32X1D, RAM128X1S, ...
    // The LUTs each occupies (UG574): counted in `lut` too, as Vivado's
    // "CLB LUTs" counts LUT as memory.
    const long luts = lutram_luts(type) * n;
    c.lutram += luts;
    c.lut += luts;
  } else if (is("SRL")) {  // SRL16E, SRLC32E: one LUT each, in `lut` too (Vivado's CLB LUTs)
    c.srl += n;
    c.lut += n;
  }
}

namespace {

// Yosys 0.23 writes the design's hierarchy ("   <module>   <count>" lines)
// into `stat -json`'s "design" object when submodules have submodules of
// their own. No JSON line looks like that (a key is quoted): drop them.
std::string without_hierarchy_lines(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + at, end - at);
    const std::size_t first = line.find_first_not_of(" \t");
    const bool hierarchy = first != std::string_view::npos &&
                           line.find('"') == std::string_view::npos &&
                           (std::isalpha(static_cast<unsigned char>(line[first])) ||
                            line[first] == '_' || line[first] == '\\' || line[first] == '$') &&
                           line.find_first_of(",:{}[]") == std::string_view::npos;
    if (!hierarchy) out.append(line).push_back('\n');
    at = end + 1;
  }
  return out;
}

}  // namespace

void parse_yosys_stat(const std::string& json_text, CellCounts& total,
                      std::map<std::string, CellCounts>& modules) {
  json j;
  try {
    j = json::parse(without_hierarchy_lines(json_text));
  } catch (const json::exception& e) {
    throw_error(ErrorKind::InvalidModel, "yosys stat -json", std::string("not JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("modules") || !j["modules"].is_object())
    throw_error(ErrorKind::InvalidModel, "yosys stat -json", "no \"modules\" object");
  try {
    modules.clear();
    for (const auto& [name, m] : j["modules"].items())
      modules[!name.empty() && name[0] == '\\' ? name.substr(1) : name] = counts_of(m);
    // "design" counts a module's submodules in with it; without a top there
    // is no such total, and the modules' own cells are summed instead.
    if (j.contains("design")) {
      total = counts_of(j["design"]);
    } else {
      total = {};
      for (const auto& [name, c] : modules)
        for (const auto& [type, n] : c.cells) add_cells(total, type, n);
    }
  } catch (const json::exception& e) {
    throw_error(ErrorKind::InvalidModel, "yosys stat -json",
                std::string("unexpected content: ") + e.what());
  }
}

SynthResult synthesize(const std::vector<fs::path>& files, const std::string& top,
                       fpga::Family family, const fs::path& work_dir, double timeout_seconds) {
  SynthOptions options;
  options.timeout_seconds = timeout_seconds;
  return synthesize(files, top, family, work_dir, options);
}

SynthResult synthesize(const std::vector<fs::path>& files, const std::string& top,
                       fpga::Family family, const fs::path& work_dir, const SynthOptions& options) {
  SynthResult r;
  std::error_code ec;
  fs::create_directories(work_dir, ec);
  if (ec || !fs::is_directory(work_dir))
    throw_error(ErrorKind::Io, work_dir.string(), "cannot create the synthesis directory",
                "check its permissions");
  const fs::path dir = fs::absolute(work_dir);
  r.script = dir / kScript;
  r.stat_json = dir / kStat;
  r.log_file = dir / kLog;

  const auto absolute = [](const std::vector<fs::path>& paths) {
    std::vector<fs::path> out;
    for (const fs::path& f : paths) out.push_back(fs::absolute(f).lexically_normal());
    return out;
  };
  const std::string script =
      synth_script(absolute(files), top, family, absolute(options.black_boxes));
  {
    std::ofstream out(r.script, std::ios::binary);
    out << script;
    out.close();
    if (!out)
      throw_error(ErrorKind::Io, r.script.string(), "cannot write the Yosys script",
                  "check the directory's permissions");
  }
  fs::remove(r.stat_json, ec);  // a stale report must not pass for this run's

  const ToolInfo yosys = find_yosys();
  if (!yosys.found()) {
    r.error = "yosys not found on PATH; install the Debian package yosys (scripts/install-deps.sh)";
    return r;
  }
  ProcessOptions popts;
  popts.cwd = dir;
  popts.timeout_seconds = options.timeout_seconds;
  popts.memory_limit_bytes = options.memory_limit_bytes;
  popts.cancel = options.cancel;
  const ProcessResult p =
      run_process(yosys.path->string(), {"-q", "-l", kLog, "-s", kScript}, popts);
  r.seconds = p.seconds;
  r.peak_memory_bytes = p.peak_memory_bytes;
  if (!p.ok()) {
    r.out_of_memory = p.out_of_memory;
    r.out_of_resources = p.timed_out || p.out_of_memory || p.signal == SIGKILL;
    r.error = "yosys: synthesis of " + top + " failed (" + p.status_text() +
              "): " + yosys_error_line(p.err + "\n" + p.out) + " (log: " + r.log_file.string() +
              ")";
    return r;
  }
  const std::string stat = read_text(r.stat_json);
  if (stat.empty()) {
    r.error =
        "yosys: no cell report in " + r.stat_json.string() + " (log: " + r.log_file.string() + ")";
    return r;
  }
  try {
    parse_yosys_stat(stat, r.total, r.modules);
  } catch (const Error& e) {
    r.error = "yosys: " + r.stat_json.string() + ": " + e.message();
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace kiln::tools

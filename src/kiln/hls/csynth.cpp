#include "kiln/hls/csynth.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "kiln/support/error.h"
#include "kiln/tools/process.h"

namespace kiln::hls {

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text between <tag> and </tag> inside [begin, end) of xml, the first
// such element; nullopt if there is none. Enough for csynth.xml's plain
// nested elements (no attributes on the ones read, no CDATA).
std::optional<std::pair<std::size_t, std::size_t>> element(const std::string& xml,
                                                           const std::string& tag,
                                                           std::size_t begin, std::size_t end) {
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  const std::size_t o = xml.find(open, begin);
  if (o == std::string::npos || o >= end) return std::nullopt;
  const std::size_t c = xml.find(close, o);
  if (c == std::string::npos || c > end) return std::nullopt;
  return std::make_pair(o + open.size(), c);
}

// The trimmed text at a path of nested elements.
std::optional<std::string> text_at(const std::string& xml,
                                   std::initializer_list<const char*> path) {
  std::size_t b = 0, e = xml.size();
  for (const char* tag : path) {
    const auto r = element(xml, tag, b, e);
    if (!r) return std::nullopt;
    std::tie(b, e) = *r;
  }
  std::string s = xml.substr(b, e - b);
  const std::size_t first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::nullopt;
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::optional<int64_t> integer(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(s->c_str(), &end, 10);
  if (end == s->c_str() || *end != '\0') return std::nullopt;  // "undef" and the like
  return v;
}

std::optional<double> real(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s->c_str(), &end);
  if (end == s->c_str()) return std::nullopt;
  return v;
}

// The last match's first group of `pattern` in log, as an integer.
std::optional<int64_t> last_integer(const std::string& log, const std::regex& pattern) {
  std::optional<int64_t> v;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), pattern);
       it != std::sregex_iterator(); ++it)
    v = std::stoll((*it)[1].str());
  return v;
}

// `set_top NAME` of a build_prj.tcl.
std::string tcl_top(const std::string& tcl) {
  std::smatch m;
  static const std::regex set_top(R"(set_top\s+(\S+))");
  return std::regex_search(tcl, m, set_top) ? m[1].str() : std::string();
}

}  // namespace

CsynthReport parse_vitis_csynth_xml(const std::string& xml, const std::string& where) {
  CsynthReport r;
  r.tool = HlsTool::Vitis;
  const auto lat = [&](const char* field) {
    return integer(text_at(xml, {"PerformanceEstimates", "SummaryOfOverallLatency", field}));
  };
  r.latency_best = lat("Best-caseLatency");
  r.latency_worst = lat("Worst-caseLatency");
  r.interval = lat("Interval-max");
  r.clock_ns = real(
      text_at(xml, {"PerformanceEstimates", "SummaryOfTimingAnalysis", "EstimatedClockPeriod"}));
  const auto res = [&](const char* field) {
    return integer(text_at(xml, {"AreaEstimates", "Resources", field}));
  };
  r.lut = res("LUT");
  r.ff = res("FF");
  r.dsp = res("DSP");
  if (!r.dsp) r.dsp = res("DSP48E");  // older releases
  r.bram18 = res("BRAM_18K");
  if (!r.latency_worst && !r.lut)
    throw_error(ErrorKind::InvalidModel, where,
                "no PerformanceEstimates or AreaEstimates in the csynth report",
                "check the Vitis HLS log next to it");
  return r;
}

CsynthReport parse_bambu_log(const std::string& log, const std::string& where) {
  CsynthReport r;
  r.tool = HlsTool::Bambu;
  static const std::regex run(R"(Simulation completed with SUCCESS; Execution time (\d+) cycles)");
  int64_t total = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), run); it != std::sregex_iterator();
       ++it) {
    total += std::stoll((*it)[1].str());
    ++r.simulated_runs;
  }
  if (r.simulated_runs > 0) r.simulated_cycles = total / r.simulated_runs;
  static const std::regex ff(R"(Total number of flip-flops in function [^:]+:\s*(\d+))");
  static const std::regex dsp(R"(Estimated number of DSPs:\s*(\d+))");
  static const std::regex area(R"(Total estimated area:\s*(\d+))");
  static const std::regex states(R"(Number of states:\s*(\d+))");
  r.ff = last_integer(log, ff);
  r.dsp = last_integer(log, dsp);
  r.bambu_area = last_integer(log, area);
  r.bambu_states = last_integer(log, states);
  if (!r.simulated_cycles && !r.ff && !r.dsp && !r.bambu_area)
    throw_error(ErrorKind::InvalidModel, where,
                "no simulated cycles and no resource figures in Bambu's output",
                "read the log: Bambu stopped before scheduling");
  return r;
}

HlsTool project_tool(const fs::path& dir) {
  if (fs::exists(dir / "build_prj.tcl")) return HlsTool::Vitis;
  if (fs::exists(dir / "bambu" / "bambu.sh")) return HlsTool::Bambu;
  throw_error(ErrorKind::InvalidModel, dir.string(),
              "not a project for an HLS tool: no build_prj.tcl (Vitis HLS) and no bambu/bambu.sh "
              "(Bambu)",
              "give a folder written by `kiln compile` (Backend vitis or bambu)");
}

CsynthResult run_csynth(const fs::path& dir, const CsynthOptions& options) {
  const HlsTool tool = project_tool(dir);
  const std::string program = tool == HlsTool::Vitis ? "vitis_hls" : "bambu";
  if (!tools::find_program(program))
    throw_error(ErrorKind::Unsupported, dir.string(),
                fmt::format("{} is not on PATH, and this project is for it", program),
                tool == HlsTool::Vitis
                    ? "install AMD Vitis HLS and source its settings64.sh; `kiln csim` checks the "
                      "C without it"
                    : "install Bambu (PandA) and put it on PATH; `kiln csim` checks the C "
                      "without it");
  CsynthResult out;
  tools::ProcessOptions po;
  po.cwd = dir;
  po.timeout_seconds = options.timeout_seconds;
  tools::ProcessResult pr;
  fs::path report;
  if (tool == HlsTool::Vitis) {
    // build_prj.tcl keeps step flags a caller has set: csynth only.
    const fs::path script = dir / "kiln_csynth.tcl";
    std::ofstream(script) << "# Written by kiln csynth: synthesis only.\n"
                             "set run_csim 0\nset run_csynth 1\nset run_cosim 0\n"
                             "set run_export 0\nsource build_prj.tcl\n";
    pr = tools::run_process(program, {"-f", "kiln_csynth.tcl"}, po);
    out.log = dir / "vitis_hls_csynth.log";
    const std::string top = tcl_top(read_text(dir / "build_prj.tcl"));
    report = dir / (top + "_prj") / "solution1" / "syn" / "report" / (top + "_csynth.xml");
  } else {
    pr = tools::run_process("sh", {"bambu/bambu.sh"}, po);
    out.log = dir / "bambu" / "bambu.log";
  }
  out.seconds = pr.seconds;
  std::ofstream(out.log, std::ios::binary) << pr.out << pr.err;
  if (!pr.ok())
    throw_error(ErrorKind::InvalidModel, out.log.string(),
                fmt::format("{} failed ({})", program, pr.status_text()),
                "read its log for the cause");
  if (tool == HlsTool::Vitis) {
    if (!fs::exists(report))
      throw_error(ErrorKind::InvalidModel, report.string(),
                  "vitis_hls ran but wrote no csynth report here", "read " + out.log.string());
    out.report = parse_vitis_csynth_xml(read_text(report), report.string());
  } else {
    out.report = parse_bambu_log(pr.out + pr.err, out.log.string());
  }
  return out;
}

nlohmann::json to_json(const CsynthReport& r) {
  nlohmann::json j = {{"tool", enum_name(r.tool)}};
  const auto put = [&](const char* key, const auto& v) {
    if (v) j[key] = *v;
  };
  put("latency_best", r.latency_best);
  put("latency_worst", r.latency_worst);
  put("interval", r.interval);
  put("simulated_cycles", r.simulated_cycles);
  if (r.simulated_runs) j["simulated_runs"] = r.simulated_runs;
  put("clock_ns", r.clock_ns);
  put("lut", r.lut);
  put("ff", r.ff);
  put("dsp", r.dsp);
  put("bram18", r.bram18);
  put("bambu_area", r.bambu_area);
  put("bambu_states", r.bambu_states);
  return j;
}

}  // namespace kiln::hls

// Verilator (lint, simulation) and Icarus Verilog (simulation).
#include <algorithm>
#include <cctype>
#include <system_error>

#include "kiln/support/error.h"
#include "kiln/tools/hdl.h"
#include "kiln/tools/process.h"

namespace kiln::tools {

namespace fs = std::filesystem;

namespace {

constexpr const char* kVerilatorObjDir = "obj_verilator";
constexpr const char* kIcarusImage = "sim.vvp";

// "X not found on PATH; install the Debian package P (scripts/install-deps.sh)";
// without the advice if no package is known.
std::string missing(const std::string& program, const std::string& package) {
  std::string s = program + " not found on PATH";
  if (!package.empty())
    s += "; install the Debian package " + package + " (scripts/install-deps.sh)";
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

bool contains_word_error(const std::string& line) {
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("error") != std::string::npos;
}

// The first line of a log that mentions an error, else its first non-empty
// line: what a one-line message quotes.
std::string first_error_line(const std::string& log) {
  std::string first;
  for (const std::string& line : lines_of(log)) {
    const std::string t = trim(line);
    if (t.empty()) continue;
    if (contains_word_error(t)) return t;
    if (first.empty()) first = t;
  }
  return first;
}

// Parses "file:line:col: " (col optional) at the start of `s`; on success
// fills d and returns the length consumed.
std::size_t parse_location(const std::string& s, HdlDiagnostic& d) {
  std::size_t colon = s.find(':');
  while (colon != std::string::npos) {
    std::size_t j = colon + 1;
    const std::size_t line_start = j;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j > line_start && j < s.size() && s[j] == ':') {
      d.file = s.substr(0, colon);
      d.line = std::stoi(s.substr(line_start, j - line_start));
      ++j;
      const std::size_t col_start = j;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j > col_start && j < s.size() && s[j] == ':') {
        d.column = std::stoi(s.substr(col_start, j - col_start));
        ++j;
      } else {
        j = col_start;
      }
      while (j < s.size() && s[j] == ' ') ++j;
      return j;
    }
    // A ':' inside the file name (or no location at all): try the next one,
    // but never past the first space, which ends a location.
    const std::size_t space = s.find(' ');
    colon = s.find(':', colon + 1);
    if (space != std::string::npos && colon != std::string::npos && colon > space) break;
  }
  return 0;
}

std::vector<std::string> absolute_paths(const std::vector<fs::path>& files) {
  std::vector<std::string> out;
  for (const fs::path& f : files) out.push_back(fs::absolute(f).lexically_normal().string());
  return out;
}

void make_work_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw_error(ErrorKind::Io, dir.string(), "cannot create the simulation directory",
                "check its permissions");
}

bool is_clang(const std::string& cxx) {
  return fs::path(cxx).filename().string().find("clang") != std::string::npos;
}

SimResult run_verilator(const std::vector<std::string>& files, const std::string& top,
                        const fs::path& work_dir, const SimOptions& opts) {
  SimResult r;
  const ToolInfo verilator = find_verilator();
  if (!verilator.found()) {
    r.error = missing("verilator", "verilator");
    return r;
  }
  if (!find_program(opts.verilator_cxx)) {
    const std::string cxx = fs::path(opts.verilator_cxx).filename().string();
    const std::string package = is_clang(cxx) ? "clang" : cxx == "g++" ? "g++" : "";
    r.error = "verilator: C++ compiler " + missing(opts.verilator_cxx, package) +
              (package.empty() ? "; set" : " or set") +
              " SimOptions::verilator_cxx to an installed compiler";
    return r;
  }
  const std::string binary = "V" + top;
  std::vector<std::string> args = {
      "--binary",    "--build-jobs", std::to_string(std::max(1, opts.build_jobs)),
      "--timescale", "1ns/1ps",      "--top-module",
      top,           "--Mdir",       kVerilatorObjDir,
      "-o",          binary};
  // Verilator's makefile compiles with g++ -Os by default. The make variables
  // below override it: the compiler, the optimization of the model (fast and
  // slow paths) and of the runtime library.
  args.insert(args.end(),
              {"-MAKEFLAGS", "CXX=" + opts.verilator_cxx, "-MAKEFLAGS",
               "LINK=" + opts.verilator_cxx, "-MAKEFLAGS", "OPT_FAST=" + opts.verilator_opt,
               "-MAKEFLAGS", "OPT_SLOW=-O0", "-MAKEFLAGS", "OPT_GLOBAL=" + opts.verilator_opt});
  if (is_clang(opts.verilator_cxx)) {
    // Debian's Verilator was configured with g++, whose coroutine flag
    // (-fcoroutines) clang rejects; clang has coroutines in C++20.
    args.insert(args.end(),
                {"--compiler", "clang", "-MAKEFLAGS", "CFG_CXXFLAGS_COROUTINES=-std=c++20"});
  }
  args.insert(args.end(), opts.verilator_args.begin(), opts.verilator_args.end());
  args.insert(args.end(), files.begin(), files.end());

  ProcessOptions popts;
  popts.cwd = work_dir;
  popts.timeout_seconds = opts.timeout_seconds;
  const ProcessResult build = run_process(verilator.path->string(), args, popts);
  r.build_seconds = build.seconds;
  r.build_log = build.out + build.err;
  if (!build.ok()) {
    r.timed_out = build.timed_out;
    // Verilator's own messages first: its last line only counts them.
    const std::vector<HdlDiagnostic> d = parse_verilator_diagnostics(r.build_log);
    r.error = "verilator: build failed (" + build.status_text() +
              "): " + (d.empty() ? first_error_line(r.build_log) : d.front().text());
    return r;
  }
  const ProcessResult run = run_process((work_dir / kVerilatorObjDir / binary).string(), {}, popts);
  r.run_seconds = run.seconds;
  r.out = run.out;
  r.err = run.err;
  r.ok = run.ok();
  r.timed_out = run.timed_out;
  if (!r.ok)
    r.error = "verilator: simulation of " + top + " failed (" + run.status_text() +
              "): " + first_error_line(run.err + "\n" + run.out);
  return r;
}

SimResult run_icarus(const std::vector<std::string>& files, const std::string& top,
                     const fs::path& work_dir, const SimOptions& opts) {
  SimResult r;
  const auto iverilog = find_program("iverilog");
  const auto vvp = find_program("vvp");
  if (!iverilog || !vvp) {
    r.error = missing(iverilog ? "vvp" : "iverilog", "iverilog");
    return r;
  }
  std::vector<std::string> args = {"-g2012", "-o", kIcarusImage, "-s", top};
  args.insert(args.end(), files.begin(), files.end());
  ProcessOptions popts;
  popts.cwd = work_dir;
  popts.timeout_seconds = opts.timeout_seconds;
  const ProcessResult build = run_process(iverilog->string(), args, popts);
  r.build_seconds = build.seconds;
  r.build_log = build.out + build.err;
  if (!build.ok()) {
    r.timed_out = build.timed_out;
    r.error = "iverilog: compile failed (" + build.status_text() +
              "): " + first_error_line(build.err + "\n" + build.out);
    return r;
  }
  // -n: a $stop ends the run instead of waiting for interactive input.
  const ProcessResult run = run_process(vvp->string(), {"-n", kIcarusImage}, popts);
  r.run_seconds = run.seconds;
  r.out = run.out;
  r.err = run.err;
  r.ok = run.ok();
  r.timed_out = run.timed_out;
  if (!r.ok)
    r.error = "vvp: simulation of " + top + " failed (" + run.status_text() +
              "): " + first_error_line(run.err + "\n" + run.out);
  return r;
}

}  // namespace

ToolInfo find_verilator() {
  return probe_tool("verilator", "verilator", {"--version"});
}

ToolInfo find_iverilog() {
  ToolInfo info = probe_tool("iverilog", "iverilog", {"-V"});
  if (!find_program("vvp")) info.path.reset();
  return info;
}

std::string HdlDiagnostic::text() const {
  std::string s;
  if (!file.empty()) {
    s = file + ":" + std::to_string(line) + ":";
    if (column > 0) s += std::to_string(column) + ":";
    s += " ";
  }
  s += error ? "%Error" : "%Warning";
  if (!code.empty()) s += "-" + code;
  return s + ": " + message;
}

std::vector<HdlDiagnostic> parse_verilator_diagnostics(const std::string& log) {
  std::vector<HdlDiagnostic> out;
  for (const std::string& raw : lines_of(log)) {
    HdlDiagnostic d;
    std::string rest;
    if (raw.rfind("%Error", 0) == 0) {
      d.error = true;
      rest = raw.substr(6);
    } else if (raw.rfind("%Warning", 0) == 0) {
      rest = raw.substr(8);
    } else {
      continue;
    }
    if (!rest.empty() && rest[0] == '-') {
      const std::size_t colon = rest.find(':');
      d.code = rest.substr(1, colon == std::string::npos ? std::string::npos : colon - 1);
      rest = colon == std::string::npos ? "" : rest.substr(colon);
    }
    if (rest.empty() || rest[0] != ':') continue;
    rest = trim(rest.substr(1));
    if (d.error && d.code.empty() && rest.rfind("Exiting due to", 0) == 0) continue;
    rest = rest.substr(parse_location(rest, d));
    d.message = rest;
    out.push_back(std::move(d));
  }
  return out;
}

LintResult lint_verilog(const std::vector<fs::path>& files, const std::string& top,
                        double timeout_seconds) {
  LintResult r;
  const ToolInfo verilator = find_verilator();
  if (!verilator.found()) {
    r.error = missing("verilator", "verilator");
    return r;
  }
  std::vector<std::string> args = {"--lint-only", "-Wall", "--top-module", top};
  const std::vector<std::string> paths = absolute_paths(files);
  args.insert(args.end(), paths.begin(), paths.end());
  ProcessOptions popts;
  popts.timeout_seconds = timeout_seconds;
  const ProcessResult p = run_process(verilator.path->string(), args, popts);
  r.seconds = p.seconds;
  r.log = p.out + p.err;
  r.diagnostics = parse_verilator_diagnostics(r.log);
  r.ok = p.ok() && r.diagnostics.empty();
  if (!r.ok) {
    const std::string first =
        r.diagnostics.empty() ? first_error_line(r.log) : r.diagnostics.front().text();
    r.error = "verilator lint of " + top + ": " +
              (p.timed_out || !p.started ? p.status_text() + ": " : "") + first;
    if (r.diagnostics.size() > 1)
      r.error += " (and " + std::to_string(r.diagnostics.size() - 1) + " more)";
  }
  return r;
}

const char* to_string(Simulator s) {
  switch (s) {
    case Simulator::Verilator: return "verilator";
    case Simulator::Icarus: return "icarus";
    case Simulator::Kiln: return "kiln";
  }
  return "?";
}

SimResult simulate(Simulator simulator, const std::vector<fs::path>& files, const std::string& top,
                   const fs::path& work_dir, const SimOptions& options) {
  if (simulator == Simulator::Kiln) {
    SimResult r;
    r.error = "kiln's netlist interpreter is not an external simulator (rtl/dir/netlist_sim.h)";
    return r;
  }
  make_work_dir(work_dir);
  // Absolute, because the tools run in work_dir.
  const std::vector<std::string> paths = absolute_paths(files);
  const fs::path dir = fs::absolute(work_dir);
  return simulator == Simulator::Verilator ? run_verilator(paths, top, dir, options)
                                           : run_icarus(paths, top, dir, options);
}

}  // namespace kiln::tools

#include "kiln/hls/csim.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "kiln/hls/project_writer.h"
#include "kiln/support/error.h"
#include "kiln/support/progress.h"
#include "kiln/tools/compilers.h"
#include "kiln/tools/process.h"

namespace kiln::hls {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kBinary = "build/kiln_csim";
constexpr const char* kFlagsFile = "build/kiln_csim.flags";

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw_error(ErrorKind::Io, p.string(), "cannot read file");
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw_error(ErrorKind::Io, p.string(), "cannot write file", "check its permissions");
}

// A tool's output shortened for a one-line message: from the first line
// that says "error" if any, else from the start.
std::string head(const std::string& text, std::size_t max_chars = 600) {
  std::size_t from = 0;
  const std::size_t error_at = text.find("error");
  if (error_at != std::string::npos) {
    const std::size_t line_start = text.rfind('\n', error_at);
    from = line_start == std::string::npos ? 0 : line_start + 1;
  }
  std::string s = text.substr(from, std::min(text.size() - from, max_chars));
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// A C99 project (Backend: bambu: firmware/<name>.c, written from the loop
// IR) rather than the layer library's C++.
bool is_c99_project(const fs::path& dir, const Model& model) {
  std::error_code ec;
  return fs::exists(dir / "firmware" / (model.name + ".c"), ec);
}

fs::file_time_type newest_source(const fs::path& dir) {
  fs::file_time_type newest = fs::file_time_type::min();
  std::error_code ec;
  for (const char* sub : {"firmware", "tb"}) {
    for (auto it = fs::recursive_directory_iterator(dir / sub, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) newest = std::max(newest, it->last_write_time(ec));
    }
  }
  return newest;
}

// Builds build/kiln_csim unless it is newer than every source and was built
// with the same command. Returns whether it compiled.
bool build_testbench(const fs::path& dir, const Model& model, const CsimOptions& opts,
                     CsimResult& result) {
  // A C99 project (Backend: bambu, written from the loop IR) or the layer
  // library's C++: the same testbench protocol.
  const bool c99 = is_c99_project(dir, model);
  const tools::ToolInfo cxx = c99 ? tools::find_cc() : tools::find_cxx();
  if (!cxx.found())
    throw_error(
        ErrorKind::Unsupported, "csim",
        std::string(c99 ? "no C compiler" : "no C++ compiler") + " found (" + cxx.name + ")",
        c99 ? "install gcc or set KILN_CC" : "install g++ or set KILN_CXX");
  std::vector<std::string> args =
      c99 ? std::vector<std::string>{"-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic"}
          : std::vector<std::string>{"-std=c++14", "-O2", "-Wall", "-Wextra"};
  args.insert(args.end(), opts.extra_cflags.begin(), opts.extra_cflags.end());
  if (c99)
    args.insert(args.end(), {"-I", "firmware", "firmware/" + model.name + ".c",
                             "tb/" + model.name + "_test.c", "-o", kBinary, "-lm"});
  else
    args.insert(args.end(),
                {"-DKILN_LOAD_WEIGHTS", "-I", "firmware", "firmware/" + model.name + ".cpp",
                 "tb/" + model.name + "_test.cpp", "-o", kBinary});
  std::string command = cxx.path->string();
  for (const std::string& a : args) command += " " + a;

  std::error_code ec;
  const fs::path binary = dir / kBinary;
  if (!opts.rebuild && fs::exists(binary, ec) && fs::exists(dir / kFlagsFile, ec) &&
      read_text(dir / kFlagsFile) == command &&
      fs::last_write_time(binary, ec) >= newest_source(dir))
    return false;

  fs::create_directories(dir / "build", ec);
  fs::remove(dir / kFlagsFile, ec);
  tools::ProcessOptions popts;
  popts.cwd = dir;
  popts.timeout_seconds = opts.build_timeout_seconds;
  const tools::ProcessResult r = tools::run_process(cxx.path->string(), args, popts);
  result.build_seconds = r.seconds;
  if (!r.ok())
    throw_error(ErrorKind::Internal, dir.string(),
                "the project does not compile (" + r.status_text() + "): " + head(r.err),
                "run `make csim` in the project for the full compiler output");
  write_text(dir / kFlagsFile, command);
  return true;
}

int64_t argmax(const std::vector<double>& v) {
  int64_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[static_cast<std::size_t>(best)]) best = static_cast<int64_t>(i);
  return best;
}

}  // namespace

std::vector<Sample> random_samples(const Model& model, int n, uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::vector<Sample> out(static_cast<std::size_t>(std::max(n, 0)));
  for (Sample& s : out) {
    for (int t : model.inputs) {
      std::vector<double> v(static_cast<std::size_t>(model.tensors.at(t).numel()));
      for (double& x : v) {
        const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
        x = lo + (hi - lo) * u;
      }
      s.push_back(std::move(v));
    }
  }
  return out;
}

std::string format_input_line(const Sample& sample) {
  std::string line;
  char buf[40];
  for (const std::vector<double>& input : sample)
    for (double x : input) {
      std::snprintf(buf, sizeof buf, "%.17g", x);
      if (!line.empty()) line += ' ';
      line += buf;
    }
  return line;
}

std::string format_raw_line(const std::vector<FixedTensor>& outputs) {
  std::string line;
  for (const FixedTensor& t : outputs)
    for (int64_t r : t.raw) {
      if (!line.empty()) line += ' ';
      line += std::to_string(r);
    }
  return line;
}

std::vector<std::vector<int64_t>> parse_results(const std::string& text,
                                                std::size_t values_per_line,
                                                const std::string& where) {
  std::vector<std::vector<int64_t>> rows;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::size_t bar = line.find('|');
    if (bar == std::string::npos)
      throw_error(ErrorKind::Internal, where + ":" + std::to_string(line_no), "no '|' separator");
    std::vector<int64_t> row;
    const std::string raw = line.substr(0, bar);
    const char* p = raw.c_str();
    for (;;) {
      while (*p == ' ' || *p == '\t') ++p;
      if (*p == '\0') break;
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(p, &end, 10);
      if (end == p || errno != 0)
        throw_error(ErrorKind::Internal, where + ":" + std::to_string(line_no),
                    "not an integer near '" + std::string(p).substr(0, 20) + "'");
      row.push_back(v);
      p = end;
    }
    if (row.size() != values_per_line)
      throw_error(ErrorKind::Internal, where + ":" + std::to_string(line_no),
                  "expected " + std::to_string(values_per_line) + " raw values, got " +
                      std::to_string(row.size()));
    rows.push_back(std::move(row));
  }
  return rows;
}

CsimResult run_csim(const fs::path& given_dir, const Model& model, const CsimOptions& opts) {
  // The testbench runs with the project as its working directory, so every
  // path handed to it must not depend on ours.
  const fs::path project_dir = fs::absolute(given_dir);
  CsimResult result;
  const std::string ext = is_c99_project(project_dir, model) ? "c" : "cpp";
  for (const std::string& f :
       {"firmware/" + model.name + "." + ext, "tb/" + model.name + "_test." + ext})
    if (!fs::exists(project_dir / f))
      throw_error(ErrorKind::InvalidModel, project_dir.string(), "missing " + f,
                  "is this a project written by `kiln compile`?");

  std::vector<Sample> samples = opts.inputs.empty() ? random_samples(model, opts.samples, opts.seed,
                                                                     opts.input_min, opts.input_max)
                                                    : opts.inputs;
  if (samples.empty())
    throw_error(ErrorKind::InvalidModel, "csim", "no samples to simulate", "use --samples N > 0");
  for (std::size_t s = 0; s < samples.size(); ++s) {
    if (samples[s].size() != model.inputs.size())
      throw_error(ErrorKind::InvalidModel, "csim: sample " + std::to_string(s),
                  "has " + std::to_string(samples[s].size()) + " inputs, the model " +
                      std::to_string(model.inputs.size()));
    for (std::size_t k = 0; k < model.inputs.size(); ++k)
      if (static_cast<int64_t>(samples[s][k].size()) != model.tensors.at(model.inputs[k]).numel())
        throw_error(ErrorKind::InvalidModel, "csim: sample " + std::to_string(s),
                    "input " + std::to_string(k) + " has " + std::to_string(samples[s][k].size()) +
                        " values, expected " +
                        std::to_string(model.tensors.at(model.inputs[k]).numel()));
  }

  // The emulator first: its outputs also become the project's expected file,
  // so `make csim` re-checks this run.
  std::vector<EmulationResult> emu;
  emu.reserve(samples.size());
  result.overflow.resize(model.layers.size());
  for (std::size_t i = 0; i < model.layers.size(); ++i)
    result.overflow[i].layer = model.layers[i].name;
  std::string inputs_text, expected_text;
  Progress progress("csim " + model.name, static_cast<int64_t>(samples.size()));
  progress.phase("emulating the samples");
  for (const Sample& s : samples) {
    emu.push_back(emulate(model, s));
    progress.advance(static_cast<int64_t>(emu.size()));
    for (std::size_t i = 0; i < model.layers.size(); ++i) {
      result.overflow[i].counts.wrapped += emu.back().per_layer[i].wrapped;
      result.overflow[i].counts.saturated += emu.back().per_layer[i].saturated;
    }
    inputs_text += format_input_line(s) + "\n";
    expected_text += format_raw_line(emu.back().outputs) + "\n";
  }

  progress.phase("building the testbench with g++ (if it changed)");
  result.rebuilt = build_testbench(project_dir, model, opts, result);
  progress.phase("running the testbench");

  std::error_code ec;
  fs::create_directories(project_dir / "tb_data", ec);
  write_text(project_dir / kInputsFile, inputs_text);
  write_text(project_dir / kExpectedFile, expected_text);
  fs::remove(project_dir / kResultsFile, ec);
  tools::ProcessOptions popts;
  popts.cwd = project_dir;
  popts.timeout_seconds = opts.run_timeout_seconds;
  // Explicit paths: the testbench then only writes results; kiln compares.
  const tools::ProcessResult r =
      tools::run_process((project_dir / kBinary).string(), {kInputsFile, kResultsFile}, popts);
  result.run_seconds = r.seconds;
  if (!r.ok())
    throw_error(ErrorKind::Internal, project_dir.string(),
                "the C simulation failed (" + r.status_text() + "): " + head(r.err));

  std::size_t n_out = 0;
  for (int t : model.outputs) n_out += static_cast<std::size_t>(model.tensors.at(t).numel());
  const auto rows = parse_results(read_text(project_dir / kResultsFile), n_out,
                                  (project_dir / kResultsFile).string());
  if (rows.size() != samples.size())
    throw_error(ErrorKind::Internal, (project_dir / kResultsFile).string(),
                std::to_string(rows.size()) + " result lines for " +
                    std::to_string(samples.size()) + " samples");

  result.samples = static_cast<int>(samples.size());
  result.has_reference = static_cast<bool>(opts.float_reference);
  progress.phase(opts.float_reference ? "comparing with the emulator and the float model"
                                      : "comparing with the emulator");
  for (std::size_t s = 0; s < samples.size(); ++s) {
    progress.advance(static_cast<int64_t>(s));
    bool exact = true;
    std::size_t pos = 0;
    std::vector<std::vector<double>> csim_values;
    for (std::size_t o = 0; o < model.outputs.size(); ++o) {
      const FixedTensor& e = emu[s].outputs[o];
      std::vector<double> values;
      for (std::size_t i = 0; i < e.raw.size(); ++i, ++pos) {
        const int64_t c = rows[s][pos];
        values.push_back(numeric::to_double(c, e.type));
        if (c == e.raw[i]) continue;
        exact = false;
        ++result.mismatched_values;
        if (!result.first_mismatch)
          result.first_mismatch = CsimMismatch{static_cast<int>(s), static_cast<int>(o),
                                               static_cast<int64_t>(i), c, e.raw[i]};
      }
      csim_values.push_back(std::move(values));
    }
    if (exact) ++result.bit_exact_samples;
    result.outputs.push_back(csim_values);
    if (!opts.float_reference) continue;
    const std::vector<std::vector<double>> ref = opts.float_reference(samples[s]);
    if (ref.size() != csim_values.size())
      throw_error(ErrorKind::Internal, "csim",
                  "float reference returned " + std::to_string(ref.size()) + " outputs");
    for (std::size_t o = 0; o < ref.size(); ++o) {
      if (ref[o].size() != csim_values[o].size())
        throw_error(ErrorKind::Internal, "csim",
                    "float reference output " + std::to_string(o) + " has " +
                        std::to_string(ref[o].size()) + " values, expected " +
                        std::to_string(csim_values[o].size()));
      double scale = 0, worst = 0;
      for (std::size_t i = 0; i < ref[o].size(); ++i) {
        scale = std::max(scale, std::fabs(ref[o][i]));
        const double err = std::fabs(csim_values[o][i] - ref[o][i]);
        worst = std::max(worst, err);
        result.errors.push_back(err);
      }
      result.max_abs_error = std::max(result.max_abs_error, worst);
      if (scale > 0) result.max_rel_error = std::max(result.max_rel_error, worst / scale);
    }
    if (!ref.empty() && !ref[0].empty() && argmax(ref[0]) == argmax(csim_values[0]))
      ++result.top1_agree;
  }
  return result;
}

json error_histogram(const std::vector<double>& errors) {
  // log10 |error| in half-decade bins from 1e-8 to 1e2; exact zeros apart.
  constexpr double kLo = -8, kHi = 2, kStep = 0.5;
  const auto bins = static_cast<std::size_t>((kHi - kLo) / kStep);
  std::vector<int64_t> counts(bins, 0);
  int64_t zero = 0, below = 0, above = 0;
  for (double e : errors) {
    if (e == 0) {
      ++zero;
      continue;
    }
    const double l = std::log10(e);
    if (l < kLo) {
      ++below;
    } else if (l >= kHi) {
      ++above;
    } else {
      ++counts[static_cast<std::size_t>((l - kLo) / kStep)];
    }
  }
  json edges = json::array();
  for (std::size_t b = 0; b <= bins; ++b) edges.push_back(kLo + kStep * static_cast<double>(b));
  return {{"zero", zero},         {"below", below},   {"above", above},
          {"log10_edges", edges}, {"counts", counts}, {"values", errors.size()}};
}

json to_json(const CsimResult& r) {
  json j;
  j["samples"] = r.samples;
  j["bit_exact_samples"] = r.bit_exact_samples;
  j["bit_exact"] = r.bit_exact();
  j["mismatched_values"] = r.mismatched_values;
  if (r.first_mismatch) {
    const CsimMismatch& m = *r.first_mismatch;
    j["first_mismatch"] = {{"sample", m.sample},
                           {"output", m.output},
                           {"index", m.index},
                           {"csim_raw", m.csim_raw},
                           {"emulator_raw", m.emulator_raw}};
  } else {
    j["first_mismatch"] = nullptr;
  }
  if (r.has_reference) {
    j["float_reference"] = {{"max_abs_error", r.max_abs_error},
                            {"max_rel_error", r.max_rel_error},
                            {"top1_agree", r.top1_agree},
                            {"top1_agreement", r.samples ? double(r.top1_agree) / r.samples : 0.0},
                            {"error_histogram", error_histogram(r.errors)}};
  } else {
    j["float_reference"] = nullptr;
  }
  json layers = json::array();
  for (const LayerOverflow& l : r.overflow)
    layers.push_back(
        {{"layer", l.layer}, {"wrapped", l.counts.wrapped}, {"saturated", l.counts.saturated}});
  j["overflow"] = std::move(layers);
  j["rebuilt"] = r.rebuilt;
  j["build_seconds"] = r.build_seconds;
  j["run_seconds"] = r.run_seconds;
  return j;
}

}  // namespace kiln::hls

#include "kiln/commands/rtl_flow.h"

#include <fmt/format.h>

#include <chrono>

#include "kiln/fpga/devices.h"
#include "kiln/hls/model_json.h"
#include "kiln/hls/project_writer.h"
#include "kiln/loop/directives.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/netlist/text.h"
#include "kiln/rtl/dir/design_dir.h"
#include "kiln/rtl/dir/testbench.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/support/atomic_dir.h"
#include "kiln/support/error.h"
#include "kiln/support/strings.h"
#include "kiln/tools/process.h"

namespace kiln::commands {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The files kiln writes next to the design's Verilog.
bool reserved_name(const std::string& name) {
  return name == rtl::kTestbenchFile || name == rtl::kReportFile || name == rtl::kSynthScriptFile ||
         name == rtl::kPlansFile || name == rtl::kNetlistFile || name == hls::kModelJsonFile;
}

json optional_json(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string percent(const std::optional<double>& v) {
  return v ? fmt::format("{:+.0f}%", *v * 100) : std::string("n/a");
}

}  // namespace

// ---- kiln rtl -------------------------------------------------------------------

RtlCommandResult build_rtl(flow::ConfiguredModel built, bool over_capacity) {
  RtlCommandResult r;
  r.model = std::move(built.model);
  // The part must name a family Yosys knows before the long build starts.
  fpga::device_of_part(r.model.part);
  r.options = rtl::rtl_options(r.model);
  r.options.fit_part = !over_capacity;
  r.design = rtl::build_design(r.model, r.options);
  r.capacity = rtl::testbench_capacity(r.design);
  r.report = rtl::design_report(r.design, r.model, r.options, r.capacity);
  return r;
}

void write_rtl_files(const fs::path& dir, const RtlCommandResult& r, const json& source) {
  std::vector<fs::path> verilog;
  for (const auto& [name, text] : r.design.files) {
    KILN_ASSERT(!name.empty() && name.find('/') == std::string::npos && name[0] != '.' &&
                    !reserved_name(name),
                "build_design returned the file name '" + name + "'");
    verilog.emplace_back(name);
  }
  const fpga::Family family = fpga::device_of_part(r.model.part).family;
  for (const auto& [name, text] : r.design.files) write_file_atomically(dir / name, text);
  write_file_atomically(dir / rtl::kTestbenchFile, rtl::testbench_verilog(r.design, r.capacity));
  // Relative paths: the directory can move, and `yosys -s synth.ys` runs in it.
  write_file_atomically(dir / rtl::kSynthScriptFile,
                        tools::synth_script(verilog, r.design.top, family));
  hls::save_model_json(dir / hls::kModelJsonFile, r.model, source);
  write_file_atomically(dir / rtl::kReportFile, r.report.dump(2) + "\n");
  write_file_atomically(dir / rtl::kPlansFile, r.design.plans);
  write_file_atomically(dir / rtl::kNetlistFile, netlist::print(r.design.netlist));
}

RtlCommandResult rtl_model(const fs::path& onnx, const CompileOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.output_dir.empty())
    throw_error(ErrorKind::Usage, "kiln rtl", "no output directory", "pass -o DIR");
  std::error_code ec;
  if (!options.overwrite && fs::exists(options.output_dir, ec) &&
      !(fs::is_directory(options.output_dir, ec) && fs::is_empty(options.output_dir, ec)))
    throw_error(ErrorKind::Io, options.output_dir.string(), "output directory exists",
                "pass --force to replace it, or choose another -o directory");
  flow::ConfiguredModel built = flow::configure_model(onnx, options);
  onnx_import::ImportOptions effective = options.import;
  if (built.prepared.batch_one) effective.batch = 1;
  RtlCommandResult r = build_rtl(std::move(built), options.over_capacity);
  const json source = {{"command", "kiln rtl"},
                       {"onnx", fs::absolute(onnx, ec).string()},
                       {"import", import_to_json(effective)},
                       {"config", config_paths(options.configs)},
                       {"set", options.sets}};
  AtomicDir out(options.output_dir, options.overwrite);
  write_rtl_files(out.staging(), r, source);
  out.commit();
  r.dir = options.output_dir;
  r.seconds = seconds_since(t0);
  return r;
}

std::string format_rtl_summary(const RtlCommandResult& r) {
  const rtl::Design& d = r.design;
  std::string s =
      fmt::format("kiln rtl: {} -> {} ({} stage{}, scheduler {}, part {})\n", r.model.name,
                  r.dir.string(), d.stages.size(), d.stages.size() == 1 ? "" : "s",
                  r.report.value("scheduler", ""), r.model.part);
  s += fmt::format(
      "latency {} cycles, a new sample every {} cycle(s); clock {} ns, critical path {:.2f} ns\n",
      d.latency_cycles, d.interval_cycles, d.clock_ns, d.critical_path_ns);
  s += "(the clock period and critical path are kiln's delay-model estimates, not a timing "
       "report)\n";
  for (const std::string& note : r.options.notes) s += "note: " + note + "\n";
  s += "\n";
  // mults: variable x variable products on `units` DSP multipliers; const*:
  // products by constants as shifts and adds.
  s += fmt::format(
      "{:<24} {:>6} {:>7} {:>5} {:>6} {:>6} {:>6} {:>7} {:>7} {:>8} {:>8} {:>8} "
      "{:>7} {:>7} {:>5} {:>6} {:>6}\n",
      "stage", "start", "latency", "II", "nodes", "mults", "units", "const*", "adders", "lookups",
      "reg bits", "path ns", "LUT", "FF", "DSP", "CARRY", "BRAM18");
  for (const rtl::StageReport& st : d.stages)
    s += fmt::format(
        "{:<24} {:>6} {:>7} {:>5} {:>6} {:>6} {:>6} {:>7} {:>7} {:>8} {:>8} {:>8.2f} "
        "{:>7.0f} {:>7.0f} {:>5.0f} {:>6.0f} {:>6.0f}\n",
        st.name, st.start_cycle, st.latency_cycles, st.interval_cycles, st.nodes, st.multipliers,
        st.multiplier_units, st.const_multipliers, st.adders, st.lookups, st.register_bits,
        st.critical_path_ns, st.lut, st.ff, st.dsp, st.carry, st.bram18);
  // How each layer is built: the config's loops, or the TargetCycles search.
  s += "\n";
  for (const rtl::StageReport& st : d.stages) s += fmt::format("{}: {}\n", st.name, st.plan);
  const fpga::Resources e = rtl::estimate_of(d);
  s += fmt::format(
      "\nestimated resources (operator library): LUT {:.0f}, FF {:.0f}, DSP {:.0f}, CARRY {:.0f}, "
      "BRAM18 {:.0f}\n",
      e.lut, e.ff, e.dsp, e.carry, e.bram18);
  s += fmt::format("written in {:.2f} s; next: kiln rtlsim {} and kiln synth {}\n", r.seconds,
                   r.dir.string(), r.dir.string());
  return s;
}

// ---- kiln rtl --list-loops ------------------------------------------------------

LoopListing list_loops(const fs::path& onnx, const CompileOptions& options) {
  const flow::ConfiguredModel built = flow::configure_model(onnx, options);
  const rtl::RtlOptions options_rtl = rtl::rtl_options(built.model);
  loop::Program program = rtl::design_program(built.model, options_rtl);
  std::vector<loop::LoopSite> sites = loop::loop_sites(program);
  std::vector<rtl::PipelineEstimate> pipelines =
      rtl::estimate_pipelines(program, options_rtl, fpga::device_of_part(built.model.part).family,
                              built.model.clock_period_ns);
  return {built.model.name, std::move(program), std::move(sites), std::move(pipelines)};
}

namespace {

std::string format_pipelines(const std::vector<rtl::PipelineEstimate>& ps) {
  std::string s =
      "if pipelined (each layer's top-level loops with their Unroll, Pipeline and Flatten "
      "directives, the "
      "layer's MultiplierLimit and the buffers' partitions; the II counts memory ports, "
      "multipliers and recurrences, and operations chain within the clock period)\n\n";
  s += fmt::format("{:<22} {:>6} {:>10} {:>4} {:>6} {:>8}  {}\n", "loop", "unroll", "iterations",
                   "II", "depth", "cycles", "why");
  for (const rtl::PipelineEstimate& p : ps) {
    if (p.ii == 0)
      s += fmt::format("{:<22} {:>6} {:>10} {:>4} {:>6} {:>8}  {}\n", p.loop, p.unroll,
                       p.iterations, "-", "-", "-", p.why);
    else
      s += fmt::format("{:<22} {:>6} {:>10} {:>4} {:>6} {:>8}  {}\n", p.loop, p.unroll,
                       p.iterations, p.ii, p.depth, p.cycles, p.why);
  }
  return s;
}

}  // namespace

std::string format_loop_listing(const LoopListing& l) {
  return fmt::format(
             "kiln rtl --list-loops: {} ({} loops; runs: starts per sample, ops: values computed "
             "inside per sample)\n\n{}\n{}",
             l.model, l.sites.size(), loop::print_loop_sites(l.sites),
             loop::print_buffer_table(l.program)) +
         "\n" + format_pipelines(l.pipelines);
}

json loop_listing_to_json(const LoopListing& l) {
  json loops = json::array();
  for (const loop::LoopSite& s : l.sites) {
    json d = {{"unroll", s.directives.unroll ? json(*s.directives.unroll) : json(nullptr)}};
    d["pipeline_ii"] = s.directives.pipeline_ii ? json(*s.directives.pipeline_ii) : json(nullptr);
    loops.push_back({{"name", s.name},
                     {"layer", s.layer},
                     {"parent", s.parent.empty() ? json(nullptr) : json(s.parent)},
                     {"depth", s.depth},
                     {"trip", s.trip},
                     {"runs", s.runs},
                     {"ops", s.ops},
                     {"perfect", s.perfect},
                     {"directives", d}});
  }
  json buffers = json::array();
  for (const loop::Buffer& b : l.program.buffers) {
    const loop::BufferDirectives& d = b.directives;
    buffers.push_back(
        {{"name", b.name},
         {"role", enum_name(b.role)},
         {"type", loop::to_string(b.type)},
         {"shape", b.shape},
         {"alias_of", b.alias_of >= 0
                          ? json(l.program.buffers[static_cast<std::size_t>(b.alias_of)].name)
                          : json(nullptr)},
         {"directives",
          {{"partition", enum_name(d.partition)},
           {"factor", d.factor},
           {"dim", d.dim},
           {"more_dims", d.more_dims},
           {"storage", enum_name(d.storage)}}}});
  }
  json pipelines = json::array();
  for (const rtl::PipelineEstimate& p : l.pipelines)
    pipelines.push_back({{"loop", p.loop},
                         {"unroll", p.unroll},
                         {"iterations", p.iterations},
                         {"ii", p.ii == 0 ? json(nullptr) : json(p.ii)},
                         {"depth", p.ii == 0 ? json(nullptr) : json(p.depth)},
                         {"cycles", p.ii == 0 ? json(nullptr) : json(p.cycles)},
                         {"why", p.why}});
  return {{"model", l.model}, {"loops", loops}, {"buffers", buffers}, {"pipelines", pipelines}};
}

json rtl_to_json(const RtlCommandResult& r) {
  json j = r.report;
  j["dir"] = r.dir.string();
  j["seconds"] = r.seconds;
  return j;
}

// ---- kiln rtlsim ----------------------------------------------------------------

tools::Simulator parse_simulator(const std::string& name) {
  if (name == "verilator") return tools::Simulator::Verilator;
  if (name == "icarus") return tools::Simulator::Icarus;
  if (name == "kiln") return tools::Simulator::Kiln;
  throw_error(ErrorKind::Usage, "--simulator " + name, "unknown simulator",
              "use verilator (the default), icarus, or kiln (its own netlist interpreter)");
}

rtl::RtlsimResult rtlsim_dir(const fs::path& dir, const RtlsimCommandOptions& options) {
  rtl::RtlsimOptions o;
  o.simulator = parse_simulator(options.simulator);
  o.samples = options.samples;
  o.seed = options.seed;
  o.timeout_seconds = options.timeout_seconds;
  if (!options.inputs.empty() || !options.given.empty()) {
    const rtl::DesignDir d = rtl::load_design_dir(dir);
    if (!options.inputs.empty()) o.inputs.push_back(sample_from_files(d.model, options.inputs));
    for (const auto& sample : options.given)
      o.inputs.push_back(sample_from_tensors(d.model, sample, "sample input"));
  }
  return rtl::run_rtlsim(dir, o);
}

std::string format_rtlsim_summary(const rtl::RtlsimResult& r) {
  const rtl::SimVerdict& v = r.verdict;
  std::string s = fmt::format("kiln rtlsim: {} ({}): ", r.model, tools::to_string(r.simulator));
  if (v.bit_exact)
    s +=
        fmt::format("{} samples bit-exact with kiln's emulator ({} values)\n", v.samples, v.values);
  else
    s += fmt::format("NOT bit-exact: {} of {} values over {} samples differ from kiln's emulator\n",
                     v.mismatched_values, v.values, v.samples);
  if (!v.failure.empty()) s += v.failure + "\n";
  for (const rtl::RtlMismatch& m : v.mismatches) s += "mismatch: " + m.text() + "\n";
  if (v.mismatched_values > static_cast<int64_t>(v.mismatches.size()))
    s += fmt::format("... and {} more\n",
                     v.mismatched_values - static_cast<int64_t>(v.mismatches.size()));
  if (v.latency_cycles)
    s += fmt::format("latency: {} cycles measured{}, schedule {}: {}\n", *v.latency_cycles,
                     v.latency_uniform() ? "" : fmt::format(" (varies from {})", *v.latency_min),
                     r.schedule_latency, r.latency_agrees ? "agrees" : "DIFFERS");
  else
    s += fmt::format("latency: not measured (no sample came out), schedule {}\n",
                     r.schedule_latency);
  if (v.interval_cycles)
    s += fmt::format("interval: {} cycles measured{}, schedule {}: {}\n", *v.interval_cycles,
                     *v.interval_min == *v.interval_cycles
                         ? ""
                         : fmt::format(" (varies from {})", *v.interval_min),
                     r.schedule_interval, r.interval_agrees ? "agrees" : "DIFFERS");
  else
    s += fmt::format("interval: not measured (one sample), schedule {}\n", r.schedule_interval);
  s += fmt::format("build {:.1f} s, run {:.1f} s ({})\n", r.build_seconds, r.run_seconds,
                   r.work_dir.string());
  return s;
}

json rtlsim_to_json(const rtl::RtlsimResult& r) {
  const rtl::SimVerdict& v = r.verdict;
  json mismatches = json::array();
  for (const rtl::RtlMismatch& m : v.mismatches)
    mismatches.push_back({{"sample", m.sample},
                          {"output", m.output},
                          {"element", m.element},
                          {"rtl_hex", m.rtl_hex},
                          {"rtl_raw", m.rtl_raw ? json(*m.rtl_raw) : json(nullptr)},
                          {"emulator_raw", m.emulator_raw},
                          {"text", m.text()}});
  auto opt = [](const std::optional<int64_t>& x) { return x ? json(*x) : json(nullptr); };
  return {{"model", r.model},
          {"simulator", tools::to_string(r.simulator)},
          {"bit_exact", v.bit_exact},
          {"samples", v.samples},
          {"repeated_sample", r.repeated},
          {"values", v.values},
          {"mismatched_values", v.mismatched_values},
          {"mismatches", mismatches},
          {"failure", v.failure},
          {"latency_cycles", opt(v.latency_cycles)},
          {"latency_min_cycles", opt(v.latency_min)},
          {"latency_uniform", v.latency_uniform()},
          {"interval_cycles", opt(v.interval_cycles)},
          {"interval_min_cycles", opt(v.interval_min)},
          {"schedule",
           {{"latency_cycles", r.schedule_latency}, {"interval_cycles", r.schedule_interval}}},
          {"latency_agrees", r.latency_agrees},
          {"interval_agrees", v.interval_cycles ? json(r.interval_agrees) : json(nullptr)},
          {"build_seconds", r.build_seconds},
          {"run_seconds", r.run_seconds},
          {"work_dir", r.work_dir.string()}};
}

// ---- kiln synth -----------------------------------------------------------------

rtl::SynthOptions synth_options(const SynthCommandOptions& o) {
  if (o.whole && o.jobs)
    throw_error(ErrorKind::Usage, "kiln synth", "--whole and --jobs together",
                "--whole is one Yosys run of the whole design; --jobs N synthesizes each "
                "module in its own run, N at once");
  if (o.jobs && *o.jobs < 1)
    throw_error(ErrorKind::Usage, "kiln synth", "--jobs " + std::to_string(*o.jobs),
                "give 1 or more Yosys runs at once");
  if (o.memory_limit_gb && !(*o.memory_limit_gb > 0))
    throw_error(ErrorKind::Usage, "kiln synth",
                fmt::format("--memory-limit {}", *o.memory_limit_gb),
                "give each Yosys run a positive number of GB");
  rtl::SynthOptions r;
  r.mode = o.jobs ? rtl::SynthMode::PerModule : rtl::SynthMode::Whole;
  r.jobs = o.jobs.value_or(1);
  r.timeout_seconds = o.timeout_seconds;
  if (o.memory_limit_gb)
    r.memory_limit_bytes = static_cast<uint64_t>(*o.memory_limit_gb * double(uint64_t{1} << 30));
  return r;
}

rtl::SynthRun synth_dir(const fs::path& dir, const SynthCommandOptions& options) {
  return rtl::run_synth(dir, synth_options(options));
}

namespace {

constexpr const char* kOutOfContextNote =
    "each module synthesized out of context, the modules it instantiates as black boxes, and "
    "counted with its instances' counts; constants are not propagated across module ports, so "
    "counts can be a little higher than one run of the whole design (kiln synth --whole)";

// `text` broken at spaces into lines of at most `width` characters.
std::string wrapped(const std::string& text, std::size_t width = 100) {
  std::string out, line;
  for (const std::string& word : split_list(text, ' ')) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line + "\n";
}

double megabytes(uint64_t bytes) {
  return static_cast<double>(bytes) / double(uint64_t{1} << 20);
}

std::string memory_text(std::optional<uint64_t> bytes) {
  return bytes ? tools::memory_text(*bytes) : "no memory limit";
}

}  // namespace

std::string format_synth_table(const rtl::SynthRun& r) {
  const bool per_module = r.mode == rtl::SynthMode::PerModule;
  std::string s =
      fmt::format("kiln synth: {} (top {}), part {}: Yosys synth_xilinx -family {} ({})", r.model,
                  r.top, r.part, fpga::synth_family_name(r.family), fpga::to_string(r.family));
  if (per_module)
    s += fmt::format(", each module on its own, {} at once under {} each", r.jobs,
                     memory_text(r.memory_limit_bytes));
  else
    s += fmt::format(", the whole design under {}", memory_text(r.memory_limit_bytes));
  s += fmt::format(", {:.1f} s, peak {:.0f} MB\n\n", r.seconds, megabytes(r.peak_memory_bytes));
  const auto row = [&](const std::string& name, const fpga::Resources& c,
                       const rtl::SynthModuleRow* run) {
    std::string line = fmt::format("{:<32} {:>9.0f} {:>9.0f} {:>6.0f} {:>7.0f} {:>7.0f}", name,
                                   c.lut, c.ff, c.dsp, c.bram18, c.carry);
    if (run)
      line += fmt::format(" {:>9.1f} {:>8.0f}", run->seconds, megabytes(run->peak_memory_bytes));
    return line + "\n";
  };
  s += fmt::format("{:<32} {:>9} {:>9} {:>6} {:>7} {:>7}", "module (own cells)", "LUT", "FF", "DSP",
                   "BRAM18", "CARRY");
  s += per_module ? fmt::format(" {:>9} {:>8}\n", "seconds", "peak MB") : "\n";
  for (const rtl::SynthModuleRow& m : r.modules)
    s += row(m.module, m.cells, per_module ? &m : nullptr);
  const tools::CellCounts& t = r.total;
  s += row(per_module ? "total (Yosys, sum of modules)" : "total (Yosys)", t, nullptr);
  const fpga::Resources& e = r.estimate;
  s += row("estimate (operator library)", e, nullptr);
  s += fmt::format(
      "{:<32} {:>9} {:>9} {:>6} {:>7} {:>7}\n", "error (estimate vs Yosys)",
      percent(rtl::relative_error(e.lut, t.lut)), percent(rtl::relative_error(e.ff, t.ff)),
      percent(rtl::relative_error(e.dsp, t.dsp)), percent(rtl::relative_error(e.bram18, t.bram18)),
      percent(rtl::relative_error(e.carry, t.carry)));
  if (per_module) {
    s += "\n" + wrapped(kOutOfContextNote);
    s += "logs: " + (r.log / "<module>" / "yosys.log").string() + "\n";
  } else {
    s += "\nlog: " + r.log.string() + "\n";
  }
  return s;
}

json synth_to_json(const rtl::SynthRun& r) {
  const bool per_module = r.mode == rtl::SynthMode::PerModule;
  const tools::CellCounts& t = r.total;
  const fpga::Resources& e = r.estimate;
  json modules = json::array();
  for (const rtl::SynthModuleRow& m : r.modules) {
    json row = fpga::to_json(m.cells);
    row["module"] = m.module;
    row["with_submodules"] = fpga::to_json(m.with_submodules);  // what `estimate` counts
    row["estimate"] = m.estimate ? fpga::to_json(*m.estimate) : json(nullptr);
    // Its own Yosys run's (per module only).
    row["seconds"] = per_module ? json(m.seconds) : json(nullptr);
    row["peak_mb"] = per_module ? json(megabytes(m.peak_memory_bytes)) : json(nullptr);
    row["log"] = per_module ? json(m.log_file.string()) : json(nullptr);
    modules.push_back(row);
  }
  json j = fpga::to_json(t);
  j["model"] = r.model;
  j["top"] = r.top;
  j["part"] = r.part;
  j["family"] = fpga::synth_family_name(r.family);
  j["mode"] = enum_name(r.mode);
  j["jobs"] = r.jobs;
  j["memory_limit_gb"] =
      r.memory_limit_bytes
          ? json(static_cast<double>(*r.memory_limit_bytes) / double(uint64_t{1} << 30))
          : json(nullptr);
  j["seconds"] = r.seconds;
  j["peak_mb"] = megabytes(r.peak_memory_bytes);
  j["modules"] = modules;
  j["estimate"] = fpga::to_json(e);
  j["error"] = json::object();
  for (const fpga::ResourceField& f : fpga::kResourceFields)
    j["error"][f.key] = optional_json(rtl::relative_error(e.*f.member, t.*f.member));
  j["error_note"] = "(estimate - yosys) / yosys; null where Yosys counts 0 and the estimate not";
  j["note"] = per_module ? json(kOutOfContextNote) : json(nullptr);
  j["log"] = r.log.string();  // per module: the directory of the modules' runs
  return j;
}

}  // namespace kiln::commands

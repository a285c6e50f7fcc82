#include "kiln/commands/hls_flow.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "kiln/cgen/c_project.h"
#include "kiln/commands/test_onnx.h"
#include "kiln/fpga/devices.h"
#include "kiln/graph/ir_text.h"
#include "kiln/hls/build_model.h"
#include "kiln/hls/model_json.h"
#include "kiln/hls/ports.h"
#include "kiln/hls/prepare.h"
#include "kiln/hls/project_writer.h"
#include "kiln/onnx/load.h"
#include "kiln/onnx/npy.h"
#include "kiln/onnx/test_data.h"
#include "kiln/ref/random_inputs.h"
#include "kiln/support/atomic_dir.h"
#include "kiln/support/error.h"

namespace kiln::commands {

namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The ONNX model is copied into projects up to this size so `kiln csim DIR`
// can compare with the float model even after the original moved.
constexpr std::uintmax_t kMaxCopiedModelBytes = std::uintmax_t{256} << 20;
constexpr const char* kModelCopy = "model/model.onnx";
constexpr const char* kIrModelCopy = "model/model.kir";

}  // namespace

nlohmann::json config_paths(const std::vector<fs::path>& files) {
  nlohmann::json j = nlohmann::json::array();
  for (const fs::path& f : files) j.push_back(fs::absolute(f).string());
  return j;
}

nlohmann::json import_to_json(const onnx_import::ImportOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  if (o.batch) j["batch"] = *o.batch;
  nlohmann::json shapes = nlohmann::json::object();
  for (const auto& [name, shape] : o.input_shapes) shapes[name] = shape;
  if (!shapes.empty()) j["input_shapes"] = shapes;
  return j;
}

onnx_import::ImportOptions import_from_json(const nlohmann::json& j) {
  onnx_import::ImportOptions o;
  if (j.contains("batch")) o.batch = j["batch"].get<int64_t>();
  if (j.contains("input_shapes"))
    for (const auto& [name, shape] : j["input_shapes"].items())
      o.input_shapes[name] = shape.get<Shape>();
  return o;
}

nlohmann::json estimate_with_device(const estimate::ModelEstimate& e, const std::string& part) {
  nlohmann::json j = estimate::to_json(e);
  j["part"] = part;
  if (const std::optional<fpga::Device> d = fpga::find_device(part))
    j["device"] = fpga::device_json(part, *d);
  else
    j["device"] = nullptr;  // a project written before kiln refused unknown parts
  return j;
}

namespace {

// The project's input port named `name` (Usage naming `what` otherwise).
std::size_t input_port(const hls::Model& m, const std::string& name, const std::string& what) {
  std::string names;
  for (std::size_t i = 0; i < m.input_ports.size(); ++i) {
    if (m.input_ports[i].onnx_name == name) return i;
    names += (i ? ", " : "") + m.input_ports[i].onnx_name;
  }
  throw_error(ErrorKind::Usage, what + " " + name, "the project has no input of that name",
              "its inputs are: " + names);
}

}  // namespace

hls::Sample sample_from_tensors(const hls::Model& m,
                                const std::vector<std::pair<std::string, Tensor>>& given,
                                const std::string& what, const std::vector<std::string>& labels) {
  std::vector<Tensor> tensors(m.inputs.size());
  std::vector<std::string> where(m.inputs.size());
  std::vector<bool> bound(m.inputs.size(), false);
  for (std::size_t g = 0; g < given.size(); ++g) {
    const auto& [name, tensor] = given[g];
    const std::size_t i = input_port(m, name, what);
    if (bound[i]) throw_error(ErrorKind::Usage, what + " " + name, "input given twice", "");
    tensors[i] = tensor;
    where[i] = g < labels.size() ? labels[g] : what + " " + name;
    bound[i] = true;
  }
  for (std::size_t i = 0; i < bound.size(); ++i)
    if (!bound[i])
      throw_error(ErrorKind::Usage, "input '" + m.input_ports[i].onnx_name + "'",
                  "no " + what + " given for it", "give every input, or none for random inputs");
  return hls::sample_from_onnx(m, tensors, where);
}

hls::Sample sample_from_files(const hls::Model& m,
                              const std::vector<std::pair<std::string, fs::path>>& files) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::vector<std::string> labels;
  for (const auto& [name, path] : files) {
    input_port(m, name, "--input");  // a wrong name first, before its file is read
    tensors.emplace_back(name, onnx_import::read_tensor_file(path));
    labels.push_back(path.string());
  }
  return sample_from_tensors(m, tensors, "--input", labels);
}

hls::Granularity parse_granularity(const std::string& text) {
  if (text == "model") return hls::Granularity::Model;
  if (text == "type") return hls::Granularity::Type;
  if (text == "name") return hls::Granularity::Name;
  throw_error(ErrorKind::Usage, "--granularity " + text, "unknown granularity",
              "use model, type or name");
}

std::string default_config(const fs::path& onnx, const onnx_import::ImportOptions& import,
                           hls::Granularity granularity) {
  const hls::PreparedGraph p = hls::prepare_graph(onnx, import);
  const hls::Model m = hls::build_model(p.passed, hls::Config{}, nullptr);
  return hls::default_config_yaml(m, granularity);
}

CompileResult compile_model(const fs::path& onnx, const CompileOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.output_dir.empty())
    throw_error(ErrorKind::Usage, "kiln compile", "no output directory", "pass -o DIR");
  flow::ConfiguredModel built = flow::configure_model(onnx, options);
  const hls::PreparedGraph& p = built.prepared;
  CompileResult r;
  r.passes = p.passes;
  r.profiled = built.profiled;
  r.profile_samples = built.profile_samples;
  r.profile_source = built.profile_source;
  r.model = std::move(built.model);
  r.batch_one = p.batch_one;
  r.estimate = estimate::estimate(r.model);

  onnx_import::ImportOptions effective = options.import;
  if (p.batch_one) effective.batch = 1;
  hls::ProjectOptions po;
  po.replace_existing = options.overwrite;
  po.tb_samples = hls::testbench_samples(p.passed);
  po.estimate = estimate::to_json(r.estimate);
  std::error_code ec;
  const fs::path abs = fs::absolute(onnx, ec);
  const bool ir_text = onnx_import::is_ir_text_file(onnx);
  const fs::path data = ir_data_path(onnx);
  const bool has_data = ir_text && fs::exists(data);
  std::uintmax_t bytes = fs::file_size(onnx, ec);
  if (has_data) bytes += fs::file_size(data, ec);
  const bool copy = bytes <= kMaxCopiedModelBytes && !ec;
  const std::string copy_path = ir_text ? kIrModelCopy : kModelCopy;
  po.source = {
      {"onnx", abs.string()},
      {"onnx_copy", copy ? copy_path : ""},
      {"import", import_to_json(effective)},
      {"config", config_paths(options.configs)},
      {"profile_data", options.profile_data ? fs::absolute(*options.profile_data).string() : ""},
      {"set", options.sets}};
  if (copy)
    po.before_commit = [&](const fs::path& staging) {
      fs::create_directories(staging / "model");
      fs::copy_file(onnx, staging / copy_path);
      if (has_data) fs::copy_file(data, ir_data_path(staging / copy_path));
    };
  // Backend: bambu is seed 001's C99 from the loop IR (docs/cflow.md).
  // Style: loops is the same code as Vitis C++ with the directives as pragmas.
  if (r.model.backend == hls::Backend::Bambu || r.model.style == hls::Style::Loops)
    cgen::write_c_project(r.model, po, options.output_dir);
  else
    hls::write_project(r.model, po, options.output_dir);
  r.project = options.output_dir;
  r.seconds = seconds_since(t0);
  return r;
}

std::string format_compile_summary(const CompileResult& r) {
  const hls::Model& m = r.model;
  std::string s = fmt::format("kiln compile: {} -> {} ({}, {} layers, {} ns clock, part {})\n",
                              m.name, r.project.string(),
                              m.io_type == hls::IOType::Stream ? "io_stream" : "io_parallel",
                              m.layers.size(), m.clock_period_ns, m.part);
  std::string changed;
  for (const auto& p : r.passes)
    if (p.changed) changed += (changed.empty() ? "" : ", ") + p.name;
  s += "passes applied: " + (changed.empty() ? std::string("none") : changed) + "\n";
  if (r.batch_one) s += "the model fixes a batch > 1; compiled for one sample per call (batch 1)\n";
  if (r.profiled) s += "precision: auto fields filled from a profile of " + r.profile_source + "\n";
  if (r.profiled && r.profile_samples < 2)
    s += "warning: the profile saw one sample; ranges from one input rarely hold for others "
         "(profile more samples or data sets)\n";
  s += "\nestimate (no vendor tool; formulas in docs/estimates.md):\n";
  s += estimate::to_table(r.estimate, m.part);
  for (const std::string& w : estimate::warnings(r.estimate)) s += "warning: " + w + "\n";
  s += fmt::format("\nwritten in {:.2f} s; next: kiln csim {}\n", r.seconds, r.project.string());
  return s;
}

nlohmann::json compile_to_json(const CompileResult& r) {
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& p : r.passes) passes.push_back({{"pass", p.name}, {"changed", p.changed}});
  return {{"project", r.project.string()},
          {"model", r.model.name},
          {"passes", passes},
          {"profiled", r.profiled},
          {"profile_source", r.profile_source},
          {"device", fpga::device_json(r.model.part, fpga::device_of_part(r.model.part))},
          {"estimate", estimate_with_device(r.estimate, r.model.part)},
          {"seconds", r.seconds}};
}

CsimCommandResult csim_project(const fs::path& project, const CsimCommandOptions& options) {
  if (options.samples < 1) throw_error(ErrorKind::Usage, "--samples", "must be at least 1", "");
  if (!fs::is_directory(project))
    throw_error(ErrorKind::Io, project.string(), "not a directory",
                "pass a project written by `kiln compile`");
  const hls::ModelFile file = hls::load_model_json(project / hls::kModelJsonFile);
  CsimCommandResult r;
  r.model = file.model.name;
  hls::CsimOptions co;
  co.samples = options.samples;
  co.seed = options.seed;
  co.rebuild = options.rebuild;
  if (options.werror) co.extra_cflags.push_back("-Werror");
  if (options.compare_float && file.source.is_object()) {
    fs::path onnx;
    const std::string copy = file.source.value("onnx_copy", "");
    if (!copy.empty() && fs::exists(project / copy))
      onnx = project / copy;
    else if (fs::exists(file.source.value("onnx", "")))
      onnx = file.source.value("onnx", "");
    if (!onnx.empty()) {
      onnx_import::ImportOptions io;
      if (file.source.contains("import")) io = import_from_json(file.source["import"]);
      co.float_reference = hls::FloatReference(onnx_import::load_model(onnx, io), file.model);
      r.float_reference = onnx.string();
    }
  }
  if (!options.inputs.empty()) co.inputs.push_back(sample_from_files(file.model, options.inputs));
  for (const auto& sample : options.given)
    co.inputs.push_back(sample_from_tensors(file.model, sample, "sample input"));
  r.csim = hls::run_csim(project, file.model, co);
  // The latest run, for `kiln report --html`.
  write_text_file(project / kCsimReportFile, csim_to_json(r).dump(1) + "\n", true);
  return r;
}

std::string format_csim_summary(const CsimCommandResult& r) {
  const hls::CsimResult& c = r.csim;
  std::string s = fmt::format("kiln csim: {}: {}/{} samples bit-exact with kiln's emulator",
                              r.model, c.bit_exact_samples, c.samples);
  if (c.first_mismatch)
    s += fmt::format(
        " (first mismatch: sample {}, output {}, element {}: csim raw {} vs emulator "
        "raw {})",
        c.first_mismatch->sample, c.first_mismatch->output, c.first_mismatch->index,
        c.first_mismatch->csim_raw, c.first_mismatch->emulator_raw);
  s += "\n";
  if (c.has_reference)
    s += fmt::format(
        "against the float model ({}): max abs error {:.3g}, max rel error {:.3g}, top-1 "
        "agreement {}/{}\n",
        r.float_reference, c.max_abs_error, c.max_rel_error, c.top1_agree, c.samples);
  std::string ov;
  for (const auto& l : c.overflow)
    if (l.counts.wrapped || l.counts.saturated)
      ov += fmt::format("  {:<32} wrapped {:>8}  saturated {:>8}\n", l.layer, l.counts.wrapped,
                        l.counts.saturated);
  s += ov.empty() ? "no overflow or saturation in any layer\n"
                  : "overflow events per layer (summed over samples):\n" + ov;
  return s;
}

nlohmann::json csim_to_json(const CsimCommandResult& r) {
  nlohmann::json j = hls::to_json(r.csim);
  j["model"] = r.model;
  j["float_model"] = r.float_reference;
  return j;
}

hls::CsynthResult csynth_project(const fs::path& project, double timeout_seconds) {
  hls::CsynthOptions o;
  o.timeout_seconds = timeout_seconds;
  return hls::run_csynth(project, o);
}

std::string format_csynth_summary(const hls::CsynthResult& r) {
  const hls::CsynthReport& c = r.report;
  const auto n = [](const std::optional<int64_t>& v) {
    return v ? fmt::format("{}", *v) : std::string("-");
  };
  std::string s = fmt::format("{} ran for {:.0f} s; its report (the tool's figures, not kiln's):\n",
                              c.tool == hls::HlsTool::Vitis ? "Vitis HLS" : "Bambu", r.seconds);
  if (c.tool == hls::HlsTool::Vitis)
    s += fmt::format("  latency {} .. {} cycles, interval {}\n", n(c.latency_best),
                     n(c.latency_worst), n(c.interval));
  else
    s += fmt::format("  simulated {} cycles ({} runs), {} FSM states\n", n(c.simulated_cycles),
                     c.simulated_runs, n(c.bambu_states));
  if (c.clock_ns) s += fmt::format("  estimated clock {:.3f} ns\n", *c.clock_ns);
  s += fmt::format("  LUT {}, FF {}, DSP {}, BRAM18 {}", n(c.lut), n(c.ff), n(c.dsp), n(c.bram18));
  if (c.bambu_area) s += fmt::format(", area {} (Bambu's unit)", *c.bambu_area);
  return s + fmt::format("\nlog: {}", r.log.string());
}

nlohmann::json csynth_to_json(const hls::CsynthResult& r) {
  nlohmann::json j = hls::to_json(r.report);
  j["log"] = r.log.string();
  j["seconds"] = r.seconds;
  return j;
}

ProfileResult profile_model(const fs::path& onnx, const ProfileOptions& options) {
  if (options.samples < 1) throw_error(ErrorKind::Usage, "--samples", "must be at least 1", "");
  const hls::PreparedGraph p = hls::prepare_graph(onnx, options.import);
  std::vector<std::vector<Tensor>> samples;
  if (!options.given.empty()) {
    samples = options.given;
  } else if (options.data) {
    samples = onnx_import::read_test_data_inputs(*options.data);
  } else if (options.inputs.empty()) {
    samples = ref::random_inputs(p.passed, options.samples, options.seed);
  } else {
    std::vector<Tensor> one(p.passed.inputs.size());
    std::vector<bool> bound(one.size(), false);
    for (const auto& [name, path] : options.inputs) {
      std::size_t i = 0;
      while (i < one.size() && p.passed.value(p.passed.inputs[i]).onnx_name != name) ++i;
      if (i == one.size())
        throw_error(ErrorKind::Usage, "--input " + name, "the model has no input of that name",
                    "see `kiln info MODEL` for its inputs");
      one[i] = onnx_import::read_tensor_file(path);
      bound[i] = true;
    }
    for (std::size_t i = 0; i < one.size(); ++i)
      if (!bound[i])
        throw_error(ErrorKind::Usage,
                    "input '" + p.passed.value(p.passed.inputs[i]).onnx_name + "'",
                    "no --input given for it", "give every input or none (random inputs)");
    samples.push_back(std::move(one));
  }
  ProfileResult r;
  r.profile = hls::profile_graph(p.passed, samples, "profile " + onnx.filename().string());
  r.suggestions = hls::suggest_precisions(r.profile, options.width, options.accum_width);
  return r;
}

namespace {
std::string range_text(const hls::ValueRange& r) {
  return r.empty() ? "-" : fmt::format("[{:.3g}, {:.3g}]", r.min, r.max);
}
std::string type_text(const std::optional<numeric::FixedType>& t) {
  return t ? t->to_string() : "-";
}
}  // namespace

std::string format_profile_table(const ProfileResult& r) {
  std::string s = fmt::format(
      "profile over {} sample(s); suggested types cannot overflow on "
      "these samples (integer bits = ceil(log2 max|v|) + sign + guard)\n\n",
      r.profile.samples);
  s += fmt::format("{:<28} {:<10} {:<22} {:<22} {:<22} {:<22}\n", "layer", "op", "weights", "bias",
                   "result", "accum");
  for (std::size_t i = 0; i < r.profile.layers.size(); ++i) {
    const hls::LayerProfile& l = r.profile.layers[i];
    const hls::PrecisionSuggestion* sg = nullptr;
    for (const auto& x : r.suggestions)
      if (x.name == l.name) sg = &x;
    s += fmt::format("{:<28} {:<10} {:<22} {:<22} {:<22} {:<22}\n", l.name, l.op,
                     range_text(l.weight), range_text(l.bias), range_text(l.result),
                     range_text(l.accum));
    if (sg)
      s += fmt::format("{:<28} {:<10} {:<22} {:<22} {:<22} {:<22}\n", "", "suggest",
                       type_text(sg->weight), type_text(sg->bias), type_text(sg->result),
                       type_text(sg->accum));
  }
  return s;
}

nlohmann::json profile_to_json(const ProfileResult& r) {
  auto range = [](const hls::ValueRange& v) -> nlohmann::json {
    if (v.empty()) return nullptr;
    // The magnitudes by power of two: counts[i] values with floor(log2|v|)
    // = lo + i, over the span that has any.
    int first = hls::ValueRange::kLog2Bins, last = -1;
    for (int i = 0; i < hls::ValueRange::kLog2Bins; ++i)
      if (v.log2_counts[static_cast<std::size_t>(i)] > 0) {
        first = std::min(first, i);
        last = i;
      }
    nlohmann::json counts = nlohmann::json::array();
    for (int i = first; i <= last; ++i)
      counts.push_back(v.log2_counts[static_cast<std::size_t>(i)]);
    return {{"min", v.min},
            {"max", v.max},
            {"zeros", v.zeros},
            {"log2",
             {{"lo", last < 0 ? 0 : first + hls::ValueRange::kLowestLog2}, {"counts", counts}}}};
  };
  auto type = [](const std::optional<numeric::FixedType>& t) -> nlohmann::json {
    if (!t) return nullptr;
    return t->to_string();
  };
  nlohmann::json layers = nlohmann::json::array();
  for (const hls::LayerProfile& l : r.profile.layers) {
    nlohmann::json j = {{"name", l.name},
                        {"onnx_name", l.onnx_name},
                        {"op", l.op},
                        {"weight", range(l.weight)},
                        {"bias", range(l.bias)},
                        {"result", range(l.result)},
                        {"accum", range(l.accum)}};
    for (const auto& x : r.suggestions)
      if (x.name == l.name)
        j["suggested"] = {{"weight", type(x.weight)},
                          {"bias", type(x.bias)},
                          {"result", type(x.result)},
                          {"accum", type(x.accum)}};
    layers.push_back(j);
  }
  return {{"samples", r.profile.samples}, {"layers", layers}};
}

ReportResult report_project(const fs::path& project) {
  if (!fs::is_directory(project))
    throw_error(ErrorKind::Io, project.string(), "not a directory",
                "pass a project written by `kiln compile`");
  ReportResult r;
  r.model = hls::load_model_json(project / hls::kModelJsonFile).model;
  r.estimate = estimate::estimate(r.model);
  return r;
}

nlohmann::json report_to_json(const ReportResult& r) {
  return estimate_with_device(r.estimate, r.model.part);
}

std::string format_report(const ReportResult& r) {
  const hls::Model& m = r.model;
  std::string s = fmt::format("{}: {}, {} layers, clock {} ns, part {}\n", m.name,
                              m.io_type == hls::IOType::Stream ? "io_stream" : "io_parallel",
                              m.layers.size(), m.clock_period_ns, m.part);
  s += fmt::format("{:<28} {:<10} {:<22} {:>6} {:<9} {:<10}\n", "layer", "kind", "result", "reuse",
                   "strategy", "conv impl");
  for (const hls::Layer& l : m.layers)
    s += fmt::format("{:<28} {:<10} {:<22} {:>6} {:<9} {:<10}\n", l.name,
                     hls::layer_kind_name(l.kind()), l.precision.result.to_string(), l.reuse_factor,
                     l.strategy == hls::Strategy::Latency ? "Latency" : "Resource",
                     l.kind() == hls::LayerKind::Conv
                         ? (l.conv_impl == hls::ConvImpl::LineBuffer ? "LineBuffer" : "Encoded")
                         : "-");
  s += "\nestimate (no vendor tool; formulas in docs/estimates.md):\n";
  s += estimate::to_table(r.estimate, m.part);
  for (const std::string& w : estimate::warnings(r.estimate)) s += "warning: " + w + "\n";
  return s;
}

}  // namespace kiln::commands

namespace kiln::commands {
void write_text_file(const fs::path& path, const std::string& text, bool overwrite) {
  if (fs::exists(path) && !overwrite)
    throw_error(ErrorKind::Usage, path.string(), "file exists", "pass --force to replace it");
  write_file_atomically(path, text);
}
}  // namespace kiln::commands

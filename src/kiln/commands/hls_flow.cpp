#include "kiln/commands/hls_flow.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>

#include "kiln/commands/test_onnx.h"
#include "kiln/graph/ir_text.h"
#include "kiln/graph/layer_stats.h"
#include "kiln/hls/build_model.h"
#include "kiln/hls/model_json.h"
#include "kiln/hls/project_writer.h"
#include "kiln/onnx/load.h"
#include "kiln/onnx/npy.h"
#include "kiln/ref/interpreter.h"
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
// Multiply-accumulates the emulator spends on the testbench's expected outputs.
constexpr int64_t kTbMacBudget = 100'000'000;

int64_t layer_stats_macs(const Graph& g) {
  int64_t total = 0;
  for (const Node& n : g.nodes()) total += layer_stats(g, n).macs;
  return total;
}

bool uses_auto(const hls::LayerConfig& c) {
  for (const auto* p : {&c.weight, &c.bias, &c.result, &c.accum, &c.table, &c.inv_table})
    if (*p && (*p)->automatic) return true;
  return false;
}

bool config_uses_auto(const hls::Config& cfg) {
  if (uses_auto(cfg.model)) return true;
  for (const auto& [k, c] : cfg.by_type)
    if (uses_auto(c)) return true;
  for (const auto& [k, c] : cfg.by_name)
    if (uses_auto(c)) return true;
  return false;
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

// Element order conversions between a port's ONNX layout and the top
// function's channels-last tensor: tensor shape[i] = onnx_shape[perm[i]].
std::vector<int64_t> onnx_index_of_tensor_elements(const std::vector<int64_t>& tensor_shape,
                                                   const std::vector<int64_t>& perm) {
  const std::size_t rank = tensor_shape.size();
  std::vector<int64_t> onnx_shape(rank);
  for (std::size_t i = 0; i < rank; ++i)
    onnx_shape[static_cast<std::size_t>(perm[i])] = tensor_shape[i];
  std::vector<int64_t> onnx_strides(rank, 1);
  for (std::size_t i = rank; i-- > 1;) onnx_strides[i - 1] = onnx_strides[i] * onnx_shape[i];
  int64_t n = 1;
  for (int64_t d : tensor_shape) n *= d;
  std::vector<int64_t> map(static_cast<std::size_t>(n));
  std::vector<int64_t> idx(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t o = 0;
    for (std::size_t i = 0; i < rank; ++i)
      o += idx[i] * onnx_strides[static_cast<std::size_t>(perm[i])];
    map[static_cast<std::size_t>(e)] = o;
    for (std::size_t i = rank; i-- > 0;) {
      if (++idx[i] < tensor_shape[i]) break;
      idx[i] = 0;
    }
  }
  return map;
}

// The float model as CsimOptions::float_reference wants it.
struct FloatReference {
  std::shared_ptr<Graph> graph;
  std::shared_ptr<ref::Interpreter> interpreter;
  std::vector<std::vector<int64_t>> in_map, out_map;  // tensor element -> ONNX element

  FloatReference(Graph g, const hls::Model& m) : graph(std::make_shared<Graph>(std::move(g))) {
    interpreter = std::make_shared<ref::Interpreter>(*graph);
    if (graph->inputs.size() != m.inputs.size() || graph->outputs.size() != m.outputs.size())
      throw_error(ErrorKind::InvalidModel, "kiln_model.json",
                  "the recorded ONNX model does not match the project's ports",
                  "recompile the project with `kiln compile`");
    for (std::size_t i = 0; i < m.inputs.size(); ++i)
      in_map.push_back(onnx_index_of_tensor_elements(
          m.tensors[static_cast<std::size_t>(m.inputs[i])].shape, m.input_ports[i].perm));
    for (std::size_t i = 0; i < m.outputs.size(); ++i)
      out_map.push_back(onnx_index_of_tensor_elements(
          m.tensors[static_cast<std::size_t>(m.outputs[i])].shape, m.output_ports[i].perm));
  }

  std::vector<std::vector<double>> operator()(const hls::Sample& s) const {
    std::vector<Tensor> in;
    for (std::size_t i = 0; i < graph->inputs.size(); ++i) {
      Tensor t(graph->value(graph->inputs[i]).type);
      auto d = t.data<float>();
      for (std::size_t e = 0; e < s[i].size(); ++e)
        d[static_cast<std::size_t>(in_map[i][e])] = static_cast<float>(s[i][e]);
      in.push_back(std::move(t));
    }
    const std::vector<Tensor> out = interpreter->run(in);
    std::vector<std::vector<double>> r;
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::vector<double> v(out_map[i].size());
      for (std::size_t e = 0; e < v.size(); ++e) v[e] = out[i].as_double(out_map[i][e]);
      r.push_back(std::move(v));
    }
    return r;
  }
};

// The top function's name: --top, else the file stem (the directory's name for
// the common "model.onnx"), made a C identifier.
std::string top_name(const fs::path& onnx, const std::string& requested) {
  std::string base = requested;
  if (base.empty()) {
    base = onnx.stem().string();
    const fs::path dir = fs::absolute(onnx).parent_path();
    if (base == "model" && !dir.filename().empty()) base = dir.filename().string();
  }
  std::string id;
  for (char c : base) id.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "net_" + id;
  return id;
}

// One csim sample from NAME=FILE tensors in the ONNX layout, reordered to
// the top function's channels-last inputs.
hls::Sample sample_from_files(const hls::Model& m,
                              const std::vector<std::pair<std::string, fs::path>>& files) {
  hls::Sample sample(m.inputs.size());
  std::vector<bool> bound(m.inputs.size(), false);
  std::string names;
  for (const auto& p : m.input_ports) names += (names.empty() ? "" : ", ") + p.onnx_name;
  for (const auto& [name, path] : files) {
    std::size_t i = 0;
    while (i < m.input_ports.size() && m.input_ports[i].onnx_name != name) ++i;
    if (i == m.input_ports.size())
      throw_error(ErrorKind::Usage, "--input " + name, "the project has no input of that name",
                  "its inputs are: " + names);
    if (bound[i]) throw_error(ErrorKind::Usage, "--input " + name, "input given twice", "");
    const Tensor t = onnx_import::read_tensor_file(path);
    const hls::TensorInfo& ti = m.tensors[static_cast<std::size_t>(m.inputs[i])];
    if (t.numel() != ti.numel())
      throw_error(ErrorKind::InvalidModel, path.string(),
                  "has " + std::to_string(t.numel()) + " values, input '" + name + "' takes " +
                      std::to_string(ti.numel()),
                  "give a tensor of shape " + shape_to_string(m.input_ports[i].onnx_shape));
    const std::vector<int64_t> map = onnx_index_of_tensor_elements(ti.shape, m.input_ports[i].perm);
    sample[i].resize(map.size());
    for (std::size_t e = 0; e < map.size(); ++e) sample[i][e] = t.as_double(map[e]);
    bound[i] = true;
  }
  for (std::size_t i = 0; i < bound.size(); ++i)
    if (!bound[i])
      throw_error(ErrorKind::Usage, "input '" + m.input_ports[i].onnx_name + "'",
                  "no --input given for it", "give every input, or none for random inputs");
  return sample;
}

}  // namespace

PreparedGraph prepare_graph(const fs::path& onnx, const onnx_import::ImportOptions& import) {
  PreparedGraph p;
  p.original = onnx_import::load_model(onnx, import);
  // The HLS design takes one sample per call. A model exported with a fixed
  // batch of image-like inputs (rank >= 3: N, C, spatial...) is re-imported
  // with batch 1 unless the user chose a batch (IR text cannot be: its
  // shapes are fixed when it is written).
  if (!import.batch && !p.original.inputs.empty()) {
    bool batched = true;
    for (ValueId id : p.original.inputs) {
      const Shape& s = p.original.value(id).type.shape;
      batched = batched && s.size() >= 3 && s[0] > 1;
    }
    if (batched && onnx_import::is_ir_text_file(onnx))
      throw_error(ErrorKind::Unsupported, onnx.string(),
                  "the IR fixes a batch > 1 of image inputs; kiln's HLS designs take one sample "
                  "per call",
                  "write the IR with batch 1: kiln ir MODEL.onnx --batch 1 -o FILE.kir");
    if (batched) {
      onnx_import::ImportOptions one = import;
      one.batch = 1;
      p.original = onnx_import::load_model(onnx, one);
      p.batch_one = true;
    }
  }
  p.passed = p.original;
  p.passes = passes::run_hls_pipeline(p.passed);
  return p;
}

std::vector<std::vector<Tensor>> random_graph_inputs(const Graph& graph, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::vector<Tensor>> samples;
  for (int s = 0; s < n; ++s) {
    std::vector<Tensor> in;
    for (ValueId id : graph.inputs) {
      const TensorType& type = graph.value(id).type;
      if (type.dtype != DType::Float32)
        throw_error(ErrorKind::Unsupported, "input '" + graph.value(id).onnx_name + "'",
                    "random inputs are generated for float32 inputs only",
                    "give inputs with --input NAME=FILE");
      Tensor t(type);
      for (float& v : t.data<float>()) v = static_cast<float>(u(rng));
      in.push_back(std::move(t));
    }
    samples.push_back(std::move(in));
  }
  return samples;
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
  const PreparedGraph p = prepare_graph(onnx, import);
  const hls::Model m = hls::build_model(p.passed, hls::Config{}, nullptr);
  return hls::default_config_yaml(m, granularity);
}

CompileResult compile_model(const fs::path& onnx, const CompileOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.output_dir.empty())
    throw_error(ErrorKind::Usage, "kiln compile", "no output directory", "pass -o DIR");
  // The configuration first: a typo should not wait for the model to import.
  hls::Config cfg;
  if (options.config) cfg = hls::load_config(options.config->string());
  for (const std::string& s : options.sets) hls::apply_set(cfg, s);

  PreparedGraph p = prepare_graph(onnx, options.import);
  CompileResult r;
  r.passes = p.passes;
  std::optional<hls::Profile> profile;
  if (config_uses_auto(cfg)) {
    profile = hls::profile_graph(
        p.passed, options.profile_data
                      ? read_test_data_inputs(*options.profile_data)
                      : random_graph_inputs(p.passed, options.profile_samples, options.seed));
    r.profiled = true;
  }
  r.model = hls::build_model(p.passed, cfg, profile ? &*profile : nullptr);
  r.model.name = top_name(onnx, options.top);
  r.batch_one = p.batch_one;
  r.estimate = estimate::estimate(r.model);

  onnx_import::ImportOptions effective = options.import;
  if (p.batch_one) effective.batch = 1;
  hls::ProjectOptions po;
  po.replace_existing = options.overwrite;
  // The testbench's own expected outputs come from the emulator at compile
  // time; keep that under a few seconds for GMAC-sized models.
  const int64_t macs = std::max<int64_t>(1, layer_stats_macs(p.passed));
  po.tb_samples = static_cast<int>(std::clamp<int64_t>(kTbMacBudget / macs, 1, 8));
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
  po.source = {{"onnx", abs.string()},
               {"onnx_copy", copy ? copy_path : ""},
               {"import", import_to_json(effective)},
               {"config", options.config ? fs::absolute(*options.config).string() : ""},
               {"set", options.sets}};
  if (copy)
    po.before_commit = [&](const fs::path& staging) {
      fs::create_directories(staging / "model");
      fs::copy_file(onnx, staging / copy_path);
      if (has_data) fs::copy_file(data, ir_data_path(staging / copy_path));
    };
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
  if (r.profiled) s += "precision: auto fields filled from a profile of random inputs\n";
  s += "\nestimate (no vendor tool; formulas in docs/estimates.md):\n";
  s += estimate::to_table(r.estimate, m.part);
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
          {"estimate", estimate::to_json(r.estimate)},
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
      co.float_reference = FloatReference(onnx_import::load_model(onnx, io), file.model);
      r.float_reference = onnx.string();
    }
  }
  if (!options.inputs.empty()) co.inputs.push_back(sample_from_files(file.model, options.inputs));
  r.csim = hls::run_csim(project, file.model, co);
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

ProfileResult profile_model(const fs::path& onnx, const ProfileOptions& options) {
  if (options.samples < 1) throw_error(ErrorKind::Usage, "--samples", "must be at least 1", "");
  const PreparedGraph p = prepare_graph(onnx, options.import);
  std::vector<std::vector<Tensor>> samples;
  if (options.data) {
    samples = read_test_data_inputs(*options.data);
  } else if (options.inputs.empty()) {
    samples = random_graph_inputs(p.passed, options.samples, options.seed);
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
  r.profile = hls::profile_graph(p.passed, samples);
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
    return {{"min", v.min}, {"max", v.max}};
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
  return estimate::to_json(r.estimate);
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
                     hls::layer_kind_name(l.kind), l.precision.result.to_string(), l.reuse_factor,
                     l.strategy == hls::Strategy::Latency ? "Latency" : "Resource",
                     l.kind == hls::LayerKind::Conv
                         ? (l.conv_impl == hls::ConvImpl::LineBuffer ? "LineBuffer" : "Encoded")
                         : "-");
  s += "\nestimate (no vendor tool; formulas in docs/estimates.md):\n";
  s += estimate::to_table(r.estimate, m.part);
  return s;
}

}  // namespace kiln::commands

namespace kiln::commands {
void write_text_file(const fs::path& path, const std::string& text, bool overwrite) {
  if (fs::exists(path) && !overwrite)
    throw_error(ErrorKind::Usage, path.string(), "file exists", "pass --force to replace it");
  const fs::path tmp = path.string() + ".kiln-tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    if (!f.flush())
      throw_error(ErrorKind::Io, path.string(), "cannot write file",
                  "check that the directory exists and is writable");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw_error(ErrorKind::Io, path.string(), "cannot write file", "check permissions");
  }
}
}  // namespace kiln::commands

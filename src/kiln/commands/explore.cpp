#include "kiln/commands/explore.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kiln/commands/args.h"
#include "kiln/commands/hls_flow.h"
#include "kiln/commands/rtl_flow.h"
#include "kiln/flow/configure.h"
#include "kiln/hls/derived.h"
#include "kiln/hls/ports.h"
#include "kiln/onnx/load.h"
#include "kiln/onnx/npy.h"
#include "kiln/onnx/tensor_proto.h"
#include "kiln/onnx/test_data.h"
#include "kiln/rtl/dir/rtlsim.h"
#include "kiln/rtl/dir/synth.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/support/atomic_dir.h"
#include "kiln/support/error.h"
#include "kiln/tools/process.h"

namespace kiln::commands {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

void merge_into(YAML::Node into, const YAML::Node& from) {
  if (!from.IsMap()) return;
  for (const auto& kv : from) {
    const std::string key = kv.first.as<std::string>();
    if (kv.second.IsMap() && into[key] && into[key].IsMap())
      merge_into(into[key], kv.second);
    else
      into[key] = YAML::Clone(kv.second);
  }
}

// KEY=VALUE as a path of map keys: a LayerName or LayerType block's name may
// hold dots, so it is what lies between the block and its field
// ("Precision.<field>" or one key).
std::vector<std::string> set_path(const std::string& key) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (parts.size() >= 3 && (parts[0] == "LayerName" || parts[0] == "LayerType")) {
    const std::size_t field = parts.size() >= 4 && parts[parts.size() - 2] == "Precision" ? 2 : 1;
    std::string name = parts[1];
    for (std::size_t i = 2; i + field < parts.size(); ++i) name += "." + parts[i];
    std::vector<std::string> out{parts[0], name};
    out.insert(out.end(), parts.end() - static_cast<std::ptrdiff_t>(field), parts.end());
    return out;
  }
  return parts;
}

void set_at(YAML::Node node, const std::vector<std::string>& path, std::size_t i,
            const std::string& value) {
  if (i + 1 == path.size()) {
    node[path[i]] = value;
    return;
  }
  if (!node[path[i]] || !node[path[i]].IsMap()) node[path[i]] = YAML::Node(YAML::NodeType::Map);
  set_at(node[path[i]], path, i + 1, value);
}

// Targets the point's fixed plans replace.
void drop_targets(YAML::Node root) {
  static const char* kTargets[] = {"TargetCycles", "LatencyCycles", "ReuseFactor"};
  if (root["Model"] && root["Model"].IsMap())
    for (const char* t : kTargets) root["Model"].remove(t);
  for (const char* block : {"LayerName", "LayerType"})
    if (root[block] && root[block].IsMap())
      for (auto kv : root[block])
        if (kv.second.IsMap())
          for (const char* t : kTargets) kv.second.remove(t);
}

std::string point_name(std::size_t i) {
  return fmt::format("points/p{}.yaml", i);
}

// Single quotes for bash: the text as it is, whatever it holds.
std::string quoted(const std::string& text) {
  std::string q = "'";
  for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path kiln_executable(const ExploreCommandOptions& options) {
  if (!options.kiln_program.empty()) return fs::absolute(options.kiln_program);
  if (const char* env = std::getenv("KILN"); env && *env) return fs::absolute(env);
  if (const std::optional<fs::path> found = tools::find_program("kiln"))
    return fs::absolute(*found);
  throw_error(ErrorKind::Unsupported, "--validate", "no kiln executable to run the validations",
              "put kiln on PATH");
}

// What decides a validation's results, beyond the point's config: the model,
// the kiln that builds it (its size and time) and how it is checked.
std::string validation_context(const fs::path& onnx, const fs::path& kiln,
                               const ExploreCommandOptions& options) {
  std::error_code ec;
  const auto size = fs::file_size(kiln, ec);
  const auto time = fs::last_write_time(kiln, ec).time_since_epoch().count();
  std::string c = fmt::format("model {}\nkiln {} {} {}\nsimulator {}\nsynth {}\n",
                              dse::content_key(read_text(onnx)), kiln.string(), size, time,
                              options.simulator, !options.no_synth);
  for (const std::string& a : import_flags(options.import)) c += "import " + a + "\n";
  return c;
}

// The batch's script: task I builds the point of key I from its config with
// `kiln rtl`, simulates it and counts it, in POINTS/KEY; a point that has its
// `done` file is not run again. A failure the tools report is the point's
// result (its `failure` file); a task killed on the way leaves no `done`.
std::string validation_script(const fs::path& kiln, const fs::path& onnx,
                              const std::vector<std::string>& keys, const fs::path& points,
                              const ExploreCommandOptions& options, int synth_jobs) {
  std::string import;
  for (const std::string& a : import_flags(options.import)) import += " " + quoted(a);
  std::string key_list;
  for (const std::string& k : keys) key_list += " " + k;
  std::string s = fmt::format(
      "#!/usr/bin/env bash\n"
      "# kiln explore --validate: task I builds frontier point I from its config\n"
      "# (kiln rtl), simulates it (kiln rtlsim) and counts it (kiln synth) in\n"
      "# POINTS/KEY. Run by kiln explore's executor; a finished point is skipped.\n"
      "set -u\n"
      "keys=({})\n"
      "i=\"${{1:-${{SLURM_ARRAY_TASK_ID:?no task index}}}}\"\n"
      "p={}/\"${{keys[$i]}}\"\n"
      "kiln={}\n"
      "[ -f \"$p/done\" ] && exit 0\n"
      "rm -rf \"$p/design\" \"$p/failure\" \"$p/rtlsim.json\" \"$p/synth.json\"\n"
      "fail() {{ echo \"$1\" > \"$p/failure\"; touch \"$p/done\"; exit 0; }}\n"
      "\"$kiln\" rtl {}{} -c \"$p/config.yaml\" -o \"$p/design\" --force > \"$p/rtl.log\" 2>&1 "
      "|| fail \"kiln rtl: exit $?: $(tail -n 1 \"$p/rtl.log\")\"\n"
      "\"$kiln\" rtlsim \"$p/design\" --samples 4 --simulator {} --json > \"$p/rtlsim.json\" "
      "2> \"$p/rtlsim.log\"\n"
      "[ -s \"$p/rtlsim.json\" ] || fail \"kiln rtlsim: $(tail -n 1 \"$p/rtlsim.log\")\"\n",
      key_list, quoted(points.string()), quoted(kiln.string()), quoted(onnx.string()), import,
      options.simulator);
  if (!options.no_synth)
    s += fmt::format(
        "\"$kiln\" synth \"$p/design\" -j {} --json > \"$p/synth.json\" 2> \"$p/synth.log\" "
        "|| fail \"kiln synth: exit $?: $(tail -n 1 \"$p/synth.log\")\"\n",
        synth_jobs);
  s += "rm -rf \"$p/design/sim\"  # the simulator's build\ntouch \"$p/done\"\n";
  return s;
}

// What a finished task left in POINTS/KEY.
void read_validation(const fs::path& p, PointValidation& v) {
  if (fs::exists(p / "failure")) {
    v.failure = read_text(p / "failure");
    while (!v.failure.empty() && v.failure.back() == '\n') v.failure.pop_back();
    return;
  }
  const json sim = json::parse(read_text(p / "rtlsim.json"), nullptr, false);
  if (sim.is_discarded() || !sim.is_object()) {
    v.failure = "kiln rtlsim wrote no report";
    return;
  }
  v.bit_exact = sim.value("bit_exact", false);
  if (sim.contains("latency_cycles") && sim["latency_cycles"].is_number_integer())
    v.latency_cycles = sim["latency_cycles"].get<int64_t>();
  if (sim.contains("interval_cycles") && sim["interval_cycles"].is_number_integer())
    v.interval_cycles = sim["interval_cycles"].get<int64_t>();
  if (!sim.value("failure", std::string()).empty()) v.failure = sim["failure"].get<std::string>();
  if (fs::exists(p / "synth.json")) {
    const json y = json::parse(read_text(p / "synth.json"), nullptr, false);
    if (y.is_discarded() || !y.is_object()) {
      v.failure = "kiln synth wrote no report";
      return;
    }
    fpga::Resources r;
    r.lut = y.value("lut", 0.0);
    r.ff = y.value("ff", 0.0);
    r.dsp = y.value("dsp", 0.0);
    r.bram18 = y.value("bram18", 0.0);
    v.yosys = r;
  }
}

// The K fastest frontier points validated by the executor, their results
// read back from the work directory and their designs copied into DIR.
void validate_points(const fs::path& onnx, const ExploreCommandOptions& options,
                     const fs::path& dir, ExploreCommandResult& r) {
  const fs::path kiln = kiln_executable(options);
  const fs::path model = fs::absolute(onnx);
  r.work_dir =
      fs::absolute(options.work_dir.empty() ? fs::path(options.output_dir.string() + ".work")
                                            : options.work_dir);
  const fs::path points = r.work_dir / "points";
  const std::string context = validation_context(model, kiln, options);
  const std::size_t k =
      std::min<std::size_t>(static_cast<std::size_t>(options.validate), r.configs.size());
  std::vector<std::string> keys;
  std::vector<int> tasks;
  std::error_code ec;
  for (std::size_t i = 0; i < k; ++i) {
    const std::string config = read_text(dir / r.configs[i]);
    keys.push_back(dse::content_key(context + config));
    const fs::path p = points / keys.back();
    fs::create_directories(p, ec);
    if (ec)
      throw_error(ErrorKind::Io, p.string(), "cannot create the work directory: " + ec.message(),
                  "choose a writable --work-dir");
    if (!fs::exists(p / "done")) {
      write_file_atomically(p / "config.yaml", config);
      tasks.push_back(static_cast<int>(i));
    }
  }
  std::string all;
  for (const std::string& key : keys) all += key;
  const fs::path batch = r.work_dir / "batches" / dse::content_key(all);
  fs::create_directories(batch, ec);
  dse::ExecutorOptions eo;
  eo.kind = options.executor;
  eo.jobs = options.jobs;
  eo.sbatch_options = options.sbatch_options;
  // Yosys's runs per task: the cores left to each of the tasks at once.
  const int at_once =
      std::clamp<int>(options.jobs, 1, std::max<int>(1, static_cast<int>(tasks.size())));
  const int synth_jobs = options.executor == dse::ExecutorKind::Slurm
                             ? options.jobs
                             : std::max(1, options.jobs / at_once);
  if (options.executor == dse::ExecutorKind::Slurm) {
    bool cpus = false;
    for (const std::string& o : options.sbatch_options)
      cpus |= o.rfind("--cpus-per-task", 0) == 0 || o.rfind("-c", 0) == 0;
    if (!cpus) eo.sbatch_options.push_back(fmt::format("--cpus-per-task={}", options.jobs));
  }
  const fs::path script = batch / "validate.sh";
  write_file_atomically(script, validation_script(kiln, model, keys, points, options, synth_jobs));
  std::cerr << fmt::format("kiln explore: validating {} points ({} found in {}), executor {}\n", k,
                           k - tasks.size(), points.string(), dse::executor_name(options.executor));
  r.batch = dse::run_batch(script, tasks, batch / "logs", eo, [](const std::string& s) {
    std::cerr << "kiln explore: " << s << "\n";
  });
  for (std::size_t i = 0; i < k; ++i) {
    PointValidation v;
    v.dir = fmt::format("validated/p{}", i);
    v.key = keys[i];
    v.cached = std::find(tasks.begin(), tasks.end(), static_cast<int>(i)) == tasks.end();
    const fs::path p = points / keys[i];
    if (!fs::exists(p / "done")) {
      v.failure = "its task did not finish";
      for (const std::string& f : r.batch->failures)
        if (f.rfind(fmt::format("task {}:", i), 0) == 0) v.failure = f;
    } else {
      read_validation(p, v);
      fs::create_directories(dir / v.dir, ec);
      if (fs::exists(p / "design"))
        fs::copy(p / "design", dir / v.dir,
                 fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
      for (const char* f : {"rtlsim.json", "synth.json"})
        if (fs::exists(p / f))
          fs::copy_file(p / f, dir / v.dir / f, fs::copy_options::overwrite_existing, ec);
    }
    r.validated[i] = v;
  }
}

}  // namespace

bool is_explore_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "frontier.json", ec);
}

nlohmann::json explore_dir_json(const fs::path& dir) {
  std::ifstream in(dir / "frontier.json");
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "kiln-explore")
    throw_error(ErrorKind::InvalidModel, (dir / "frontier.json").string(),
                "is not a frontier kiln explore wrote", "run kiln explore again");
  // The chosen point's design report, for the HTML report's RTL section.
  if (j.contains("design") && j["design"].is_string()) {
    std::ifstream d(dir / j["design"].get<std::string>() / "report.json");
    json report = json::parse(d, nullptr, false);
    if (!report.is_discarded()) j["design_report"] = std::move(report);
  }
  return j;
}

std::string explore_dir_text(const fs::path& dir) {
  explore_dir_json(dir);  // checked
  std::ifstream in(dir / "frontier.txt");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

dse::AccuracyData load_accuracy_data(const std::string& spec, const fs::path& onnx,
                                     const onnx_import::ImportOptions& import,
                                     const hls::Model& model) {
  dse::AccuracyData data;
  const std::string where = "--accuracy " + spec;
  if (spec.rfind("random:", 0) == 0) {
    int n = 0;
    try {
      std::size_t used = 0;
      n = std::stoi(spec.substr(7), &used);
      if (used != spec.size() - 7) n = 0;
    } catch (const std::exception&) {
      n = 0;
    }
    if (n < 1 || n > 1000000)
      throw_error(ErrorKind::Usage, where, "expects random:N with 1 <= N <= 1000000",
                  "e.g. --accuracy random:500");
    data.samples = hls::random_samples(model, n, 1, -1.0, 1.0);
    data.source = fmt::format("{} random samples uniform in [-1, 1) (seed 1)", n);
  } else if (fs::is_directory(spec)) {
    const std::vector<fs::path> sets = onnx_import::test_data_sets(spec);
    if (sets.empty())
      throw_error(ErrorKind::Usage, where, "has no test_data_set_* directories",
                  "give ONNX test data sets, a .npy batch or random:N");
    for (const fs::path& set : sets) {
      std::vector<std::pair<std::string, Tensor>> named;
      std::vector<std::string> labels;
      for (const fs::path& f : onnx_import::numbered_tensor_files(set, "input_")) {
        std::string name;
        Tensor t = onnx_import::read_tensor_pb(f, &name);
        named.emplace_back(name, std::move(t));
        labels.push_back(f.string());
      }
      data.samples.push_back(sample_from_tensors(model, named, "--accuracy", labels));
    }
    data.source = fmt::format("the {} data sets in {}", sets.size(), spec);
  } else if (fs::is_regular_file(spec) && fs::path(spec).extension() == ".npy") {
    if (model.input_ports.size() != 1)
      throw_error(ErrorKind::Usage, where, "a .npy batch feeds a model of one input only",
                  "give ONNX test data sets for a model of several inputs");
    const Tensor batch = onnx_import::read_npy(spec);
    const int64_t n = batch.rank() > 0 ? batch.shape()[0] : 0;
    if (n < 1)
      throw_error(ErrorKind::Usage, where, "holds no samples along dimension 0",
                  "save the samples stacked: an array of shape (N, ...)");
    const int64_t each = batch.numel() / n;
    Shape shape = batch.shape();
    shape[0] = 1;
    for (int64_t s = 0; s < n; ++s) {
      std::vector<float> values(static_cast<std::size_t>(each));
      for (int64_t i = 0; i < each; ++i)
        values[static_cast<std::size_t>(i)] = static_cast<float>(batch.as_double(s * each + i));
      data.samples.push_back(hls::sample_from_onnx(model, {Tensor::from_vector(shape, values)},
                                                   {fmt::format("{} sample {}", spec, s)}));
    }
    data.source = fmt::format("the {} samples of {}", n, spec);
  } else {
    throw_error(ErrorKind::Usage, where, "is neither random:N, a directory nor a .npy file",
                "e.g. --accuracy random:500 or --accuracy models/zoo/lenet5");
  }
  const hls::FloatReference reference(onnx_import::load_model(onnx, import), model);
  for (const hls::Sample& s : data.samples) data.reference.push_back(reference(s));
  return data;
}

void set_accuracy(const std::string& data, double min_top1, double max_error,
                  ExploreCommandOptions& o) {
  if (data.empty()) {
    if (min_top1 >= 0 || max_error >= 0)
      throw_error(ErrorKind::Usage, min_top1 >= 0 ? "--min-top1" : "--max-error",
                  "needs --accuracy DATA, the samples it is measured on",
                  "e.g. --accuracy random:500 --min-top1 0.99");
    return;
  }
  o.accuracy = data;
  if (max_error >= 0) {
    o.accuracy_goal.metric = dse::AccuracyMetric::MaxError;
    o.accuracy_goal.max_error = max_error;
  } else {
    o.accuracy_goal.metric = dse::AccuracyMetric::Top1;
    o.accuracy_goal.min_top1 = min_top1 >= 0 ? min_top1 : 0.99;
  }
}

dse::Goal parse_goal(const std::string& name) {
  if (name == "latency") return dse::Goal::Latency;
  if (name == "interval") return dse::Goal::Interval;
  throw_error(ErrorKind::Usage, "--objective " + name, "is not an objective",
              "use latency or interval");
}

std::string strategy_name(dse::Strategy s) {
  switch (s) {
    case dse::Strategy::Kiln: return "kiln";
    case dse::Strategy::DeepFlexiHls: return "deepflexihls";
    case dse::Strategy::Exhaustive: return "exhaustive";
  }
  return "kiln";
}

dse::Strategy parse_strategy(const std::string& name) {
  if (name == "kiln") return dse::Strategy::Kiln;
  if (name == "deepflexihls") return dse::Strategy::DeepFlexiHls;
  if (name == "exhaustive") return dse::Strategy::Exhaustive;
  throw_error(ErrorKind::Usage, "--strategy " + name, "is not a strategy",
              "use kiln, deepflexihls or exhaustive");
}

void parse_max(const std::string& text, dse::ExploreOptions& o) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    double v = -1;
    if (eq != std::string::npos) {
      try {
        std::size_t used = 0;
        v = std::stod(item.substr(eq + 1), &used);
        if (used != item.size() - eq - 1) v = -1;
      } catch (const std::exception&) {
        v = -1;
      }
    }
    const std::string key = eq == std::string::npos ? item : item.substr(0, eq);
    if (v < 0)
      throw_error(ErrorKind::Usage, "--max " + text, "expects RESOURCE=N items, N >= 0",
                  "e.g. --max lut=90000,dsp=220");
    if (key == "lut")
      o.max_lut = v;
    else if (key == "ff")
      o.max_ff = v;
    else if (key == "dsp")
      o.max_dsp = v;
    else if (key == "bram18")
      o.max_bram18 = v;
    else
      throw_error(ErrorKind::Usage, "--max " + text, "unknown resource '" + key + "'",
                  "use lut, ff, dsp or bram18");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

std::string point_config_yaml(const std::vector<fs::path>& configs,
                              const std::vector<std::string>& sets, const std::string& plans_yaml,
                              const std::map<std::string, int64_t>& reuse_factors) {
  YAML::Node root(YAML::NodeType::Map);
  for (const fs::path& f : configs) merge_into(root, YAML::LoadFile(f.string()));
  for (const std::string& s : sets) {
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos) continue;  // configure_model has refused it already
    set_at(root, set_path(s.substr(0, eq)), 0, s.substr(eq + 1));
  }
  drop_targets(root);
  merge_into(root, YAML::Load(plans_yaml));
  for (const auto& [layer, rf] : reuse_factors) root["LayerName"][layer]["ReuseFactor"] = rf;
  YAML::Emitter out;
  out << root;
  std::string head;
  for (std::size_t i = 0; i < plans_yaml.size() && plans_yaml[i] == '#';) {
    const std::size_t nl = plans_yaml.find('\n', i);
    head += plans_yaml.substr(i, nl - i + 1);
    i = nl + 1;
  }
  return head + out.c_str() + "\n";
}

ExploreCommandResult explore_model(const fs::path& onnx, const ExploreCommandOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.output_dir.empty())
    throw_error(ErrorKind::Usage, "kiln explore", "no output directory", "pass -o DIR");
  std::error_code ec;
  if (!options.overwrite && fs::exists(options.output_dir, ec) &&
      !(fs::is_directory(options.output_dir, ec) && fs::is_empty(options.output_dir, ec)))
    throw_error(ErrorKind::Io, options.output_dir.string(), "output directory exists",
                "pass --force to replace it, or choose another -o directory");
  flow::ConfigureOptions co = options;
  if (options.part) co.sets.push_back("Part=" + *options.part);
  const flow::ConfiguredModel built = flow::configure_model(onnx, co);
  dse::ExploreOptions eo = options.explore;
  eo.jobs = options.jobs;
  const auto say = [](const std::string& s) { std::cerr << "kiln explore: " << s << "\n"; };
  const auto explore_one = [&](const hls::Model& model) {
    rtl::RtlOptions rtl_options = rtl::rtl_options(model);
    // The point's config fixes every layer's plan; the targets it drops would
    // otherwise stream the inputs (rtl/plan/options.h input_lanes).
    rtl_options.interval_targets.clear();
    rtl_options.latency_cycles.reset();
    rtl_options.fold.clear();
    return dse::explore(model, rtl_options, eo, say);
  };

  ExploreCommandResult r;
  r.model = built.model.name;
  // Each explored variant's model (the result's variant index): the reuse
  // factors each point's config gives kiln compile are its.
  std::vector<hls::Model> variant_models;
  if (!options.accuracy) {
    try {
      r.result = explore_one(built.model);
      variant_models.push_back(built.model);
    } catch (const Error& e) {
      // No design within the limits while every input sits in registers
      // (io_parallel): streamed, the inputs may leave room. Tried only when
      // the config leaves IOType to kiln.
      if (e.kind() != ErrorKind::InvalidModel || built.config.io_type_set ||
          built.model.io_type == hls::IOType::Stream)
        throw;
      say(
          fmt::format("{} with the inputs in registers (io_parallel); exploring again with the "
                      "inputs streamed (IOType=io_stream)",
                      e.what_happened()));
      co.sets.push_back("IOType=io_stream");
      hls::Model streamed = flow::configure_model(onnx, co).model;
      r.result = explore_one(streamed);
      variant_models.push_back(std::move(streamed));
      r.io_stream_chosen = true;
    }
    r.result.variants = {dse::PrecisionVariant{"as configured", {}, {}, 0}};
  } else {
    // The precision search first, then each variant's designs; one frontier.
    const dse::AccuracyData data =
        load_accuracy_data(*options.accuracy, onnx, options.import, built.model);
    say(fmt::format("accuracy on {}", data.source));
    const auto build = [&](const std::vector<std::string>& sets) {
      flow::ConfigureOptions vc = co;
      vc.sets.insert(vc.sets.end(), sets.begin(), sets.end());
      // Precision auto profiles the samples measured (random ones otherwise,
      // drawn as random:N draws them).
      if (fs::is_directory(*options.accuracy)) vc.profile_data = fs::path(*options.accuracy);
      return flow::configure_model(onnx, vc).model;
    };
    dse::PrecisionSearchOptions po;
    po.threads = options.jobs;
    int evaluations = 0;
    std::vector<dse::PrecisionVariant> variants = dse::search_precisions(
        built.model, build, data, options.accuracy_goal, po, say, &evaluations);
    std::vector<dse::ExploreResult> parts;
    std::vector<dse::PrecisionVariant> explored;
    for (const dse::PrecisionVariant& v : variants) {
      say(fmt::format("exploring precision '{}' ({} overrides)", v.name, v.sets.size()));
      try {
        hls::Model model = build(v.sets);
        parts.push_back(explore_one(model));
        explored.push_back(v);
        variant_models.push_back(std::move(model));
      } catch (const Error& e) {
        // A narrower variant with no design within the limits adds nothing.
        if (explored.empty() && &v == &variants.front()) throw;
        say(fmt::format("precision '{}' gave no design: {}", v.name, e.what()));
      }
    }
    r.result = dse::unite_variants(std::move(parts), explored, options.accuracy_goal, eo.goal);
    r.result.accuracy_source = data.source;
    r.result.precision_evaluations = evaluations;
  }
  // The point the objective picks: the first on the frontier (fewest cycles).
  r.chosen = 0;

  AtomicDir out(options.output_dir, options.overwrite);
  const fs::path& dir = out.staging();
  fs::create_directories(dir / "points");
  for (std::size_t i = 0; i < r.result.frontier.size(); ++i) {
    const dse::ExplorePoint& p = r.result.frontier[i];
    r.configs.push_back(point_name(i));
    std::vector<std::string> sets = co.sets;
    const dse::PrecisionVariant& v = r.result.variants.at(static_cast<std::size_t>(p.variant));
    sets.insert(sets.end(), v.sets.begin(), v.sets.end());
    const hls::Model& model = variant_models.at(static_cast<std::size_t>(p.variant));
    // Each product layer at the reuse factor that keeps kiln compile's
    // estimate within the point's interval (as TargetCycles picks it).
    std::map<std::string, int64_t> reuse;
    for (const hls::Layer& l : model.layers)
      if (hls::valid_reuse_factors(l).size() > 1)
        reuse[l.name] = hls::reuse_factor_for_target(model, l, p.placed.interval);
    write_file_atomically(dir / r.configs.back(),
                          point_config_yaml(co.configs, sets, p.plans_yaml, reuse));
  }
  if (options.write_design && !r.configs.empty()) {
    // The chosen point's design, built from its config alone as kiln rtl -c
    // builds it.
    say(fmt::format("building the chosen point's design ({})", r.configs[r.chosen]));
    flow::ConfigureOptions pc = co;
    pc.configs = {dir / r.configs[r.chosen]};
    pc.sets.clear();
    const RtlCommandResult design = build_rtl(flow::configure_model(onnx, pc), false);
    fs::create_directories(dir / "design");
    write_rtl_files(dir / "design", design,
                    json{{"command", "kiln explore"}, {"config", r.configs[r.chosen]}});
    r.design = "design";
  }
  for (const std::string& kind : options.emit) {
    // The chosen point as a C project, from its config alone as kiln
    // compile -c builds it.
    say(fmt::format("writing the chosen point as a {} project ({})", kind, r.configs.at(r.chosen)));
    CompileOptions c;
    static_cast<flow::ConfigureOptions&>(c) = co;
    c.configs = {dir / r.configs[r.chosen]};
    c.sets = {kind == "vitis" ? "Style=loops" : "Backend=bambu"};
    c.output_dir = dir / kind;
    compile_model(onnx, c);
    r.emitted.push_back(kind);
  }
  r.validated.resize(r.result.frontier.size());
  if (options.validate > 0) validate_points(onnx, options, dir, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_file_atomically(dir / "frontier.json", explore_to_json(r).dump(2) + "\n");
  write_file_atomically(dir / "frontier.txt", format_explore_table(r));
  out.commit();
  r.dir = options.output_dir;
  return r;
}

std::string format_explore_table(const ExploreCommandResult& r) {
  const dse::ExploreResult& x = r.result;
  std::string s = fmt::format(
      "kiln explore: {} on {}: {} layer plans priced, {} designs priced by the estimate, {} "
      "placed, {} on the frontier, in {:.1f} s ({:.0f} designs/s; {:.1f} s in all)\n",
      r.model, x.part, x.plans_priced, x.points_priced, x.points_placed, x.frontier.size(),
      x.seconds, static_cast<double>(x.points_priced) / std::max(x.seconds, 1e-3), r.seconds);
  if (!r.design.empty())
    s += fmt::format("the chosen point's design: {}/ (kiln rtlsim, kiln synth)\n", r.design);
  if (r.io_stream_chosen)
    s += "no design fit with the inputs in registers: these designs stream them "
         "(IOType: io_stream, in every point's config)\n";
  if (x.deepflexihls) {
    const dse::DeepFlexiStats& d = *x.deepflexihls;
    s += fmt::format(
        "seed 003's strategy: stage 1 looked at {} neighbour sets, {} answered after Simplify "
        "({:.2f}% fewer runs; the seed: 32.76% on LeNet), {} runs ({} failed); stage 2 placed "
        "{} selected designs and estimated {} aggregate sets, the estimate off by {:.1f}% in "
        "cycles and {:.1f}% in LUTs on the frontier placed\n",
        d.neighbours, d.simplified,
        100.0 * static_cast<double>(d.simplified) /
            static_cast<double>(std::max<int64_t>(1, d.neighbours)),
        d.runs, d.failed, d.selected_runs, d.estimated, 100 * d.cycles_error, 100 * d.lut_error);
    for (const std::string& c : d.cds) s += "  " + c + "\n";
  }
  const bool top1 = x.accuracy_goal && x.accuracy_goal->metric == dse::AccuracyMetric::Top1;
  if (x.accuracy_goal) {
    s += fmt::format("precision search: {} choices measured by the emulator on {}; explored:\n",
                     x.precision_evaluations, x.accuracy_source);
    for (const dse::PrecisionVariant& v : x.variants)
      s += fmt::format("  {:<26} top-1 {:6.2f}%  max error {:<10.4g} {:>5} bits{}\n", v.name,
                       100 * v.accuracy.top1, v.accuracy.max_error, v.bits,
                       dse::meets(v.accuracy, *x.accuracy_goal) ? "" : "  (misses the goal)");
  }
  s += fmt::format(
      "{:>4} {:>9} {:>9} {:>9} {:>7} {:>9} {:>6} {:>7}  {}{}\n", "#", "latency", "interval", "LUT",
      "LUTRAM", "FF", "DSP", "BRAM18",
      x.accuracy_goal ? fmt::format("{:>8}  {:<26} ", top1 ? "top-1" : "error", "precision") : "",
      "config");
  for (std::size_t i = 0; i < x.frontier.size(); ++i) {
    const dse::Objectives& o = x.frontier[i].placed;
    std::string acc;
    if (x.accuracy_goal) {
      const dse::PrecisionVariant& v =
          x.variants.at(static_cast<std::size_t>(x.frontier[i].variant));
      acc = fmt::format("{:>8}  {:<26} ",
                        top1 ? fmt::format("{:.2f}%", 100 * v.accuracy.top1)
                             : fmt::format("{:.3g}", v.accuracy.max_error),
                        v.name);
    }
    // LUTRAM: of the LUTs, those used as distributed RAM (checked against the part's SLICEMs).
    s += fmt::format("{:>4} {:>9} {:>9} {:>9.0f} {:>7.0f} {:>9.0f} {:>6.0f} {:>7.0f}  {}{}{}\n", i,
                     o.latency, o.interval, o.lut, x.frontier[i].resources.lutram, o.ff, o.dsp,
                     o.bram18, acc, i < r.configs.size() ? r.configs[i] : "",
                     i == r.chosen ? "  (chosen)" : "");
  }
  if (r.batch) {
    std::size_t cached = 0, validated = 0;
    for (const auto& v : r.validated) {
      validated += v.has_value();
      cached += v && v->cached;
    }
    s += fmt::format(
        "validation: {} points, {} run by the {} executor{} in {:.0f} s, {} found in {}\n",
        validated, validated - cached, dse::executor_name(r.batch->kind),
        r.batch->job_id.empty() ? "" : " (Slurm job " + r.batch->job_id + ")", r.batch->seconds,
        cached, (r.work_dir / "points").string());
  }
  for (std::size_t i = 0; i < r.validated.size(); ++i) {
    if (!r.validated[i]) continue;
    const PointValidation& v = *r.validated[i];
    const dse::Objectives& o = x.frontier[i].placed;
    if (!v.failure.empty()) {
      s += fmt::format("point {} not validated: {}\n", i, v.failure);
      continue;
    }
    s += fmt::format("point {} built in {}: {}, latency {} simulated ({} priced)", i, v.dir,
                     v.bit_exact ? "bit-exact" : "NOT bit-exact",
                     v.latency_cycles ? std::to_string(*v.latency_cycles) : "-", o.latency);
    if (v.yosys)
      s += fmt::format(
          "; Yosys LUT {:.0f} (estimate {:.0f}), FF {:.0f} ({:.0f}), DSP {:.0f} "
          "({:.0f}), BRAM18 {:.0f} ({:.0f})",
          v.yosys->lut, o.lut, v.yosys->ff, o.ff, v.yosys->dsp, o.dsp, v.yosys->bram18, o.bram18);
    s += "\n";
  }
  s += "cycles from kiln's exact schedules; resources are the operator library's estimate "
       "(kiln synth counts them with Yosys)\n";
  return s;
}

json explore_to_json(const ExploreCommandResult& r) {
  const dse::ExploreResult& x = r.result;
  const auto objectives = [](const dse::Objectives& o) {
    return json{{"latency_cycles", o.latency},
                {"interval_cycles", o.interval},
                {"lut", o.lut},
                {"ff", o.ff},
                {"dsp", o.dsp},
                {"bram18", o.bram18}};
  };
  json points = json::array();
  for (std::size_t i = 0; i < x.frontier.size(); ++i) {
    const dse::ExplorePoint& p = x.frontier[i];
    json j = objectives(p.placed);
    j["lutram"] = p.resources.lutram;  // of the LUTs, those used as distributed RAM
    const dse::PrecisionVariant& variant = x.variants.at(static_cast<std::size_t>(p.variant));
    j["accuracy"] = nullptr;
    if (x.accuracy_goal)
      j["accuracy"] = {{"top1", variant.accuracy.top1},
                       {"max_error", variant.accuracy.max_error},
                       {"samples", variant.accuracy.samples},
                       {"meets_goal", dse::meets(variant.accuracy, *x.accuracy_goal)}};
    j["precision"] = {{"variant", variant.name}, {"sets", variant.sets}};
    j["validated"] = false;
    if (i < r.validated.size() && r.validated[i]) {
      const PointValidation& v = *r.validated[i];
      json vj = {{"dir", v.dir}, {"bit_exact", v.bit_exact}};
      if (v.latency_cycles) vj["latency_cycles"] = *v.latency_cycles;
      if (v.interval_cycles) vj["interval_cycles"] = *v.interval_cycles;
      if (v.yosys) {
        json y = {{"lut", v.yosys->lut},
                  {"ff", v.yosys->ff},
                  {"dsp", v.yosys->dsp},
                  {"bram18", v.yosys->bram18}};
        vj["yosys"] = y;
        json err = json::object();
        for (const auto& [key, est, got] : {std::tuple{"lut", p.placed.lut, v.yosys->lut},
                                            std::tuple{"ff", p.placed.ff, v.yosys->ff},
                                            std::tuple{"dsp", p.placed.dsp, v.yosys->dsp},
                                            std::tuple{"bram18", p.placed.bram18, v.yosys->bram18}})
          if (const std::optional<double> e = rtl::relative_error(est, got)) err[key] = *e;
        vj["estimate_error"] = err;
      }
      if (!v.failure.empty()) vj["failure"] = v.failure;
      vj["key"] = v.key;
      vj["cached"] = v.cached;
      j["validation"] = vj;
      j["validated"] = v.failure.empty() && v.bit_exact &&
                       v.latency_cycles == std::optional<int64_t>(p.placed.latency);
    }
    j["config"] = i < r.configs.size() ? r.configs[i] : "";
    j["estimate"] = objectives(p.estimate);
    json plans = json::object();
    for (std::size_t k = 0; k < p.texts.size() && k < x.layers.size(); ++k)
      plans[x.layers[k]] = p.texts[k];
    j["plans"] = plans;
    points.push_back(std::move(j));
  }
  json layers = json::array();
  for (std::size_t k = 0; k < x.layers.size(); ++k)
    layers.push_back({{"layer", x.layers[k]}, {"frontier_plans", x.candidates[k].size()}});
  json out = {
      {"format", "kiln-explore"},
      {"version", 1},
      {"model", r.model},
      {"part", x.part},
      {"strategy", x.strategy == dse::Strategy::Kiln ? "kiln" : "deepflexihls"},
      {"points", points},
      {"chosen", r.chosen},
      {"plans_priced", x.plans_priced},
      {"points_priced", x.points_priced},
      {"points_placed", x.points_placed},
      {"layers", layers},
      {"seconds", r.seconds},
      {"search_seconds", x.seconds},
      {"design", r.design.empty() ? json(nullptr) : json(r.design)},
      {"emitted", r.emitted},
      {"io_stream_chosen", r.io_stream_chosen},
      {"dir", r.dir.string()},
      {"note",
       "cycles from kiln's exact schedules; resources are the operator library's estimate"}};
  out["capacity"] = {{"lut", x.capacity.lut},
                     {"ff", x.capacity.ff},
                     {"dsp", x.capacity.dsp},
                     {"bram18", x.capacity.bram18}};
  if (x.capacity.lutram > 0) out["capacity"]["lutram"] = x.capacity.lutram;
  if (x.accuracy_goal) {
    const dse::AccuracyGoal& g = *x.accuracy_goal;
    out["accuracy_goal"] = g.metric == dse::AccuracyMetric::Top1 ? json{{"min_top1", g.min_top1}}
                                                                 : json{{"max_error", g.max_error}};
    out["accuracy_data"] = x.accuracy_source;
    out["precision_evaluations"] = x.precision_evaluations;
    json vs = json::array();
    for (const dse::PrecisionVariant& v : x.variants)
      vs.push_back({{"variant", v.name},
                    {"sets", v.sets},
                    {"bits", v.bits},
                    {"top1", v.accuracy.top1},
                    {"max_error", v.accuracy.max_error},
                    {"meets_goal", dse::meets(v.accuracy, g)}});
    out["precision_variants"] = vs;
  }
  if (r.batch) {
    const dse::BatchRun& b = *r.batch;
    out["validation"] = {{"executor", dse::executor_name(b.kind)},
                         {"work_dir", r.work_dir.string()},
                         {"log_dir", b.log_dir.string()},
                         {"slurm_job", b.job_id},
                         {"failures", b.failures},
                         {"seconds", b.seconds}};
  }
  if (x.deepflexihls) {
    const dse::DeepFlexiStats& d = *x.deepflexihls;
    out["deepflexihls"] = {{"neighbours", d.neighbours},
                           {"simplified", d.simplified},
                           {"runs", d.runs},
                           {"failed", d.failed},
                           {"selected_runs", d.selected_runs},
                           {"estimated", d.estimated},
                           {"cycles_error", d.cycles_error},
                           {"lut_error", d.lut_error},
                           {"cds", d.cds}};
  }
  return out;
}

}  // namespace kiln::commands

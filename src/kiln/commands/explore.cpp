#include "kiln/commands/explore.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kiln/commands/rtl_flow.h"
#include "kiln/flow/configure.h"
#include "kiln/rtl/options.h"
#include "kiln/rtl/rtlsim.h"
#include "kiln/rtl/synth.h"
#include "kiln/support/atomic_dir.h"
#include "kiln/support/error.h"

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

// Builds frontier point `i` from its config alone, simulates it and counts
// it with Yosys; a failure is recorded, not thrown (the others still run).
PointValidation validate_point(const fs::path& onnx, const flow::ConfigureOptions& co,
                               const fs::path& dir, const std::string& config, int i,
                               const ExploreCommandOptions& options) {
  PointValidation v;
  v.dir = fmt::format("validated/p{}", i);
  const fs::path out = dir / v.dir;
  std::cerr << fmt::format("kiln explore: validating point {} ({})\n", i, config);
  try {
    flow::ConfigureOptions pc = co;
    pc.configs = {dir / config};
    pc.sets.clear();
    RtlCommandResult built = build_rtl(flow::configure_model(onnx, pc), true);
    fs::create_directories(out);
    write_rtl_files(out, built, json{{"command", "kiln explore --validate"}, {"config", config}});
    rtl::RtlsimOptions so;
    so.samples = 4;
    so.simulator = tools::Simulator::Kiln;
    if (options.simulator == "verilator") so.simulator = tools::Simulator::Verilator;
    if (options.simulator == "icarus") so.simulator = tools::Simulator::Icarus;
    const rtl::RtlsimResult sim = rtl::run_rtlsim(out, so);
    v.bit_exact = sim.verdict.bit_exact;
    v.latency_cycles = sim.verdict.latency_cycles;
    v.interval_cycles = sim.verdict.interval_cycles;
    if (!options.no_synth) {
      rtl::SynthOptions yo;
      yo.mode = rtl::SynthMode::PerModule;
      yo.jobs = options.jobs;
      const rtl::SynthRun run = rtl::run_synth(out, yo);
      v.yosys = static_cast<const fpga::Resources&>(run.total);
    }
  } catch (const Error& e) {
    v.failure = e.what();
  }
  return v;
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
  return j;
}

std::string explore_dir_text(const fs::path& dir) {
  explore_dir_json(dir);  // checked
  std::ifstream in(dir / "frontier.txt");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
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
                              const std::vector<std::string>& sets, const std::string& plans_yaml) {
  YAML::Node root(YAML::NodeType::Map);
  for (const fs::path& f : configs) merge_into(root, YAML::LoadFile(f.string()));
  for (const std::string& s : sets) {
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos) continue;  // configure_model has refused it already
    set_at(root, set_path(s.substr(0, eq)), 0, s.substr(eq + 1));
  }
  drop_targets(root);
  merge_into(root, YAML::Load(plans_yaml));
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
  if (options.executor != "local")
    throw_error(ErrorKind::Unsupported, "--executor " + options.executor,
                "only the local executor exists so far", "leave --executor out");
  std::error_code ec;
  if (!options.overwrite && fs::exists(options.output_dir, ec) &&
      !(fs::is_directory(options.output_dir, ec) && fs::is_empty(options.output_dir, ec)))
    throw_error(ErrorKind::Io, options.output_dir.string(), "output directory exists",
                "pass --force to replace it, or choose another -o directory");
  flow::ConfigureOptions co = options;
  if (options.part) co.sets.push_back("Part=" + *options.part);
  const flow::ConfiguredModel built = flow::configure_model(onnx, co);
  rtl::RtlOptions rtl_options = rtl::rtl_options(built.model);
  // The point's config fixes every layer's plan; the targets it drops would
  // otherwise stream the inputs (rtl/options.h input_lanes).
  rtl_options.interval_targets.clear();
  rtl_options.latency_cycles.reset();
  rtl_options.fold.clear();

  ExploreCommandResult r;
  r.model = built.model.name;
  dse::ExploreOptions eo = options.explore;
  eo.jobs = options.jobs;
  r.result = dse::explore(built.model, rtl_options, eo,
                          [](const std::string& s) { std::cerr << "kiln explore: " << s << "\n"; });
  // The point the objective picks: the first on the frontier (fewest cycles).
  r.chosen = 0;

  AtomicDir out(options.output_dir, options.overwrite);
  const fs::path& dir = out.staging();
  fs::create_directories(dir / "points");
  for (std::size_t i = 0; i < r.result.frontier.size(); ++i) {
    r.configs.push_back(point_name(i));
    write_file_atomically(dir / r.configs.back(),
                          point_config_yaml(co.configs, co.sets, r.result.frontier[i].plans_yaml));
  }
  r.validated.resize(r.result.frontier.size());
  for (int i = 0; i < options.validate && i < static_cast<int>(r.configs.size()); ++i)
    r.validated[static_cast<std::size_t>(i)] =
        validate_point(onnx, co, dir, r.configs[static_cast<std::size_t>(i)], i, options);
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
      "placed, {} on the frontier, in {:.1f} s ({:.0f} designs/s)\n",
      r.model, x.part, x.plans_priced, x.points_priced, x.points_placed, x.frontier.size(),
      r.seconds, static_cast<double>(x.points_priced) / std::max(r.seconds, 1e-3));
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
  s += fmt::format("{:>4} {:>9} {:>9} {:>9} {:>9} {:>6} {:>7}  {}\n", "#", "latency", "interval",
                   "LUT", "FF", "DSP", "BRAM18", "config");
  for (std::size_t i = 0; i < x.frontier.size(); ++i) {
    const dse::Objectives& o = x.frontier[i].placed;
    s += fmt::format("{:>4} {:>9} {:>9} {:>9.0f} {:>9.0f} {:>6.0f} {:>7.0f}  {}{}\n", i, o.latency,
                     o.interval, o.lut, o.ff, o.dsp, o.bram18,
                     i < r.configs.size() ? r.configs[i] : "", i == r.chosen ? "  (chosen)" : "");
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
    j["accuracy"] = nullptr;
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
      {"dir", r.dir.string()},
      {"note",
       "cycles from kiln's exact schedules; resources are the operator library's estimate"}};
  out["capacity"] = {{"lut", x.capacity.lut},
                     {"ff", x.capacity.ff},
                     {"dsp", x.capacity.dsp},
                     {"bram18", x.capacity.bram18}};
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

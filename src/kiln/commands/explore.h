// `kiln explore`: a model and a part in, the frontier of designs out
// (dse/explore.h), each point a config that `kiln rtl -c` builds as it is.
// DIR gets frontier.json, points/pN.yaml per frontier point and
// frontier.txt (the table printed); it appears whole or not at all.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kiln/commands/hls_flow.h"
#include "kiln/dse/executor.h"
#include "kiln/dse/explore.h"

namespace kiln::commands {

struct ExploreCommandOptions : CompileOptions {
  std::optional<std::string> part;  // --part: the config's Part
  dse::ExploreOptions explore;
  int jobs = 1;
  // --validate K: the K fastest frontier points built (DIR/validated/pN),
  // simulated bit-exact with `simulator` and, unless `no_synth`, counted by
  // Yosys per module. Each point is a task of `executor` (local: `jobs` at
  // once; slurm: a job array) running `kiln rtl`, `kiln rtlsim` and
  // `kiln synth` in `work_dir` (default DIR.work, beside DIR; under Slurm a
  // directory the nodes share), where its results stay by the point's key:
  // a run interrupted and started again validates only what is missing.
  int validate = 0;
  std::string simulator = "kiln";
  bool no_synth = false;
  dse::ExecutorKind executor = dse::ExecutorKind::Local;
  std::vector<std::string> sbatch_options;  // --sbatch: passed to sbatch as they are
  std::filesystem::path work_dir;
  // The kiln executable the tasks run (the CLI: itself; empty: $KILN, else
  // `kiln` on PATH); they get the import options as flags (import_flags).
  std::filesystem::path kiln_program;
  // --accuracy DATA: the precision search (dse/precision.h) on these
  // samples: "random:N", a directory of ONNX test_data_set_*, or a .npy of a
  // batch (a one-input model's samples along dimension 0); `accuracy_goal`
  // from --min-top1 (default 0.99) or --max-error.
  std::optional<std::string> accuracy;
  dse::AccuracyGoal accuracy_goal;
  // The chosen point's design built into DIR/design (--no-design: not).
  bool write_design = true;
  // --emit: the chosen point also written as the C projects named, each in
  // DIR/<name>: "vitis" (Style: loops, its directives as pragmas) or
  // "bambu" (seed 001's C99); docs/cflow.md.
  std::vector<std::string> emit;
};

// What validating a frontier point measured.
struct PointValidation {
  std::string dir;      // in DIR
  std::string key;      // its results' name in the work directory
  bool cached = false;  // found there, not run again
  bool bit_exact = false;
  std::optional<int64_t> latency_cycles, interval_cycles;  // simulated
  std::optional<fpga::Resources> yosys;                    // LUT, FF, DSP, BRAM18
  std::string failure;                                     // why it could not be validated
};

struct ExploreCommandResult {
  std::string model;
  dse::ExploreResult result;
  std::vector<std::string> configs;                       // per frontier point, its file in DIR
  std::vector<std::optional<PointValidation>> validated;  // per frontier point
  std::optional<dse::BatchRun> batch;                     // how the validations ran
  std::filesystem::path work_dir;
  std::size_t chosen = 0;            // the frontier point the objective picks
  std::string design;                // its design's directory in DIR ("design"), if built
  std::vector<std::string> emitted;  // the C projects written (--emit), each DIR/<name>
  // No design fit with the inputs in registers, so the frontier is of designs
  // that stream them (IOType=io_stream, in every point's config).
  bool io_stream_chosen = false;
  std::filesystem::path dir;
  double seconds = 0;
};

// The samples --accuracy names, in `model`'s inputs, and the float model's
// outputs for each (the ONNX file run by the reference interpreter).
dse::AccuracyData load_accuracy_data(const std::string& spec, const std::filesystem::path& onnx,
                                     const onnx_import::ImportOptions& import,
                                     const hls::Model& model);

// --accuracy DATA and its goal into `options` (--min-top1 or --max-error,
// < 0 when not given; either without --accuracy is a Usage error).
void set_accuracy(const std::string& data, double min_top1, double max_error,
                  ExploreCommandOptions& options);

// "latency" | "interval" (Usage error otherwise).
dse::Goal parse_goal(const std::string& name);
// "kiln" | "deepflexihls" | "exhaustive" (Usage error otherwise), and back.
dse::Strategy parse_strategy(const std::string& name);
std::string strategy_name(dse::Strategy strategy);
// "lut=90000,dsp=200" into the options' limits (Usage error otherwise).
void parse_max(const std::string& text, dse::ExploreOptions& options);

ExploreCommandResult explore_model(const std::filesystem::path& onnx,
                                   const ExploreCommandOptions& options);
std::string format_explore_table(const ExploreCommandResult& result);
nlohmann::json explore_to_json(const ExploreCommandResult& result);

// A directory `kiln explore` wrote (it has frontier.json), for `kiln report`:
// its frontier.json (with the chosen design's report.json as
// "design_report" when DIR/design exists), and its table (frontier.txt).
bool is_explore_dir(const std::filesystem::path& dir);
nlohmann::json explore_dir_json(const std::filesystem::path& dir);
std::string explore_dir_text(const std::filesystem::path& dir);

// A point's config: the -c files merged in order, the --set overrides and
// --part applied, interval and latency targets removed (every layer's plan
// is fixed), then the point's plans.yaml merged over it and each product
// layer's ReuseFactor for kiln compile (`reuse_factors`: layer -> RF; kiln
// rtl leaves layers whose plans the config fixes as they are). `kiln rtl -c`
// of it alone builds the point.
std::string point_config_yaml(const std::vector<std::filesystem::path>& configs,
                              const std::vector<std::string>& sets, const std::string& plans_yaml,
                              const std::map<std::string, int64_t>& reuse_factors = {});

}  // namespace kiln::commands

// The kiln command line: parses arguments, calls the library, prints results.
// No logic lives here; every command is a function in src/kiln/commands/.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "kiln/commands/explore.h"
#include "kiln/commands/hls_flow.h"
#include "kiln/commands/info.h"
#include "kiln/commands/ir.h"
#include "kiln/commands/layers.h"
#include "kiln/commands/netlist.h"
#include "kiln/commands/opt.h"
#include "kiln/commands/pictures.h"
#include "kiln/commands/rtl_flow.h"
#include "kiln/commands/run.h"
#include "kiln/commands/test_onnx.h"
#include "kiln/support/error.h"
#include "kiln/support/progress.h"

namespace {

using namespace kiln;

constexpr const char* kModelHelp = "Model: an ONNX file or kiln IR text (.kir, see `kiln ir`)";

// Options every command that imports a model understands.
struct ImportFlags {
  int64_t batch = 0;
  std::vector<std::string> input_shapes;

  void add_to(CLI::App* cmd) {
    cmd->add_option(
           "--batch", batch,
           "Batch size: dimension 0 of every input (default: 1 where the model leaves it open)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
    cmd->add_option("--input-shape", input_shapes,
                    "Full shape of one input, NAME=1x3x224x224 (repeatable)");
  }

  onnx_import::ImportOptions options() const {
    return commands::import_options(batch > 0 ? std::optional<int64_t>(batch) : std::nullopt,
                                    input_shapes);
  }
};

template <class Result, class Json, class Text>
void print(const Result& r, bool json, Json&& to_json, Text&& to_text) {
  if (json)
    std::cout << to_json(r).dump(2) << "\n";
  else
    std::cout << to_text(r);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kiln: compile ONNX neural networks to FPGA hardware"};
  app.set_version_flag("--version", "kiln " KILN_VERSION);
  app.require_subcommand(1);

  // ---- kiln info
  ImportFlags info_flags;
  std::string info_model;
  bool info_json = false, info_ir = false;
  CLI::App* info = app.add_subcommand("info", "Per-layer summary: shapes, parameters, MACs");
  info->add_option("MODEL", info_model, kModelHelp)->required();
  info->add_flag("--json", info_json, "Machine-readable output");
  info->add_flag("--ir", info_ir, "Also print kiln's graph IR (large constants elided)");
  info_flags.add_to(info);

  // ---- kiln run
  ImportFlags run_flags;
  std::string run_model_path, run_out;
  std::vector<std::string> run_inputs;
  bool run_json = false, run_force = false;
  int run_threads = 0, run_repeat = 1;
  CLI::App* run = app.add_subcommand("run", "Run a model with the float32 reference interpreter");
  run->add_option("MODEL", run_model_path, kModelHelp)->required();
  run->add_option("--input,-i", run_inputs,
                  "NAME=FILE, FILE a TensorProto .pb or .npy (one per input)");
  run->add_option("-o,--output-dir", run_out, "Write outputs here (same format as the inputs)");
  run->add_flag("--force", run_force, "Replace an existing output directory");
  run->add_option("--threads", run_threads, "Threads for the kernels (0 = all cores)")
      ->check(CLI::Range(0, 1024));
  run->add_option("--repeat", run_repeat, "Time this many runs and report the median")
      ->check(CLI::Range(1, 100000));
  run->add_flag("--json", run_json, "Machine-readable output");
  run_flags.add_to(run);

  // ---- kiln test-onnx
  ImportFlags test_flags;
  std::vector<std::string> test_dirs;
  bool test_json = false;
  double rtol = 1e-3, atol = 1e-5;
  CLI::App* test = app.add_subcommand(
      "test-onnx", "Check models in the ONNX backend-test layout against their expected outputs");
  test->add_option("DIR", test_dirs, "Directories holding model.onnx and test_data_set_*/")
      ->required();
  test->add_option("--rtol", rtol, "Relative tolerance (default 1e-3)")
      ->check(CLI::NonNegativeNumber);
  test->add_option("--atol", atol, "Absolute tolerance (default 1e-5)")
      ->check(CLI::NonNegativeNumber);
  test->add_flag("--json", test_json, "Machine-readable output");
  test_flags.add_to(test);

  // ---- kiln ir
  ImportFlags ir_flags;
  std::string ir_model, ir_out;
  bool ir_inline = false, ir_force = false;
  CLI::App* ir = app.add_subcommand(
      "ir", "Write a model's graph IR as text (.kir); reads .kir too and writes it back unchanged");
  ir->add_option("MODEL", ir_model, kModelHelp)->required();
  ir->add_option("-o,--output", ir_out,
                 "Write FILE (and FILE.data for large constants); without it, print a listing");
  ir->add_flag("--inline", ir_inline, "Keep every constant in the text (no FILE.data)");
  ir->add_flag("--force", ir_force, "Replace an existing file");
  ir_flags.add_to(ir);

  // ---- kiln opt
  ImportFlags opt_flags;
  std::string opt_model, opt_out, opt_passes;
  bool opt_print = false, opt_verify = false, opt_force = false, opt_json = false;
  CLI::App* opt = app.add_subcommand("opt", "Run graph passes by name and print the IR");
  opt->add_option("MODEL", opt_model, kModelHelp)->required();
  opt->add_option("--passes", opt_passes,
                  "Comma-separated pass names (default: the HLS pipeline); `kiln passes` "
                  "names them");
  opt->add_flag("--print-after-all", opt_print, "Print the IR after every pass");
  opt->add_flag("--verify-each", opt_verify,
                "Check every pass against the reference interpreter on random inputs");
  opt->add_option("-o,--output", opt_out, "Write the final IR to FILE (.kir)");
  opt->add_flag("--force", opt_force, "Replace an existing file");
  opt->add_flag("--json", opt_json, "Machine-readable summary");
  opt_flags.add_to(opt);
  bool opt_list = false;
  CLI::App* opt_list_cmd =
      app.add_subcommand("passes", "List the graph passes and the HLS layer passes");
  opt_list_cmd->add_flag("--json", opt_list, "Machine-readable output");

  // ---- kiln layers
  ImportFlags layers_flags;
  std::string layers_model, layers_out;
  std::vector<std::string> layers_sets, layers_config;
  bool layers_print = false, layers_full = false, layers_force = false, layers_json = false;
  CLI::App* layers = app.add_subcommand(
      "layers", "Print the HLS layer model a compile builds, after lowering and each layer pass");
  layers->add_option("MODEL", layers_model, kModelHelp)->required();
  layers->add_option("-c,--config", layers_config,
                     "YAML config (see `kiln config`); repeatable, later files win");
  layers->add_option("--set", layers_sets, "Override one config key, as for compile (repeatable)");
  layers->add_flag("--print-after-all", layers_print,
                   "Print the model after lowering and after every layer pass");
  layers->add_flag("--full", layers_full, "Print every constant (the text then parses back)");
  layers->add_option("-o,--output", layers_out, "Write the final model's full text to FILE");
  layers->add_flag("--force", layers_force, "Replace an existing file");
  layers->add_flag("--json", layers_json, "Machine-readable summary");
  layers_flags.add_to(layers);

  // ---- kiln config
  ImportFlags config_flags;
  std::string config_model, config_out, config_granularity = "model";
  bool config_force = false;
  CLI::App* config = app.add_subcommand(
      "config", "Write a complete default HLS config (YAML) for a model, to stdout or -o FILE");
  config->add_option("MODEL", config_model, kModelHelp)->required();
  config->add_option("--granularity", config_granularity,
                     "model: one Model block; type: also per layer type; name: also per layer");
  config->add_option("-o,--output", config_out, "Write to this file instead of stdout");
  config->add_flag("--force", config_force, "Replace an existing file");
  config_flags.add_to(config);

  // ---- kiln compile
  ImportFlags compile_flags;
  std::string compile_model_path, compile_out, compile_top, compile_profile_data;
  std::vector<std::string> compile_sets, compile_config;
  bool compile_force = false, compile_json = false;
  CLI::App* compile = app.add_subcommand(
      "compile", "Write an HLS C++ project (Vitis HLS, Bambu, g++ C simulation) and estimates");
  compile->add_option("MODEL", compile_model_path, kModelHelp)->required();
  compile->add_option("-c,--config", compile_config,
                      "YAML config (see `kiln config`); repeatable, later files win");
  compile->add_option("--set", compile_sets,
                      "Override one config key, e.g. IOType=io_stream, "
                      "Model.Precision.result=ap_fixed<18,8> (repeatable)");
  compile->add_option("-o,--output-dir", compile_out, "Project directory to create")->required();
  compile->add_option("--profile-data", compile_profile_data,
                      "For Precision: auto, profile the inputs of DIR/test_data_set_*/input_K.pb "
                      "instead of random ones");
  compile->add_option("--top", compile_top,
                      "Name of the top function (default: the model file's name)");
  compile->add_flag("--force", compile_force, "Replace an existing project directory");
  compile->add_flag("--json", compile_json, "Machine-readable output");
  compile_flags.add_to(compile);

  // ---- kiln csim
  std::string csim_dir;
  std::vector<std::string> csim_inputs;
  int csim_samples = 10;
  uint64_t csim_seed = 1;
  bool csim_werror = false, csim_rebuild = false, csim_json = false;
  CLI::App* csim = app.add_subcommand(
      "csim", "C-simulate a project with g++ and check it bit for bit against kiln's emulator");
  csim->add_option("DIR", csim_dir, "Project directory written by `kiln compile`")->required();
  csim->add_option("--samples", csim_samples, "Random inputs, uniform in [-1, 1) (default 10)")
      ->check(CLI::Range(1, 1000000));
  csim->add_option("--seed", csim_seed, "Seed of the random inputs");
  csim->add_option("--input,-i", csim_inputs,
                   "NAME=FILE (.pb or .npy, ONNX layout): simulate this sample instead");
  csim->add_flag("--werror", csim_werror, "Build the testbench with -Werror");
  csim->add_flag("--rebuild", csim_rebuild, "Rebuild the testbench even if it is up to date");
  csim->add_flag("--json", csim_json, "Machine-readable output");

  // ---- kiln csynth
  std::string csynth_dir;
  double csynth_timeout = 24 * 3600;
  bool csynth_json = false;
  CLI::App* csynth = app.add_subcommand(
      "csynth",
      "Run the HLS tool a project is for (Vitis HLS or Bambu, when on PATH) and read its report");
  csynth->add_option("DIR", csynth_dir, "Project directory written by `kiln compile`")->required();
  csynth->add_option("--timeout", csynth_timeout, "Seconds before the tool is stopped")
      ->check(CLI::PositiveNumber);
  csynth->add_flag("--json", csynth_json, "Machine-readable output");

  // ---- kiln profile
  ImportFlags profile_flags;
  std::string profile_model_path, profile_data;
  std::vector<std::string> profile_inputs;
  int profile_samples = 100;
  bool profile_json = false;
  CLI::App* profile =
      app.add_subcommand("profile", "Per-layer value ranges and suggested fixed-point precisions");
  profile->add_option("MODEL", profile_model_path, kModelHelp)->required();
  profile->add_option("--samples", profile_samples, "Random inputs in [-1, 1) (default 100)")
      ->check(CLI::Range(1, 1000000));
  profile->add_option("--input,-i", profile_inputs,
                      "NAME=FILE (.pb or .npy): profile this input instead of random ones");
  profile->add_option("--data", profile_data,
                      "Profile the inputs of DIR/test_data_set_*/input_K.pb (every data set)");
  profile->add_flag("--json", profile_json, "Machine-readable output");
  std::string profile_plot;
  bool profile_force = false;
  profile->add_option("--plot", profile_plot,
                      "Also draw the precision plot to FILE (.png, .svg or .pdf; matplotlib)");
  profile->add_flag("--force", profile_force, "Replace an existing --plot FILE");
  profile_flags.add_to(profile);

  // ---- kiln report
  std::string report_dir;
  bool report_json = false;
  CLI::App* report =
      app.add_subcommand("report", "Print a project's layers and its latency/resource estimate");
  report->add_option("DIR", report_dir, "Project directory written by `kiln compile`")->required();
  report->add_flag("--json", report_json, "Machine-readable output");
  std::string report_html;
  bool report_force = false;
  report->add_option("--html", report_html,
                     "Also write a self-contained HTML report with pictures to FILE");
  report->add_flag("--force", report_force, "Replace an existing --html FILE");

  // ---- kiln rtl
  ImportFlags rtl_flags;
  std::string rtl_model_path, rtl_out;
  std::vector<std::string> rtl_sets, rtl_config;
  bool rtl_force = false, rtl_json = false, rtl_list_loops = false, rtl_over_capacity = false;
  CLI::App* rtl_cmd = app.add_subcommand(
      "rtl", "Write kiln's own Verilog for a model: a pipelined design, testbench, Yosys script");
  rtl_cmd->add_option("MODEL", rtl_model_path, kModelHelp)->required();
  rtl_cmd->add_option("-c,--config", rtl_config,
                      "YAML config, as for compile (repeatable: a design's plans.yaml after "
                      "the config keeps its plans); RTL keys: Model.Scheduler, MultiplierLimit");
  rtl_cmd->add_option("--set", rtl_sets,
                      "Override one config key, e.g. Model.Scheduler=sdc, "
                      "LayerName.fc1.MultiplierLimit=4 (repeatable)");
  rtl_cmd->add_option("-o,--output-dir", rtl_out, "Design directory to create");
  rtl_cmd->add_flag("--list-loops", rtl_list_loops,
                    "Print every loop's stable name, trip count and directives; write nothing");
  rtl_cmd->add_flag("--force", rtl_force, "Replace an existing design directory");
  rtl_cmd->add_flag("--over-capacity", rtl_over_capacity,
                    "Write a searched design even when its estimate is over the part's capacity "
                    "(by default that is exit 2, naming each resource)");
  rtl_cmd->add_flag("--json", rtl_json, "Machine-readable output (the report.json fields)");
  rtl_flags.add_to(rtl_cmd);

  // ---- kiln explore
  ImportFlags explore_flags;
  std::string explore_model_path, explore_out, explore_part, explore_objective = "latency",
                                                             explore_max;
  std::vector<std::string> explore_sets, explore_config;
  bool explore_force = false, explore_json = false;
  commands::ExploreCommandOptions explore_opts;
  int64_t explore_max_latency = 0;
  CLI::App* explore_cmd = app.add_subcommand(
      "explore",
      "Find the frontier of designs of a model for a part: latency or interval against LUT, FF, "
      "DSP and BRAM18, each point a config kiln rtl builds");
  explore_cmd->add_option("MODEL", explore_model_path, kModelHelp)->required();
  explore_cmd->add_option("--part", explore_part, "The FPGA part (the config's Part)");
  explore_cmd->add_option("-c,--config", explore_config, "YAML config, as for rtl (repeatable)");
  explore_cmd->add_option("--set", explore_sets, "Override one config key (repeatable)");
  std::string explore_strategy = "kiln";
  explore_cmd->add_option(
      "--strategy", explore_strategy,
      "kiln (default: every layer's plans priced, designs composed and "
      "placed), deepflexihls (seed 003's two stages) or exhaustive (every design of the layers' "
      "candidates placed, up to 200,000)");
  explore_cmd->add_option("--objective", explore_objective,
                          "latency (default) or interval: the cycles the frontier trades");
  explore_cmd->add_option("--max", explore_max,
                          "Resource limits, e.g. lut=90000,dsp=220 (default: the part's)");
  explore_cmd
      ->add_option("--max-latency", explore_max_latency,
                   "The most cycles (of the objective) a point may take")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  explore_cmd
      ->add_option("--fastest", explore_opts.explore.fastest_cycles,
                   "The fewest cycles the search aims at: plans far more parallel than that "
                   "needs are not priced (default: the model's operations / 4096, at least 32)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  explore_cmd
      ->add_option("--placements", explore_opts.explore.placements,
                   "Estimated frontier points placed exactly (default 64)")
      ->check(CLI::Range(1, 100000));
  explore_cmd->add_option("--jobs,-j", explore_opts.jobs, "Cores to price on (default 1)")
      ->check(CLI::Range(1, 1024));
  int64_t explore_cache_mb = 1024;
  explore_cmd
      ->add_option("--cache-memory", explore_cache_mb,
                   "MB the layers' graphs cached for pricing may hold, shared by the --jobs "
                   "(default 1024; a graph dropped is made again when a plan needs it)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  std::string explore_executor = "local";
  explore_cmd->add_option("--executor", explore_executor,
                          "Where --validate's points run: local (default, --jobs at once) or "
                          "slurm (a job array; sbatch and squeue on PATH)");
  explore_cmd->add_option("--sbatch", explore_opts.sbatch_options,
                          "One option for sbatch, as it is, e.g. --sbatch=--partition=fpga "
                          "(repeatable)");
  explore_cmd->add_option("--work-dir", explore_opts.work_dir,
                          "Where validations run and their results stay by the point's key "
                          "(default DIR.work; under Slurm on a file system the nodes share)");
  explore_cmd
      ->add_option("--validate", explore_opts.validate,
                   "Build the K fastest frontier points (DIR/validated/pN), simulate them "
                   "bit-exact and count them with Yosys per module")
      ->check(CLI::Range(0, 1000));
  explore_cmd->add_option("--simulator", explore_opts.simulator,
                          "The validation's simulator: kiln (default), verilator or icarus");
  explore_cmd->add_flag("--no-synth", explore_opts.no_synth, "Validate without Yosys");
  std::vector<std::string> explore_emit;
  explore_cmd
      ->add_option("--emit", explore_emit,
                   "Also write the chosen point as a C project in DIR/<KIND>: vitis (the loops "
                   "as Vitis HLS C++, its directives as pragmas) or bambu (C99); repeatable")
      ->check(CLI::IsMember({"vitis", "bambu"}));
  bool explore_no_design = false;
  explore_cmd->add_flag("--no-design", explore_no_design,
                        "Do not build the chosen point's design into DIR/design");
  std::string explore_accuracy;
  double explore_min_top1 = -1, explore_max_error = -1;
  explore_cmd->add_option(
      "--accuracy", explore_accuracy,
      "Search per-layer precisions too, each measured by the emulator against the float model on "
      "these samples: random:N, a directory of ONNX test_data_set_*, or a .npy batch");
  explore_cmd
      ->add_option("--min-top1", explore_min_top1,
                   "With --accuracy: the least top-1 agreement with the float model (default 0.99)")
      ->check(CLI::Range(0.0, 1.0));
  explore_cmd
      ->add_option("--max-error", explore_max_error,
                   "With --accuracy: the largest |fixed - float| of any output value instead")
      ->check(CLI::Range(0.0, 1e300))
      ->excludes("--min-top1");
  explore_cmd->add_option("-o,--output-dir", explore_out, "Directory to create")->required();
  explore_cmd->add_flag("--force", explore_force, "Replace an existing directory");
  explore_cmd->add_flag("--json", explore_json, "Machine-readable output (frontier.json)");
  explore_flags.add_to(explore_cmd);

  // ---- kiln rtlsim
  std::string rtlsim_dir, rtlsim_simulator = "verilator";
  std::vector<std::string> rtlsim_inputs;
  int rtlsim_samples = 8;
  uint64_t rtlsim_seed = 1;
  double rtlsim_timeout = 600;
  bool rtlsim_json = false;
  CLI::App* rtlsim = app.add_subcommand(
      "rtlsim", "Simulate a design from `kiln rtl` and check it bit for bit against the emulator");
  rtlsim->add_option("DIR", rtlsim_dir, "Design directory written by `kiln rtl`")->required();
  rtlsim->add_option("--samples", rtlsim_samples, "Random inputs, uniform in [-1, 1) (default 8)")
      ->check(CLI::Range(1, 1000000));
  rtlsim->add_option("--seed", rtlsim_seed, "Seed of the random inputs");
  rtlsim->add_option("--input,-i", rtlsim_inputs,
                     "NAME=FILE (.pb or .npy, ONNX layout): simulate this sample instead");
  rtlsim->add_option("--simulator", rtlsim_simulator,
                     "verilator (default), icarus, or kiln (kiln's own netlist interpreter: no "
                     "build)");
  rtlsim
      ->add_option("--timeout", rtlsim_timeout,
                   "Seconds the simulator's build and its run may take, each (default 600)")
      ->check(CLI::Range(1.0, 86400.0));
  rtlsim->add_flag("--json", rtlsim_json, "Machine-readable output");

  // ---- kiln netlist
  std::string netlist_path, netlist_out;
  bool netlist_verify = false, netlist_force = false, netlist_json = false;
  CLI::App* netlist_cmd = app.add_subcommand(
      "netlist",
      "Read a design's netlist (netlist.knl), check it, write it again (the same bytes)");
  netlist_cmd->add_option("FILE", netlist_path, "Netlist text written by `kiln rtl` (netlist.knl)")
      ->required();
  netlist_cmd->add_flag("--verify", netlist_verify,
                        "Check every rule of the netlist's verifier (widths, drivers, loops, "
                        "memory ports); always done with -o");
  netlist_cmd->add_option("-o,--output", netlist_out, "Write the netlist again to OUT.knl");
  netlist_cmd->add_flag("--force", netlist_force, "Replace an existing -o file");
  netlist_cmd->add_flag("--json", netlist_json, "Machine-readable output");
  // ---- kiln synth
  std::string synth_dir;
  bool synth_json = false;
  CLI::App* synth = app.add_subcommand(
      "synth", "Synthesize a design from `kiln rtl` with Yosys and compare with the estimate");
  synth->add_option("DIR", synth_dir, "Design directory written by `kiln rtl`")->required();
  synth->add_flag("--json", synth_json, "Machine-readable output");
  commands::SynthCommandOptions synth_opts;
  CLI::Option* synth_jobs =
      synth
          ->add_option("--jobs,-j", synth_opts.jobs,
                       "Synthesize each module on its own (out of context, the modules it "
                       "instantiates as black boxes), N Yosys runs at once, and sum the counts")
          ->check(CLI::Range(1, 1024));
  synth
      ->add_flag("--whole", synth_opts.whole,
                 "One Yosys run of the whole design (the default without --jobs)")
      ->excludes(synth_jobs);
  synth
      ->add_option("--memory-limit", synth_opts.memory_limit_gb,
                   "GB (2^30 bytes) each Yosys run may use (default: 7/8 of the machine's "
                   "memory / N; past it: exit 3)")
      ->check(CLI::Range(0.01, 1048576.0));
  synth
      ->add_option("--timeout", synth_opts.timeout_seconds,
                   "Seconds each Yosys run may take (default 3600; past it: exit 3, too large "
                   "here)")
      ->check(CLI::Range(1.0, 604800.0));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "kiln: usage error: " << e.what() << "; run 'kiln --help'\n";
    return kExitInvalid;
  }

  // Progress lines on stderr for the long commands, when it is a terminal
  // and the output is for people (support/progress.h).
  set_progress_enabled(progress_wanted(info_json || run_json || test_json || compile_json ||
                                       csim_json || csynth_json || profile_json || report_json ||
                                       rtl_json || rtlsim_json || synth_json || opt_json ||
                                       layers_json));
  try {
    if (*info) {
      const commands::ModelInfo r =
          commands::describe_model(info_model, info_flags.options(), info_ir);
      print(r, info_json, commands::info_to_json, commands::format_info_table);
      return kExitOk;
    }
    if (*run) {
      commands::RunOptions o;
      o.import = run_flags.options();
      for (const std::string& b : run_inputs) o.inputs.push_back(commands::parse_input_binding(b));
      if (!run_out.empty()) o.output_dir = run_out;
      o.overwrite = run_force;
      o.threads = run_threads;
      o.repeat = run_repeat;
      print(commands::run_model(run_model_path, o), run_json, commands::run_to_json,
            commands::format_run_summary);
      return kExitOk;
    }
    if (*test) {
      const commands::Tolerance tol{rtol, atol};
      std::vector<commands::TestDirResult> results;
      for (const std::string& d : test_dirs) {
        results.push_back(commands::test_onnx_dir(d, tol, test_flags.options()));
        if (!test_json) std::cout << commands::format_test_line(results.back()) << std::endl;
      }
      if (test_json)
        std::cout << commands::test_run_to_json(results).dump(2) << "\n";
      else if (results.size() > 1)
        std::cout << commands::format_test_totals(results);
      return commands::test_run_exit_code(results);
    }
    if (*ir) {
      commands::IrOptions o;
      o.import = ir_flags.options();
      if (!ir_out.empty()) o.output = ir_out;
      o.inline_constants = ir_inline;
      o.overwrite = ir_force;
      std::cout << commands::format_ir(commands::write_ir(ir_model, o));
      return kExitOk;
    }
    if (*opt) {
      commands::OptOptions o;
      o.import = opt_flags.options();
      o.passes = commands::split_pass_list(opt_passes);
      o.print_after_all = opt_print;
      o.verify_each = opt_verify;
      if (!opt_out.empty()) o.output = opt_out;
      o.overwrite = opt_force;
      const commands::OptResult r = commands::optimize(opt_model, o);
      print(r, opt_json, commands::opt_to_json, commands::format_opt);
      return r.failed_pass.empty() ? kExitOk : kExitMismatch;
    }
    if (*opt_list_cmd) {
      std::cout << (opt_list ? commands::passes_to_json().dump(2) + "\n"
                             : commands::format_passes());
      return kExitOk;
    }
    if (*layers) {
      commands::LayersOptions o;
      o.import = layers_flags.options();
      for (const std::string& c : layers_config) o.configs.emplace_back(c);
      o.sets = layers_sets;
      o.print_after_all = layers_print;
      o.full = layers_full;
      if (!layers_out.empty()) o.output = layers_out;
      o.overwrite = layers_force;
      print(commands::show_layers(layers_model, o), layers_json, commands::layers_to_json,
            commands::format_layers);
      return kExitOk;
    }
    if (*config) {
      const std::string yaml = commands::default_config(
          config_model, config_flags.options(), commands::parse_granularity(config_granularity));
      if (config_out.empty()) {
        std::cout << yaml;
      } else {
        commands::write_text_file(config_out, yaml, config_force);
        std::cerr << "kiln config: wrote " << config_out << "\n";
      }
      return kExitOk;
    }
    if (*compile) {
      commands::CompileOptions o;
      o.import = compile_flags.options();
      for (const std::string& c : compile_config) o.configs.emplace_back(c);
      o.sets = compile_sets;
      o.output_dir = compile_out;
      o.overwrite = compile_force;
      o.top = compile_top;
      if (!compile_profile_data.empty()) o.profile_data = compile_profile_data;
      print(commands::compile_model(compile_model_path, o), compile_json, commands::compile_to_json,
            commands::format_compile_summary);
      return kExitOk;
    }
    if (*csim) {
      commands::CsimCommandOptions o;
      for (const std::string& b : csim_inputs) o.inputs.push_back(commands::parse_input_binding(b));
      o.samples = csim_samples;
      o.seed = csim_seed;
      o.werror = csim_werror;
      o.rebuild = csim_rebuild;
      const commands::CsimCommandResult r = commands::csim_project(csim_dir, o);
      print(r, csim_json, commands::csim_to_json, commands::format_csim_summary);
      return r.csim.bit_exact() ? kExitOk : kExitMismatch;
    }
    if (*csynth) {
      print(commands::csynth_project(csynth_dir, csynth_timeout), csynth_json,
            commands::csynth_to_json, commands::format_csynth_summary);
      return kExitOk;
    }
    if (*profile) {
      commands::ProfileOptions o;
      o.import = profile_flags.options();
      o.samples = profile_samples;
      for (const std::string& b : profile_inputs)
        o.inputs.push_back(commands::parse_input_binding(b));
      if (!profile_data.empty()) o.data = profile_data;
      if (!profile_plot.empty()) commands::check_plot_file(profile_plot, profile_force);
      const commands::ProfileResult r = commands::profile_model(profile_model_path, o);
      if (!profile_plot.empty()) commands::plot_profile_file(r, profile_plot, profile_force);
      print(r, profile_json, commands::profile_to_json, commands::format_profile_table);
      return kExitOk;
    }
    if (*rtl_cmd) {
      commands::CompileOptions o;
      o.import = rtl_flags.options();
      for (const std::string& c : rtl_config) o.configs.emplace_back(c);
      o.sets = rtl_sets;
      o.output_dir = rtl_out;
      o.overwrite = rtl_force;
      o.over_capacity = rtl_over_capacity;
      if (rtl_list_loops) {
        print(commands::list_loops(rtl_model_path, o), rtl_json, commands::loop_listing_to_json,
              commands::format_loop_listing);
        return kExitOk;
      }
      print(commands::rtl_model(rtl_model_path, o), rtl_json, commands::rtl_to_json,
            commands::format_rtl_summary);
      return kExitOk;
    }
    if (*explore_cmd) {
      commands::ExploreCommandOptions& o = explore_opts;
      o.import = explore_flags.options();
      for (const std::string& c : explore_config) o.configs.emplace_back(c);
      o.sets = explore_sets;
      o.output_dir = explore_out;
      o.overwrite = explore_force;
      if (!explore_part.empty()) o.part = explore_part;
      o.explore.goal = commands::parse_goal(explore_objective);
      o.explore.strategy = commands::parse_strategy(explore_strategy);
      if (!explore_max.empty()) commands::parse_max(explore_max, o.explore);
      if (explore_max_latency > 0) o.explore.max_cycles = explore_max_latency;
      o.explore.graph_cache_bytes = static_cast<std::size_t>(explore_cache_mb) << 20;
      o.executor = dse::parse_executor(explore_executor);
      o.write_design = !explore_no_design;
      o.emit = explore_emit;
      commands::set_accuracy(explore_accuracy, explore_min_top1, explore_max_error, o);
      std::error_code ec;
      o.kiln_program = std::filesystem::read_symlink("/proc/self/exe", ec);
      print(commands::explore_model(explore_model_path, o), explore_json, commands::explore_to_json,
            commands::format_explore_table);
      return kExitOk;
    }
    if (*rtlsim) {
      commands::RtlsimCommandOptions o;
      for (const std::string& b : rtlsim_inputs)
        o.inputs.push_back(commands::parse_input_binding(b));
      o.samples = rtlsim_samples;
      o.seed = rtlsim_seed;
      o.simulator = rtlsim_simulator;
      o.timeout_seconds = rtlsim_timeout;
      const rtl::RtlsimResult r = commands::rtlsim_dir(rtlsim_dir, o);
      print(r, rtlsim_json, commands::rtlsim_to_json, commands::format_rtlsim_summary);
      return r.verdict.bit_exact ? kExitOk : kExitMismatch;
    }
    if (*netlist_cmd) {
      commands::NetlistOptions o;
      o.verify = netlist_verify;
      if (!netlist_out.empty()) o.output = netlist_out;
      o.overwrite = netlist_force;
      print(commands::netlist_file(netlist_path, o), netlist_json, commands::netlist_to_json,
            commands::format_netlist);
      return kExitOk;
    }
    if (*synth) {
      print(commands::synth_dir(synth_dir, synth_opts), synth_json, commands::synth_to_json,
            commands::format_synth_table);
      return kExitOk;
    }
    if (*report) {
      if (!report_html.empty()) commands::write_report_html(report_dir, report_html, report_force);
      if (commands::is_explore_dir(report_dir)) {
        if (report_json)
          std::cout << commands::explore_dir_json(report_dir).dump(2) << "\n";
        else
          std::cout << commands::explore_dir_text(report_dir);
        return kExitOk;
      }
      print(commands::report_project(report_dir), report_json, commands::report_to_json,
            commands::format_report);
      return kExitOk;
    }
  } catch (const Error& e) {
    std::cerr << "kiln: " << to_string(e.kind()) << ": " << e.message() << "\n";
    return exit_code(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "kiln: out of memory; the model or its inputs are too large for this machine\n";
    return kExitInvalid;
  } catch (const std::exception& e) {
    std::cerr << "kiln: internal error: " << e.what() << "; please report this with the model\n";
    return kExitInternal;
  }
  return kExitInvalid;
}

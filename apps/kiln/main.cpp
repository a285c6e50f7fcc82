// The kiln command line: parses arguments, calls the library, prints results.
// No logic lives here; every command is a function in src/kiln/commands/.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "kiln/commands/hls_flow.h"
#include "kiln/commands/info.h"
#include "kiln/commands/run.h"
#include "kiln/commands/test_onnx.h"
#include "kiln/graph/ir_text.h"
#include "kiln/onnx/import.h"
#include "kiln/support/error.h"

namespace {

using namespace kiln;

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
    onnx_import::ImportOptions o;
    if (batch > 0) o.batch = batch;
    for (const std::string& s : input_shapes) {
      const auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0)
        throw_error(ErrorKind::Usage, "--input-shape " + s, "expected NAME=SHAPE",
                    "e.g. --input-shape input=1x3x224x224");
      o.input_shapes[s.substr(0, eq)] =
          onnx_import::parse_shape(s.substr(eq + 1), "--input-shape " + s);
    }
    return o;
  }
};

int cmd_info(const std::string& model, const ImportFlags& flags, bool json, bool ir) {
  const Graph graph = onnx_import::import_model(model, flags.options());
  const commands::ModelInfo info = commands::describe_model(graph);
  if (json) {
    std::cout << commands::info_to_json(info).dump(2) << "\n";
  } else {
    std::cout << commands::format_info_table(info);
    if (ir) std::cout << "\n" << print_graph(graph);
  }
  return kExitOk;
}

int cmd_run(const std::string& model, const ImportFlags& flags,
            const std::vector<std::string>& input_bindings, const std::string& out_dir, bool force,
            int threads, int repeat, bool json) {
  commands::RunOptions o;
  o.import = flags.options();
  for (const std::string& b : input_bindings) o.inputs.push_back(commands::parse_input_binding(b));
  if (!out_dir.empty()) o.output_dir = out_dir;
  o.overwrite = force;
  o.threads = threads;
  o.repeat = repeat;
  const commands::RunResult r = commands::run_model(model, o);
  if (json)
    std::cout << commands::run_to_json(r).dump(2) << "\n";
  else
    std::cout << commands::format_run_summary(r);
  return kExitOk;
}

// Several directories: 1 if any mismatch, else 2 if any invalid, else 3 if any
// unsupported, 4 if kiln itself failed anywhere.
int cmd_test_onnx(const std::vector<std::string>& dirs, const ImportFlags& flags, double rtol,
                  double atol, bool json) {
  const commands::Tolerance tol{rtol, atol};
  const onnx_import::ImportOptions import = flags.options();
  std::map<commands::TestStatus, int> counts;
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& d : dirs) {
    const commands::TestDirResult r = commands::test_onnx_dir(d, tol, import);
    ++counts[r.status];
    if (json)
      all.push_back(commands::test_to_json(r));
    else
      std::cout << commands::format_test_line(r) << std::endl;
  }
  using S = commands::TestStatus;
  if (json) {
    std::cout << nlohmann::json{{"results", all},
                                {"passed", counts[S::Pass]},
                                {"mismatched", counts[S::Mismatch]},
                                {"unsupported", counts[S::Unsupported]},
                                {"invalid", counts[S::Invalid]},
                                {"internal_errors", counts[S::Internal]}}
                     .dump(2)
              << "\n";
  } else if (dirs.size() > 1) {
    std::cout << fmt::format(
        "total {}: {} passed, {} mismatched, {} unsupported, {} invalid, {} internal errors\n",
        dirs.size(), counts[S::Pass], counts[S::Mismatch], counts[S::Unsupported],
        counts[S::Invalid], counts[S::Internal]);
  }
  if (counts[S::Internal]) return kExitInternal;
  if (counts[S::Mismatch]) return kExitMismatch;
  if (counts[S::Invalid]) return kExitInvalid;
  if (counts[S::Unsupported]) return kExitUnsupported;
  return kExitOk;
}

int cmd_config(const std::string& model, const ImportFlags& flags, const std::string& granularity,
               const std::string& out, bool force) {
  const std::string yaml =
      commands::default_config(model, flags.options(), commands::parse_granularity(granularity));
  if (out.empty()) {
    std::cout << yaml;
    return kExitOk;
  }
  commands::write_text_file(out, yaml, force);
  std::cerr << "kiln config: wrote " << out << "\n";
  return kExitOk;
}

int cmd_compile(const std::string& model, const ImportFlags& flags, const std::string& config,
                const std::vector<std::string>& sets, const std::string& out,
                const std::string& top, const std::string& profile_data, bool force, bool json) {
  commands::CompileOptions o;
  o.import = flags.options();
  if (!config.empty()) o.config = config;
  o.sets = sets;
  o.output_dir = out;
  o.overwrite = force;
  o.top = top;
  if (!profile_data.empty()) o.profile_data = profile_data;
  const commands::CompileResult r = commands::compile_model(model, o);
  if (json)
    std::cout << commands::compile_to_json(r).dump(2) << "\n";
  else
    std::cout << commands::format_compile_summary(r);
  return kExitOk;
}

int cmd_csim(const std::string& dir, int samples, uint64_t seed,
             const std::vector<std::string>& inputs, bool werror, bool rebuild, bool json) {
  commands::CsimCommandOptions o;
  for (const std::string& b : inputs) o.inputs.push_back(commands::parse_input_binding(b));
  o.samples = samples;
  o.seed = seed;
  o.werror = werror;
  o.rebuild = rebuild;
  const commands::CsimCommandResult r = commands::csim_project(dir, o);
  if (json)
    std::cout << commands::csim_to_json(r).dump(2) << "\n";
  else
    std::cout << commands::format_csim_summary(r);
  return r.csim.bit_exact() ? kExitOk : kExitMismatch;
}

int cmd_profile(const std::string& model, const ImportFlags& flags, int samples,
                const std::vector<std::string>& inputs, const std::string& data, bool json) {
  commands::ProfileOptions o;
  o.import = flags.options();
  o.samples = samples;
  for (const std::string& b : inputs) o.inputs.push_back(commands::parse_input_binding(b));
  if (!data.empty()) o.data = data;
  const commands::ProfileResult r = commands::profile_model(model, o);
  if (json)
    std::cout << commands::profile_to_json(r).dump(2) << "\n";
  else
    std::cout << commands::format_profile_table(r);
  return kExitOk;
}

int cmd_report(const std::string& dir, bool json) {
  const commands::ReportResult r = commands::report_project(dir);
  if (json)
    std::cout << estimate::to_json(r.estimate).dump(2) << "\n";
  else
    std::cout << commands::format_report(r);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kiln: compile ONNX neural networks to FPGA hardware"};
  app.set_version_flag("--version", "kiln 0.1.0");
  app.require_subcommand(1);

  ImportFlags info_flags, run_flags, test_flags;

  std::string info_model;
  bool info_json = false, info_ir = false;
  CLI::App* info = app.add_subcommand("info", "Per-layer summary: shapes, parameters, MACs");
  info->add_option("MODEL", info_model, "ONNX model file")->required();
  info->add_flag("--json", info_json, "Machine-readable output");
  info->add_flag("--ir", info_ir, "Also print kiln's graph IR");
  info_flags.add_to(info);

  std::string run_model_path, run_out;
  std::vector<std::string> run_inputs;
  bool run_json = false, run_force = false;
  int run_threads = 0, run_repeat = 1;
  CLI::App* run = app.add_subcommand("run", "Run a model with the float32 reference interpreter");
  run->add_option("MODEL", run_model_path, "ONNX model file")->required();
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

  ImportFlags config_flags, compile_flags, profile_flags;

  std::string config_model, config_out, config_granularity = "model";
  bool config_force = false;
  CLI::App* config = app.add_subcommand(
      "config", "Write a complete default HLS config (YAML) for a model, to stdout or -o FILE");
  config->add_option("MODEL", config_model, "ONNX model file")->required();
  config->add_option("--granularity", config_granularity,
                     "model: one Model block; type: also per layer type; name: also per layer");
  config->add_option("-o,--output", config_out, "Write to this file instead of stdout");
  config->add_flag("--force", config_force, "Replace an existing file");
  config_flags.add_to(config);

  std::string compile_model_path, compile_config, compile_out, compile_top, compile_profile_data;
  std::vector<std::string> compile_sets;
  bool compile_force = false, compile_json = false;
  CLI::App* compile = app.add_subcommand(
      "compile", "Write an HLS C++ project (Vitis HLS, Bambu, g++ C simulation) and estimates");
  compile->add_option("MODEL", compile_model_path, "ONNX model file")->required();
  compile->add_option("-c,--config", compile_config, "YAML config (see `kiln config`)");
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

  std::string profile_model_path, profile_data;
  std::vector<std::string> profile_inputs;
  int profile_samples = 100;
  bool profile_json = false;
  CLI::App* profile =
      app.add_subcommand("profile", "Per-layer value ranges and suggested fixed-point precisions");
  profile->add_option("MODEL", profile_model_path, "ONNX model file")->required();
  profile->add_option("--samples", profile_samples, "Random inputs in [-1, 1) (default 100)")
      ->check(CLI::Range(1, 1000000));
  profile->add_option("--input,-i", profile_inputs,
                      "NAME=FILE (.pb or .npy): profile this input instead of random ones");
  profile->add_option("--data", profile_data,
                      "Profile the inputs of DIR/test_data_set_*/input_K.pb (every data set)");
  profile->add_flag("--json", profile_json, "Machine-readable output");
  profile_flags.add_to(profile);

  std::string report_dir;
  bool report_json = false;
  CLI::App* report =
      app.add_subcommand("report", "Print a project's layers and its latency/resource estimate");
  report->add_option("DIR", report_dir, "Project directory written by `kiln compile`")->required();
  report->add_flag("--json", report_json, "Machine-readable output");

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

  try {
    if (*info) return cmd_info(info_model, info_flags, info_json, info_ir);
    if (*run)
      return cmd_run(run_model_path, run_flags, run_inputs, run_out, run_force, run_threads,
                     run_repeat, run_json);
    if (*test) return cmd_test_onnx(test_dirs, test_flags, rtol, atol, test_json);
    if (*config)
      return cmd_config(config_model, config_flags, config_granularity, config_out, config_force);
    if (*compile)
      return cmd_compile(compile_model_path, compile_flags, compile_config, compile_sets,
                         compile_out, compile_top, compile_profile_data, compile_force,
                         compile_json);
    if (*csim)
      return cmd_csim(csim_dir, csim_samples, csim_seed, csim_inputs, csim_werror, csim_rebuild,
                      csim_json);
    if (*profile)
      return cmd_profile(profile_model_path, profile_flags, profile_samples, profile_inputs,
                         profile_data, profile_json);
    if (*report) return cmd_report(report_dir, report_json);
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

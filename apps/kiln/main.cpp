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

#include "kiln/commands/info.h"
#include "kiln/commands/run.h"
#include "kiln/commands/test_onnx.h"
#include "kiln/graph/printer.h"
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

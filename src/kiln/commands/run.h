// `kiln run`: import a model and evaluate it with the reference interpreter.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/commands/args.h"
#include "kiln/graph/tensor.h"
#include "kiln/onnx/import.h"

namespace kiln::commands {

struct RunOptions {
  onnx_import::ImportOptions import;
  // NAME=FILE pairs; FILE is a TensorProto .pb or a .npy.
  std::vector<std::pair<std::string, std::filesystem::path>> inputs;
  // If set, outputs are written there (atomically), one file per output in the
  // format of the first input file.
  std::optional<std::filesystem::path> output_dir;
  bool overwrite = false;  // replace an existing non-empty output_dir
  int threads = 0;         // 0 = all cores
  int repeat = 1;          // timed runs (after one warm-up run when repeat > 1)
};

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

struct RunResult {
  std::vector<NamedTensor> outputs;
  double import_seconds = 0;
  double seconds_per_run = 0;  // median over `repeat` runs
  std::vector<std::filesystem::path> written;
};

RunResult run_model(const std::filesystem::path& model, const RunOptions& options);

// Short text summary: per output its type, min/max/mean and first values (argmax for vectors).
std::string format_run_summary(const RunResult& result);
nlohmann::json run_to_json(const RunResult& result);

}  // namespace kiln::commands

// The HLS commands: `kiln config`, `kiln compile`, `kiln csim`, `kiln profile`
// and `kiln report`. Each is one library call the CLI and the tests make.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/estimate/estimate.h"
#include "kiln/flow/configure.h"
#include "kiln/graph/graph.h"
#include "kiln/hls/config.h"
#include "kiln/hls/csim.h"
#include "kiln/hls/csynth.h"
#include "kiln/hls/model.h"
#include "kiln/hls/prepare.h"
#include "kiln/hls/profile.h"
#include "kiln/onnx/import.h"
#include "kiln/passes/pipeline.h"

namespace kiln::commands {

// ---- kiln config --------------------------------------------------------------
std::string default_config(const std::filesystem::path& onnx,
                           const onnx_import::ImportOptions& import, hls::Granularity granularity);
// "model" | "type" | "name" (Usage error otherwise).
hls::Granularity parse_granularity(const std::string& text);

// ---- kiln compile -------------------------------------------------------------
// The model, its config (flow/configure.h) and where the project goes; `kiln
// rtl` takes the same.
struct CompileOptions : flow::ConfigureOptions {
  std::filesystem::path output_dir;
  bool overwrite = false;
  // kiln rtl: write a searched design that does not fit the part
  // (rtl::RtlOptions::fit_part false).
  bool over_capacity = false;
};

struct CompileResult {
  hls::Model model;
  estimate::ModelEstimate estimate;
  std::filesystem::path project;
  std::vector<PassRecord> passes;
  bool profiled = false;
  std::string profile_source;  // "100 random inputs (seed 1)" or "the N data set(s) in DIR"
  int64_t profile_samples = 0;
  bool batch_one = false;
  double seconds = 0;
};

// Everything is validated (model, config, overrides) before anything is
// written; the project appears whole or not at all.
CompileResult compile_model(const std::filesystem::path& onnx, const CompileOptions& options);

std::string format_compile_summary(const CompileResult& result);
nlohmann::json compile_to_json(const CompileResult& result);

// ---- kiln csim ----------------------------------------------------------------
struct CsimCommandOptions {
  int samples = 10;
  uint64_t seed = 1;
  bool werror = false;        // build the testbench with -Werror
  bool rebuild = false;       // ignore a cached testbench binary
  bool compare_float = true;  // needs the ONNX model recorded in the project
  // NAME=FILE (.pb or .npy, the ONNX layout): simulate this one sample instead
  // of random ones; every model input must be given.
  std::vector<std::pair<std::string, std::filesystem::path>> inputs;
  // Or these samples (the Python module's arrays): per sample, every model
  // input by its ONNX name, in the ONNX layout.
  std::vector<std::vector<std::pair<std::string, Tensor>>> given;
};

struct CsimCommandResult {
  std::string model;
  hls::CsimResult csim;
  std::string float_reference;  // the ONNX file compared against, empty if none
};

// One sample from NAME=FILE tensors (.pb or .npy, the ONNX layout), reordered
// to the model's channels-last inputs; every input must be given once.
hls::Sample sample_from_files(
    const hls::Model& model,
    const std::vector<std::pair<std::string, std::filesystem::path>>& files);
// The same from named tensors; `what` names them in messages ("--input"),
// `labels` (if given, one per tensor) where each came from.
hls::Sample sample_from_tensors(const hls::Model& model,
                                const std::vector<std::pair<std::string, Tensor>>& tensors,
                                const std::string& what,
                                const std::vector<std::string>& labels = {});

// The file csim leaves its result in (`kiln csim --json`'s), in the project;
// `kiln report --html` draws it.
inline constexpr const char* kCsimReportFile = "csim_report.json";

// The config files as kiln_model.json's "source" records them (absolute paths).
nlohmann::json config_paths(const std::vector<std::filesystem::path>& files);

// The import options as recorded in kiln_model.json's "source", and back.
nlohmann::json import_to_json(const onnx_import::ImportOptions& options);
onnx_import::ImportOptions import_from_json(const nlohmann::json& j);

CsimCommandResult csim_project(const std::filesystem::path& project,
                               const CsimCommandOptions& options);
std::string format_csim_summary(const CsimCommandResult& result);
nlohmann::json csim_to_json(const CsimCommandResult& result);

// ---- kiln csynth --------------------------------------------------------------
// Runs the HLS tool the project is for (hls/csynth.h) and reads its report.
hls::CsynthResult csynth_project(const std::filesystem::path& project, double timeout_seconds);
std::string format_csynth_summary(const hls::CsynthResult& result);
nlohmann::json csynth_to_json(const hls::CsynthResult& result);

// ---- kiln profile -------------------------------------------------------------
struct ProfileOptions {
  onnx_import::ImportOptions import;
  int samples = 100;
  uint64_t seed = 1;
  // NAME=FILE inputs (one sample) instead of random ones.
  std::vector<std::pair<std::string, std::filesystem::path>> inputs;
  // Or every data set of a directory in the ONNX backend-test layout.
  std::optional<std::filesystem::path> data;
  // Or these samples, each one tensor per graph input in order.
  std::vector<std::vector<Tensor>> given;
  int width = 16;
  int accum_width = 32;
};

struct ProfileResult {
  hls::Profile profile;
  std::vector<hls::PrecisionSuggestion> suggestions;
};

ProfileResult profile_model(const std::filesystem::path& onnx, const ProfileOptions& options);
std::string format_profile_table(const ProfileResult& result);
nlohmann::json profile_to_json(const ProfileResult& result);

// ---- kiln report --------------------------------------------------------------

// estimate::to_json with the part and its device's capacity ("device": null
// for a part kiln does not know).
nlohmann::json estimate_with_device(const estimate::ModelEstimate& estimate,
                                    const std::string& part);
struct ReportResult {
  hls::Model model;
  estimate::ModelEstimate estimate;
};
ReportResult report_project(const std::filesystem::path& project);
std::string format_report(const ReportResult& result);
nlohmann::json report_to_json(const ReportResult& result);

}  // namespace kiln::commands

namespace kiln::commands {
// Writes `text` to `path` (via a temporary file and rename). Refuses to replace
// an existing file unless `overwrite` (Usage error naming the file).
void write_text_file(const std::filesystem::path& path, const std::string& text, bool overwrite);
}  // namespace kiln::commands

// C simulation of a written project (`kiln csim DIR`): build the testbench
// with g++, run it on random or given inputs, and compare it with kiln's
// bit-exact emulator (must agree on every bit) and, optionally, with the
// float model (error and top-1 agreement). docs/project.md describes the files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kiln/hls/emulate/emulator.h"
#include "kiln/hls/model.h"

namespace kiln::hls {

// One sample: one vector per model input (Model::inputs order), channels-last.
using Sample = std::vector<std::vector<double>>;

struct CsimOptions {
  int samples = 10;  // random samples when `inputs` is empty
  uint64_t seed = 1;
  double input_min = -1.0, input_max = 1.0;  // uniform in [min, max)
  std::vector<Sample> inputs;                // given inputs (used instead of random)
  // The float model: outputs (Model::outputs order, channels-last) for one
  // sample. Empty: no float comparison.
  std::function<std::vector<std::vector<double>>(const Sample&)> float_reference;
  std::vector<std::string> extra_cflags;  // e.g. {"-Werror"}
  bool rebuild = false;                   // ignore the cached build/kiln_csim
  double build_timeout_seconds = 1800;
  double run_timeout_seconds = 1800;
};

struct CsimMismatch {
  int sample = 0;
  int output = 0;     // position in Model::outputs
  int64_t index = 0;  // element, channels-last
  int64_t csim_raw = 0, emulator_raw = 0;
};

struct LayerOverflow {
  std::string layer;
  OverflowCounts counts;  // summed over samples
};

struct CsimResult {
  int samples = 0;
  int bit_exact_samples = 0;
  int64_t mismatched_values = 0;
  std::optional<CsimMismatch> first_mismatch;
  bool has_reference = false;  // the float comparison below was made
  double max_abs_error = 0;    // |csim - float| over all outputs and samples
  // max |csim - float| / max|float| per sample and output (relative to the
  // output's scale, so tiny reference values do not dominate).
  double max_rel_error = 0;
  int top1_agree = 0;                   // samples whose first output has the same argmax
  std::vector<LayerOverflow> overflow;  // Model::layers order
  // What the C simulation computed: per sample, per output (Model::outputs
  // order), its values channels-last.
  std::vector<std::vector<std::vector<double>>> outputs;
  // |csim - float| of every output value of every sample (with a reference).
  std::vector<double> errors;
  bool rebuilt = false;  // the testbench was compiled this run
  double build_seconds = 0, run_seconds = 0;
  bool bit_exact() const { return samples > 0 && bit_exact_samples == samples; }
};

// Throws kiln::Error: InvalidModel for bad inputs, Io for file problems,
// Unsupported if no C++ compiler is found, Internal if the project fails to
// compile or the testbench fails (with the compiler's first lines).
CsimResult run_csim(const std::filesystem::path& project_dir, const Model& model,
                    const CsimOptions& options);

nlohmann::json to_json(const CsimResult& result);

// ---- pieces shared with the project writer (testable on their own) ---------

// `n` samples uniform in [lo, hi) from mt19937_64(seed) (53-bit doubles, the
// same on every platform).
std::vector<Sample> random_samples(const Model& model, int n, uint64_t seed, double lo, double hi);
// One line of tb_data/inputs.txt: all inputs concatenated, "%.17g" (exact).
std::string format_input_line(const Sample& sample);
// One line of tb_data/expected_raw.txt: raw values of all outputs.
std::string format_raw_line(const std::vector<FixedTensor>& outputs);
// Parses tb_data/csim_results.txt: per line, the raw integers before '|'.
// Error(Internal) naming `where` on malformed lines or a wrong count.
std::vector<std::vector<int64_t>> parse_results(const std::string& text,
                                                std::size_t values_per_line,
                                                const std::string& where);

}  // namespace kiln::hls

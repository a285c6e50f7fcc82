// The front half every flow shares: a model and its configuration read once
// into the configured layer model. `kiln compile`, `kiln rtl` and `kiln
// layers` call it (and the Python module through them); commands/ sits
// above it, and no command calls another for it. The config files are merged and the --set
// overrides applied first, so a typo is reported before the model loads; the
// model is imported and prepared (hls/prepare.h); "Precision: auto" fields
// are profiled on data sets or random inputs; then the config is resolved
// into the layer model (hls/build_model.h), which carries every setting the
// later steps read, kiln rtl's included (hls/rtl_settings.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kiln/hls/build_model.h"
#include "kiln/hls/config.h"
#include "kiln/hls/model.h"
#include "kiln/hls/prepare.h"
#include "kiln/hls/profile.h"
#include "kiln/onnx/import.h"

namespace kiln::flow {

// Where a configured model comes from, besides the model file.
struct ConfigureOptions {
  onnx_import::ImportOptions import;
  std::vector<std::filesystem::path> configs;  // -c FILE, merged in order (later keys win)
  std::vector<std::string> sets;               // KEY=VALUE overrides, applied after the files
  int profile_samples = 100;                   // random inputs profiled when a precision is "auto"
  uint64_t seed = 1;
  // Profile these inputs instead (a directory of test_data_set_*/input_K.pb).
  std::optional<std::filesystem::path> profile_data;
  std::string top;  // top function name; default from the file name
};

// The config: each FILE in order (later keys win, as in one merged file),
// then each KEY=VALUE override in order.
hls::Config load_config(const std::vector<std::filesystem::path>& files,
                        const std::vector<std::string>& sets);

// The profile "Precision: auto" needs, or nullopt when `cfg` has no auto
// field: of the data sets in `data` (test_data_set_*/input_K.pb) when given,
// else of `samples` random inputs from `seed`.
std::optional<hls::Profile> profile_for_auto(const hls::Config& cfg, const Graph& passed,
                                             const std::optional<std::filesystem::path>& data,
                                             int samples, uint64_t seed);

struct ConfiguredModel {
  hls::Config config;           // as read (the project records where it came from)
  hls::PreparedGraph prepared;  // the graph after the HLS flow's graph passes
  hls::Model model;             // configured, named after the file (or `top`)
  bool profiled = false;
  std::string profile_source;  // "100 random inputs (seed 1)" or "the N data set(s) in DIR"
  int64_t profile_samples = 0;
};

// `hooks` see the layer model after lowering and after each layer pass.
ConfiguredModel configure_model(const std::filesystem::path& onnx, const ConfigureOptions& options,
                                const PassHooks<hls::Model>& hooks = {});

}  // namespace kiln::flow

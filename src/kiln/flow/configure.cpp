#include "kiln/flow/configure.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "kiln/onnx/test_data.h"
#include "kiln/ref/random_inputs.h"
#include "kiln/support/error.h"

namespace kiln::flow {

namespace fs = std::filesystem;

hls::Config load_config(const std::vector<fs::path>& files, const std::vector<std::string>& sets) {
  hls::Config cfg;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (i == 0) {
      cfg = hls::load_config(files[i].string());
      continue;
    }
    std::ifstream in(files[i], std::ios::binary);
    if (!in)
      throw_error(ErrorKind::Io, files[i].string(), "cannot read the config file",
                  "check the path and its permissions");
    std::ostringstream text;
    text << in.rdbuf();
    hls::merge_config(cfg, text.str(), files[i].string());
  }
  for (const std::string& s : sets) hls::apply_set(cfg, s);
  return cfg;
}

std::optional<hls::Profile> profile_for_auto(const hls::Config& cfg, const Graph& passed,
                                             const std::optional<fs::path>& data, int samples,
                                             uint64_t seed) {
  if (!hls::uses_auto(cfg)) return std::nullopt;
  return hls::profile_graph(passed, data ? onnx_import::read_test_data_inputs(*data)
                                         : ref::random_inputs(passed, samples, seed));
}

ConfiguredModel configure_model(const fs::path& onnx, const ConfigureOptions& options,
                                const PassHooks<hls::Model>& hooks) {
  ConfiguredModel r;
  // The configuration first: a typo should not wait for the model to import.
  r.config = load_config(options.configs, options.sets);
  r.prepared = hls::prepare_graph(onnx, options.import);
  const std::optional<hls::Profile> profile = profile_for_auto(
      r.config, r.prepared.passed, options.profile_data, options.profile_samples, options.seed);
  r.profiled = profile.has_value();
  if (profile) {
    r.profile_samples = profile->samples;
    r.profile_source =
        options.profile_data
            ? fmt::format("the {} data set(s) in {}", profile->samples,
                          options.profile_data->string())
            : fmt::format("{} random inputs (seed {})", profile->samples, options.seed);
  }
  r.model = hls::build_model(r.prepared.passed, r.config, profile ? &*profile : nullptr, hooks);
  r.model.name = hls::top_function_name(onnx, options.top);
  return r;
}

}  // namespace kiln::flow

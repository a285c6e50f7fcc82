// `kiln layers`: the HLS layer model a compile would build, as text, after
// structural lowering and after each layer pass.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kiln/flow/configure.h"
#include "kiln/support/pass.h"

namespace kiln::commands {

// The model and its config as `kiln compile` takes them (flow/configure.h).
struct LayersOptions : flow::ConfigureOptions {
  bool print_after_all = false;  // the model after lowering and after every layer pass
  bool full = false;             // every constant, not elided (the text parses back)
  std::optional<std::filesystem::path> output;  // write the final model's full text here
  bool overwrite = false;
};

struct LayersStage {
  PassRecord record;  // "lower_graph" for the structural lowering
  std::string text;   // with print_after_all
};

struct LayersResult {
  std::vector<LayersStage> stages;
  std::string final_text;  // when not print_after_all and no output file
  std::filesystem::path written;
};

LayersResult show_layers(const std::filesystem::path& model, const LayersOptions& options);
std::string format_layers(const LayersResult& result);
nlohmann::json layers_to_json(const LayersResult& result);

}  // namespace kiln::commands

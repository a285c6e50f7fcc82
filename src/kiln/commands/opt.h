// `kiln opt`: runs graph passes by name and shows the IR they make.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kiln/onnx/import.h"
#include "kiln/passes/reference_check.h"
#include "kiln/support/pass.h"

namespace kiln::commands {

struct OptOptions {
  onnx_import::ImportOptions import;
  // Pass names from the registry (passes/pipeline.h), in order; empty runs
  // the HLS flow's default pipeline.
  std::vector<std::string> passes;
  bool print_after_all = false;  // the IR after every pass, not only at the end
  // Check each pass against the reference interpreter on random inputs; a
  // pass that changes the outputs is named in failed_pass (exit 1).
  bool verify_each = false;
  int verify_samples = 3;
  uint64_t seed = 1;
  std::optional<std::filesystem::path> output;  // write the final IR here (.kir)
  bool overwrite = false;
};

struct OptPassResult {
  PassRecord record;
  std::optional<passes::ReferenceComparison> check;  // with verify_each
  std::string ir;                                    // with print_after_all
};

struct OptResult {
  std::vector<OptPassResult> passes;
  std::string final_ir;  // when there is no output file and not print_after_all
  std::filesystem::path written;
  // The first pass whose outputs differ from its input's (verify_each), or empty.
  std::string failed_pass;
};

// Throws Usage for unknown pass names (before anything runs).
OptResult optimize(const std::filesystem::path& model, const OptOptions& options);
std::string format_opt(const OptResult& result);
nlohmann::json opt_to_json(const OptResult& result);

// `kiln passes`: every registered graph pass and HLS layer pass with what it
// does, and the default pipelines.
std::string format_passes();
nlohmann::json passes_to_json();

}  // namespace kiln::commands

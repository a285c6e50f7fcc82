// The argument values several commands share, parsed once: NAME=FILE input
// bindings, --batch / --input-shape import options, pass lists.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/onnx/import.h"

namespace kiln::commands {

// Parses "NAME=FILE" (Usage error otherwise).
std::pair<std::string, std::filesystem::path> parse_input_binding(const std::string& text);

// --batch N and --input-shape NAME=1x3x224x224 (repeatable) as import options.
onnx_import::ImportOptions import_options(std::optional<int64_t> batch,
                                          const std::vector<std::string>& input_shapes);

// The flags that give `options` back (--batch N, --input-shape NAME=AxB),
// for a command kiln runs on the same model; constant inputs have no flag
// (Unsupported).
std::vector<std::string> import_flags(const onnx_import::ImportOptions& options);

// "a,b,c" -> {"a", "b", "c"}; empty text -> {} (the default pipeline).
std::vector<std::string> split_pass_list(const std::string& text);

}  // namespace kiln::commands

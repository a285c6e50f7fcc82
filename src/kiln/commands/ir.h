// `kiln ir`: a model's graph IR as text (.kir). From an ONNX model it writes
// what the importer made; from a .kir file it reads and writes it again, byte
// for byte the same.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "kiln/onnx/import.h"

namespace kiln::commands {

struct IrOptions {
  onnx_import::ImportOptions import;
  // Write FILE (and FILE.data for large constants); without it the text is
  // returned with large constants elided, a listing to read.
  std::optional<std::filesystem::path> output;
  bool inline_constants = false;  // every constant in the text, no FILE.data
  bool overwrite = false;
};

struct IrResult {
  std::string text;                    // the listing, when there is no output file
  std::filesystem::path written;       // the output file, if any
  std::filesystem::path written_data;  // its data file, if the model needed one
  int nodes = 0;
};

IrResult write_ir(const std::filesystem::path& model, const IrOptions& options);
// The listing, or "wrote FILE (N nodes)" lines.
std::string format_ir(const IrResult& result);

}  // namespace kiln::commands

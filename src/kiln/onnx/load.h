// A model from either of the files kiln reads: an ONNX model or kiln's graph
// IR text (.kir, graph/ir_text.h). Every command that takes a model calls this.
#pragma once

#include <filesystem>

#include "kiln/graph/graph.h"
#include "kiln/onnx/import.h"

namespace kiln::onnx_import {

// True if `path` holds IR text (it starts with "kir "), whatever its name.
bool is_ir_text_file(const std::filesystem::path& path);

// Imports an ONNX file or reads an IR text file. IR text has its shapes
// fixed: --batch, --input-shape and constant inputs are a Usage error there.
Graph load_model(const std::filesystem::path& path, const ImportOptions& options = {});

}  // namespace kiln::onnx_import

#include "kiln/onnx/load.h"

#include <fstream>

#include "kiln/graph/ir_text.h"
#include "kiln/support/error.h"

namespace kiln::onnx_import {

bool is_ir_text_file(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  char head[4] = {};
  f.read(head, 4);
  return f.gcount() == 4 && std::string_view(head, 4) == "kir ";
}

Graph load_model(const std::filesystem::path& path, const ImportOptions& options) {
  if (!is_ir_text_file(path)) return import_model(path, options);
  if (options.batch || !options.input_shapes.empty() || !options.constant_inputs.empty())
    throw_error(
        ErrorKind::Usage, path.string(),
        "an IR text file has its shapes fixed; --batch and --input-shape do not apply",
        "give them when writing it: kiln ir MODEL.onnx --batch N -o " + path.filename().string());
  return read_ir_file(path);
}

}  // namespace kiln::onnx_import

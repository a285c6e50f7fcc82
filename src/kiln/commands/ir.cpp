#include "kiln/commands/ir.h"

#include "kiln/graph/ir_text.h"
#include "kiln/onnx/load.h"
#include "kiln/support/error.h"

namespace kiln::commands {

namespace fs = std::filesystem;

IrResult write_ir(const fs::path& model, const IrOptions& options) {
  const Graph graph = onnx_import::load_model(model, options.import);
  IrResult r;
  r.nodes = static_cast<int>(graph.num_nodes());
  if (!options.output) {
    IrWriteOptions o;
    if (options.inline_constants) o.large = IrWriteOptions::Large::Inline;
    r.text = print_ir(graph, o).text;
    return r;
  }
  const fs::path& out = *options.output;
  std::error_code ec;
  if (fs::exists(out) && !options.overwrite && !fs::equivalent(out, model, ec))
    throw_error(ErrorKind::Usage, out.string(), "file exists", "pass --force to replace it");
  write_ir_file(
      graph, out,
      options.inline_constants ? IrWriteOptions::Large::Inline : IrWriteOptions::Large::DataFile);
  r.written = out;
  if (fs::exists(ir_data_path(out))) r.written_data = ir_data_path(out);
  return r;
}

std::string format_ir(const IrResult& r) {
  if (r.written.empty()) return r.text;
  std::string s =
      "kiln ir: wrote " + r.written.string() + " (" + std::to_string(r.nodes) + " nodes)";
  if (!r.written_data.empty()) s += " and " + r.written_data.string();
  return s + "\n";
}

}  // namespace kiln::commands

#include "kiln/commands/args.h"

#include "kiln/support/error.h"
#include "kiln/support/strings.h"

namespace kiln::commands {

namespace fs = std::filesystem;

std::pair<std::string, fs::path> parse_input_binding(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw_error(ErrorKind::Usage, "--input " + text, "expected NAME=FILE",
                "e.g. --input input=image.npy (see `kiln info MODEL` for input names)");
  return {text.substr(0, eq), fs::path(text.substr(eq + 1))};
}

onnx_import::ImportOptions import_options(std::optional<int64_t> batch,
                                          const std::vector<std::string>& input_shapes) {
  onnx_import::ImportOptions o;
  o.batch = batch;
  for (const std::string& s : input_shapes) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw_error(ErrorKind::Usage, "--input-shape " + s, "expected NAME=SHAPE",
                  "e.g. --input-shape input=1x3x224x224");
    o.input_shapes[s.substr(0, eq)] =
        onnx_import::parse_shape(s.substr(eq + 1), "--input-shape " + s);
  }
  return o;
}

std::vector<std::string> import_flags(const onnx_import::ImportOptions& o) {
  if (!o.constant_inputs.empty())
    throw_error(ErrorKind::Unsupported, "constant inputs",
                "have no command-line flag for the commands kiln runs on the model",
                "fold them into the model first");
  std::vector<std::string> flags;
  if (o.batch) flags.push_back("--batch=" + std::to_string(*o.batch));
  for (const auto& [name, shape] : o.input_shapes) {
    std::string dims;
    for (int64_t d : shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    flags.push_back("--input-shape=" + name + "=" + dims);
  }
  return flags;
}

std::vector<std::string> split_pass_list(const std::string& text) {
  const std::vector<std::string> names = split_list(text);
  for (const std::string& name : names)
    if (name.empty())
      throw_error(ErrorKind::Usage, "--passes " + text, "an empty pass name",
                  "separate pass names with single commas: form_dense,fold_batchnorm");
  return names;
}

}  // namespace kiln::commands

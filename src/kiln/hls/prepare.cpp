#include "kiln/hls/prepare.h"

#include <algorithm>

#include "kiln/graph/layer_stats.h"
#include "kiln/onnx/load.h"
#include "kiln/passes/pipeline.h"
#include "kiln/support/error.h"
#include "kiln/support/names.h"

namespace kiln::hls {

namespace fs = std::filesystem;

namespace {
// Multiply-accumulates the emulator spends on the testbench's expected outputs.
constexpr int64_t kTbMacBudget = 100'000'000;
constexpr int kMaxTbSamples = 8;
}  // namespace

PreparedGraph prepare_graph(const fs::path& model, const onnx_import::ImportOptions& import) {
  PreparedGraph p;
  p.original = onnx_import::load_model(model, import);
  if (!import.batch && !p.original.inputs.empty()) {
    bool batched = true;
    for (ValueId id : p.original.inputs) {
      const Shape& s = p.original.value(id).type.shape;
      batched = batched && s.size() >= 3 && s[0] > 1;
    }
    if (batched && onnx_import::is_ir_text_file(model))
      throw_error(ErrorKind::Unsupported, model.string(),
                  "the IR fixes a batch > 1 of image inputs; kiln's HLS designs take one sample "
                  "per call",
                  "write the IR with batch 1: kiln ir MODEL.onnx --batch 1 -o FILE.kir");
    if (batched) {
      onnx_import::ImportOptions one = import;
      one.batch = 1;
      p.original = onnx_import::load_model(model, one);
      p.batch_one = true;
    }
  }
  p.passed = p.original;
  p.passes = passes::run_hls_pipeline(p.passed);
  return p;
}

std::string top_function_name(const fs::path& model, const std::string& requested) {
  std::string base = requested;
  if (base.empty()) {
    base = model.stem().string();
    const fs::path dir = fs::absolute(model).parent_path();
    if (base == "model" && !dir.filename().empty()) base = dir.filename().string();
  }
  return sanitize_identifier(base, "net");
}

int testbench_samples(const Graph& passed) {
  int64_t macs = 0;
  for (const Node& n : passed.nodes()) macs += layer_stats(passed, n).macs;
  return static_cast<int>(
      std::clamp<int64_t>(kTbMacBudget / std::max<int64_t>(1, macs), 1, kMaxTbSamples));
}

}  // namespace kiln::hls

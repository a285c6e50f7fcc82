// split_wide_concats: the layer library concatenates at most 4 inputs; a
// Concat of more becomes a chain: the first 4 inputs into a part, the part and
// the next 3 into the next, and so on. Concatenation is associative along its
// axis, and each part keeps the result type of the whole (converting twice to
// one type is converting once), so the outputs are unchanged.
#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/hls/model_edit.h"

namespace kiln::hls {

namespace {

constexpr std::size_t kMaxConcatInputs = 4;

class SplitWideConcats final : public LayerPass {
 public:
  std::string_view name() const override { return "split_wide_concats"; }

  bool run(Model& m) override {
    bool changed = false;
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
      if (m.layers[i].kind() != LayerKind::Concat) continue;
      while (m.layers[i].inputs.size() > kMaxConcatInputs) {
        split_first_inputs(m, i);
        ++i;  // the part went in before the concat
        changed = true;
      }
    }
    return changed;
  }

 private:
  // Inserts, before layer `i`, a Concat of its first kMaxConcatInputs inputs.
  static void split_first_inputs(Model& m, std::size_t i) {
    const Layer& whole = m.layers[i];
    const int axis = whole.as<ConcatParams>().axis;
    const TensorInfo& out = m.tensors.at(static_cast<std::size_t>(whole.output()));
    TensorInfo part_tensor = out;
    part_tensor.name = unused_name(m, out.name + "_part");
    int64_t extent = 0;
    for (std::size_t k = 0; k < kMaxConcatInputs; ++k)
      extent += m.tensors.at(static_cast<std::size_t>(whole.inputs[k]))
                    .shape.at(static_cast<std::size_t>(axis));
    part_tensor.shape.at(static_cast<std::size_t>(axis)) = extent;
    // Tensors are numbered in the order layers write them: the part's output
    // goes right before the whole's.
    const int t = insert_tensor(m, m.layers[i].output(), std::move(part_tensor));
    Layer part = m.layers[i];
    part.name = unused_name(m, m.layers[i].name + "_part");
    part.inputs.assign(m.layers[i].inputs.begin(),
                       m.layers[i].inputs.begin() + static_cast<long>(kMaxConcatInputs));
    part.outputs = {t};
    Layer& rest = m.layers[i];
    rest.inputs.erase(rest.inputs.begin(),
                      rest.inputs.begin() + static_cast<long>(kMaxConcatInputs));
    rest.inputs.insert(rest.inputs.begin(), t);
    m.layers.insert(m.layers.begin() + static_cast<long>(i), std::move(part));
  }
};

}  // namespace

std::unique_ptr<LayerPass> make_split_wide_concats(const LayerPassContext&) {
  return std::make_unique<SplitWideConcats>();
}

}  // namespace kiln::hls

// absorb_port_transposes: the channels-last passes leave a Transpose right
// after an NCHW model input and, where the model ends in a feature map, one
// right before the output. Moving data there costs a layer; the port's
// permutation (Model::Port::perm) says the same for free, and the testbench
// and the emulator permute samples on the host instead.
#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/hls/model_edit.h"

namespace kiln::hls {

namespace {

// Whether the port's ONNX shape has the batch dimension the tensor dropped:
// only then is a batch-free Transpose a layout change of the whole sample.
bool batched(const Model& m, const Model::Port& port, int tensor) {
  return port.onnx_shape.size() == m.tensors[static_cast<std::size_t>(tensor)].shape.size() + 1;
}

// (1, 2, ..., r-1, 0): [C, spatial...] -> [spatial..., C].
bool is_to_channels_last(const std::vector<int64_t>& perm) {
  if (perm.size() < 2 || perm.back() != 0) return false;
  for (std::size_t i = 0; i + 1 < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i) + 1) return false;
  return true;
}

class AbsorbPortTransposes final : public LayerPass {
 public:
  std::string_view name() const override { return "absorb_port_transposes"; }

  bool run(Model& m) override {
    bool changed = false;
    for (std::size_t i = 0; i < m.inputs.size(); ++i) changed |= absorb_input(m, i);
    for (std::size_t j = 0; j < m.outputs.size(); ++j) changed |= absorb_output(m, j);
    return changed;
  }

 private:
  // Input x read only by y = Transpose(x, to channels-last): x takes y's
  // shape, y's readers read x.
  static bool absorb_input(Model& m, std::size_t i) {
    const int x = m.inputs[i];
    Model::Port& port = m.input_ports[i];
    if (!batched(m, port, x) || is_model_output(m, x)) return false;
    const std::vector<int> r = readers(m, x);
    if (r.size() != 1) return false;
    const int li = r[0];
    const Layer& t = m.layers[static_cast<std::size_t>(li)];
    if (t.kind() != LayerKind::Transpose || !is_to_channels_last(t.as<TransposeParams>().perm))
      return false;
    const int y = t.output();
    if (is_model_output(m, y)) return false;
    // y[d] = x[q[d]] and x[k] = onnx[perm[k]], so y[d] = onnx[perm[q[d]]].
    const std::vector<int64_t> q = t.as<TransposeParams>().perm;
    std::vector<int64_t> perm(q.size());
    for (std::size_t d = 0; d < q.size(); ++d) perm[d] = port.perm[static_cast<std::size_t>(q[d])];
    port.perm = perm;
    m.tensors[static_cast<std::size_t>(x)].shape = m.tensors[static_cast<std::size_t>(y)].shape;
    remove_layer(m, li);
    replace_reads(m, y, x);
    remove_tensor(m, y);
    return true;
  }

  // Output y = Transpose(x) where nothing else reads x or y and x is computed
  // by a layer: the output becomes x.
  static bool absorb_output(Model& m, std::size_t j) {
    const int y = m.outputs[j];
    Model::Port& port = m.output_ports[j];
    if (!batched(m, port, y) || !readers(m, y).empty()) return false;
    if (std::count(m.outputs.begin(), m.outputs.end(), y) != 1) return false;
    const int li = producer_index(m, y);
    if (li < 0 || m.layers[static_cast<std::size_t>(li)].kind() != LayerKind::Transpose)
      return false;
    const Layer& t = m.layers[static_cast<std::size_t>(li)];
    const int x = t.inputs.at(0);
    if (readers(m, x).size() != 1 || is_model_output(m, x) || is_model_input(m, x)) return false;
    // y[d] = x[q[d]] and y[d] = onnx[perm[d]], so x[q[d]] = onnx[perm[d]].
    const std::vector<int64_t>& q = t.as<TransposeParams>().perm;
    std::vector<int64_t> perm(q.size());
    for (std::size_t d = 0; d < q.size(); ++d) perm[static_cast<std::size_t>(q[d])] = port.perm[d];
    port.perm = perm;
    m.outputs[j] = x;
    remove_layer(m, li);
    remove_tensor(m, y);
    return true;
  }
};

}  // namespace

std::unique_ptr<LayerPass> make_absorb_port_transposes(const LayerPassContext&) {
  return std::make_unique<AbsorbPortTransposes>();
}

}  // namespace kiln::hls

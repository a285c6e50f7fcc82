#include "kiln/hls/ports.h"

#include "kiln/ref/interpreter.h"
#include "kiln/support/error.h"

namespace kiln::hls {

std::vector<int64_t> port_element_map(const std::vector<int64_t>& tensor_shape,
                                      const std::vector<int64_t>& perm) {
  const std::size_t rank = tensor_shape.size();
  KILN_ASSERT(perm.size() == rank, "port permutation of another rank");
  std::vector<int64_t> onnx_shape(rank);
  for (std::size_t i = 0; i < rank; ++i)
    onnx_shape[static_cast<std::size_t>(perm[i])] = tensor_shape[i];
  std::vector<int64_t> onnx_strides(rank, 1);
  for (std::size_t i = rank; i-- > 1;) onnx_strides[i - 1] = onnx_strides[i] * onnx_shape[i];
  int64_t n = 1;
  for (int64_t d : tensor_shape) n *= d;
  std::vector<int64_t> map(static_cast<std::size_t>(n));
  std::vector<int64_t> idx(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t o = 0;
    for (std::size_t i = 0; i < rank; ++i)
      o += idx[i] * onnx_strides[static_cast<std::size_t>(perm[i])];
    map[static_cast<std::size_t>(e)] = o;
    for (std::size_t i = rank; i-- > 0;) {
      if (++idx[i] < tensor_shape[i]) break;
      idx[i] = 0;
    }
  }
  return map;
}

Sample sample_from_onnx(const Model& m, const std::vector<Tensor>& tensors,
                        const std::vector<std::string>& where) {
  KILN_ASSERT(tensors.size() == m.inputs.size() && where.size() == tensors.size(),
              "one tensor per model input");
  Sample sample(m.inputs.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    const TensorInfo& ti = m.tensors[static_cast<std::size_t>(m.inputs[i])];
    if (t.numel() != ti.numel())
      throw_error(ErrorKind::InvalidModel, where[i],
                  "has " + std::to_string(t.numel()) + " values, input '" +
                      m.input_ports[i].onnx_name + "' takes " + std::to_string(ti.numel()),
                  "give a tensor of shape " + shape_to_string(m.input_ports[i].onnx_shape));
    const std::vector<int64_t> map = port_element_map(ti.shape, m.input_ports[i].perm);
    sample[i].resize(map.size());
    for (std::size_t e = 0; e < map.size(); ++e) sample[i][e] = t.as_double(map[e]);
  }
  return sample;
}

FloatReference::FloatReference(Graph g, const Model& m)
    : graph_(std::make_shared<const Graph>(std::move(g))) {
  interpreter_ = std::make_shared<ref::Interpreter>(*graph_);
  if (graph_->inputs.size() != m.inputs.size() || graph_->outputs.size() != m.outputs.size())
    throw_error(ErrorKind::InvalidModel, "kiln_model.json",
                "the recorded ONNX model does not match the project's ports",
                "recompile the project with `kiln compile`");
  for (std::size_t i = 0; i < m.inputs.size(); ++i)
    in_map_.push_back(port_element_map(m.tensors[static_cast<std::size_t>(m.inputs[i])].shape,
                                       m.input_ports[i].perm));
  for (std::size_t i = 0; i < m.outputs.size(); ++i)
    out_map_.push_back(port_element_map(m.tensors[static_cast<std::size_t>(m.outputs[i])].shape,
                                        m.output_ports[i].perm));
}

std::vector<std::vector<double>> FloatReference::operator()(const Sample& s) const {
  std::vector<Tensor> in;
  for (std::size_t i = 0; i < graph_->inputs.size(); ++i) {
    Tensor t(graph_->value(graph_->inputs[i]).type);
    auto d = t.data<float>();
    for (std::size_t e = 0; e < s[i].size(); ++e)
      d[static_cast<std::size_t>(in_map_[i][e])] = static_cast<float>(s[i][e]);
    in.push_back(std::move(t));
  }
  const std::vector<Tensor> out = interpreter_->run(in);
  std::vector<std::vector<double>> r;
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::vector<double> v(out_map_[i].size());
    for (std::size_t e = 0; e < v.size(); ++e) v[e] = out[i].as_double(out_map_[i][e]);
    r.push_back(std::move(v));
  }
  return r;
}

}  // namespace kiln::hls

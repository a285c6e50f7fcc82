// The top function's ports against the ONNX model's inputs and outputs: a
// port's tensor is channels-last and batch-free, the ONNX tensor is in the
// model's own layout (Model::Port::perm relates the two). csim, `kiln csim
// --input` and the float comparison convert samples through these maps.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/graph/graph.h"
#include "kiln/hls/csim.h"
#include "kiln/hls/model.h"

namespace kiln::ref {
class Interpreter;
}

namespace kiln::hls {

// For each element of a tensor of `tensor_shape` (row-major), the index of
// the same element in the ONNX tensor it came from, where
// tensor_shape[i] = onnx_shape[perm[i]] (batch of 1 dropped).
std::vector<int64_t> port_element_map(const std::vector<int64_t>& tensor_shape,
                                      const std::vector<int64_t>& perm);

// One sample from ONNX tensors, one per model input in Model::inputs order,
// reordered to the top function's channels-last inputs. InvalidModel naming
// `where[i]` when a tensor has the wrong number of values.
Sample sample_from_onnx(const Model& model, const std::vector<Tensor>& tensors,
                        const std::vector<std::string>& where);

// The float model as CsimOptions::float_reference wants it: runs the
// reference interpreter on a sample given channels-last and returns its
// outputs channels-last. InvalidModel when the graph's inputs and outputs do
// not match the model's ports.
class FloatReference {
 public:
  FloatReference(Graph graph, const Model& model);
  std::vector<std::vector<double>> operator()(const Sample& sample) const;

 private:
  // Shared so the reference can be copied into a std::function.
  std::shared_ptr<const Graph> graph_;
  std::shared_ptr<ref::Interpreter> interpreter_;
  std::vector<std::vector<int64_t>> in_map_, out_map_;
};

}  // namespace kiln::hls

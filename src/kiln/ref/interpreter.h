// Runs a whole graph with the reference kernels (float32 golden model).
#pragma once

#include <functional>
#include <vector>

#include "kiln/graph/graph.h"

namespace kiln::ref {

class Interpreter {
 public:
  explicit Interpreter(const Graph& graph);

  // `inputs` follow graph.inputs; each must match its value's type exactly
  // (else InvalidModel naming the input). Returns graph.outputs in order.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;

  // Called after each node runs, with the node, its input tensors (nullptr
  // for omitted optional inputs) and its results. For profiling and
  // per-node comparisons; intermediates are still freed early.
  using NodeObserver =
      std::function<void(const Node& node, const std::vector<const Tensor*>& inputs,
                         const std::vector<Tensor>& outputs)>;
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, const NodeObserver& observer) const;

  // Number of threads the kernels may use (OpenMP); 0 = all cores.
  static void set_num_threads(int n);

 private:
  const Graph& graph_;
  std::vector<int> last_use_;  // per value: position of the last node reading it (frees early)
};

}  // namespace kiln::ref

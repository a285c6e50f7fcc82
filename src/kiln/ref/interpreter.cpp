// Whole-graph evaluation with early freeing of intermediates.
#include "kiln/ref/interpreter.h"

#include <Eigen/Core>
#include <algorithm>
#include <limits>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "kiln/ref/evaluate.h"

namespace kiln::ref {

namespace {
// last_use_ marker for values that must survive the whole run (graph outputs).
constexpr int kKeep = std::numeric_limits<int>::max();
}  // namespace

Interpreter::Interpreter(const Graph& graph) : graph_(graph) {
  last_use_.assign(graph.num_values(), -1);
  int position = 0;
  for (const Node& node : graph.nodes()) {
    for (ValueId v : node.inputs)
      if (v.valid()) last_use_[static_cast<std::size_t>(v.index)] = position;
    ++position;
  }
  for (ValueId v : graph.outputs)
    if (v.valid()) last_use_[static_cast<std::size_t>(v.index)] = kKeep;
}

std::vector<Tensor> Interpreter::run(const std::vector<Tensor>& inputs) const {
  return run(inputs, NodeObserver{});
}

std::vector<Tensor> Interpreter::run(const std::vector<Tensor>& inputs,
                                     const NodeObserver& observer) const {
  const Graph& g = graph_;
  if (inputs.size() != g.inputs.size())
    throw_error(ErrorKind::InvalidModel, "inputs",
                "the model takes " + std::to_string(g.inputs.size()) + " input(s), got " +
                    std::to_string(inputs.size()));
  // Where each value currently lives: graph inputs and constants by pointer,
  // computed values in `owned`.
  std::vector<const Tensor*> env(g.num_values(), nullptr);
  std::vector<Tensor> owned(g.num_values());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    if (inputs[i].type() != v.type) {
      const std::string name = v.onnx_name.empty() ? v.name : v.onnx_name;
      throw_error(ErrorKind::InvalidModel, "input '" + name + "'",
                  "expects " + v.type.to_string() + ", got " + inputs[i].type().to_string(),
                  "feed a tensor of the declared type and shape");
    }
    env[static_cast<std::size_t>(g.inputs[i].index)] = &inputs[i];
  }
  for (std::size_t i = 0; i < g.num_values(); ++i) {
    const Value& v = g.value(ValueId{static_cast<int32_t>(i)});
    if (v.constant) env[i] = v.constant.get();
  }

  std::vector<const Tensor*> args;
  std::vector<TensorType> types;
  int n = -1;
  for (const Node& node : g.nodes()) {
    ++n;
    args.clear();
    for (ValueId v : node.inputs) {
      const Tensor* t = v.valid() ? env[static_cast<std::size_t>(v.index)] : nullptr;
      KILN_ASSERT(
          !v.valid() || t != nullptr,
          "value '" + g.value(v).name + "' used before it is computed by " + node.describe());
      args.push_back(t);
    }
    types.clear();
    for (ValueId v : node.outputs) types.push_back(v.valid() ? g.value(v).type : TensorType{});
    std::vector<Tensor> results = evaluate_node(node, args, types);
    if (observer) observer(node, args, results);
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      const ValueId v = node.outputs[i];
      if (!v.valid()) continue;
      const auto idx = static_cast<std::size_t>(v.index);
      // An output nobody reads (and the graph does not return) is dropped at once.
      if (last_use_[idx] < 0) continue;
      owned[idx] = std::move(results[i]);
      env[idx] = &owned[idx];
    }
    // Free intermediates whose last reader was this node.
    for (ValueId v : node.inputs) {
      if (!v.valid()) continue;
      const auto idx = static_cast<std::size_t>(v.index);
      if (last_use_[idx] == n && env[idx] == &owned[idx]) {
        owned[idx] = Tensor();
        env[idx] = nullptr;
      }
    }
  }

  std::vector<Tensor> outputs;
  outputs.reserve(g.outputs.size());
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    const ValueId v = g.outputs[i];
    KILN_ASSERT(v.valid() && env[static_cast<std::size_t>(v.index)] != nullptr,
                "graph output is never computed");
    const auto idx = static_cast<std::size_t>(v.index);
    // Computed values are moved out on their last mention; inputs and constants are copied.
    const bool again = std::find(g.outputs.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                 g.outputs.end(), v) != g.outputs.end();
    if (env[idx] == &owned[idx] && !again)
      outputs.push_back(std::move(owned[idx]));
    else
      outputs.push_back(*env[idx]);
  }
  return outputs;
}

void Interpreter::set_num_threads(int n) {
#ifdef _OPENMP
  if (n <= 0) n = omp_get_num_procs();
  omp_set_num_threads(n);
#else
  (void)n;
#endif
  // The kernels split GEMMs into tiles over the OpenMP threads themselves and
  // call Eigen serially (see gemm_tiled), so Eigen must not start threads of
  // its own.
  Eigen::setNbThreads(1);
}

}  // namespace kiln::ref

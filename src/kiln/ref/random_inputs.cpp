#include "kiln/ref/random_inputs.h"

#include <random>

namespace kiln::ref {

std::vector<std::vector<Tensor>> random_inputs(const Graph& graph, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::vector<Tensor>> samples;
  for (int s = 0; s < n; ++s) {
    std::vector<Tensor> in;
    for (ValueId id : graph.inputs) {
      const TensorType& type = graph.value(id).type;
      Tensor t(type);
      if (type.dtype == DType::Float32) {
        for (float& v : t.data<float>()) v = static_cast<float>(u(rng));
      } else if (type.dtype == DType::Float64) {
        for (double& v : t.data<double>()) v = u(rng);
      } else if (type.dtype == DType::Bool) {
        for (bool& v : t.data<bool>()) v = (rng() & 1) != 0;
      } else {
        Tensor ints(DType::Int64, type.shape);
        for (int64_t& v : ints.data<int64_t>()) v = static_cast<int64_t>(rng() % 4);
        t = ints.cast(type.dtype);
      }
      in.push_back(std::move(t));
    }
    samples.push_back(std::move(in));
  }
  return samples;
}

}  // namespace kiln::ref

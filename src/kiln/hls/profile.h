// Value ranges per layer, measured by running the float reference
// interpreter on sample inputs, and the fixed-point types they suggest
// (`kiln profile`, and `Precision: auto` in a config; docs/config.md).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kiln/graph/graph.h"
#include "kiln/numeric/fixed.h"

namespace kiln::hls {

using numeric::FixedType;

// Smallest and largest value seen (empty until the first add()), and how the
// magnitudes spread: per power of two, the values with floor(log2|v|) = e
// (the precision plot draws them against a type's range and resolution).
struct ValueRange {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  static constexpr int kLowestLog2 = -64;  // floor(log2|v|) below counts here
  static constexpr int kLog2Bins = 128;    // -64 .. 63
  std::array<int64_t, kLog2Bins> log2_counts{};
  int64_t zeros = 0;
  bool empty() const { return min > max; }
  double max_abs() const;  // 0 when empty
  void add(double v);
  void add(const Tensor& t);  // every element (float/integer tensors)
};

// One graph input or node of the (passed) graph. `name` is the value name for
// an input and the node name otherwise: the names build_model() gives layers.
struct LayerProfile {
  std::string name;
  std::string onnx_name;
  std::string op;     // "Input", "Conv", "Dense", ...
  ValueRange weight;  // constant weights (Conv/Dense W, BatchNorm scale, PRelu slope)
  ValueRange bias;    // constant bias (Conv/Dense/BatchNorm)
  ValueRange result;  // the node's first output
  ValueRange accum;   // accumulator: pre-activation sum (Conv/Dense/MatMul),
                      // window sum (AveragePool), exp sum (Softmax)
};

struct Profile {
  int samples = 0;
  std::vector<LayerProfile> layers;  // graph inputs, then nodes in graph order
  const LayerProfile* find(const std::string& name) const;
};

// Runs the reference interpreter on each sample (inputs in graph.inputs
// order; InvalidModel if a sample does not fit) and records ranges; shows
// its progress (support/progress.h) as `task` when given one.
Profile profile_graph(const Graph& passed_graph, const std::vector<std::vector<Tensor>>& samples,
                      const std::string& task = "");

// The `Precision: auto` rule: I = ceil(log2(max_abs)) + 1 (sign) + 1 (guard),
// keeping base's width, signedness and modes (an unsigned base gets no sign
// bit). max_abs == 0 counts as 1 (I = 2). A power of two max_abs is covered
// by the guard bit.
FixedType auto_fixed_type(double max_abs, const FixedType& base);

// Suggested types per layer: auto_fixed_type over weight/bias/result at
// `width` bits and accum at `accum_width`, for the ranges that were seen.
struct PrecisionSuggestion {
  std::string name;
  std::string op;
  std::optional<FixedType> weight, bias, result, accum;
};
std::vector<PrecisionSuggestion> suggest_precisions(const Profile& profile, int width = 16,
                                                    int accum_width = 32);

}  // namespace kiln::hls

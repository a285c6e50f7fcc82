// Helpers shared by the ref module's tests: build a node, run it, compare.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kiln/ref/evaluate.h"

namespace kiln::ref::testing {

// A node whose inputs are ValueIds 0..n-1 (kNoValue where `present` says so)
// and whose outputs are ValueIds 100.. (kNoValue for unused ones).
inline Node make_node(OpKind kind, std::size_t num_inputs, Attrs attrs = {},
                      std::vector<bool> outputs_used = {true},
                      const std::vector<const Tensor*>& present = {}) {
  std::vector<ValueId> ins, outs;
  for (std::size_t i = 0; i < num_inputs; ++i)
    ins.push_back(i < present.size() && present[i] == nullptr ? kNoValue
                                                              : ValueId{static_cast<int32_t>(i)});
  for (std::size_t i = 0; i < outputs_used.size(); ++i)
    outs.push_back(outputs_used[i] ? ValueId{static_cast<int32_t>(100 + i)} : kNoValue);
  Node n(kind, ins, outs, std::move(attrs));
  n.name = n.onnx_name = "n1";
  return n;
}

// Evaluates `node` on `inputs` (nullptr = omitted) with the given output types.
inline std::vector<Tensor> eval(const Node& node, std::vector<const Tensor*> inputs,
                                std::vector<TensorType> out_types) {
  std::vector<ValueId> ins = node.inputs.vector();
  for (std::size_t i = 0; i < inputs.size() && i < ins.size(); ++i)
    if (inputs[i] == nullptr) ins[i] = kNoValue;
  Node n(node.kind, ins, node.outputs.vector(), node.attrs);
  n.name = node.name;
  n.onnx_name = node.onnx_name;
  return evaluate_node(n, inputs, out_types);
}

// Single-output convenience.
inline Tensor eval1(OpKind kind, std::vector<const Tensor*> inputs, TensorType out,
                    Attrs attrs = {}) {
  return eval(make_node(kind, inputs.size(), std::move(attrs)), inputs, {std::move(out)})[0];
}

inline Tensor F(Shape shape, std::vector<float> v) {
  return Tensor::from_vector<float>(std::move(shape), v);
}
inline TensorType FT(Shape shape) {
  return TensorType{DType::Float32, std::move(shape)};
}

// Checks shape and values (absolute tolerance scaled by magnitude).
inline void expect_values(const Tensor& t, const Shape& shape, const std::vector<double>& want,
                          double tol = 1e-5) {
  ASSERT_EQ(t.shape(), shape) << "shape " << shape_to_string(t.shape());
  ASSERT_EQ(static_cast<std::size_t>(t.numel()), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double got = t.as_double(static_cast<int64_t>(i));
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got)) << "element " << i;
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got, want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got, want[i], tol * std::max(1.0, std::fabs(want[i]))) << "element " << i;
    }
  }
}

}  // namespace kiln::ref::testing

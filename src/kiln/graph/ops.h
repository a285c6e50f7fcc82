// Node kinds of the graph IR and their typed attributes.
//
// After import every node carries a kind from OpKind and, where the op has
// parameters, one attribute struct. Parameters that decide shapes (pads, axes,
// slice bounds, target shapes) are attributes and are always constant; data
// operands (weights, biases, Clip bounds, PRelu slopes, Gather indices) stay
// node inputs even when they are constants. Opset differences (attribute vs
// input forms, Softmax's old "coerce to 2-D" semantics, auto_pad) are resolved
// by the importer, so passes and backends see one canonical form. All axes are
// non-negative.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kiln/graph/dtype.h"

namespace kiln {

enum class OpKind : uint8_t {
  // Convolution, pooling, linear algebra
  Conv,
  MaxPool,
  AveragePool,
  GlobalAveragePool,
  GlobalMaxPool,
  Gemm,
  MatMul,
  BatchNormalization,
  // Activations
  Relu,
  LeakyRelu,
  PRelu,
  Elu,
  Selu,
  Sigmoid,
  HardSigmoid,
  Tanh,
  Softmax,
  LogSoftmax,
  Clip,
  // Unary math
  Exp,
  Log,
  Sqrt,
  Abs,
  Neg,
  Reciprocal,
  // Broadcasting binary and variadic
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Sum,
  Mean,
  // Data movement
  Concat,
  Slice,
  Flatten,
  Reshape,
  Transpose,
  Squeeze,
  Unsqueeze,
  Pad,
  Gather,
  Cast,
  Shape,
  // Reductions
  ReduceMean,
  ReduceSum,
  ReduceMax,
  // Pass-through
  Identity,
  Dropout,
};

inline constexpr int kNumOpKinds = static_cast<int>(OpKind::Dropout) + 1;

// The ONNX op_type of a kind ("Conv").
std::string_view op_name(OpKind kind);
// Reverse of op_name for the default ONNX domain; nullopt if kiln lacks the op.
std::optional<OpKind> op_kind_from_name(std::string_view onnx_op_type);

bool is_unary_elementwise(OpKind kind);   // Relu ... Reciprocal, incl. activations with attrs
bool is_broadcast_binary(OpKind kind);    // Add Sub Mul Div (and 2-input Max/Min)
bool is_variadic_elementwise(OpKind kind);  // Max Min Sum Mean
bool is_reduction(OpKind kind);

// Convolution (1-D, 2-D and beyond). auto_pad is resolved into explicit pads.
struct ConvAttrs {
  std::vector<int64_t> kernel_shape;  // spatial dims only
  std::vector<int64_t> strides;
  std::vector<int64_t> pads;  // [begin_0, begin_1, ..., end_0, end_1, ...]
  std::vector<int64_t> dilations;
  int64_t group = 1;
  bool operator==(const ConvAttrs&) const = default;
};

// MaxPool and AveragePool.
struct PoolAttrs {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> pads;  // [begins..., ends...]
  std::vector<int64_t> dilations;
  bool ceil_mode = false;
  bool count_include_pad = false;  // AveragePool only
  bool operator==(const PoolAttrs&) const = default;
};

struct GemmAttrs {
  float alpha = 1.0f;
  float beta = 1.0f;
  bool trans_a = false;
  bool trans_b = false;
  bool operator==(const GemmAttrs&) const = default;
};

// Inference-mode batch normalization; inputs X, scale, B, mean, var.
struct BatchNormAttrs {
  float epsilon = 1e-5f;
  bool operator==(const BatchNormAttrs&) const = default;
};

struct LeakyReluAttrs {
  float alpha = 0.01f;
  bool operator==(const LeakyReluAttrs&) const = default;
};
struct EluAttrs {
  float alpha = 1.0f;
  bool operator==(const EluAttrs&) const = default;
};
struct SeluAttrs {
  float alpha = 1.67326319217681884765625f;
  float gamma = 1.05070102214813232421875f;
  bool operator==(const SeluAttrs&) const = default;
};
struct HardSigmoidAttrs {
  float alpha = 0.2f;
  float beta = 0.5f;
  bool operator==(const HardSigmoidAttrs&) const = default;
};

// Softmax and LogSoftmax. With coerce_2d (opset < 13) the input is viewed as
// [prod(dims < axis), prod(dims >= axis)] and normalized over the second
// dimension; otherwise (opset >= 13) it is normalized along `axis` only.
struct SoftmaxAttrs {
  int64_t axis = 0;
  bool coerce_2d = false;
  bool operator==(const SoftmaxAttrs&) const = default;
};

struct ConcatAttrs {
  int64_t axis = 0;
  bool operator==(const ConcatAttrs&) const = default;
};

// One entry per input dimension, already clamped as the ONNX spec prescribes,
// so element i of the output along d is input index starts[d] + i * steps[d].
struct SliceAttrs {
  std::vector<int64_t> starts;
  std::vector<int64_t> ends;
  std::vector<int64_t> steps;
  bool operator==(const SliceAttrs&) const = default;
};

struct FlattenAttrs {
  int64_t axis = 1;
  bool operator==(const FlattenAttrs&) const = default;
};

// The resolved output shape (0 and -1 already replaced).
struct ReshapeAttrs {
  std::vector<int64_t> shape;
  bool operator==(const ReshapeAttrs&) const = default;
};

struct TransposeAttrs {
  std::vector<int64_t> perm;
  bool operator==(const TransposeAttrs&) const = default;
};

// Squeeze and Unsqueeze: sorted, non-negative axes. For Squeeze they index the
// input, for Unsqueeze the output.
struct AxesAttrs {
  std::vector<int64_t> axes;
  bool operator==(const AxesAttrs&) const = default;
};

enum class PadMode : uint8_t { Constant, Reflect, Edge };
struct PadAttrs {
  std::vector<int64_t> pads;  // [begins..., ends...], one pair per input dimension; may be negative
  PadMode mode = PadMode::Constant;
  double value = 0.0;
  bool operator==(const PadAttrs&) const = default;
};

// ReduceMean / ReduceSum / ReduceMax: the reduced axes, sorted (never empty:
// a no-op reduction is imported as Identity).
struct ReduceAttrs {
  std::vector<int64_t> axes;
  bool keepdims = true;
  bool operator==(const ReduceAttrs&) const = default;
};

struct ShapeAttrs {
  int64_t start = 0;
  int64_t end = 0;  // exclusive, already clamped
  bool operator==(const ShapeAttrs&) const = default;
};

struct GatherAttrs {
  int64_t axis = 0;
  bool operator==(const GatherAttrs&) const = default;
};

struct CastAttrs {
  DType to = DType::Float32;
  bool operator==(const CastAttrs&) const = default;
};

using Attrs = std::variant<std::monostate, ConvAttrs, PoolAttrs, GemmAttrs, BatchNormAttrs,
                           LeakyReluAttrs, EluAttrs, SeluAttrs, HardSigmoidAttrs, SoftmaxAttrs,
                           ConcatAttrs, SliceAttrs, FlattenAttrs, ReshapeAttrs, TransposeAttrs,
                           AxesAttrs, PadAttrs, ReduceAttrs, ShapeAttrs, GatherAttrs, CastAttrs>;

// One-line text of the attributes ("kernel=3x3 strides=1x1 pads=1,1,1,1 group=1").
std::string attrs_to_string(const Attrs& attrs);

}  // namespace kiln

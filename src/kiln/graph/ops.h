// Node kinds of the graph IR and their typed attributes.
//
// KILN_OPS below is the one list of op kinds: each row gives a kind its
// category, its attribute struct, the names of its inputs (for messages) and
// the ONNX op types the importer reads into it. The OpKind enum, op names,
// category predicates and the Attrs variant are all derived from it.
//
// After import every node carries a kind and the attribute struct of its row.
// Parameters that decide shapes (pads, axes, slice bounds, target shapes) are
// attributes and are always constant; data operands (weights, biases, Clip
// bounds, PRelu slopes, Gather indices) stay node inputs even when they are
// constants. Opset differences (attribute vs input forms, Softmax's old
// "coerce to 2-D" semantics, auto_pad) are resolved by the importer, so passes
// and backends see one canonical form. All axes are non-negative.
//
// Adding an op (docs/architecture.md): a row in KILN_OPS, its attribute
// struct (with a `visit` of its fields) if it has parameters, and one handler
// per concern: shape inference (graph/shape_inference.cpp), reference
// evaluation (ref/evaluate.cpp), ONNX import (onnx/op_attributes.cpp) and HLS
// lowering (hls/lower_graph.cpp). Each of those is a table indexed by kind
// that fails to compile while a kind is missing.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kiln/graph/dtype.h"
#include "kiln/support/enum_table.h"

// X(Kind, Category, Attributes, "input roles", "ONNX op type"...)
//  - input roles: the names of the node's inputs after import, space
//    separated ("" for variadic ops, whose inputs are "input 0", "input 1", ...);
//  - ONNX op types: those the importer turns into this kind (none for kiln's
//    own kinds, made by passes).
// The list a row is in is its ONNX domain (OpDomain below): KILN_ONNX_OPS for
// the default domain, KILN_QONNX_OPS for QONNX's, KILN_OWN_OPS for kiln's own.
#define KILN_OPS(X) KILN_ONNX_OPS(X) KILN_QONNX_OPS(X) KILN_OWN_OPS(X)

#define KILN_ONNX_OPS(X)                                                                       \
  /* Convolution, pooling, linear algebra */                                                   \
  X(Conv, Layer, ConvAttrs, "X W B", "Conv")                                                   \
  X(MaxPool, Layer, PoolAttrs, "X", "MaxPool")                                                 \
  X(AveragePool, Layer, PoolAttrs, "X", "AveragePool")                                         \
  X(GlobalAveragePool, Layer, GlobalPoolAttrs, "X", "GlobalAveragePool")                       \
  X(GlobalMaxPool, Layer, GlobalPoolAttrs, "X", "GlobalMaxPool")                               \
  X(Gemm, Layer, GemmAttrs, "A B C", "Gemm")                                                   \
  X(MatMul, Layer, NoAttrs, "A B", "MatMul")                                                   \
  X(BatchNormalization, Layer, BatchNormAttrs, "X scale B mean var", "BatchNormalization")     \
  /* Activations */                                                                            \
  X(Relu, Unary, NoAttrs, "X", "Relu")                                                         \
  X(LeakyRelu, Unary, LeakyReluAttrs, "X", "LeakyRelu")                                        \
  X(PRelu, Activation, NoAttrs, "X slope", "PRelu")                                            \
  X(Elu, Unary, EluAttrs, "X", "Elu")                                                          \
  X(Selu, Unary, SeluAttrs, "X", "Selu")                                                       \
  X(Sigmoid, Unary, NoAttrs, "X", "Sigmoid")                                                   \
  X(HardSigmoid, Unary, HardSigmoidAttrs, "X", "HardSigmoid")                                  \
  X(Tanh, Unary, NoAttrs, "X", "Tanh")                                                         \
  X(Softmax, Activation, SoftmaxAttrs, "X", "Softmax")                                         \
  X(LogSoftmax, Activation, SoftmaxAttrs, "X", "LogSoftmax")                                   \
  X(Hardmax, Activation, SoftmaxAttrs, "X", "Hardmax")                                         \
  X(Clip, Activation, NoAttrs, "input min max", "Clip")                                        \
  /* Unary math */                                                                             \
  X(Exp, Unary, NoAttrs, "X", "Exp")                                                           \
  X(Log, Unary, NoAttrs, "X", "Log")                                                           \
  X(Sqrt, Unary, NoAttrs, "X", "Sqrt")                                                         \
  X(Abs, Unary, NoAttrs, "X", "Abs")                                                           \
  X(Neg, Unary, NoAttrs, "X", "Neg")                                                           \
  X(Reciprocal, Unary, NoAttrs, "X", "Reciprocal")                                             \
  /* Broadcasting binary and variadic */                                                       \
  X(Add, Arithmetic, NoAttrs, "A B", "Add")                                                    \
  X(Sub, Arithmetic, NoAttrs, "A B", "Sub")                                                    \
  X(Mul, Arithmetic, NoAttrs, "A B", "Mul")                                                    \
  X(Div, Arithmetic, NoAttrs, "A B", "Div")                                                    \
  X(Max, Variadic, NoAttrs, "", "Max")                                                         \
  X(Min, Variadic, NoAttrs, "", "Min")                                                         \
  X(Sum, Variadic, NoAttrs, "", "Sum")                                                         \
  X(Mean, Variadic, NoAttrs, "", "Mean")                                                       \
  /* Data movement */                                                                          \
  X(Concat, DataMovement, ConcatAttrs, "", "Concat")                                           \
  X(Slice, DataMovement, SliceAttrs, "X", "Slice")                                             \
  X(Flatten, DataMovement, FlattenAttrs, "X", "Flatten")                                       \
  X(Reshape, DataMovement, ReshapeAttrs, "X", "Reshape")                                       \
  X(Transpose, DataMovement, TransposeAttrs, "X", "Transpose")                                 \
  X(Squeeze, DataMovement, AxesAttrs, "X", "Squeeze")                                          \
  X(Unsqueeze, DataMovement, AxesAttrs, "X", "Unsqueeze")                                      \
  X(Pad, DataMovement, PadAttrs, "X", "Pad")                                                   \
  X(Gather, DataMovement, GatherAttrs, "data indices", "Gather")                               \
  X(Cast, Conversion, CastAttrs, "X", "Cast", "CastLike")                                      \
  X(QuantizeLinear, Conversion, QuantAttrs, "x y_scale y_zero_point", "QuantizeLinear")        \
  X(DequantizeLinear, Conversion, QuantAttrs, "x x_scale x_zero_point", "DequantizeLinear")    \
  X(Shape, ShapeOf, ShapeAttrs, "X", "Shape")                                                  \
  /* Reductions */                                                                             \
  X(ReduceMean, Reduction, ReduceAttrs, "X", "ReduceMean")                                     \
  X(ReduceSum, Reduction, ReduceAttrs, "X", "ReduceSum")                                       \
  X(ReduceMax, Reduction, ReduceAttrs, "X", "ReduceMax")                                       \
  /* Pass-through */                                                                           \
  X(Identity, PassThrough, NoAttrs, "X", "Identity")                                           \
  X(Dropout, PassThrough, NoAttrs, "data ratio training_mode", "Dropout")                      \
  /* Unary math (float unless noted) */                                                        \
  X(Floor, Unary, NoAttrs, "X", "Floor")                                                       \
  X(Ceil, Unary, NoAttrs, "X", "Ceil")                                                         \
  X(Round, Unary, NoAttrs, "X", "Round") /* half to even */                                    \
  X(Sign, Unary, NoAttrs, "X", "Sign")   /* numeric */                                         \
  X(Erf, Unary, NoAttrs, "X", "Erf")                                                           \
  X(Softplus, Unary, NoAttrs, "X", "Softplus")                                                 \
  X(Softsign, Unary, NoAttrs, "X", "Softsign")                                                 \
  X(Sin, Unary, NoAttrs, "X", "Sin")                                                           \
  X(Cos, Unary, NoAttrs, "X", "Cos")                                                           \
  X(Tan, Unary, NoAttrs, "X", "Tan")                                                           \
  X(Asin, Unary, NoAttrs, "X", "Asin")                                                         \
  X(Acos, Unary, NoAttrs, "X", "Acos")                                                         \
  X(Atan, Unary, NoAttrs, "X", "Atan")                                                         \
  X(Sinh, Unary, NoAttrs, "X", "Sinh")                                                         \
  X(Cosh, Unary, NoAttrs, "X", "Cosh")                                                         \
  X(Asinh, Unary, NoAttrs, "X", "Asinh")                                                       \
  X(Acosh, Unary, NoAttrs, "X", "Acosh")                                                       \
  X(Atanh, Unary, NoAttrs, "X", "Atanh")                                                       \
  X(Not, Unary, NoAttrs, "X", "Not") /* bool */                                                \
  /* Activations with attributes */                                                            \
  X(ThresholdedRelu, Unary, ThresholdedReluAttrs, "X", "ThresholdedRelu")                      \
  X(Celu, Unary, CeluAttrs, "X", "Celu")                                                       \
  X(HardSwish, Unary, NoAttrs, "X", "HardSwish")                                               \
  X(Shrink, Unary, ShrinkAttrs, "X", "Shrink")                                                 \
  /* Predicates: bool output of the input's shape */                                           \
  X(IsNaN, Predicate, NoAttrs, "X", "IsNaN")                                                   \
  X(IsInf, Predicate, IsInfAttrs, "X", "IsInf")                                                \
  /* Broadcasting binary ops beyond arithmetic; Where broadcasts three ways */                 \
  X(Pow, Arithmetic, NoAttrs, "X Y", "Pow")                                                    \
  X(Mod, Arithmetic, ModAttrs, "A B", "Mod")                                                   \
  X(BitShift, Arithmetic, BitShiftAttrs, "X Y", "BitShift")                                    \
  X(And, Logical, NoAttrs, "A B", "And")                                                       \
  X(Or, Logical, NoAttrs, "A B", "Or")                                                         \
  X(Xor, Logical, NoAttrs, "A B", "Xor")                                                       \
  X(Equal, Comparison, NoAttrs, "A B", "Equal")                                                \
  X(Less, Comparison, NoAttrs, "A B", "Less")                                                  \
  X(LessOrEqual, Comparison, NoAttrs, "A B", "LessOrEqual")                                    \
  X(Greater, Comparison, NoAttrs, "A B", "Greater")                                            \
  X(GreaterOrEqual, Comparison, NoAttrs, "A B", "GreaterOrEqual")                              \
  X(Where, Select, NoAttrs, "condition X Y", "Where")                                          \
  /* More reductions */                                                                        \
  X(ReduceMin, Reduction, ReduceAttrs, "X", "ReduceMin")                                       \
  X(ReduceProd, Reduction, ReduceAttrs, "X", "ReduceProd")                                     \
  X(ReduceL1, Reduction, ReduceAttrs, "X", "ReduceL1")                                         \
  X(ReduceL2, Reduction, ReduceAttrs, "X", "ReduceL2")                                         \
  X(ReduceSumSquare, Reduction, ReduceAttrs, "X", "ReduceSumSquare")                           \
  X(ReduceLogSum, Reduction, ReduceAttrs, "X", "ReduceLogSum")                                 \
  X(ReduceLogSumExp, Reduction, ReduceAttrs, "X", "ReduceLogSumExp")                           \
  X(ArgMax, ArgReduction, ArgAttrs, "X", "ArgMax")                                             \
  X(ArgMin, ArgReduction, ArgAttrs, "X", "ArgMin")                                             \
  /* Shape-ish ops (mostly folded at import) */                                                \
  X(Split, DataMovement, SplitAttrs, "X", "Split")                                             \
  X(Expand, DataMovement, ExpandAttrs, "X", "Expand")                                          \
  X(Tile, DataMovement, TileAttrs, "X", "Tile")                                                \
  X(ConstantOfShape, ShapeOf, ConstantOfShapeAttrs, "", "ConstantOfShape")                     \
  X(Range, ShapeOf, RangeAttrs, "", "Range")                                                   \
  X(Size, ShapeOf, NoAttrs, "X", "Size")                                                       \
  X(EyeLike, ShapeOf, EyeLikeAttrs, "X", "EyeLike")                                            \
  X(Trilu, DataMovement, TriluAttrs, "X", "Trilu")                                             \
  X(DepthToSpace, DataMovement, BlockAttrs, "X", "DepthToSpace")                               \
  X(SpaceToDepth, DataMovement, BlockAttrs, "X", "SpaceToDepth")                               \
  X(GatherElements, DataMovement, GatherAttrs, "data indices", "GatherElements")               \
  X(CumSum, Scan, CumSumAttrs, "X", "CumSum")                                                  \
  X(OneHot, DataMovement, OneHotAttrs, "indices values", "OneHot")                             \
  /* Network layers */                                                                         \
  X(LayerNormalization, Layer, LayerNormAttrs, "X Scale B", "LayerNormalization")              \
  X(InstanceNormalization, Layer, InstanceNormAttrs, "input scale B", "InstanceNormalization") \
  X(LRN, Layer, LrnAttrs, "X", "LRN")                                                          \
  X(ConvTranspose, Layer, ConvTransposeAttrs, "X W B", "ConvTranspose")                        \
  X(Resize, Layer, ResizeAttrs, "X", "Resize", "Upsample")                                     \
  X(MaxUnpool, Layer, MaxUnpoolAttrs, "X I", "MaxUnpool")                                      \
  /* Recurrent layers: one layer over a whole sequence */                                      \
  X(RNN, Layer, RecurrentAttrs, "X W R B sequence_lens initial_h", "RNN")                      \
  X(GRU, Layer, RecurrentAttrs, "X W R B sequence_lens initial_h", "GRU")                      \
  X(LSTM, Layer, RecurrentAttrs, "X W R B sequence_lens initial_h initial_c P", "LSTM")

// QONNX's quantizers (docs/qonnx-custom-ops of github.com/fastmachinelearning/qonnx).
// Their bit widths are constant ONNX inputs that the importer reads into the
// attributes, so they are not node inputs here.
#define KILN_QONNX_OPS(X)                                                   \
  X(Quant, Quantizer, IntQuantAttrs, "X scale zeropt", "Quant", "IntQuant") \
  X(BipolarQuant, Quantizer, NoAttrs, "X scale", "BipolarQuant")            \
  X(Trunc, Quantizer, TruncAttrs, "X scale zeropt out_scale", "Trunc")

// kiln's own kinds, made by graph passes (never imported from ONNX).
//  - Dense: X [..., K], W [K, N] and bias [N], both constant; y = x W + bias
//    on the last axis.
#define KILN_OWN_OPS(X) X(Dense, Layer, DenseAttrs, "X W bias")

namespace kiln {

// What kind of computation an op is; the predicates below read it.
enum class OpCategory : uint8_t {
  Layer,         // convolution, pooling, linear algebra, normalization, resizing
  Activation,    // activations beyond a plain elementwise map (PRelu, Softmax, Clip)
  Unary,         // elementwise over one input; the output has the input's shape
  Predicate,     // elementwise over one input, bool output
  Arithmetic,    // two broadcast operands, numeric
  Logical,       // two broadcast bool operands
  Comparison,    // two broadcast operands, bool output
  Variadic,      // any number of broadcast operands
  Select,        // Where
  Reduction,     // Reduce*
  ArgReduction,  // ArgMax, ArgMin
  Scan,          // CumSum
  DataMovement,  // moves or copies elements without arithmetic
  Conversion,    // Cast
  ShapeOf,       // computes shapes or constants from shapes
  PassThrough,   // Identity, Dropout in inference
  Quantizer,     // float to float on an integer grid: QONNX's Quant, BipolarQuant, Trunc
};

// The ONNX domain of a kind: which KILN_*_OPS list its row is in.
enum class OpDomain : uint8_t {
  Onnx,   // the default domain, "" or "ai.onnx"
  Qonnx,  // "qonnx.custom_op.general", also spelled "finn.custom_op.general"
  Kiln,   // kiln's own kinds, never read from ONNX
};

enum class OpKind : uint8_t {
#define KILN_OP_ENUM(kind, ...) kind,
  KILN_OPS(KILN_OP_ENUM)
#undef KILN_OP_ENUM
};

#define KILN_OP_COUNT(...) +1
inline constexpr int kNumOpKinds = 0 KILN_OPS(KILN_OP_COUNT);
#undef KILN_OP_COUNT

// The name of a kind: its ONNX op type ("Conv"), or kiln's name for its own
// kinds ("Dense"). Also the op's spelling in the IR text.
std::string_view op_name(OpKind kind);
// The kind an op type of an ONNX domain is imported as (CastLike is a Cast,
// Upsample a Resize, QONNX's IntQuant a Quant); nullopt if kiln lacks the op.
std::optional<OpKind> op_kind_from_onnx(OpDomain domain, std::string_view onnx_op_type);
OpDomain op_domain(OpKind kind);
// The domain an ONNX domain name denotes ("" and "ai.onnx" are the default
// domain); nullopt for domains kiln does not read.
std::optional<OpDomain> op_domain_from_onnx(std::string_view onnx_domain);
// The canonical ONNX name of a domain ("ai.onnx", "qonnx.custom_op.general").
std::string_view onnx_domain_name(OpDomain domain);
// The kind whose op_name() is `name` (the IR text's spelling).
std::optional<OpKind> op_kind_from_name(std::string_view name);
OpCategory op_category(OpKind kind);
// The ONNX op types imported as `kind` (empty for kiln's own kinds).
std::vector<std::string_view> onnx_op_types(OpKind kind);
// ONNX's name for input i of an op, used in messages ("W"), "input i" beyond
// the named ones.
std::string input_role(OpKind kind, std::size_t i);

inline bool is_unary_elementwise(OpKind k) {
  return op_category(k) == OpCategory::Unary;
}
inline bool is_comparison(OpKind k) {
  return op_category(k) == OpCategory::Comparison;
}
inline bool is_logical(OpKind k) {
  return op_category(k) == OpCategory::Logical;
}
inline bool is_broadcast_binary(OpKind k) {
  const OpCategory c = op_category(k);
  return c == OpCategory::Arithmetic || c == OpCategory::Logical || c == OpCategory::Comparison;
}
inline bool is_variadic_elementwise(OpKind k) {
  return op_category(k) == OpCategory::Variadic;
}
inline bool is_reduction(OpKind k) {
  return op_category(k) == OpCategory::Reduction;
}

// ---- attributes ---------------------------------------------------------------
//
// Each struct lists its fields once in a static `visit(self, f)`, which calls
// f("name", self.field) per field; the IR printer and parser read them
// through it, so a field added to a struct and to its visit is printed,
// parsed and compared everywhere.

using NoAttrs = std::monostate;

// An activation fused into the node that produces its input (Conv, Dense) by
// the fuse_activation pass; applied to the node's output after the bias.
struct FusedActivation {
  enum class Kind : uint8_t { None, Relu, LeakyRelu, Clip };
  Kind kind = Kind::None;
  float alpha = 0.0f;  // LeakyRelu slope
  float lo = 0.0f;     // Clip bounds (-inf / +inf when the Clip had none)
  float hi = 0.0f;
  bool operator==(const FusedActivation&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("kind", s.kind), f("alpha", s.alpha), f("lo", s.lo), f("hi", s.hi);
  }
};

template <>
struct EnumNames<FusedActivation::Kind> {
  static constexpr std::pair<FusedActivation::Kind, std::string_view> kNames[] = {
      {FusedActivation::Kind::None, "none"},
      {FusedActivation::Kind::Relu, "relu"},
      {FusedActivation::Kind::LeakyRelu, "leaky_relu"},
      {FusedActivation::Kind::Clip, "clip"}};
};

// Convolution (1-D, 2-D and beyond). auto_pad is resolved into explicit pads.
// channels_last (set by the channels_last pass) means X and Y are [N, spatial..., C]
// instead of [N, C, spatial...]; W keeps the ONNX layout [M, C/group, kernel...]
// and the window attributes stay in spatial order.
struct ConvAttrs {
  std::vector<int64_t> kernel_shape;  // spatial dims only
  std::vector<int64_t> strides;
  std::vector<int64_t> pads;  // [begin_0, begin_1, ..., end_0, end_1, ...]
  std::vector<int64_t> dilations;
  int64_t group = 1;
  FusedActivation activation{};
  bool channels_last = false;
  bool operator==(const ConvAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("kernel_shape", s.kernel_shape), f("strides", s.strides), f("pads", s.pads);
    f("dilations", s.dilations), f("group", s.group), f("activation", s.activation);
    f("channels_last", s.channels_last);
  }
};

// MaxPool and AveragePool. channels_last: X and Y are [N, spatial..., C] (the
// Indices output of a channels-last MaxPool is not supported).
struct PoolAttrs {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> pads;  // [begins..., ends...]
  std::vector<int64_t> dilations;
  bool ceil_mode = false;
  bool count_include_pad = false;  // AveragePool only
  bool channels_last = false;
  bool operator==(const PoolAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("kernel_shape", s.kernel_shape), f("strides", s.strides), f("pads", s.pads);
    f("dilations", s.dilations), f("ceil_mode", s.ceil_mode);
    f("count_include_pad", s.count_include_pad), f("channels_last", s.channels_last);
  }
};

// GlobalAveragePool and GlobalMaxPool. channels_last: X [N, spatial..., C] and
// Y [N, 1..., C].
struct GlobalPoolAttrs {
  bool channels_last = false;
  bool operator==(const GlobalPoolAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("channels_last", s.channels_last);
  }
};

// Dense (kiln's fully connected layer, made from Gemm/MatMul by form_dense).
struct DenseAttrs {
  FusedActivation activation{};
  bool operator==(const DenseAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("activation", s.activation);
  }
};

struct GemmAttrs {
  float alpha = 1.0f;
  float beta = 1.0f;
  bool trans_a = false;
  bool trans_b = false;
  bool operator==(const GemmAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("alpha", s.alpha), f("beta", s.beta), f("trans_a", s.trans_a), f("trans_b", s.trans_b);
  }
};

// Inference-mode batch normalization; inputs X, scale, B, mean, var.
// channels_last: the channel axis of X is the last one instead of axis 1.
struct BatchNormAttrs {
  float epsilon = 1e-5f;
  bool channels_last = false;
  bool operator==(const BatchNormAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("epsilon", s.epsilon), f("channels_last", s.channels_last);
  }
};

struct LeakyReluAttrs {
  float alpha = 0.01f;
  bool operator==(const LeakyReluAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("alpha", s.alpha);
  }
};
struct EluAttrs {
  float alpha = 1.0f;
  bool operator==(const EluAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("alpha", s.alpha);
  }
};
struct SeluAttrs {
  float alpha = 1.67326319217681884765625f;
  float gamma = 1.05070102214813232421875f;
  bool operator==(const SeluAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("alpha", s.alpha), f("gamma", s.gamma);
  }
};
struct HardSigmoidAttrs {
  float alpha = 0.2f;
  float beta = 0.5f;
  bool operator==(const HardSigmoidAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("alpha", s.alpha), f("beta", s.beta);
  }
};

// Softmax and LogSoftmax. With coerce_2d (opset < 13) the input is viewed as
// [prod(dims < axis), prod(dims >= axis)] and normalized over the second
// dimension; otherwise (opset >= 13) it is normalized along `axis` only.
struct SoftmaxAttrs {
  int64_t axis = 0;
  bool coerce_2d = false;
  bool operator==(const SoftmaxAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis), f("coerce_2d", s.coerce_2d);
  }
};

struct ConcatAttrs {
  int64_t axis = 0;
  bool operator==(const ConcatAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis);
  }
};

// One entry per input dimension, already clamped as the ONNX spec prescribes,
// so element i of the output along d is input index starts[d] + i * steps[d].
struct SliceAttrs {
  std::vector<int64_t> starts;
  std::vector<int64_t> ends;
  std::vector<int64_t> steps;
  bool operator==(const SliceAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("starts", s.starts), f("ends", s.ends), f("steps", s.steps);
  }
};

struct FlattenAttrs {
  int64_t axis = 1;
  bool operator==(const FlattenAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis);
  }
};

// The resolved output shape (0 and -1 already replaced).
struct ReshapeAttrs {
  std::vector<int64_t> shape;
  bool operator==(const ReshapeAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("shape", s.shape);
  }
};

struct TransposeAttrs {
  std::vector<int64_t> perm;
  bool operator==(const TransposeAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("perm", s.perm);
  }
};

// Squeeze and Unsqueeze: sorted, non-negative axes. For Squeeze they index the
// input, for Unsqueeze the output.
struct AxesAttrs {
  std::vector<int64_t> axes;
  bool operator==(const AxesAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axes", s.axes);
  }
};

enum class PadMode : uint8_t { Constant, Reflect, Edge };
template <>
struct EnumNames<PadMode> {
  static constexpr std::pair<PadMode, std::string_view> kNames[] = {
      {PadMode::Constant, "constant"}, {PadMode::Reflect, "reflect"}, {PadMode::Edge, "edge"}};
};

struct PadAttrs {
  std::vector<int64_t> pads;  // [begins..., ends...], one pair per input dimension; may be negative
  PadMode mode = PadMode::Constant;
  double value = 0.0;
  // Records that the tensor is [N, spatial..., C] (set by the channels_last
  // pass). The pads always follow the tensor's own axis order, so the flag
  // changes no semantics; it tells backends which layout the pad works in.
  bool channels_last = false;
  bool operator==(const PadAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("pads", s.pads), f("mode", s.mode), f("value", s.value);
    f("channels_last", s.channels_last);
  }
};

// Reduce*: the reduced axes, sorted. Never empty except for a rank-0 input
// (where e.g. ReduceL2 still computes |x|); a no-op reduction is imported as
// Identity.
struct ReduceAttrs {
  std::vector<int64_t> axes;
  bool keepdims = true;
  bool operator==(const ReduceAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axes", s.axes), f("keepdims", s.keepdims);
  }
};

struct ShapeAttrs {
  int64_t start = 0;
  int64_t end = 0;  // exclusive, already clamped
  bool operator==(const ShapeAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("start", s.start), f("end", s.end);
  }
};

struct GatherAttrs {
  int64_t axis = 0;
  bool operator==(const GatherAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis);
  }
};

struct CastAttrs {
  DType to = DType::Float32;
  bool operator==(const CastAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("to", s.to);
  }
};

// QuantizeLinear: y = saturate(round_half_even(x / scale) + zero_point) in
// `to` (uint8 or int8, the zero point's type); DequantizeLinear: y = (x -
// zero_point) * scale in float32. One scale (and zero point) for the tensor,
// or with per_axis one per index of `axis`.
struct QuantAttrs {
  bool per_axis = false;
  int64_t axis = 0;
  DType to = DType::UInt8;
  bool operator==(const QuantAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("per_axis", s.per_axis), f("axis", s.axis), f("to", s.to);
  }
};

// How QONNX's Quant and Trunc round to an integer (their rounding_mode).
enum class RoundingMode : uint8_t {
  Round,     // ROUND (also HALF_EVEN): to nearest, ties to even
  Ceil,      // CEIL: toward +inf
  Floor,     // FLOOR: toward -inf
  Up,        // UP: away from zero
  Down,      // DOWN: toward zero
  HalfUp,    // HALF_UP: to nearest, ties away from zero
  HalfDown,  // HALF_DOWN: to nearest, ties toward zero
};
template <>
struct EnumNames<RoundingMode> {
  static constexpr std::pair<RoundingMode, std::string_view> kNames[] = {
      {RoundingMode::Round, "round"},       {RoundingMode::Ceil, "ceil"},
      {RoundingMode::Floor, "floor"},       {RoundingMode::Up, "up"},
      {RoundingMode::Down, "down"},         {RoundingMode::HalfUp, "half_up"},
      {RoundingMode::HalfDown, "half_down"}};
};

// QONNX Quant (IntQuant), float32 throughout:
//   q = rounding(clip(x / scale + zeropt, lo, hi)),  y = (q - zeropt) * scale
// with [lo, hi] the integers of `bitwidth` bits: signed [-2^(b-1), 2^(b-1) - 1]
// (narrow: lo + 1), unsigned [0, 2^b - 1] (narrow: hi - 1). Signed 1-bit is
// bipolar, q = (x / scale + zeropt >= 0 ? 1 : -1), as QONNX's reference
// executes it. scale and zeropt broadcast to X.
// Bit widths of Quant and Trunc are 1 to kMaxQuantBitwidth. They have no
// default (0 is invalid), so the IR text always shows them.
inline constexpr int64_t kMaxQuantBitwidth = 64;
struct IntQuantAttrs {
  int64_t bitwidth = 0;
  bool is_signed = true;
  bool narrow = false;
  RoundingMode rounding = RoundingMode::Round;
  bool operator==(const IntQuantAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("bitwidth", s.bitwidth), f("signed", s.is_signed), f("narrow", s.narrow);
    f("rounding", s.rounding);
  }
};

// QONNX Trunc, float32 throughout, in the form of QONNX opset `version`:
//  1: q = rounding(round(x / scale + zeropt) / 2^(in_bitwidth - out_bitwidth)),
//     y = (q - zeropt) * scale (no clipping; inputs X, scale, zeropt);
//  2: t = 2^round(log2(out_scale / scale)),
//     q = rounding(clip(round(x / scale + zeropt) / t, lo, hi)),
//     y = (q - zeropt / t) * out_scale, [lo, hi] the range of out_bitwidth bits
//     (signed, narrow) as for Quant; in_bitwidth is informative (input
//     out_scale follows zeropt).
// The inner round is to nearest, ties to even; scale, zeropt and out_scale
// broadcast to X.
struct TruncAttrs {
  int64_t version = 2;
  int64_t in_bitwidth = 0;
  int64_t out_bitwidth = 0;
  bool is_signed = true;
  bool narrow = false;
  RoundingMode rounding = RoundingMode::Floor;
  bool operator==(const TruncAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("version", s.version), f("in_bitwidth", s.in_bitwidth), f("out_bitwidth", s.out_bitwidth);
    f("signed", s.is_signed), f("narrow", s.narrow), f("rounding", s.rounding);
  }
};

// y = x > alpha ? x : 0
struct ThresholdedReluAttrs {
  float alpha = 1.0f;
  bool operator==(const ThresholdedReluAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("alpha", s.alpha);
  }
};
// y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
struct CeluAttrs {
  float alpha = 1.0f;
  bool operator==(const CeluAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("alpha", s.alpha);
  }
};
// y = x < -lambd ? x + bias : x > lambd ? x - bias : 0
struct ShrinkAttrs {
  float bias = 0.0f;
  float lambd = 0.5f;
  bool operator==(const ShrinkAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("bias", s.bias), f("lambd", s.lambd);
  }
};
struct IsInfAttrs {
  bool detect_positive = true;
  bool detect_negative = true;
  bool operator==(const IsInfAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("detect_positive", s.detect_positive), f("detect_negative", s.detect_negative);
  }
};
// fmod: the remainder takes the dividend's sign (C fmod); otherwise the
// divisor's (Python %), which ONNX allows for integers only.
struct ModAttrs {
  bool fmod = false;
  bool operator==(const ModAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("fmod", s.fmod);
  }
};
struct BitShiftAttrs {
  bool left = true;  // direction "LEFT"; false is "RIGHT"
  bool operator==(const BitShiftAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("left", s.left);
  }
};
// ArgMax / ArgMin along one axis; int64 output.
struct ArgAttrs {
  int64_t axis = 0;
  bool keepdims = true;
  bool select_last_index = false;
  bool operator==(const ArgAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis), f("keepdims", s.keepdims), f("select_last_index", s.select_last_index);
  }
};

// Split along `axis` into outputs of the given sizes (one per output).
struct SplitAttrs {
  int64_t axis = 0;
  std::vector<int64_t> split;
  bool operator==(const SplitAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis), f("split", s.split);
  }
};

// Expand: the output shape (the input broadcast with the target shape).
struct ExpandAttrs {
  std::vector<int64_t> shape;
  bool operator==(const ExpandAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("shape", s.shape);
  }
};

// Tile: one repeat count per input dimension.
struct TileAttrs {
  std::vector<int64_t> repeats;
  bool operator==(const TileAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("repeats", s.repeats);
  }
};

// ConstantOfShape: no inputs; `shape` filled with `value` of type `dtype`.
struct ConstantOfShapeAttrs {
  std::vector<int64_t> shape;
  DType dtype = DType::Float32;
  double value = 0.0;
  bool operator==(const ConstantOfShapeAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("shape", s.shape), f("dtype", s.dtype), f("value", s.value);
  }
};

// Range: no inputs; start + i * delta for i < max(ceil((limit - start) / delta), 0).
struct RangeAttrs {
  double start = 0.0;
  double limit = 0.0;
  double delta = 1.0;
  DType dtype = DType::Float32;
  bool operator==(const RangeAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("start", s.start), f("limit", s.limit), f("delta", s.delta), f("dtype", s.dtype);
  }
};

// EyeLike: ones on diagonal k of a 2-D tensor of the input's shape, type `dtype`.
struct EyeLikeAttrs {
  int64_t k = 0;
  DType dtype = DType::Float32;
  bool operator==(const EyeLikeAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("k", s.k), f("dtype", s.dtype);
  }
};

// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims.
struct TriluAttrs {
  bool upper = true;
  int64_t k = 0;
  bool operator==(const TriluAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("upper", s.upper), f("k", s.k);
  }
};

// DepthToSpace (crd: CRD mode, else DCR) and SpaceToDepth (crd unused).
struct BlockAttrs {
  int64_t blocksize = 1;
  bool crd = false;
  bool operator==(const BlockAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("blocksize", s.blocksize), f("crd", s.crd);
  }
};

struct CumSumAttrs {
  int64_t axis = 0;
  bool exclusive = false;
  bool reverse = false;
  bool operator==(const CumSumAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis), f("exclusive", s.exclusive), f("reverse", s.reverse);
  }
};

// OneHot: inputs indices and values ([off, on]); `axis` indexes the output.
struct OneHotAttrs {
  int64_t axis = 0;
  int64_t depth = 1;
  bool operator==(const OneHotAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis), f("depth", s.depth);
  }
};

// LayerNormalization: normalizes over dims [axis, rank); outputs Y and, if
// used, Mean and InvStdDev (float32, X's shape with dims >= axis set to 1).
struct LayerNormAttrs {
  int64_t axis = 0;
  float epsilon = 1e-5f;
  bool operator==(const LayerNormAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis), f("epsilon", s.epsilon);
  }
};

// InstanceNormalization: per (n, c) statistics over the spatial dims.
struct InstanceNormAttrs {
  float epsilon = 1e-5f;
  bool operator==(const InstanceNormAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("epsilon", s.epsilon);
  }
};

// LRN across channels: y = x / (bias + alpha / size * sum of x^2 over the window)^beta.
struct LrnAttrs {
  float alpha = 1e-4f;
  float beta = 0.75f;
  float bias = 1.0f;
  int64_t size = 1;
  bool operator==(const LrnAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("alpha", s.alpha), f("beta", s.beta), f("bias", s.bias), f("size", s.size);
  }
};

// ConvTranspose; inputs X [N, C, in...], W [C, M/group, kernel...], optional
// B [M]. output_shape and auto_pad are resolved into pads (which may be
// negative: extra output rows that receive only the bias). Output size per
// spatial dim: stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1
// - pad_begin - pad_end.
struct ConvTransposeAttrs {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> pads;  // [begins..., ends...]
  std::vector<int64_t> output_padding;
  std::vector<int64_t> dilations;
  int64_t group = 1;
  bool channels_last = false;  // kiln: X and Y are [N, spatial..., C] (set by channels_last)
  bool operator==(const ConvTransposeAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("kernel_shape", s.kernel_shape), f("strides", s.strides), f("pads", s.pads);
    f("output_padding", s.output_padding), f("dilations", s.dilations), f("group", s.group);
    f("channels_last", s.channels_last);
  }
};

enum class ResizeMode : uint8_t { Nearest, Linear, Cubic };
// How an output coordinate maps to an input coordinate (ONNX
// coordinate_transformation_mode).
enum class ResizeCoord : uint8_t {
  HalfPixel,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNn,
  TfCropAndResize,
  HalfPixelSymmetric,  // opset 19
};
enum class NearestMode : uint8_t { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

template <>
struct EnumNames<ResizeMode> {
  static constexpr std::pair<ResizeMode, std::string_view> kNames[] = {
      {ResizeMode::Nearest, "nearest"},
      {ResizeMode::Linear, "linear"},
      {ResizeMode::Cubic, "cubic"}};
};
template <>
struct EnumNames<ResizeCoord> {
  static constexpr std::pair<ResizeCoord, std::string_view> kNames[] = {
      {ResizeCoord::HalfPixel, "half_pixel"},
      {ResizeCoord::PytorchHalfPixel, "pytorch_half_pixel"},
      {ResizeCoord::AlignCorners, "align_corners"},
      {ResizeCoord::Asymmetric, "asymmetric"},
      {ResizeCoord::TfHalfPixelForNn, "tf_half_pixel_for_nn"},
      {ResizeCoord::TfCropAndResize, "tf_crop_and_resize"},
      {ResizeCoord::HalfPixelSymmetric, "half_pixel_symmetric"}};
};
template <>
struct EnumNames<NearestMode> {
  static constexpr std::pair<NearestMode, std::string_view> kNames[] = {
      {NearestMode::RoundPreferFloor, "round_prefer_floor"},
      {NearestMode::RoundPreferCeil, "round_prefer_ceil"},
      {NearestMode::Floor, "floor"},
      {NearestMode::Ceil, "ceil"}};
};

// Resize (and Upsample): the output shape and the per-dimension scales the
// coordinate mapping uses, both resolved from the constant scales/sizes
// inputs; roi only for TfCropAndResize ([starts..., ends...]).
struct ResizeAttrs {
  ResizeMode mode = ResizeMode::Nearest;
  ResizeCoord coord = ResizeCoord::HalfPixel;
  NearestMode nearest = NearestMode::RoundPreferFloor;
  std::vector<int64_t> sizes;
  std::vector<double> scales;
  std::vector<double> roi;
  float cubic_coeff_a = -0.75f;
  bool exclude_outside = false;
  float extrapolation_value = 0.0f;
  bool operator==(const ResizeAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("mode", s.mode), f("coord", s.coord), f("nearest", s.nearest), f("sizes", s.sizes);
    f("scales", s.scales), f("roi", s.roi), f("cubic_coeff_a", s.cubic_coeff_a);
    f("exclude_outside", s.exclude_outside), f("extrapolation_value", s.extrapolation_value);
  }
};

// MaxUnpool: inputs X and I (flat indices into the output, as MaxPool's
// Indices output gives them); output_shape is resolved (from the constant
// input or from the window attributes).
struct MaxUnpoolAttrs {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> pads;  // [begins..., ends...]
  std::vector<int64_t> output_shape;
  bool operator==(const MaxUnpoolAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("kernel_shape", s.kernel_shape), f("strides", s.strides), f("pads", s.pads);
    f("output_shape", s.output_shape);
  }
};

// The activation functions RNN, GRU and LSTM accept (ONNX's list), each with
// its alpha and beta resolved (the defaults of the ONNX operator of that name).
enum class RnnActivation : uint8_t {
  Relu,             // max(0, x)
  Tanh,             // tanh(x)
  Sigmoid,          // 1 / (1 + e^-x)
  Affine,           // alpha * x + beta
  LeakyRelu,        // x >= 0 ? x : alpha * x
  ThresholdedRelu,  // x >= alpha ? x : 0
  ScaledTanh,       // alpha * tanh(beta * x)
  HardSigmoid,      // min(max(alpha * x + beta, 0), 1)
  Elu,              // x >= 0 ? x : alpha * (e^x - 1)
  Softsign,         // x / (1 + |x|)
  Softplus,         // log(1 + e^x)
};
template <>
struct EnumNames<RnnActivation> {
  static constexpr std::pair<RnnActivation, std::string_view> kNames[] = {
      {RnnActivation::Relu, "relu"},
      {RnnActivation::Tanh, "tanh"},
      {RnnActivation::Sigmoid, "sigmoid"},
      {RnnActivation::Affine, "affine"},
      {RnnActivation::LeakyRelu, "leaky_relu"},
      {RnnActivation::ThresholdedRelu, "thresholded_relu"},
      {RnnActivation::ScaledTanh, "scaled_tanh"},
      {RnnActivation::HardSigmoid, "hard_sigmoid"},
      {RnnActivation::Elu, "elu"},
      {RnnActivation::Softsign, "softsign"},
      {RnnActivation::Softplus, "softplus"}};
};

struct RnnActivationFn {
  RnnActivation kind = RnnActivation::Sigmoid;
  float alpha = 0.0f;  // 0 for the activations without parameters
  float beta = 0.0f;
  bool operator==(const RnnActivationFn&) const = default;
};

// In the IR texts an activation reads "tanh", or with parameters
// "leaky_relu(0.01,0)" (alpha, beta).
class Lexer;
template <class T>
struct FieldCodec;
template <>
struct FieldCodec<RnnActivationFn> {
  static std::string format(const RnnActivationFn& fn);
  static void parse(Lexer& lx, RnnActivationFn& fn);
};

enum class RnnDirection : uint8_t { Forward, Reverse, Bidirectional };
template <>
struct EnumNames<RnnDirection> {
  static constexpr std::pair<RnnDirection, std::string_view> kNames[] = {
      {RnnDirection::Forward, "forward"},
      {RnnDirection::Reverse, "reverse"},
      {RnnDirection::Bidirectional, "bidirectional"}};
};

// RNN, GRU and LSTM: inputs X, W, R and optional B, sequence_lens, initial_h
// (LSTM also initial_c, P); outputs Y, Y_h (LSTM also Y_c), each optional.
// activations holds every activation of every direction, resolved: per
// direction f (RNN), f g (GRU) or f g h (LSTM), forward's before reverse's.
// batch_first is ONNX's layout=1: X [batch, seq, input], Y [batch, seq,
// num_directions, hidden], Y_h/Y_c and the initial states [batch,
// num_directions, hidden].
struct RecurrentAttrs {
  RnnDirection direction = RnnDirection::Forward;
  int64_t hidden_size = 0;
  std::vector<RnnActivationFn> activations;
  float clip = 0.0f;  // bound of every activation's input; 0: no clipping
  bool batch_first = false;
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM: the forget gate is 1 - the input gate
  bool operator==(const RecurrentAttrs&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("direction", s.direction), f("hidden_size", s.hidden_size);
    f("activations", s.activations), f("clip", s.clip), f("batch_first", s.batch_first);
    f("linear_before_reset", s.linear_before_reset), f("input_forget", s.input_forget);
  }
};

// Activations per direction and gate blocks of W per direction of a recurrent kind.
inline constexpr int64_t rnn_activation_count(OpKind kind) {
  return kind == OpKind::RNN ? 1 : kind == OpKind::GRU ? 2 : 3;
}
inline constexpr int64_t rnn_gate_count(OpKind kind) {
  return kind == OpKind::RNN ? 1 : kind == OpKind::GRU ? 3 : 4;
}
inline constexpr int64_t rnn_num_directions(const RecurrentAttrs& a) {
  return a.direction == RnnDirection::Bidirectional ? 2 : 1;
}

// ---- derived from KILN_OPS ------------------------------------------------------

namespace detail {
// std::variant of the distinct types of Ts..., in order of first appearance.
template <class V, class... Ts>
struct UniqueVariant {
  using type = V;
};
template <class... Vs, class T, class... Ts>
struct UniqueVariant<std::variant<Vs...>, T, Ts...>
    : std::conditional_t<(std::is_same_v<T, Vs> || ...), UniqueVariant<std::variant<Vs...>, Ts...>,
                         UniqueVariant<std::variant<Vs..., T>, Ts...>> {};

template <class V, class T>
struct VariantIndex;
template <class T, class... Vs>
struct VariantIndex<std::variant<Vs...>, T> {
  static constexpr std::size_t value = [] {
    constexpr bool match[] = {std::is_same_v<T, Vs>...};
    for (std::size_t i = 0; i < sizeof...(Vs); ++i)
      if (match[i]) return i;
    return sizeof...(Vs);
  }();
};
}  // namespace detail

// Every attribute struct of KILN_OPS (and NoAttrs).
#define KILN_OP_ATTRS_TYPE(kind, category, attrs, ...) , attrs
using Attrs =
    typename detail::UniqueVariant<std::variant<NoAttrs> KILN_OPS(KILN_OP_ATTRS_TYPE)>::type;
#undef KILN_OP_ATTRS_TYPE

// The attribute struct of each kind: AttrsOf<OpKind::Conv> is ConvAttrs.
template <OpKind K>
struct OpTraits;
#define KILN_OP_TRAITS(kind, category, attrs, ...) \
  template <>                                      \
  struct OpTraits<OpKind::kind> {                  \
    using Attributes = attrs;                      \
  };
KILN_OPS(KILN_OP_TRAITS)
#undef KILN_OP_TRAITS
template <OpKind K>
using AttrsOf = typename OpTraits<K>::Attributes;

// The index in Attrs of a kind's attribute struct, and a default-constructed one.
std::size_t attrs_index(OpKind kind);
Attrs default_attrs(OpKind kind);

// One-line text of the attributes: the fields that differ from their default,
// "kernel_shape=[3,3] pads=[1,1,1,1]" (the IR text's form, graph/ir_text.h).
std::string attrs_to_string(const Attrs& attrs);

}  // namespace kiln

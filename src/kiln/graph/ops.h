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
  // Unary math (float unless noted)
  Floor,
  Ceil,
  Round,  // half to even
  Sign,   // numeric
  Erf,
  Softplus,
  Softsign,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  Not,  // bool
  // Activations with attributes
  ThresholdedRelu,
  Celu,
  HardSwish,
  Shrink,
  // Predicates: bool output of the input's shape
  IsNaN,
  IsInf,
  // Broadcasting binary ops beyond arithmetic; Where broadcasts three ways
  Pow,
  Mod,
  BitShift,
  And,
  Or,
  Xor,
  Equal,
  Less,
  LessOrEqual,
  Greater,
  GreaterOrEqual,
  Where,
  // More reductions
  ReduceMin,
  ReduceProd,
  ReduceL1,
  ReduceL2,
  ReduceSumSquare,
  ReduceLogSum,
  ReduceLogSumExp,
  ArgMax,
  ArgMin,
  // Shape-ish ops (mostly folded at import)
  Split,
  Expand,
  Tile,
  ConstantOfShape,
  Range,
  Size,
  CastLike,  // imported as Cast
  EyeLike,
  Trilu,
  DepthToSpace,
  SpaceToDepth,
  GatherElements,
  CumSum,
  OneHot,
  // Network layers
  LayerNormalization,
  InstanceNormalization,
  LRN,
  ConvTranspose,
  Resize,
  Upsample,  // imported as Resize
  MaxUnpool,
  // kiln's own kinds, made by graph passes (never imported from ONNX)
  Dense,  // inputs X [..., K], W [K, N] and bias [N], both constant; y = x W + bias on the last
          // axis
};

inline constexpr int kNumOpKinds = static_cast<int>(OpKind::Dense) + 1;

// The ONNX op_type of a kind ("Conv").
std::string_view op_name(OpKind kind);
// Reverse of op_name for the default ONNX domain; nullopt if kiln lacks the op
// (and for kiln's own kinds such as Dense, which are not ONNX ops).
std::optional<OpKind> op_kind_from_name(std::string_view onnx_op_type);

// Element-wise ops whose output has the input's type: Relu ... Reciprocal,
// Floor ... Not, and the activations with attributes.
bool is_unary_elementwise(OpKind kind);
// Two broadcast operands: Add Sub Mul Div Pow Mod BitShift And Or Xor and the
// comparisons (Max/Min with two inputs behave alike but are variadic).
bool is_broadcast_binary(OpKind kind);
bool is_comparison(OpKind kind);  // Equal Less LessOrEqual Greater GreaterOrEqual (bool output)
bool is_logical(OpKind kind);     // And Or Xor (bool operands)
bool is_variadic_elementwise(OpKind kind);  // Max Min Sum Mean
bool is_reduction(OpKind kind);             // Reduce* (not ArgMax/ArgMin)

// An activation fused into the node that produces its input (Conv, Dense) by
// the fuse_activation pass; applied to the node's output after the bias.
struct FusedActivation {
  enum class Kind : uint8_t { None, Relu, LeakyRelu, Clip };
  Kind kind = Kind::None;
  float alpha = 0.0f;  // LeakyRelu slope
  float lo = 0.0f;     // Clip bounds (-inf / +inf when the Clip had none)
  float hi = 0.0f;
  bool operator==(const FusedActivation&) const = default;
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
};

// GlobalAveragePool and GlobalMaxPool (imported without attributes; the
// channels_last pass adds these). channels_last: X [N, spatial..., C] and
// Y [N, 1..., C].
struct GlobalPoolAttrs {
  bool channels_last = false;
  bool operator==(const GlobalPoolAttrs&) const = default;
};

// Dense (kiln's fully connected layer, made from Gemm/MatMul by form_dense).
struct DenseAttrs {
  FusedActivation activation{};
  bool operator==(const DenseAttrs&) const = default;
};

struct GemmAttrs {
  float alpha = 1.0f;
  float beta = 1.0f;
  bool trans_a = false;
  bool trans_b = false;
  bool operator==(const GemmAttrs&) const = default;
};

// Inference-mode batch normalization; inputs X, scale, B, mean, var.
// channels_last: the channel axis of X is the last one instead of axis 1.
struct BatchNormAttrs {
  float epsilon = 1e-5f;
  bool channels_last = false;
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
  // Records that the tensor is [N, spatial..., C] (set by the channels_last
  // pass). The pads always follow the tensor's own axis order, so the flag
  // changes no semantics; it tells backends which layout the pad works in.
  bool channels_last = false;
  bool operator==(const PadAttrs&) const = default;
};

// Reduce*: the reduced axes, sorted. Never empty except for a rank-0 input
// (where e.g. ReduceL2 still computes |x|); a no-op reduction is imported as
// Identity.
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

// y = x > alpha ? x : 0
struct ThresholdedReluAttrs {
  float alpha = 1.0f;
  bool operator==(const ThresholdedReluAttrs&) const = default;
};
// y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
struct CeluAttrs {
  float alpha = 1.0f;
  bool operator==(const CeluAttrs&) const = default;
};
// y = x < -lambd ? x + bias : x > lambd ? x - bias : 0
struct ShrinkAttrs {
  float bias = 0.0f;
  float lambd = 0.5f;
  bool operator==(const ShrinkAttrs&) const = default;
};
struct IsInfAttrs {
  bool detect_positive = true;
  bool detect_negative = true;
  bool operator==(const IsInfAttrs&) const = default;
};
// fmod: the remainder takes the dividend's sign (C fmod); otherwise the
// divisor's (Python %), which ONNX allows for integers only.
struct ModAttrs {
  bool fmod = false;
  bool operator==(const ModAttrs&) const = default;
};
struct BitShiftAttrs {
  bool left = true;  // direction "LEFT"; false is "RIGHT"
  bool operator==(const BitShiftAttrs&) const = default;
};
// ArgMax / ArgMin along one axis; int64 output.
struct ArgAttrs {
  int64_t axis = 0;
  bool keepdims = true;
  bool select_last_index = false;
  bool operator==(const ArgAttrs&) const = default;
};

// Split along `axis` into outputs of the given sizes (one per output).
struct SplitAttrs {
  int64_t axis = 0;
  std::vector<int64_t> split;
  bool operator==(const SplitAttrs&) const = default;
};

// Expand: the output shape (the input broadcast with the target shape).
struct ExpandAttrs {
  std::vector<int64_t> shape;
  bool operator==(const ExpandAttrs&) const = default;
};

// Tile: one repeat count per input dimension.
struct TileAttrs {
  std::vector<int64_t> repeats;
  bool operator==(const TileAttrs&) const = default;
};

// ConstantOfShape: no inputs; `shape` filled with `value` of type `dtype`.
struct ConstantOfShapeAttrs {
  std::vector<int64_t> shape;
  DType dtype = DType::Float32;
  double value = 0.0;
  bool operator==(const ConstantOfShapeAttrs&) const = default;
};

// Range: no inputs; start + i * delta for i < max(ceil((limit - start) / delta), 0).
struct RangeAttrs {
  double start = 0.0;
  double limit = 0.0;
  double delta = 1.0;
  DType dtype = DType::Float32;
  bool operator==(const RangeAttrs&) const = default;
};

// EyeLike: ones on diagonal k of a 2-D tensor of the input's shape, type `dtype`.
struct EyeLikeAttrs {
  int64_t k = 0;
  DType dtype = DType::Float32;
  bool operator==(const EyeLikeAttrs&) const = default;
};

// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims.
struct TriluAttrs {
  bool upper = true;
  int64_t k = 0;
  bool operator==(const TriluAttrs&) const = default;
};

// DepthToSpace (crd: CRD mode, else DCR) and SpaceToDepth (crd unused).
struct BlockAttrs {
  int64_t blocksize = 1;
  bool crd = false;
  bool operator==(const BlockAttrs&) const = default;
};

struct CumSumAttrs {
  int64_t axis = 0;
  bool exclusive = false;
  bool reverse = false;
  bool operator==(const CumSumAttrs&) const = default;
};

// OneHot: inputs indices and values ([off, on]); `axis` indexes the output.
struct OneHotAttrs {
  int64_t axis = 0;
  int64_t depth = 1;
  bool operator==(const OneHotAttrs&) const = default;
};

// LayerNormalization: normalizes over dims [axis, rank); outputs Y and, if
// used, Mean and InvStdDev (float32, X's shape with dims >= axis set to 1).
struct LayerNormAttrs {
  int64_t axis = 0;
  float epsilon = 1e-5f;
  bool operator==(const LayerNormAttrs&) const = default;
};

// InstanceNormalization: per (n, c) statistics over the spatial dims.
struct InstanceNormAttrs {
  float epsilon = 1e-5f;
  bool operator==(const InstanceNormAttrs&) const = default;
};

// LRN across channels: y = x / (bias + alpha / size * sum of x^2 over the window)^beta.
struct LrnAttrs {
  float alpha = 1e-4f;
  float beta = 0.75f;
  float bias = 1.0f;
  int64_t size = 1;
  bool operator==(const LrnAttrs&) const = default;
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
  bool operator==(const ConvTransposeAttrs&) const = default;
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
};
enum class NearestMode : uint8_t { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

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
};

using Attrs =
    std::variant<std::monostate, ConvAttrs, PoolAttrs, GemmAttrs, BatchNormAttrs, LeakyReluAttrs,
                 EluAttrs, SeluAttrs, HardSigmoidAttrs, SoftmaxAttrs, ConcatAttrs, SliceAttrs,
                 FlattenAttrs, ReshapeAttrs, TransposeAttrs, AxesAttrs, PadAttrs, ReduceAttrs,
                 ShapeAttrs, GatherAttrs, CastAttrs, ThresholdedReluAttrs, CeluAttrs, ShrinkAttrs,
                 IsInfAttrs, ModAttrs, BitShiftAttrs, ArgAttrs, SplitAttrs, ExpandAttrs, TileAttrs,
                 ConstantOfShapeAttrs, RangeAttrs, EyeLikeAttrs, TriluAttrs, BlockAttrs,
                 CumSumAttrs, OneHotAttrs, LayerNormAttrs, InstanceNormAttrs, LrnAttrs,
                 ConvTransposeAttrs, ResizeAttrs, MaxUnpoolAttrs, GlobalPoolAttrs, DenseAttrs>;

// One-line text of the attributes ("kernel=3x3 strides=1x1 pads=1,1,1,1 group=1").
std::string attrs_to_string(const Attrs& attrs);

}  // namespace kiln

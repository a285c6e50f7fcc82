#include "kiln/graph/ops.h"

#include <array>
#include <sstream>
#include <type_traits>

namespace kiln {

namespace {
constexpr std::array<std::string_view, kNumOpKinds> kNames = {
    "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Gemm", "MatMul",
    "BatchNormalization", "Relu", "LeakyRelu", "PRelu", "Elu", "Selu", "Sigmoid", "HardSigmoid",
    "Tanh", "Softmax", "LogSoftmax", "Clip", "Exp", "Log", "Sqrt", "Abs", "Neg", "Reciprocal",
    "Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean", "Concat", "Slice", "Flatten",
    "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Pad", "Gather", "Cast", "Shape", "ReduceMean",
    "ReduceSum", "ReduceMax", "Identity", "Dropout",
    // Unary math
    "Floor", "Ceil", "Round", "Sign", "Erf", "Softplus", "Softsign", "Sin", "Cos", "Tan", "Asin",
    "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Not",
    // Activations with attributes, predicates
    "ThresholdedRelu", "Celu", "HardSwish", "Shrink", "IsNaN", "IsInf",
    // Binary and Where
    "Pow", "Mod", "BitShift", "And", "Or", "Xor", "Equal", "Less", "LessOrEqual", "Greater",
    "GreaterOrEqual", "Where",
    // Reductions
    "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
    "ReduceLogSumExp", "ArgMax", "ArgMin",
    // Shape-ish
    "Split", "Expand", "Tile", "ConstantOfShape", "Range", "Size", "CastLike", "EyeLike", "Trilu",
    "DepthToSpace", "SpaceToDepth", "GatherElements", "CumSum", "OneHot",
    // Network layers
    "LayerNormalization", "InstanceNormalization", "LRN", "ConvTranspose", "Resize", "Upsample",
    "MaxUnpool",
    // kiln's own
    "Dense"};

// A name left out of the table would leave a trailing empty entry.
constexpr bool all_named() {
  for (std::string_view n : kNames)
    if (n.empty()) return false;
  return true;
}
static_assert(all_named(), "kNames must list every OpKind in enum order");

std::string join(const std::vector<int64_t>& v, char sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}

// " act=leaky_relu(0.1)": the fused activation, empty for none.
std::string activation_text(const FusedActivation& a) {
  std::ostringstream os;
  switch (a.kind) {
    case FusedActivation::Kind::None: return "";
    case FusedActivation::Kind::Relu: return " act=relu";
    case FusedActivation::Kind::LeakyRelu: os << " act=leaky_relu(" << a.alpha << ")"; break;
    case FusedActivation::Kind::Clip: os << " act=clip(" << a.lo << "," << a.hi << ")"; break;
  }
  return os.str();
}

const char* layout_text(bool channels_last) {
  return channels_last ? " channels_last" : "";
}
}  // namespace

std::string_view op_name(OpKind kind) {
  return kNames[static_cast<std::size_t>(kind)];
}

std::optional<OpKind> op_kind_from_name(std::string_view onnx_op_type) {
  // Dense is kiln's own kind (the last one), not an ONNX op.
  for (int i = 0; i < static_cast<int>(OpKind::Dense); ++i)
    if (kNames[static_cast<std::size_t>(i)] == onnx_op_type) return static_cast<OpKind>(i);
  return std::nullopt;
}

bool is_unary_elementwise(OpKind k) {
  switch (k) {
    case OpKind::Relu:
    case OpKind::LeakyRelu:
    case OpKind::Elu:
    case OpKind::Selu:
    case OpKind::Sigmoid:
    case OpKind::HardSigmoid:
    case OpKind::Tanh:
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Abs:
    case OpKind::Neg:
    case OpKind::Reciprocal:
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::Round:
    case OpKind::Sign:
    case OpKind::Erf:
    case OpKind::Softplus:
    case OpKind::Softsign:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Tan:
    case OpKind::Asin:
    case OpKind::Acos:
    case OpKind::Atan:
    case OpKind::Sinh:
    case OpKind::Cosh:
    case OpKind::Asinh:
    case OpKind::Acosh:
    case OpKind::Atanh:
    case OpKind::Not:
    case OpKind::ThresholdedRelu:
    case OpKind::Celu:
    case OpKind::HardSwish:
    case OpKind::Shrink: return true;
    default: return false;
  }
}

bool is_comparison(OpKind k) {
  return k == OpKind::Equal || k == OpKind::Less || k == OpKind::LessOrEqual ||
         k == OpKind::Greater || k == OpKind::GreaterOrEqual;
}

bool is_logical(OpKind k) {
  return k == OpKind::And || k == OpKind::Or || k == OpKind::Xor;
}

bool is_broadcast_binary(OpKind k) {
  return k == OpKind::Add || k == OpKind::Sub || k == OpKind::Mul || k == OpKind::Div ||
         k == OpKind::Pow || k == OpKind::Mod || k == OpKind::BitShift || is_logical(k) ||
         is_comparison(k);
}

bool is_variadic_elementwise(OpKind k) {
  return k == OpKind::Max || k == OpKind::Min || k == OpKind::Sum || k == OpKind::Mean;
}

bool is_reduction(OpKind k) {
  switch (k) {
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMin:
    case OpKind::ReduceProd:
    case OpKind::ReduceL1:
    case OpKind::ReduceL2:
    case OpKind::ReduceSumSquare:
    case OpKind::ReduceLogSum:
    case OpKind::ReduceLogSumExp: return true;
    default: return false;
  }
}

std::string attrs_to_string(const Attrs& attrs) {
  std::ostringstream os;
  std::visit(
      [&](const auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, ConvAttrs>) {
          os << "kernel=" << join(a.kernel_shape, 'x') << " strides=" << join(a.strides, 'x')
             << " pads=" << join(a.pads, ',') << " dilations=" << join(a.dilations, 'x')
             << " group=" << a.group << activation_text(a.activation)
             << layout_text(a.channels_last);
        } else if constexpr (std::is_same_v<A, PoolAttrs>) {
          os << "kernel=" << join(a.kernel_shape, 'x') << " strides=" << join(a.strides, 'x')
             << " pads=" << join(a.pads, ',') << " dilations=" << join(a.dilations, 'x');
          if (a.ceil_mode) os << " ceil_mode";
          if (a.count_include_pad) os << " count_include_pad";
          os << layout_text(a.channels_last);
        } else if constexpr (std::is_same_v<A, GlobalPoolAttrs>) {
          os << (a.channels_last ? "channels_last" : "");
        } else if constexpr (std::is_same_v<A, DenseAttrs>) {
          const std::string act = activation_text(a.activation);
          os << (act.empty() ? act : act.substr(1));
        } else if constexpr (std::is_same_v<A, GemmAttrs>) {
          os << "alpha=" << a.alpha << " beta=" << a.beta << (a.trans_a ? " transA" : "")
             << (a.trans_b ? " transB" : "");
        } else if constexpr (std::is_same_v<A, BatchNormAttrs>) {
          os << "epsilon=" << a.epsilon << layout_text(a.channels_last);
        } else if constexpr (std::is_same_v<A, LeakyReluAttrs> || std::is_same_v<A, EluAttrs>) {
          os << "alpha=" << a.alpha;
        } else if constexpr (std::is_same_v<A, SeluAttrs>) {
          os << "alpha=" << a.alpha << " gamma=" << a.gamma;
        } else if constexpr (std::is_same_v<A, HardSigmoidAttrs>) {
          os << "alpha=" << a.alpha << " beta=" << a.beta;
        } else if constexpr (std::is_same_v<A, SoftmaxAttrs>) {
          os << "axis=" << a.axis << (a.coerce_2d ? " coerce_2d" : "");
        } else if constexpr (std::is_same_v<A, ConcatAttrs> || std::is_same_v<A, FlattenAttrs> ||
                             std::is_same_v<A, GatherAttrs>) {
          os << "axis=" << a.axis;
        } else if constexpr (std::is_same_v<A, SliceAttrs>) {
          os << "starts=" << join(a.starts, ',') << " ends=" << join(a.ends, ',')
             << " steps=" << join(a.steps, ',');
        } else if constexpr (std::is_same_v<A, ReshapeAttrs>) {
          os << "shape=" << join(a.shape, 'x');
        } else if constexpr (std::is_same_v<A, TransposeAttrs>) {
          os << "perm=" << join(a.perm, ',');
        } else if constexpr (std::is_same_v<A, AxesAttrs>) {
          os << "axes=" << join(a.axes, ',');
        } else if constexpr (std::is_same_v<A, PadAttrs>) {
          const char* mode = a.mode == PadMode::Constant  ? "constant"
                             : a.mode == PadMode::Reflect ? "reflect"
                                                          : "edge";
          os << "pads=" << join(a.pads, ',') << " mode=" << mode;
          if (a.mode == PadMode::Constant) os << " value=" << a.value;
          os << layout_text(a.channels_last);
        } else if constexpr (std::is_same_v<A, ReduceAttrs>) {
          os << "axes=" << join(a.axes, ',') << " keepdims=" << (a.keepdims ? 1 : 0);
        } else if constexpr (std::is_same_v<A, ShapeAttrs>) {
          os << "start=" << a.start << " end=" << a.end;
        } else if constexpr (std::is_same_v<A, CastAttrs>) {
          os << "to=" << dtype_name(a.to);
        } else if constexpr (std::is_same_v<A, ThresholdedReluAttrs> ||
                             std::is_same_v<A, CeluAttrs>) {
          os << "alpha=" << a.alpha;
        } else if constexpr (std::is_same_v<A, ShrinkAttrs>) {
          os << "bias=" << a.bias << " lambd=" << a.lambd;
        } else if constexpr (std::is_same_v<A, IsInfAttrs>) {
          os << "detect_positive=" << (a.detect_positive ? 1 : 0)
             << " detect_negative=" << (a.detect_negative ? 1 : 0);
        } else if constexpr (std::is_same_v<A, ModAttrs>) {
          os << "fmod=" << (a.fmod ? 1 : 0);
        } else if constexpr (std::is_same_v<A, BitShiftAttrs>) {
          os << "direction=" << (a.left ? "LEFT" : "RIGHT");
        } else if constexpr (std::is_same_v<A, SplitAttrs>) {
          os << "axis=" << a.axis << " split=" << join(a.split, ',');
        } else if constexpr (std::is_same_v<A, ExpandAttrs>) {
          os << "shape=" << join(a.shape, 'x');
        } else if constexpr (std::is_same_v<A, TileAttrs>) {
          os << "repeats=" << join(a.repeats, ',');
        } else if constexpr (std::is_same_v<A, ConstantOfShapeAttrs>) {
          os << "shape=" << join(a.shape, 'x') << " value=" << a.value << " "
             << dtype_name(a.dtype);
        } else if constexpr (std::is_same_v<A, RangeAttrs>) {
          os << "start=" << a.start << " limit=" << a.limit << " delta=" << a.delta << " "
             << dtype_name(a.dtype);
        } else if constexpr (std::is_same_v<A, EyeLikeAttrs>) {
          os << "k=" << a.k << " dtype=" << dtype_name(a.dtype);
        } else if constexpr (std::is_same_v<A, TriluAttrs>) {
          os << (a.upper ? "upper" : "lower") << " k=" << a.k;
        } else if constexpr (std::is_same_v<A, BlockAttrs>) {
          os << "blocksize=" << a.blocksize << (a.crd ? " CRD" : "");
        } else if constexpr (std::is_same_v<A, CumSumAttrs>) {
          os << "axis=" << a.axis << (a.exclusive ? " exclusive" : "")
             << (a.reverse ? " reverse" : "");
        } else if constexpr (std::is_same_v<A, OneHotAttrs>) {
          os << "axis=" << a.axis << " depth=" << a.depth;
        } else if constexpr (std::is_same_v<A, LayerNormAttrs>) {
          os << "axis=" << a.axis << " epsilon=" << a.epsilon;
        } else if constexpr (std::is_same_v<A, InstanceNormAttrs>) {
          os << "epsilon=" << a.epsilon;
        } else if constexpr (std::is_same_v<A, LrnAttrs>) {
          os << "size=" << a.size << " alpha=" << a.alpha << " beta=" << a.beta
             << " bias=" << a.bias;
        } else if constexpr (std::is_same_v<A, ConvTransposeAttrs>) {
          os << "kernel=" << join(a.kernel_shape, 'x') << " strides=" << join(a.strides, 'x')
             << " pads=" << join(a.pads, ',') << " output_padding=" << join(a.output_padding, ',')
             << " dilations=" << join(a.dilations, 'x') << " group=" << a.group;
        } else if constexpr (std::is_same_v<A, ResizeAttrs>) {
          static constexpr const char* kModes[] = {"nearest", "linear", "cubic"};
          static constexpr const char* kCoords[] = {"half_pixel",           "pytorch_half_pixel",
                                                    "align_corners",        "asymmetric",
                                                    "tf_half_pixel_for_nn", "tf_crop_and_resize"};
          static constexpr const char* kNearest[] = {"round_prefer_floor", "round_prefer_ceil",
                                                     "floor", "ceil"};
          os << "mode=" << kModes[static_cast<int>(a.mode)]
             << " coord=" << kCoords[static_cast<int>(a.coord)];
          if (a.mode == ResizeMode::Nearest)
            os << " nearest=" << kNearest[static_cast<int>(a.nearest)];
          os << " sizes=" << join(a.sizes, 'x');
        } else if constexpr (std::is_same_v<A, MaxUnpoolAttrs>) {
          os << "kernel=" << join(a.kernel_shape, 'x') << " strides=" << join(a.strides, 'x')
             << " pads=" << join(a.pads, ',') << " output_shape=" << join(a.output_shape, 'x');
        } else if constexpr (std::is_same_v<A, ArgAttrs>) {
          os << "axis=" << a.axis << " keepdims=" << (a.keepdims ? 1 : 0)
             << (a.select_last_index ? " select_last_index" : "");
        }
      },
      attrs);
  return os.str();
}

}  // namespace kiln

#include "kiln/graph/ops.h"

#include <array>
#include <sstream>
#include <type_traits>

namespace kiln {

namespace {
constexpr std::array<std::string_view, kNumOpKinds> kNames = {
    "Conv",       "MaxPool",    "AveragePool", "GlobalAveragePool",
    "GlobalMaxPool", "Gemm",    "MatMul",      "BatchNormalization",
    "Relu",       "LeakyRelu",  "PRelu",       "Elu",
    "Selu",       "Sigmoid",    "HardSigmoid", "Tanh",
    "Softmax",    "LogSoftmax", "Clip",        "Exp",
    "Log",        "Sqrt",       "Abs",         "Neg",
    "Reciprocal", "Add",        "Sub",         "Mul",
    "Div",        "Max",        "Min",         "Sum",
    "Mean",       "Concat",     "Slice",       "Flatten",
    "Reshape",    "Transpose",  "Squeeze",     "Unsqueeze",
    "Pad",        "Gather",     "Cast",        "Shape",
    "ReduceMean", "ReduceSum",  "ReduceMax",   "Identity",
    "Dropout"};

std::string join(const std::vector<int64_t>& v, char sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}
}  // namespace

std::string_view op_name(OpKind kind) { return kNames[static_cast<std::size_t>(kind)]; }

std::optional<OpKind> op_kind_from_name(std::string_view onnx_op_type) {
  for (int i = 0; i < kNumOpKinds; ++i)
    if (kNames[static_cast<std::size_t>(i)] == onnx_op_type) return static_cast<OpKind>(i);
  return std::nullopt;
}

bool is_unary_elementwise(OpKind k) {
  switch (k) {
    case OpKind::Relu: case OpKind::LeakyRelu: case OpKind::Elu: case OpKind::Selu:
    case OpKind::Sigmoid: case OpKind::HardSigmoid: case OpKind::Tanh: case OpKind::Exp:
    case OpKind::Log: case OpKind::Sqrt: case OpKind::Abs: case OpKind::Neg:
    case OpKind::Reciprocal:
      return true;
    default:
      return false;
  }
}

bool is_broadcast_binary(OpKind k) {
  return k == OpKind::Add || k == OpKind::Sub || k == OpKind::Mul || k == OpKind::Div;
}

bool is_variadic_elementwise(OpKind k) {
  return k == OpKind::Max || k == OpKind::Min || k == OpKind::Sum || k == OpKind::Mean;
}

bool is_reduction(OpKind k) {
  return k == OpKind::ReduceMean || k == OpKind::ReduceSum || k == OpKind::ReduceMax;
}

std::string attrs_to_string(const Attrs& attrs) {
  std::ostringstream os;
  std::visit(
      [&](const auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, ConvAttrs>) {
          os << "kernel=" << join(a.kernel_shape, 'x') << " strides=" << join(a.strides, 'x')
             << " pads=" << join(a.pads, ',') << " dilations=" << join(a.dilations, 'x')
             << " group=" << a.group;
        } else if constexpr (std::is_same_v<A, PoolAttrs>) {
          os << "kernel=" << join(a.kernel_shape, 'x') << " strides=" << join(a.strides, 'x')
             << " pads=" << join(a.pads, ',') << " dilations=" << join(a.dilations, 'x');
          if (a.ceil_mode) os << " ceil_mode";
          if (a.count_include_pad) os << " count_include_pad";
        } else if constexpr (std::is_same_v<A, GemmAttrs>) {
          os << "alpha=" << a.alpha << " beta=" << a.beta << (a.trans_a ? " transA" : "")
             << (a.trans_b ? " transB" : "");
        } else if constexpr (std::is_same_v<A, BatchNormAttrs>) {
          os << "epsilon=" << a.epsilon;
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
          const char* mode = a.mode == PadMode::Constant ? "constant"
                             : a.mode == PadMode::Reflect ? "reflect"
                                                          : "edge";
          os << "pads=" << join(a.pads, ',') << " mode=" << mode;
          if (a.mode == PadMode::Constant) os << " value=" << a.value;
        } else if constexpr (std::is_same_v<A, ReduceAttrs>) {
          os << "axes=" << join(a.axes, ',') << " keepdims=" << (a.keepdims ? 1 : 0);
        } else if constexpr (std::is_same_v<A, ShapeAttrs>) {
          os << "start=" << a.start << " end=" << a.end;
        } else if constexpr (std::is_same_v<A, CastAttrs>) {
          os << "to=" << dtype_name(a.to);
        }
      },
      attrs);
  return os.str();
}

}  // namespace kiln

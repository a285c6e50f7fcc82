#include "kiln/onnx/op_attributes.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "kiln/onnx/proto_util.h"
#include "kiln/onnx/tensor_proto.h"
#include "kiln/support/enum_table.h"
#include "kiln/support/strings.h"
#include "kiln/support/text_lexer.h"

namespace kiln::onnx_import {

namespace {

using AP = ::onnx::AttributeProto;

const char* attr_type_name(int type) {
  switch (type) {
    case AP::FLOAT: return "a float";
    case AP::INT: return "an int";
    case AP::STRING: return "a string";
    case AP::TENSOR: return "a tensor";
    case AP::GRAPH: return "a graph";
    case AP::SPARSE_TENSOR: return "a sparse tensor";
    case AP::TYPE_PROTO: return "a type";
    case AP::FLOATS: return "a list of floats";
    case AP::INTS: return "a list of ints";
    case AP::STRINGS: return "a list of strings";
    case AP::TENSORS: return "a list of tensors";
    case AP::GRAPHS: return "a list of graphs";
    case AP::SPARSE_TENSORS: return "a list of sparse tensors";
    case AP::TYPE_PROTOS: return "a list of types";
    default: return "of undefined type";
  }
}

// "[1,2,3]" for messages.
std::string join(const std::vector<int64_t>& v) {
  return "[" + kiln::join(v, ",") + "]";
}

// Reads one ONNX node into its canonical form: typed access to its inputs and
// attributes, error helpers naming the node, and one handler per op kind
// (the table kRead below).
class NodeReader {
 public:
  explicit NodeReader(const NodeContext& ctx) : c_(ctx), attrs_(ctx.proto, ctx.where) {}

  LoweredNode run();

  // The handlers of kRead (public so the table can name them).
  LoweredNode leaky_relu();
  LoweredNode elu();
  LoweredNode selu();
  LoweredNode hard_sigmoid();
  LoweredNode thresholded_relu();
  LoweredNode celu();
  LoweredNode shrink();
  LoweredNode is_inf();
  LoweredNode squeeze();
  LoweredNode unsqueeze();
  LoweredNode depth_to_space();
  LoweredNode space_to_depth();
  LoweredNode gather_elements();
  LoweredNode instance_norm();
  LoweredNode plain();
  LoweredNode not_onnx();
  LoweredNode conv();
  LoweredNode pool();
  LoweredNode gemm();
  LoweredNode batch_norm();
  LoweredNode softmax();
  LoweredNode clip();
  LoweredNode legacy_broadcast();
  LoweredNode prelu();
  LoweredNode concat();
  LoweredNode flatten();
  LoweredNode gather();
  LoweredNode transpose();
  LoweredNode cast();
  LoweredNode quant();
  LoweredNode int_quant();
  LoweredNode trunc();
  LoweredNode shape();
  LoweredNode slice();
  LoweredNode reshape();
  LoweredNode pad();
  LoweredNode reduce();
  LoweredNode arg_reduce();
  LoweredNode mod();
  LoweredNode bit_shift();
  LoweredNode split();
  LoweredNode expand();
  LoweredNode tile();
  LoweredNode constant_of_shape();
  LoweredNode range();
  LoweredNode eye_like();
  LoweredNode trilu();
  LoweredNode cum_sum();
  LoweredNode one_hot();
  LoweredNode layer_norm();
  LoweredNode lrn();
  LoweredNode conv_transpose();
  LoweredNode resize();
  LoweredNode max_unpool();
  LoweredNode dropout();
  LoweredNode recurrent();

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& hint = {}) const {
    throw_error(ErrorKind::InvalidModel, c_.where, what,
                hint.empty() ? "fix or re-export the model" : hint);
  }
  [[noreturn]] void unsupported(const std::string& what, const std::string& hint) const {
    throw_error(ErrorKind::Unsupported, c_.where, what, hint);
  }
  [[noreturn]] void not_constant(std::size_t i, const std::string& input,
                                 const std::string& why = "kiln needs static shapes") const {
    Error e(ErrorKind::Unsupported, c_.where,
            c_.proto.op_type() + " with non-constant " + input + ": " + why,
            "make '" + input +
                "' an initializer or a constant expression (e.g. re-export "
                "with a fixed input size and constant folding)");
    throw e.set_needs_constant(c_.graph.value(c_.inputs[i]).onnx_name);
  }

  bool has_input(std::size_t i) const { return i < c_.inputs.size() && c_.inputs[i].valid(); }
  const TensorType& type(std::size_t i) const { return c_.graph.value(c_.inputs[i]).type; }
  const TensorType& required_type(std::size_t i, const char* role) const {
    if (!has_input(i))
      fail("required input " + std::to_string(i) + " (" + role + ") is missing",
           "give the node all its required inputs");
    return type(i);
  }
  int64_t rank(std::size_t i, const char* role) const {
    return static_cast<int64_t>(required_type(i, role).shape.size());
  }
  const Tensor* constant(std::size_t i) const {
    return has_input(i) ? c_.graph.constant(c_.inputs[i]) : nullptr;
  }
  // An integer parameter input that must be constant (Slice starts, Reshape shape, ...).
  std::optional<std::vector<int64_t>> const_ints(std::size_t i, const char* role) const {
    if (!has_input(i)) return std::nullopt;
    const Tensor* t = constant(i);
    if (!t) not_constant(i, role);
    if (t->dtype() != DType::Int64 && t->dtype() != DType::Int32)
      fail(std::string("input '") + role + "' must be int64 (or int32), got " +
           dtype_name(t->dtype()));
    if (t->rank() > 1)
      fail(std::string("input '") + role + "' must be a 1-D tensor, got shape [" +
           shape_to_string(t->shape()) + "]");
    return t->to_int64_vector(c_.where);
  }

  // Normalizes an axis in [-r, r) (or [-r, r] with `inclusive`) to [0, r).
  int64_t normalize_axis(int64_t axis, int64_t r, const char* what, bool inclusive = false) const {
    const int64_t hi = inclusive ? r : r - 1;
    if (axis < -r || axis > hi)
      fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
               std::to_string(r) + " (valid: " + std::to_string(-r) + ".." + std::to_string(hi) +
               ")",
           "fix the axis in the model");
    return axis < 0 ? axis + r : axis;
  }
  // Normalized, sorted, duplicate-free axes.
  std::vector<int64_t> normalize_axes(std::vector<int64_t> axes, int64_t r,
                                      const char* what) const {
    for (int64_t& a : axes) a = normalize_axis(a, r, what);
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
      fail(std::string(what) + " " + join(axes) + " repeat an axis", "list every axis once");
    return axes;
  }

  std::vector<ValueId> data_inputs(std::size_t n) const {
    std::vector<ValueId> v;
    for (std::size_t i = 0; i < n && i < c_.inputs.size(); ++i) v.push_back(c_.inputs[i]);
    return v;
  }
  std::vector<ValueId> all_inputs() const { return c_.inputs; }

  ConvAttrs window_attrs(bool is_conv);
  std::vector<RnnActivationFn> rnn_activations(int64_t per_direction, int64_t directions) const;
  LoweredNode squeeze_or_unsqueeze(bool unsqueeze);
  LoweredNode block(bool to_space);
  // Constant float list input (Resize scales / roi); nullopt if absent or empty.
  std::optional<std::vector<double>> const_floats(std::size_t i, const char* role) const;
  // A scalar (one-element) parameter input that must be constant.
  const Tensor& const_scalar(std::size_t i, const char* role) const;
  // QONNX: a bit-width input (constant, one integral value) and rounding_mode.
  int64_t const_bitwidth(std::size_t i, const char* role) const;
  RoundingMode rounding_mode(const char* fallback) const;

  // A value with the data of `id` viewed in `shape`: a new constant for a
  // constant, else a Reshape node added to the graph.
  ValueId reshaped(ValueId id, const Shape& shape, const std::string& suffix);

  const NodeContext& c_;
  AttrReader attrs_;
};

ConvAttrs NodeReader::window_attrs(bool is_conv) {
  const TensorType& x = required_type(0, "X");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (r < 3)
    fail("input X " + x.to_string() + " must have rank >= 3 (N, C, spatial...)",
         "fix the input's shape in the model");
  const std::size_t nsp = static_cast<std::size_t>(r - 2);
  ConvAttrs a;
  if (auto k = attrs_.get_ints("kernel_shape")) {
    a.kernel_shape = *k;
  } else if (is_conv) {
    const TensorType& w = required_type(1, "W");
    if (w.shape.size() != static_cast<std::size_t>(r))
      fail("weight W " + w.to_string() + " must have the same rank as X " + x.to_string(),
           "fix the weight's shape in the model");
    a.kernel_shape.assign(w.shape.begin() + 2, w.shape.end());
  } else {
    fail("attribute 'kernel_shape' is required", "give the pooling window size");
  }
  a.strides = attrs_.get_ints("strides").value_or(std::vector<int64_t>(nsp, 1));
  a.dilations = attrs_.get_ints("dilations").value_or(std::vector<int64_t>(nsp, 1));
  a.pads = attrs_.get_ints("pads").value_or(std::vector<int64_t>(2 * nsp, 0));
  auto check_len = [&](const std::vector<int64_t>& v, const char* name, std::size_t n) {
    if (v.size() != n)
      fail(std::string("attribute '") + name + "' " + join(v) + " has " + std::to_string(v.size()) +
               " values but X " + x.to_string() + " has " + std::to_string(nsp) +
               " spatial dimensions (expected " + std::to_string(n) + ")",
           "give one value per spatial dimension (pads: begins then ends)");
  };
  check_len(a.kernel_shape, "kernel_shape", nsp);
  check_len(a.strides, "strides", nsp);
  check_len(a.dilations, "dilations", nsp);
  check_len(a.pads, "pads", 2 * nsp);
  for (std::size_t i = 0; i < nsp; ++i) {
    if (a.strides[i] < 1) fail("strides " + join(a.strides) + " must be >= 1");
    if (a.dilations[i] < 1) fail("dilations " + join(a.dilations) + " must be >= 1");
    if (a.kernel_shape[i] < 1) fail("kernel_shape " + join(a.kernel_shape) + " must be >= 1");
  }
  for (int64_t p : a.pads)
    if (p < 0) fail("pads " + join(a.pads) + " must be >= 0");

  const std::string auto_pad = attrs_.get_string("auto_pad").value_or("NOTSET");
  if (auto_pad == "VALID") {
    a.pads.assign(2 * nsp, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // Output size ceil(in / stride); the padding that achieves it is split
    // evenly, the odd element at the end (UPPER) or the beginning (LOWER).
    for (std::size_t i = 0; i < nsp; ++i) {
      const int64_t in = x.shape[2 + i];
      const int64_t s = a.strides[i];
      const int64_t out = (in + s - 1) / s;
      const int64_t needed = (out - 1) * s + (a.kernel_shape[i] - 1) * a.dilations[i] + 1;
      const int64_t total = std::max<int64_t>(0, needed - in);
      const int64_t small = total / 2, large = total - small;
      a.pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      a.pads[nsp + i] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else if (auto_pad != "NOTSET") {
    fail("unknown auto_pad '" + auto_pad + "'", "use NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  return a;
}

LoweredNode NodeReader::conv() {
  ConvAttrs a = window_attrs(true);
  a.group = attrs_.int_or("group", 1);
  if (a.group < 1) fail("group " + std::to_string(a.group) + " must be >= 1");
  return {OpKind::Conv, a, data_inputs(3)};
}

LoweredNode NodeReader::pool() {
  const bool is_max = c_.kind == OpKind::MaxPool;
  const ConvAttrs w = window_attrs(false);
  PoolAttrs a;
  a.kernel_shape = w.kernel_shape;
  a.strides = w.strides;
  a.pads = w.pads;
  a.dilations = w.dilations;
  if (c_.opset >= 10) a.ceil_mode = attrs_.int_or("ceil_mode", 0) != 0;
  if (!is_max && c_.opset >= 7) a.count_include_pad = attrs_.int_or("count_include_pad", 0) != 0;
  // storage_order only changes the Indices output.
  if (is_max && attrs_.int_or("storage_order", 0) != 0 && c_.proto.output_size() > 1 &&
      !c_.proto.output(1).empty())
    unsupported("MaxPool Indices with storage_order=1 (column-major) is not supported",
                "drop the Indices output or use storage_order=0");
  return {c_.kind, a, data_inputs(1)};
}

LoweredNode NodeReader::gemm() {
  GemmAttrs a;
  a.alpha = attrs_.float_or("alpha", 1.0f);
  a.beta = attrs_.float_or("beta", 1.0f);
  a.trans_a = attrs_.int_or("transA", 0) != 0;
  a.trans_b = attrs_.int_or("transB", 0) != 0;
  // Opset < 7 "broadcast" only permitted what opset 7 always allows.
  return {OpKind::Gemm, a, data_inputs(3)};
}

LoweredNode NodeReader::batch_norm() {
  const std::string hint = "export the model in inference (eval) mode";
  if (c_.opset < 9 && attrs_.int_or("spatial", 1) == 0)
    unsupported("BatchNormalization with spatial=0 (per-activation statistics) is not supported",
                hint);
  if (c_.opset < 7 && attrs_.int_or("is_test", 0) == 0)
    unsupported("BatchNormalization in training mode (is_test=0) is not supported", hint);
  if (attrs_.int_or("training_mode", 0) != 0)
    unsupported("BatchNormalization in training mode (training_mode=1) is not supported", hint);
  if (count_used_outputs(c_.proto) > 1)
    unsupported(
        "BatchNormalization in training mode (running statistics outputs) is not "
        "supported",
        hint);
  BatchNormAttrs a;
  a.epsilon = attrs_.float_or("epsilon", 1e-5f);
  return {OpKind::BatchNormalization, a, data_inputs(5)};
}

LoweredNode NodeReader::softmax() {
  const int64_t r = rank(0, "input");
  SoftmaxAttrs a;
  a.coerce_2d = c_.opset < 13;
  a.axis = normalize_axis(attrs_.int_or("axis", a.coerce_2d ? 1 : -1), r, "axis");
  return {c_.kind, a, data_inputs(1)};
}

LoweredNode NodeReader::clip() {
  std::vector<ValueId> in = data_inputs(3);
  if (c_.opset < 11) {
    // Bounds were attributes; they become scalar constant inputs of X's type.
    const DType t = required_type(0, "input").dtype;
    in.assign(3, kNoValue);
    in[0] = c_.inputs[0];
    const char* names[2] = {"min", "max"};
    for (int i = 0; i < 2; ++i) {
      const auto v = attrs_.get_float(names[i]);
      if (!v) continue;
      const Tensor bound = Tensor::scalar<double>(*v).cast(t);
      const std::string base = !c_.proto.name().empty()     ? c_.proto.name()
                               : c_.proto.output_size() > 0 ? c_.proto.output(0)
                                                            : "clip";
      const ValueId id = c_.graph.add_constant(base + "_" + names[i], bound);
      c_.graph.value(id).onnx_name.clear();  // made by kiln, not in the model
      in[static_cast<std::size_t>(i) + 1] = id;
    }
  }
  return {OpKind::Clip, std::monostate{}, in};
}

LoweredNode NodeReader::legacy_broadcast() {
  std::vector<ValueId> in = data_inputs(2);
  if (c_.opset >= 7) return {c_.kind, std::monostate{}, in};
  // Opset < 7: with broadcast=1 and an axis, B's dims line up with A's dims
  // starting at `axis`, not at the end as numpy (and opset 7) does. Append
  // ones to B so numpy broadcasting gives the same result.
  if (attrs_.int_or("broadcast", 0) == 0 || !attrs_.has("axis"))
    return {c_.kind, std::monostate{}, in};
  const TensorType& a = required_type(0, "A");
  const TensorType& b = required_type(1, "B");
  const int64_t ra = static_cast<int64_t>(a.shape.size());
  const int64_t rb = static_cast<int64_t>(b.shape.size());
  const int64_t axis = normalize_axis(attrs_.int_or("axis", 0), ra, "axis");
  const int64_t trailing = ra - axis - rb;
  if (trailing < 0)
    fail("B " + b.to_string() + " does not fit into A " + a.to_string() + " at axis " +
             std::to_string(axis),
         "fix the broadcast axis in the model");
  if (trailing > 0) {
    Shape s = b.shape;
    s.insert(s.end(), static_cast<std::size_t>(trailing), 1);
    in[1] = reshaped(in[1], s, "_bcast");
  }
  return {c_.kind, std::monostate{}, in};
}

LoweredNode NodeReader::prelu() {
  std::vector<ValueId> in = data_inputs(2);
  if (c_.opset >= 7 || !has_input(0) || !has_input(1)) return {OpKind::PRelu, std::monostate{}, in};
  // Opset < 7: a 1-D slope of C values is per channel (axis 1), not aligned
  // with the last axis; give it trailing ones.
  const TensorType& x = type(0);
  const TensorType& slope = type(1);
  if (slope.shape.size() == 1 && slope.shape[0] != 1 && x.shape.size() > 2) {
    Shape s = slope.shape;
    s.insert(s.end(), x.shape.size() - 2, 1);
    in[1] = reshaped(in[1], s, "_per_channel");
  }
  return {OpKind::PRelu, std::monostate{}, in};
}

LoweredNode NodeReader::concat() {
  if (c_.inputs.empty() || !has_input(0)) fail("Concat needs at least one input");
  ConcatAttrs a;
  std::optional<int64_t> axis = attrs_.get_int("axis");
  if (!axis) {
    if (c_.opset >= 4) fail("attribute 'axis' is required", "give the concatenation axis");
    axis = 1;  // opset < 4 default
  }
  a.axis = normalize_axis(*axis, rank(0, "inputs"), "axis");
  return {OpKind::Concat, a, all_inputs()};
}

LoweredNode NodeReader::flatten() {
  FlattenAttrs a;
  a.axis = normalize_axis(attrs_.int_or("axis", 1), rank(0, "input"), "axis", true);
  return {OpKind::Flatten, a, data_inputs(1)};
}

LoweredNode NodeReader::gather() {
  GatherAttrs a;
  a.axis = normalize_axis(attrs_.int_or("axis", 0), rank(0, "data"), "axis");
  return {OpKind::Gather, a, data_inputs(2)};
}

LoweredNode NodeReader::transpose() {
  const int64_t r = rank(0, "data");
  TransposeAttrs a;
  if (auto perm = attrs_.get_ints("perm")) {
    a.perm = *perm;
  } else {
    for (int64_t i = r - 1; i >= 0; --i) a.perm.push_back(i);
  }
  std::vector<int64_t> sorted = a.perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(static_cast<std::size_t>(r));
  std::iota(iota.begin(), iota.end(), 0);
  if (sorted != iota)
    fail("perm " + join(a.perm) + " is not a permutation of the " + std::to_string(r) +
             " axes of " + type(0).to_string(),
         "fix the perm attribute");
  return {OpKind::Transpose, a, data_inputs(1)};
}

LoweredNode NodeReader::cast() {
  if (c_.proto.op_type() == "CastLike") {
    const TensorType& target = required_type(1, "target_type");
    return {OpKind::Cast, CastAttrs{target.dtype}, data_inputs(1)};
  }
  const AP* to = attrs_.find("to");
  if (!to) fail("attribute 'to' is required", "give the target element type");
  CastAttrs a;
  if (to->type() == AP::STRING || (to->type() == AP::UNDEFINED && to->has_s())) {
    // Opset < 6 named the type ("FLOAT").
    ::onnx::TensorProto_DataType code;
    if (!::onnx::TensorProto_DataType_Parse(to->s(), &code))
      fail("attribute 'to' names unknown type '" + to->s() + "'");
    a.to = dtype_from_onnx(code, c_.where);
  } else {
    a.to = dtype_from_onnx(static_cast<int32_t>(attrs_.required_int("to")), c_.where);
  }
  return {OpKind::Cast, a, data_inputs(1)};
}

// QuantizeLinear / DequantizeLinear (opsets 10, 13, 19, 21): per tensor, or
// (from 13) per index of `axis` when the scale is 1-D with more than one value.
LoweredNode NodeReader::quant() {
  const TensorType& x = required_type(0, "x");
  const TensorType& scale = required_type(1, "scale");
  QuantAttrs a;
  if (attrs_.int_or("block_size", 0) != 0)
    unsupported("blocked quantization (block_size, opset 21) is not supported",
                "quantize per tensor or per axis");
  if (shape_numel(scale.shape) > 1) {
    if (c_.opset < 13) fail("the scale must be a scalar before opset 13");
    a.per_axis = true;
    a.axis = normalize_axis(attrs_.int_or("axis", 1), static_cast<int64_t>(x.shape.size()), "axis");
  }
  if (c_.kind == OpKind::QuantizeLinear) {
    if (has_input(2)) {
      a.to = required_type(2, "y_zero_point").dtype;
    } else if (const auto code = attrs_.get_int("output_dtype"); code && *code != 0) {
      a.to = dtype_from_onnx(static_cast<int32_t>(*code), c_.where);  // opset 21
    }
    if (a.to != DType::UInt8 && a.to != DType::Int8)
      unsupported("QuantizeLinear to " + std::string(dtype_name(a.to)) + " is not supported",
                  "quantize to uint8 or int8");
  } else {
    a.to = DType::Float32;
  }
  return {c_.kind, a, data_inputs(3)};
}

int64_t NodeReader::const_bitwidth(std::size_t i, const char* role) const {
  if (has_input(i) && !constant(i)) not_constant(i, role, "kiln reads bit widths at import");
  const double bits = const_scalar(i, role).as_double(0);
  if (!std::isfinite(bits) || bits != std::floor(bits))
    fail(std::string(role) + " " + format_double(bits) + " is not a whole number of bits",
         "QONNX bit widths are positive integers (also when stored as float)");
  // Out-of-range widths are shape inference's to report; clamped so the cast is defined.
  return static_cast<int64_t>(std::clamp(bits, -1e9, 1e9));
}

// QONNX spells rounding modes in either case; HALF_EVEN is ROUND.
RoundingMode NodeReader::rounding_mode(const char* fallback) const {
  std::string name = attrs_.get_string("rounding_mode").value_or(fallback);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (name == "half_even") return RoundingMode::Round;
  if (const auto m = enum_from_name<RoundingMode>(name)) return *m;
  fail("unknown rounding_mode '" + attrs_.get_string("rounding_mode").value_or("") + "'",
       "use ROUND (HALF_EVEN), CEIL, FLOOR, UP, DOWN, HALF_UP or HALF_DOWN");
}

// QONNX Quant / IntQuant (X, scale, zeropt, bitwidth): the bit width becomes
// an attribute.
LoweredNode NodeReader::int_quant() {
  IntQuantAttrs a;
  a.bitwidth = const_bitwidth(3, "bitwidth");
  a.is_signed = attrs_.int_or("signed", 1) != 0;
  a.narrow = attrs_.int_or("narrow", 0) != 0;
  a.rounding = rounding_mode("ROUND");
  if (c_.inputs.size() > 4) fail("Quant takes 4 inputs, got " + std::to_string(c_.inputs.size()));
  return {OpKind::Quant, a, data_inputs(3)};
}

// QONNX Trunc: opset 1 (X, scale, zeropt, in_bitwidth, out_bitwidth) or
// opset 2 (X, scale, zeropt, in_bitwidth, out_scale, out_bitwidth, and the
// signed/narrow attributes); c_.opset is the model's QONNX opset.
LoweredNode NodeReader::trunc() {
  TruncAttrs a;
  a.version = c_.opset >= 2 ? 2 : 1;
  const std::size_t n = a.version == 1 ? 5 : 6;
  if (c_.inputs.size() != n)
    fail("Trunc of QONNX opset " + std::to_string(c_.opset) + " takes " + std::to_string(n) +
             " inputs, got " + std::to_string(c_.inputs.size()),
         a.version == 1 ? "opset 1: X, scale, zeropt, in_bitwidth, out_bitwidth (declare QONNX "
                          "opset 2 in opset_import for the form with out_scale)"
                        : "opset 2: X, scale, zeropt, in_bitwidth, out_scale, out_bitwidth");
  a.in_bitwidth = const_bitwidth(3, "in_bitwidth");
  a.out_bitwidth = const_bitwidth(n - 1, "out_bitwidth");
  a.rounding = rounding_mode("FLOOR");
  std::vector<ValueId> in = data_inputs(3);
  if (a.version == 2) {
    a.is_signed = attrs_.int_or("signed", 1) != 0;
    a.narrow = attrs_.int_or("narrow", 0) != 0;
    in.push_back(c_.inputs[4]);
  }
  return {OpKind::Trunc, a, in};
}

LoweredNode NodeReader::shape() {
  const int64_t r = rank(0, "data");
  auto clamp_bound = [&](int64_t v) {
    if (v < 0) v += r;
    return std::clamp<int64_t>(v, 0, r);
  };
  ShapeAttrs a;
  a.start = clamp_bound(attrs_.int_or("start", 0));
  a.end = attrs_.has("end") ? clamp_bound(attrs_.int_or("end", r)) : r;
  return {OpKind::Shape, a, data_inputs(1)};
}

LoweredNode NodeReader::slice() {
  const TensorType& x = required_type(0, "data");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> starts, ends, steps;
  std::optional<std::vector<int64_t>> axes;
  if (c_.opset < 10) {
    starts = attrs_.required_ints("starts");
    ends = attrs_.required_ints("ends");
    axes = attrs_.get_ints("axes");
  } else {
    if (!has_input(1)) fail("required input 1 (starts) is missing");
    if (!has_input(2)) fail("required input 2 (ends) is missing");
    starts = *const_ints(1, "starts");
    ends = *const_ints(2, "ends");
    axes = const_ints(3, "axes");
    if (auto s = const_ints(4, "steps")) steps = *s;
  }
  const std::size_t n = starts.size();
  if (ends.size() != n || (axes && axes->size() != n) || (!steps.empty() && steps.size() != n))
    fail("starts " + join(starts) + ", ends " + join(ends) + (axes ? ", axes " + join(*axes) : "") +
             (steps.empty() ? "" : ", steps " + join(steps)) + " differ in length",
         "give one value per sliced axis in each");
  if (steps.empty()) steps.assign(n, 1);
  std::vector<int64_t> ax;
  if (axes) {
    ax = *axes;
    for (int64_t& a : ax) a = normalize_axis(a, r, "axes");
  } else {
    if (static_cast<int64_t>(n) > r)
      fail("slices " + std::to_string(n) + " axes but data " + x.to_string() + " has rank " +
           std::to_string(r));
    for (std::size_t i = 0; i < n; ++i) ax.push_back(static_cast<int64_t>(i));
  }

  SliceAttrs a;
  a.starts.assign(static_cast<std::size_t>(r), 0);
  a.ends.assign(x.shape.begin(), x.shape.end());
  a.steps.assign(static_cast<std::size_t>(r), 1);
  std::vector<bool> seen(static_cast<std::size_t>(r), false);
  for (std::size_t i = 0; i < n; ++i) {
    const auto d = static_cast<std::size_t>(ax[i]);
    if (seen[d]) fail("axes " + join(ax) + " repeat axis " + std::to_string(d));
    seen[d] = true;
    const int64_t dim = x.shape[d];
    const int64_t step = steps[i];
    if (step == 0) fail("steps " + join(steps) + " contain 0", "a slice step must be non-zero");
    int64_t start = starts[i], end = ends[i];
    // Negative bounds count from the end; then clamp as the ONNX spec says.
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
    } else if (dim == 0) {
      start = 0;
      end = 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    a.starts[d] = start;
    a.ends[d] = end;
    a.steps[d] = step;
  }
  return {OpKind::Slice, a, data_inputs(1)};
}

LoweredNode NodeReader::reshape() {
  const TensorType& x = required_type(0, "data");
  std::vector<int64_t> target;
  if (c_.opset < 5) {
    target = attrs_.required_ints("shape");
  } else {
    if (!has_input(1)) fail("required input 1 (shape) is missing");
    target = *const_ints(1, "shape");
  }
  const bool allow_zero = c_.opset >= 14 && attrs_.int_or("allowzero", 0) != 0;
  const std::string desc = "cannot reshape " + x.to_string() + " to " + join(target);
  Shape out(target.size());
  std::optional<std::size_t> infer_at;
  int64_t known = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    int64_t v = target[i];
    if (v == 0 && !allow_zero) {
      if (i >= x.shape.size())
        fail(desc + ": 0 at position " + std::to_string(i) + " copies a dimension the input lacks");
      v = x.shape[i];
    } else if (v == -1) {
      if (infer_at) fail(desc + ": more than one -1");
      if (allow_zero && std::find(target.begin(), target.end(), 0) != target.end())
        fail(desc + ": -1 together with 0 under allowzero=1 is ambiguous");
      infer_at = i;
      continue;
    } else if (v < -1) {
      fail(desc + ": negative dimension " + std::to_string(v));
    }
    out[i] = v;
    if (v != 0 && known > kMaxTensorElements / v) fail(desc + ": absurd target size");
    known *= v;
  }
  const int64_t numel = x.numel();
  if (infer_at) {
    if (known == 0 || numel % known != 0)
      fail(desc + ": " + std::to_string(numel) + " elements cannot fill it",
           "the target shape must have the same number of elements as the input");
    out[*infer_at] = numel / known;
  } else if (known != numel) {
    fail(desc + ": " + std::to_string(numel) + " elements vs " + std::to_string(known),
         "the target shape must have the same number of elements as the input");
  }
  return {OpKind::Reshape, ReshapeAttrs{out}, data_inputs(1)};
}

LoweredNode NodeReader::squeeze_or_unsqueeze(bool unsqueeze) {
  const TensorType& x = required_type(0, "data");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  std::optional<std::vector<int64_t>> axes;
  if (c_.opset < 13) {
    axes = attrs_.get_ints("axes");
  } else {
    axes = const_ints(1, "axes");
  }
  AxesAttrs a;
  if (unsqueeze) {
    if (!axes) fail("axes are required", "give the axes to insert");
    a.axes = normalize_axes(*axes, r + static_cast<int64_t>(axes->size()), "axes");
  } else if (axes) {
    a.axes = normalize_axes(*axes, r, "axes");
    for (int64_t ax : a.axes)
      if (x.shape[static_cast<std::size_t>(ax)] != 1)
        fail("cannot squeeze axis " + std::to_string(ax) + " of " + x.to_string() +
                 ": its size is not 1",
             "squeeze only dimensions of size 1");
  } else {
    for (int64_t d = 0; d < r; ++d)
      if (x.shape[static_cast<std::size_t>(d)] == 1) a.axes.push_back(d);
  }
  return {c_.kind, a, data_inputs(1)};
}

LoweredNode NodeReader::pad() {
  const TensorType& x = required_type(0, "data");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  PadAttrs a;
  const std::string mode = attrs_.get_string("mode").value_or("constant");
  if (mode == "constant") {
    a.mode = PadMode::Constant;
  } else if (mode == "reflect") {
    a.mode = PadMode::Reflect;
  } else if (mode == "edge") {
    a.mode = PadMode::Edge;
  } else {
    unsupported("Pad mode '" + mode + "' is not supported" +
                    (mode == "wrap" ? std::string(" (opset 19's wrap)") : std::string()),
                "use constant, reflect or edge");
  }
  if (c_.opset < 11) {
    a.pads = attrs_.required_ints(c_.opset < 2 ? "paddings" : "pads");
    a.value = attrs_.float_or("value", 0.0f);
  } else {
    if (!has_input(1)) fail("required input 1 (pads) is missing");
    a.pads = *const_ints(1, "pads");
    if (has_input(2)) {
      const Tensor* v = constant(2);
      if (!v) not_constant(2, "constant_value");
      if (v->numel() != 1)
        fail("constant_value must be a scalar, got shape [" + shape_to_string(v->shape()) + "]");
      a.value = v->as_double(0);
    }
    // Opset 18: pads for the listed axes only; the others get none.
    if (c_.opset >= 18 && has_input(3)) {
      // In the order given: pads[k] belongs to axes[k].
      std::vector<int64_t> axes = *const_ints(3, "axes");
      for (int64_t& ax : axes) ax = normalize_axis(ax, r, "axes");
      normalize_axes(axes, r, "axes");  // no repeats
      if (a.pads.size() != 2 * axes.size())
        fail("pads " + join(a.pads) + " has " + std::to_string(a.pads.size()) +
                 " values but axes " + join(axes) + " needs " + std::to_string(2 * axes.size()),
             "give a begin and an end pad per listed axis");
      std::vector<int64_t> full(static_cast<std::size_t>(2 * r), 0);
      for (std::size_t k = 0; k < axes.size(); ++k) {
        full[static_cast<std::size_t>(axes[k])] = a.pads[k];
        full[static_cast<std::size_t>(axes[k] + r)] = a.pads[k + axes.size()];
      }
      a.pads = full;
    }
  }
  if (static_cast<int64_t>(a.pads.size()) != 2 * r)
    fail("pads " + join(a.pads) + " has " + std::to_string(a.pads.size()) + " values but " +
             x.to_string() + " needs " + std::to_string(2 * r) + " (begins then ends)",
         "give a begin and an end pad per dimension");
  return {OpKind::Pad, a, data_inputs(1)};
}

LoweredNode NodeReader::reduce() {
  const int64_t r = rank(0, "data");
  std::optional<std::vector<int64_t>> axes;
  bool noop_empty = false;
  // ReduceSum-13 and every Reduce op from opset 18 take axes as an input.
  if ((c_.kind == OpKind::ReduceSum && c_.opset >= 13) || c_.opset >= 18) {
    axes = const_ints(1, "axes");
    noop_empty = attrs_.int_or("noop_with_empty_axes", 0) != 0;
  } else {
    axes = attrs_.get_ints("axes");
  }
  ReduceAttrs a;
  a.keepdims = attrs_.int_or("keepdims", 1) != 0;
  if (axes && !axes->empty()) {
    a.axes = normalize_axes(*axes, r, "axes");
  } else {
    // No axes: reduce all of them, unless the op was asked to do nothing. A
    // scalar reduces to itself under Sum/Mean/Max/Min/Prod; the others still
    // map the one element (|x|, x*x, log x, ...), so they keep empty axes.
    const bool plain = c_.kind == OpKind::ReduceSum || c_.kind == OpKind::ReduceMean ||
                       c_.kind == OpKind::ReduceMax || c_.kind == OpKind::ReduceMin ||
                       c_.kind == OpKind::ReduceProd;
    if (noop_empty || (r == 0 && plain))
      return {OpKind::Identity, std::monostate{}, data_inputs(1)};
    for (int64_t d = 0; d < r; ++d) a.axes.push_back(d);
  }
  return {c_.kind, a, data_inputs(1)};
}

LoweredNode NodeReader::arg_reduce() {
  const int64_t r = rank(0, "data");
  if (r == 0) fail("data must have rank >= 1", "ArgMax/ArgMin reduce along an axis");
  ArgAttrs a;
  a.axis = normalize_axis(attrs_.int_or("axis", 0), r, "axis");
  a.keepdims = attrs_.int_or("keepdims", 1) != 0;
  if (c_.opset >= 12) a.select_last_index = attrs_.int_or("select_last_index", 0) != 0;
  return {c_.kind, a, data_inputs(1)};
}

LoweredNode NodeReader::mod() {
  ModAttrs a;
  a.fmod = attrs_.int_or("fmod", 0) != 0;
  if (!a.fmod && has_input(0) && is_float(type(0).dtype))
    fail("Mod of " + type(0).to_string() + " needs fmod=1",
         "ONNX defines the integer remainder only for integers; set fmod=1 for floats");
  return {OpKind::Mod, a, data_inputs(2)};
}

LoweredNode NodeReader::bit_shift() {
  const auto dir = attrs_.get_string("direction");
  if (!dir) fail("attribute 'direction' is required", "give LEFT or RIGHT");
  if (*dir != "LEFT" && *dir != "RIGHT")
    fail("direction '" + *dir + "' is neither LEFT nor RIGHT", "give LEFT or RIGHT");
  return {OpKind::BitShift, BitShiftAttrs{*dir == "LEFT"}, data_inputs(2)};
}

LoweredNode NodeReader::dropout() {
  if (c_.opset >= 12 && has_input(2)) {
    const Tensor* t = constant(2);
    if (!t)
      unsupported("Dropout with a non-constant training_mode is not supported",
                  "kiln runs inference only; make training_mode a constant false");
    if (t->numel() != 1) fail("training_mode must be a scalar");
    if (t->as_int64(0) != 0)
      unsupported("Dropout in training mode (training_mode=true) is not supported",
                  "kiln runs inference only; export the model in eval mode");
  }
  return {OpKind::Dropout, std::monostate{}, all_inputs()};
}

const Tensor& NodeReader::const_scalar(std::size_t i, const char* role) const {
  if (!has_input(i))
    fail("required input " + std::to_string(i) + " (" + role + ") is missing",
         "give the node all its required inputs");
  const Tensor* t = constant(i);
  if (!t) not_constant(i, role);
  if (t->numel() != 1)
    fail(std::string("input '") + role + "' must be a scalar, got shape [" +
         shape_to_string(t->shape()) + "]");
  return *t;
}

LoweredNode NodeReader::split() {
  const TensorType& x = required_type(0, "input");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  SplitAttrs a;
  a.axis = normalize_axis(attrs_.int_or("axis", 0), r, "axis");
  std::optional<std::vector<int64_t>> sizes;
  if (c_.opset >= 13 || (c_.opset < 2 && has_input(1)))
    sizes = const_ints(1, "split");
  else
    sizes = attrs_.get_ints("split");
  const int64_t n = c_.proto.output_size();
  const int64_t dim = x.shape[static_cast<std::size_t>(a.axis)];
  if (n < 1) fail("Split needs at least one output");
  // Opset 18: num_outputs parts of ceil(dim / num_outputs), the last smaller.
  const std::optional<int64_t> num_outputs =
      c_.opset >= 18 ? attrs_.get_int("num_outputs") : std::nullopt;
  if (num_outputs) {
    if (sizes && !sizes->empty())
      fail("both the split input and num_outputs are given", "give only one of them");
    if (*num_outputs != n)
      fail("num_outputs " + std::to_string(*num_outputs) + " but the node has " +
               std::to_string(n) + " outputs",
           "give one output per part");
    if (*num_outputs > dim && dim > 0)
      fail("num_outputs " + std::to_string(*num_outputs) + " exceeds the axis size " +
           std::to_string(dim) + " of " + x.to_string());
    const int64_t chunk = dim == 0 ? 0 : (dim + n - 1) / n;
    for (int64_t k = 0, left = dim; k < n; ++k) {
      a.split.push_back(std::min(chunk, left));
      left -= a.split.back();
    }
    return {OpKind::Split, a, data_inputs(1)};
  }
  if (sizes && !sizes->empty()) {
    int64_t total = 0;
    for (int64_t v : *sizes) {
      if (v < 0) fail("split " + join(*sizes) + " has a negative size");
      total += v;
    }
    if (static_cast<int64_t>(sizes->size()) != n || total != dim)
      fail("split " + join(*sizes) + " must give " + std::to_string(n) +
               " sizes summing to the axis size " + std::to_string(dim) + " of " + x.to_string(),
           "one size per output");
    a.split = *sizes;
  } else {
    if (dim % n != 0)
      unsupported("splitting axis " + std::to_string(a.axis) + " of " + x.to_string() + " into " +
                      std::to_string(n) + " equal parts is not possible",
                  "give explicit split sizes");
    a.split.assign(static_cast<std::size_t>(n), dim / n);
  }
  return {OpKind::Split, a, data_inputs(1)};
}

LoweredNode NodeReader::expand() {
  const TensorType& x = required_type(0, "input");
  if (!has_input(1)) fail("required input 1 (shape) is missing");
  const std::vector<int64_t> target = *const_ints(1, "shape");
  // Multidirectional broadcast of the input with the target shape.
  const std::size_t r = std::max(x.shape.size(), target.size());
  ExpandAttrs a;
  a.shape.assign(r, 1);
  for (std::size_t i = 0; i < r; ++i) {
    const int64_t dx = i < r - x.shape.size() ? 1 : x.shape[i - (r - x.shape.size())];
    const int64_t dt = i < r - target.size() ? 1 : target[i - (r - target.size())];
    if (dt < 0) fail("shape " + join(target) + " has a negative dimension");
    if (dx != dt && dx != 1 && dt != 1)
      fail("cannot expand " + x.to_string() + " to " + join(target),
           "each dimension pair must be equal or contain a 1");
    a.shape[i] = dx == 1 ? dt : dx;
  }
  return {OpKind::Expand, a, data_inputs(1)};
}

LoweredNode NodeReader::tile() {
  const TensorType& x = required_type(0, "input");
  TileAttrs a;
  if (c_.opset < 6) {
    // Tile-1: a scalar count of tiles along one scalar axis.
    const int64_t tiles = const_scalar(1, "tiles").as_int64(0);
    const int64_t axis = normalize_axis(const_scalar(2, "axis").as_int64(0),
                                        static_cast<int64_t>(x.shape.size()), "axis");
    a.repeats.assign(x.shape.size(), 1);
    a.repeats[static_cast<std::size_t>(axis)] = tiles;
  } else {
    if (!has_input(1)) fail("required input 1 (repeats) is missing");
    a.repeats = *const_ints(1, "repeats");
  }
  if (a.repeats.size() != x.shape.size())
    fail("repeats " + join(a.repeats) + " must have one entry per dimension of " + x.to_string());
  for (int64_t v : a.repeats)
    if (v < 0) fail("repeats " + join(a.repeats) + " has a negative count");
  return {OpKind::Tile, a, data_inputs(1)};
}

LoweredNode NodeReader::constant_of_shape() {
  if (!has_input(0)) fail("required input 0 (input) is missing");
  ConstantOfShapeAttrs a;
  a.shape = *const_ints(0, "input");
  for (int64_t d : a.shape)
    if (d < 0) fail("shape " + join(a.shape) + " has a negative dimension");
  if (const auto* t = attrs_.get_tensor("value")) {
    const Tensor v = tensor_from_proto(*t, {}, c_.where);
    if (v.numel() != 1)
      fail("attribute 'value' must hold one element, got shape [" + shape_to_string(v.shape()) +
           "]");
    a.dtype = v.dtype();
    a.value = v.as_double(0);
  }
  return {OpKind::ConstantOfShape, a, {}};
}

LoweredNode NodeReader::range() {
  RangeAttrs a;
  const Tensor& start = const_scalar(0, "start");
  const Tensor& limit = const_scalar(1, "limit");
  const Tensor& delta = const_scalar(2, "delta");
  if (limit.dtype() != start.dtype() || delta.dtype() != start.dtype())
    fail("start, limit and delta must have one element type");
  if (start.dtype() == DType::Bool || is_unsigned_int(start.dtype()) ||
      start.dtype() == DType::Int8)
    fail(std::string("Range does not take ") + dtype_name(start.dtype()),
         "use float32, float64, int16, int32 or int64");
  a.dtype = start.dtype();
  a.start = start.as_double(0);
  a.limit = limit.as_double(0);
  a.delta = delta.as_double(0);
  if (a.delta == 0.0) fail("delta is 0", "a Range step must be non-zero");
  return {OpKind::Range, a, {}};
}

LoweredNode NodeReader::eye_like() {
  const TensorType& x = required_type(0, "input");
  if (x.shape.size() != 2) fail("input " + x.to_string() + " must be 2-D");
  EyeLikeAttrs a;
  a.k = attrs_.int_or("k", 0);
  a.dtype = x.dtype;
  if (auto d = attrs_.get_int("dtype"))
    a.dtype = dtype_from_onnx(static_cast<int32_t>(*d), c_.where);
  return {OpKind::EyeLike, a, data_inputs(1)};
}

LoweredNode NodeReader::trilu() {
  const TensorType& x = required_type(0, "input");
  if (x.shape.size() < 2) fail("input " + x.to_string() + " must have rank >= 2");
  TriluAttrs a;
  a.upper = attrs_.int_or("upper", 1) != 0;
  if (has_input(1)) a.k = const_scalar(1, "k").as_int64(0);
  return {OpKind::Trilu, a, data_inputs(1)};
}

LoweredNode NodeReader::block(bool to_space) {
  const TensorType& x = required_type(0, "input");
  if (x.shape.size() != 4) fail("input " + x.to_string() + " must be 4-D [N, C, H, W]");
  BlockAttrs a;
  a.blocksize = attrs_.required_int("blocksize");
  if (a.blocksize < 1) fail("blocksize " + std::to_string(a.blocksize) + " must be >= 1");
  if (to_space && c_.opset >= 11) {
    const std::string mode = attrs_.get_string("mode").value_or("DCR");
    if (mode != "DCR" && mode != "CRD") fail("mode '" + mode + "' is neither DCR nor CRD");
    a.crd = mode == "CRD";
  }
  return {c_.kind, a, data_inputs(1)};
}

LoweredNode NodeReader::cum_sum() {
  const int64_t r = rank(0, "x");
  CumSumAttrs a;
  a.axis = normalize_axis(const_scalar(1, "axis").as_int64(0), r, "axis");
  a.exclusive = attrs_.int_or("exclusive", 0) != 0;
  a.reverse = attrs_.int_or("reverse", 0) != 0;
  return {OpKind::CumSum, a, data_inputs(1)};
}

LoweredNode NodeReader::one_hot() {
  const int64_t r = rank(0, "indices");
  OneHotAttrs a;
  a.axis = normalize_axis(attrs_.int_or("axis", -1), r + 1, "axis");
  const Tensor& depth = const_scalar(1, "depth");
  const double d = depth.as_double(0);
  if (!(d >= 1.0) || d > static_cast<double>(kMaxTensorElements))
    fail("depth " + std::to_string(d) + " must be a positive count");
  a.depth = static_cast<int64_t>(d);
  if (!has_input(2)) fail("required input 2 (values) is missing");
  return {OpKind::OneHot, a, {c_.inputs[0], c_.inputs[2]}};
}

LoweredNode NodeReader::layer_norm() {
  const int64_t r = rank(0, "X");
  LayerNormAttrs a;
  a.axis = normalize_axis(attrs_.int_or("axis", -1), r, "axis");
  a.epsilon = attrs_.float_or("epsilon", 1e-5f);
  if (attrs_.int_or("stash_type", 1) != 1)
    unsupported("LayerNormalization with stash_type other than 1 (float) is not supported",
                "export with the default stash_type");
  return {OpKind::LayerNormalization, a, data_inputs(3)};
}

LoweredNode NodeReader::lrn() {
  LrnAttrs a;
  a.size = attrs_.required_int("size");
  if (a.size < 1) fail("size " + std::to_string(a.size) + " must be >= 1");
  a.alpha = attrs_.float_or("alpha", 1e-4f);
  a.beta = attrs_.float_or("beta", 0.75f);
  a.bias = attrs_.float_or("bias", 1.0f);
  return {OpKind::LRN, a, data_inputs(1)};
}

LoweredNode NodeReader::conv_transpose() {
  const TensorType& x = required_type(0, "X");
  const TensorType& w = required_type(1, "W");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (r < 3 || w.shape.size() != x.shape.size())
    fail("X " + x.to_string() + " and W " + w.to_string() +
             " must have equal rank >= 3 (N, C, spatial...)",
         "fix the input or weight shape");
  const std::size_t nsp = static_cast<std::size_t>(r - 2);
  ConvTransposeAttrs a;
  a.kernel_shape = attrs_.get_ints("kernel_shape")
                       .value_or(std::vector<int64_t>(w.shape.begin() + 2, w.shape.end()));
  a.strides = attrs_.get_ints("strides").value_or(std::vector<int64_t>(nsp, 1));
  a.dilations = attrs_.get_ints("dilations").value_or(std::vector<int64_t>(nsp, 1));
  a.pads = attrs_.get_ints("pads").value_or(std::vector<int64_t>(2 * nsp, 0));
  a.output_padding = attrs_.get_ints("output_padding").value_or(std::vector<int64_t>(nsp, 0));
  a.group = attrs_.int_or("group", 1);
  auto check_len = [&](const std::vector<int64_t>& v, const char* name, std::size_t n) {
    if (v.size() != n)
      fail(std::string("attribute '") + name + "' " + join(v) + " has " + std::to_string(v.size()) +
               " values but X " + x.to_string() + " has " + std::to_string(nsp) +
               " spatial dimensions (expected " + std::to_string(n) + ")",
           "give one value per spatial dimension (pads: begins then ends)");
  };
  check_len(a.kernel_shape, "kernel_shape", nsp);
  check_len(a.strides, "strides", nsp);
  check_len(a.dilations, "dilations", nsp);
  check_len(a.pads, "pads", 2 * nsp);
  check_len(a.output_padding, "output_padding", nsp);
  // Bounds that keep the size arithmetic below far from overflow.
  const auto in_range = [](int64_t v, int64_t lo) { return v >= lo && v <= kMaxTensorElements; };
  constexpr int64_t kMaxWindow = int64_t{1} << 20;
  const auto small = [](int64_t v, int64_t lo) { return v >= lo && v <= kMaxWindow; };
  for (std::size_t i = 0; i < nsp; ++i)
    if (!small(a.strides[i], 1) || !small(a.dilations[i], 1) || !small(a.kernel_shape[i], 1) ||
        !small(a.output_padding[i], 0))
      fail("kernel_shape " + join(a.kernel_shape) + ", strides " + join(a.strides) +
           ", dilations " + join(a.dilations) + ", output_padding " + join(a.output_padding) +
           " are out of range (kernel, strides, dilations >= 1, output_padding >= 0)");
  for (int64_t p : a.pads)
    if (!in_range(p, -kMaxTensorElements)) fail("pads " + join(a.pads) + " are absurd");
  if (a.group < 1) fail("group " + std::to_string(a.group) + " must be >= 1");

  const std::string auto_pad = attrs_.get_string("auto_pad").value_or("NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER")
    fail("unknown auto_pad '" + auto_pad + "'", "use NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  std::optional<std::vector<int64_t>> out_shape = attrs_.get_ints("output_shape");
  if (out_shape && out_shape->size() == nsp + 2)  // some exporters give N and C too
    out_shape->erase(out_shape->begin(), out_shape->begin() + 2);
  if (out_shape) {
    check_len(*out_shape, "output_shape", nsp);
    for (int64_t v : *out_shape)
      if (!in_range(v, 1)) fail("output_shape " + join(*out_shape) + " is out of range");
  }
  if (auto_pad == "VALID") a.pads.assign(2 * nsp, 0);
  if (!out_shape && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")) {
    out_shape = std::vector<int64_t>(nsp);
    for (std::size_t i = 0; i < nsp; ++i) (*out_shape)[i] = x.shape[2 + i] * a.strides[i];
  }
  if (out_shape) {
    // Pads that make the output exactly output_shape; the odd one goes to
    // the end for SAME_UPPER, else to the beginning (ONNX's rule).
    for (std::size_t i = 0; i < nsp; ++i) {
      const int64_t full = a.strides[i] * (x.shape[2 + i] - 1) + a.output_padding[i] +
                           (a.kernel_shape[i] - 1) * a.dilations[i] + 1;
      const int64_t total = full - (*out_shape)[i];
      // Floor division, as ONNX specifies it in Python: -1 // 2 == -1.
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      if (auto_pad == "SAME_UPPER") {
        a.pads[i] = half;
        a.pads[nsp + i] = total - half;
      } else {
        a.pads[i] = total - half;
        a.pads[nsp + i] = half;
      }
    }
  }
  return {OpKind::ConvTranspose, a, data_inputs(3)};
}

std::optional<std::vector<double>> NodeReader::const_floats(std::size_t i, const char* role) const {
  if (!has_input(i)) return std::nullopt;
  const Tensor* t = constant(i);
  if (!t) not_constant(i, role);
  if (t->numel() == 0) return std::nullopt;
  if (t->rank() != 1)
    fail(std::string("input '") + role + "' must be 1-D, got shape [" +
         shape_to_string(t->shape()) + "]");
  std::vector<double> v;
  for (int64_t k = 0; k < t->numel(); ++k) v.push_back(t->as_double(k));
  return v;
}

LoweredNode NodeReader::resize() {
  // Upsample (opset 7 to 9) reads as a Resize with the old defaults.
  const bool upsample = c_.proto.op_type() == "Upsample";
  if (upsample && c_.opset < 7)
    unsupported("Upsample before opset 7 (experimental form) is not supported",
                "convert the model to opset 9 or later");
  const TensorType& x = required_type(0, "X");
  const std::size_t r = x.shape.size();
  ResizeAttrs a;
  const std::string mode = attrs_.get_string("mode").value_or("nearest");
  if (mode == "nearest") {
    a.mode = ResizeMode::Nearest;
  } else if (mode == "linear" || mode == "bilinear") {
    a.mode = ResizeMode::Linear;
  } else if (mode == "cubic" && !upsample && c_.opset >= 11) {
    a.mode = ResizeMode::Cubic;
  } else {
    fail("unknown mode '" + mode + "'", "use nearest, linear or cubic");
  }
  std::optional<std::vector<double>> scales, roi;
  std::optional<std::vector<int64_t>> sizes;
  if (upsample || c_.opset < 11) {
    // Upsample-7..9 and Resize-10: asymmetric coordinates, nearest rounds down.
    a.coord = ResizeCoord::Asymmetric;
    a.nearest = NearestMode::Floor;
    if (upsample && c_.opset < 9) {
      if (auto f = attrs_.get_floats("scales"))
        scales = std::vector<double>(f->begin(), f->end());
      else
        fail("attribute 'scales' is required", "give one scale per dimension");
    } else {
      scales = const_floats(1, "scales");
    }
    if (!scales) fail("scales are required", "give one scale per dimension");
  } else {
    const std::string coord =
        attrs_.get_string("coordinate_transformation_mode").value_or("half_pixel");
    if (coord == "half_pixel") {
      a.coord = ResizeCoord::HalfPixel;
    } else if (coord == "pytorch_half_pixel") {
      a.coord = ResizeCoord::PytorchHalfPixel;
    } else if (coord == "align_corners") {
      a.coord = ResizeCoord::AlignCorners;
    } else if (coord == "asymmetric") {
      a.coord = ResizeCoord::Asymmetric;
    } else if (coord == "tf_half_pixel_for_nn") {
      a.coord = ResizeCoord::TfHalfPixelForNn;
    } else if (coord == "tf_crop_and_resize") {
      a.coord = ResizeCoord::TfCropAndResize;
    } else if (coord == "half_pixel_symmetric" && c_.opset >= 19) {
      a.coord = ResizeCoord::HalfPixelSymmetric;
    } else {
      fail("unknown coordinate_transformation_mode '" + coord + "'");
    }
    const std::string nearest = attrs_.get_string("nearest_mode").value_or("round_prefer_floor");
    if (nearest == "round_prefer_floor") {
      a.nearest = NearestMode::RoundPreferFloor;
    } else if (nearest == "round_prefer_ceil") {
      a.nearest = NearestMode::RoundPreferCeil;
    } else if (nearest == "floor") {
      a.nearest = NearestMode::Floor;
    } else if (nearest == "ceil") {
      a.nearest = NearestMode::Ceil;
    } else {
      fail("unknown nearest_mode '" + nearest + "'");
    }
    a.cubic_coeff_a = attrs_.float_or("cubic_coeff_a", -0.75f);
    a.exclude_outside = attrs_.int_or("exclude_outside", 0) != 0;
    a.extrapolation_value = attrs_.float_or("extrapolation_value", 0.0f);
    if (a.coord == ResizeCoord::TfCropAndResize) roi = const_floats(1, "roi");
    scales = const_floats(2, "scales");
    if (!scales) {
      sizes = const_ints(3, "sizes");
      if (!sizes) fail("one of scales and sizes is required", "give scales or sizes");
    } else if (has_input(3) && constant(3) && constant(3)->numel() > 0) {
      fail("both scales and sizes are given", "give only one of them");
    }
  }
  // Opset 18: scales, sizes and roi may cover only the listed axes.
  std::vector<int64_t> axes;
  if (c_.opset >= 18 && !upsample) {
    if (auto given = attrs_.get_ints("axes")) {
      axes = *given;
      for (int64_t& ax : axes) ax = normalize_axis(ax, static_cast<int64_t>(r), "axes");
      normalize_axes(axes, static_cast<int64_t>(r), "axes");  // no repeats
      const std::size_t k = axes.size();
      if (scales && scales->size() == k) {
        std::vector<double> full(r, 1.0);
        for (std::size_t i = 0; i < k; ++i) full[static_cast<std::size_t>(axes[i])] = (*scales)[i];
        scales = full;
      }
      if (sizes && sizes->size() == k) {
        std::vector<int64_t> full(x.shape.begin(), x.shape.end());
        for (std::size_t i = 0; i < k; ++i) full[static_cast<std::size_t>(axes[i])] = (*sizes)[i];
        sizes = full;
      }
      if (roi && roi->size() == 2 * k) {
        std::vector<double> full(r, 0.0);
        full.resize(2 * r, 1.0);
        for (std::size_t i = 0; i < k; ++i) {
          full[static_cast<std::size_t>(axes[i])] = (*roi)[i];
          full[r + static_cast<std::size_t>(axes[i])] = (*roi)[k + i];
        }
        roi = full;
      }
    }
  }
  if (a.coord == ResizeCoord::TfCropAndResize) {
    if (!roi) fail("tf_crop_and_resize needs a roi input");
    if (roi->size() != 2 * r)
      fail("roi has " + std::to_string(roi->size()) + " values but X " + x.to_string() + " needs " +
           std::to_string(2 * r) + " (starts then ends)");
    for (double v : *roi)
      if (!std::isfinite(v)) fail("roi " + std::to_string(v) + " is not finite");
    a.roi = *roi;
  }
  a.sizes.resize(r);
  a.scales.resize(r);
  if (scales) {
    if (scales->size() != r)
      fail("scales has " + std::to_string(scales->size()) + " values but X " + x.to_string() +
           " has rank " + std::to_string(r));
    for (std::size_t d = 0; d < r; ++d) {
      const double s = (*scales)[d];
      if (!(s > 0.0) || s > 1e6) fail("scale " + std::to_string(s) + " must be positive");
      // floor(in * scale), multiplied in float like the ONNX reference.
      float len = static_cast<float>(x.shape[d]);
      if (a.coord == ResizeCoord::TfCropAndResize)
        len *= static_cast<float>(a.roi[r + d] - a.roi[d]);
      a.sizes[d] = static_cast<int64_t>(std::floor(len * static_cast<float>(s)));
      a.scales[d] = s;
    }
  } else {
    if (sizes->size() != r)
      fail("sizes has " + std::to_string(sizes->size()) + " values but X " + x.to_string() +
           " has rank " + std::to_string(r));
    for (std::size_t d = 0; d < r; ++d) {
      if ((*sizes)[d] < 0) fail("sizes " + join(*sizes) + " has a negative size");
      a.sizes[d] = (*sizes)[d];
      a.scales[d] = x.shape[d] == 0
                        ? 1.0
                        : static_cast<double>((*sizes)[d]) / static_cast<double>(x.shape[d]);
    }
    // Opset 18: one scale for every resized axis, the smallest (not_larger)
    // or largest (not_smaller) of sizes / input, and sizes rounded from it.
    const std::string policy =
        c_.opset >= 18 && !upsample
            ? attrs_.get_string("keep_aspect_ratio_policy").value_or("stretch")
            : "stretch";
    if (policy != "stretch") {
      if (policy != "not_larger" && policy != "not_smaller")
        fail("unknown keep_aspect_ratio_policy '" + policy + "'",
             "use stretch, not_larger or not_smaller");
      std::vector<std::size_t> dims;
      if (axes.empty()) {
        for (std::size_t d = 0; d < r; ++d) dims.push_back(d);
      } else {
        for (int64_t ax : axes) dims.push_back(static_cast<std::size_t>(ax));
      }
      double scale = policy == "not_larger" ? INFINITY : 0.0;
      for (std::size_t d : dims)
        scale =
            policy == "not_larger" ? std::min(scale, a.scales[d]) : std::max(scale, a.scales[d]);
      for (std::size_t d : dims) {
        a.scales[d] = scale;
        a.sizes[d] =
            static_cast<int64_t>(std::floor(scale * static_cast<double>(x.shape[d]) + 0.5));
      }
    }
  }
  if (c_.opset >= 18 && !upsample && attrs_.int_or("antialias", 0) != 0 &&
      a.mode != ResizeMode::Nearest) {
    for (double s : a.scales)
      if (s < 1.0)
        unsupported(
            "Resize with antialias=1 when downscaling (an antialiasing filter) is not "
            "supported",
            "export the resize without antialias");
  }
  return {OpKind::Resize, a, data_inputs(1)};
}

LoweredNode NodeReader::max_unpool() {
  // The window attributes read like a pooling node's (auto_pad is not part of MaxUnpool).
  const ConvAttrs w = window_attrs(false);
  const TensorType& x = required_type(0, "X");
  const std::size_t nsp = x.shape.size() - 2;
  MaxUnpoolAttrs a{w.kernel_shape, w.strides, w.pads, {}};
  if (auto shape = const_ints(2, "output_shape")) {
    a.output_shape = *shape;
    if (a.output_shape.size() != x.shape.size())
      fail("output_shape " + join(a.output_shape) + " must have the rank of X " + x.to_string());
  } else {
    a.output_shape = {x.shape[0], x.shape[1]};
    for (std::size_t i = 0; i < nsp; ++i) {
      if (a.strides[i] > (int64_t{1} << 20) || a.kernel_shape[i] > (int64_t{1} << 20))
        fail("kernel_shape " + join(a.kernel_shape) + " / strides " + join(a.strides) +
             " are absurd");
      a.output_shape.push_back((x.shape[2 + i] - 1) * a.strides[i] + a.kernel_shape[i] - a.pads[i] -
                               a.pads[nsp + i]);
    }
  }
  return {OpKind::MaxUnpool, a, data_inputs(2)};
}

ValueId NodeReader::reshaped(ValueId id, const Shape& shape, const std::string& suffix) {
  Graph& g = c_.graph;
  const std::string name = g.value(id).onnx_name + suffix;
  ValueId out;
  if (const Tensor* t = g.constant(id)) {
    out = g.add_constant(name, t->reshaped(shape));
  } else {
    out = g.add_value(name, TensorType{g.value(id).type.dtype, shape});
    g.add_node(OpKind::Reshape, "", {id}, {out}, ReshapeAttrs{shape});
  }
  g.value(out).onnx_name.clear();  // made by kiln, not in the model
  return out;
}

LoweredNode NodeReader::leaky_relu() {
  return {c_.kind, LeakyReluAttrs{attrs_.float_or("alpha", 0.01f)}, data_inputs(1)};
}
LoweredNode NodeReader::elu() {
  return {c_.kind, EluAttrs{attrs_.float_or("alpha", 1.0f)}, data_inputs(1)};
}
LoweredNode NodeReader::selu() {
  SeluAttrs a;
  if (c_.opset < 6) {  // version 1 had rounded defaults
    a.alpha = 1.6732f;
    a.gamma = 1.0507f;
  }
  a.alpha = attrs_.float_or("alpha", a.alpha);
  a.gamma = attrs_.float_or("gamma", a.gamma);
  return {c_.kind, a, data_inputs(1)};
}
LoweredNode NodeReader::hard_sigmoid() {
  return {c_.kind, HardSigmoidAttrs{attrs_.float_or("alpha", 0.2f), attrs_.float_or("beta", 0.5f)},
          data_inputs(1)};
}
LoweredNode NodeReader::thresholded_relu() {
  return {c_.kind, ThresholdedReluAttrs{attrs_.float_or("alpha", 1.0f)}, data_inputs(1)};
}
LoweredNode NodeReader::celu() {
  return {c_.kind, CeluAttrs{attrs_.float_or("alpha", 1.0f)}, data_inputs(1)};
}
LoweredNode NodeReader::shrink() {
  return {c_.kind, ShrinkAttrs{attrs_.float_or("bias", 0.0f), attrs_.float_or("lambd", 0.5f)},
          data_inputs(1)};
}
LoweredNode NodeReader::is_inf() {
  return {c_.kind,
          IsInfAttrs{attrs_.int_or("detect_positive", 1) != 0,
                     attrs_.int_or("detect_negative", 1) != 0},
          data_inputs(1)};
}
LoweredNode NodeReader::squeeze() {
  return squeeze_or_unsqueeze(false);
}
LoweredNode NodeReader::unsqueeze() {
  return squeeze_or_unsqueeze(true);
}
LoweredNode NodeReader::depth_to_space() {
  return block(true);
}
LoweredNode NodeReader::space_to_depth() {
  return block(false);
}
LoweredNode NodeReader::gather_elements() {
  GatherAttrs a;
  a.axis = normalize_axis(attrs_.int_or("axis", 0), rank(0, "data"), "axis");
  return {c_.kind, a, data_inputs(2)};
}
// The activation functions of RNN/GRU/LSTM by their ONNX names, with the
// alpha and beta each takes and their defaults (those of the ONNX operator of
// that name; Affine's and ScaledTanh's are those of the retired experimental ops).
struct RnnActivationName {
  const char* name;
  RnnActivation kind;
  bool takes_alpha, takes_beta;
  float alpha, beta;
};
constexpr RnnActivationName kRnnActivations[] = {
    {"Relu", RnnActivation::Relu, false, false, 0.0f, 0.0f},
    {"Tanh", RnnActivation::Tanh, false, false, 0.0f, 0.0f},
    {"Sigmoid", RnnActivation::Sigmoid, false, false, 0.0f, 0.0f},
    {"Affine", RnnActivation::Affine, true, true, 1.0f, 0.0f},
    {"LeakyRelu", RnnActivation::LeakyRelu, true, false, 0.01f, 0.0f},
    {"ThresholdedRelu", RnnActivation::ThresholdedRelu, true, false, 1.0f, 0.0f},
    {"ScaledTanh", RnnActivation::ScaledTanh, true, true, 1.0f, 1.0f},
    {"HardSigmoid", RnnActivation::HardSigmoid, true, true, 0.2f, 0.5f},
    {"Elu", RnnActivation::Elu, true, false, 1.0f, 0.0f},
    {"Softsign", RnnActivation::Softsign, false, false, 0.0f, 0.0f},
    {"Softplus", RnnActivation::Softplus, false, false, 0.0f, 0.0f},
};

// Exporters differ in the case of activation names ("Tanh", "tanh").
bool same_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

// The activations attribute (or the op's defaults) resolved for every
// direction. activation_alpha and activation_beta are consumed in order by the
// activations that take an alpha (a beta); missing values take the defaults.
std::vector<RnnActivationFn> NodeReader::rnn_activations(int64_t per_direction,
                                                         int64_t directions) const {
  static constexpr const char* kDefaults[] = {"Sigmoid", "Tanh", "Tanh"};
  std::vector<std::string> names;
  if (auto given = attrs_.get_strings("activations")) {
    names = *given;
  } else if (c_.kind == OpKind::RNN) {
    names.assign(1, "Tanh");
  } else {
    names.assign(kDefaults, kDefaults + per_direction);
  }
  const std::vector<float> alphas =
      attrs_.get_floats("activation_alpha").value_or(std::vector<float>{});
  const std::vector<float> betas =
      attrs_.get_floats("activation_beta").value_or(std::vector<float>{});
  std::size_t next_alpha = 0, next_beta = 0;
  std::vector<RnnActivationFn> fns;
  for (const std::string& name : names) {
    const auto* it = std::find_if(std::begin(kRnnActivations), std::end(kRnnActivations),
                                  [&](const auto& a) { return same_ignoring_case(name, a.name); });
    if (it == std::end(kRnnActivations)) {
      std::vector<std::string> known;
      for (const auto& a : kRnnActivations) known.emplace_back(a.name);
      unsupported("activation '" + name + "' is not supported",
                  "use one of " + kiln::join(known, ", "));
    }
    RnnActivationFn fn{it->kind, it->alpha, it->beta};
    if (it->takes_alpha && next_alpha < alphas.size()) fn.alpha = alphas[next_alpha++];
    if (it->takes_beta && next_beta < betas.size()) fn.beta = betas[next_beta++];
    fns.push_back(fn);
  }
  const auto n = static_cast<int64_t>(fns.size());
  if (n == per_direction * directions) return fns;
  // One direction's list for both directions; a forward layer with RNN's
  // schema default (two Tanh) uses the first.
  if (n == per_direction || (directions == 1 && n == 2 * per_direction)) {
    fns.resize(static_cast<std::size_t>(per_direction));
    if (directions == 2) fns.insert(fns.end(), fns.begin(), fns.end());
    return fns;
  }
  fail("activations lists " + std::to_string(n) + " functions, expected " +
           std::to_string(per_direction * directions) + " (" + std::to_string(per_direction) +
           " per direction)",
       "list the activations of every direction");
}

// RNN, GRU, LSTM (opsets 1-22): direction, hidden_size (R's last dimension
// when absent), activations, clip, layout (14), linear_before_reset (GRU, 3),
// input_forget (LSTM). Opset 1's output_sequence only made Y optional, which
// an omitted output says in every opset.
LoweredNode NodeReader::recurrent() {
  RecurrentAttrs a;
  const std::string direction = attrs_.get_string("direction").value_or("forward");
  if (auto d = enum_from_name<RnnDirection>(direction))
    a.direction = *d;
  else
    fail("unknown direction '" + direction + "'", "use forward, reverse or bidirectional");
  if (auto h = attrs_.get_int("hidden_size")) {
    a.hidden_size = *h;
  } else if (const TensorType& r = required_type(2, "R"); r.shape.size() == 3) {
    a.hidden_size = r.shape[2];
  } else {
    fail("attribute 'hidden_size' is required");
  }
  if (auto clip = attrs_.get_float("clip")) {
    if (!(*clip > 0.0f)) fail("clip " + std::to_string(*clip) + " must be > 0");
    a.clip = *clip;
  }
  const int64_t layout = c_.opset >= 14 ? attrs_.int_or("layout", 0) : 0;
  if (layout != 0 && layout != 1) fail("layout " + std::to_string(layout) + " must be 0 or 1");
  a.batch_first = layout == 1;
  if (c_.kind == OpKind::GRU) a.linear_before_reset = attrs_.int_or("linear_before_reset", 0) != 0;
  if (c_.kind == OpKind::LSTM) a.input_forget = attrs_.int_or("input_forget", 0) != 0;
  a.activations = rnn_activations(rnn_activation_count(c_.kind), rnn_num_directions(a));
  return {c_.kind, a, data_inputs(c_.kind == OpKind::LSTM ? 8 : 6)};
}

LoweredNode NodeReader::instance_norm() {
  return {c_.kind, InstanceNormAttrs{attrs_.float_or("epsilon", 1e-5f)}, data_inputs(3)};
}
// No parameters (Relu, MatMul, Sum, Identity, ...): every input is data.
LoweredNode NodeReader::plain() {
  return {c_.kind, default_attrs(c_.kind), all_inputs()};
}
// kiln's own kinds have no ONNX op type, so no node reaches this.
LoweredNode NodeReader::not_onnx() {
  KILN_ASSERT(false, "an ONNX node was mapped to kiln's own kind " + std::string(op_name(c_.kind)));
  return plain();
}

// How each op kind is read from ONNX; the build fails while a kind has no row.
using ReadFn = LoweredNode (NodeReader::*)();
constexpr auto kRead = make_enum_table<OpKind, kNumOpKinds, ReadFn>({
    {{OpKind::Conv}, &NodeReader::conv},
    {{OpKind::MaxPool, OpKind::AveragePool}, &NodeReader::pool},
    {{OpKind::Gemm}, &NodeReader::gemm},
    {{OpKind::BatchNormalization}, &NodeReader::batch_norm},
    {{OpKind::LeakyRelu}, &NodeReader::leaky_relu},
    {{OpKind::Elu}, &NodeReader::elu},
    {{OpKind::Selu}, &NodeReader::selu},
    {{OpKind::HardSigmoid}, &NodeReader::hard_sigmoid},
    {{OpKind::Softmax, OpKind::LogSoftmax, OpKind::Hardmax}, &NodeReader::softmax},
    {{OpKind::Clip}, &NodeReader::clip},
    {{OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div, OpKind::Pow, OpKind::And, OpKind::Or,
      OpKind::Xor, OpKind::Equal, OpKind::Less, OpKind::Greater},
     &NodeReader::legacy_broadcast},
    {{OpKind::Mod}, &NodeReader::mod},
    {{OpKind::BitShift}, &NodeReader::bit_shift},
    {{OpKind::ThresholdedRelu}, &NodeReader::thresholded_relu},
    {{OpKind::Celu}, &NodeReader::celu},
    {{OpKind::Shrink}, &NodeReader::shrink},
    {{OpKind::IsInf}, &NodeReader::is_inf},
    {{OpKind::PRelu}, &NodeReader::prelu},
    {{OpKind::Concat}, &NodeReader::concat},
    {{OpKind::Slice}, &NodeReader::slice},
    {{OpKind::Flatten}, &NodeReader::flatten},
    {{OpKind::Reshape}, &NodeReader::reshape},
    {{OpKind::Transpose}, &NodeReader::transpose},
    {{OpKind::Squeeze}, &NodeReader::squeeze},
    {{OpKind::Unsqueeze}, &NodeReader::unsqueeze},
    {{OpKind::Pad}, &NodeReader::pad},
    {{OpKind::Gather}, &NodeReader::gather},
    {{OpKind::Cast}, &NodeReader::cast},
    {{OpKind::QuantizeLinear, OpKind::DequantizeLinear}, &NodeReader::quant},
    {{OpKind::Quant}, &NodeReader::int_quant},
    {{OpKind::Trunc}, &NodeReader::trunc},
    {{OpKind::Shape}, &NodeReader::shape},
    {{OpKind::ReduceMean, OpKind::ReduceSum, OpKind::ReduceMax, OpKind::ReduceMin,
      OpKind::ReduceProd, OpKind::ReduceL1, OpKind::ReduceL2, OpKind::ReduceSumSquare,
      OpKind::ReduceLogSum, OpKind::ReduceLogSumExp},
     &NodeReader::reduce},
    {{OpKind::ArgMax, OpKind::ArgMin}, &NodeReader::arg_reduce},
    {{OpKind::Split}, &NodeReader::split},
    {{OpKind::Expand}, &NodeReader::expand},
    {{OpKind::Tile}, &NodeReader::tile},
    {{OpKind::ConstantOfShape}, &NodeReader::constant_of_shape},
    {{OpKind::Range}, &NodeReader::range},
    {{OpKind::EyeLike}, &NodeReader::eye_like},
    {{OpKind::Trilu}, &NodeReader::trilu},
    {{OpKind::DepthToSpace}, &NodeReader::depth_to_space},
    {{OpKind::SpaceToDepth}, &NodeReader::space_to_depth},
    {{OpKind::GatherElements}, &NodeReader::gather_elements},
    {{OpKind::CumSum}, &NodeReader::cum_sum},
    {{OpKind::OneHot}, &NodeReader::one_hot},
    {{OpKind::LayerNormalization}, &NodeReader::layer_norm},
    {{OpKind::InstanceNormalization}, &NodeReader::instance_norm},
    {{OpKind::LRN}, &NodeReader::lrn},
    {{OpKind::ConvTranspose}, &NodeReader::conv_transpose},
    {{OpKind::Resize}, &NodeReader::resize},
    {{OpKind::MaxUnpool}, &NodeReader::max_unpool},
    {{OpKind::Dropout}, &NodeReader::dropout},
    {{OpKind::RNN, OpKind::GRU, OpKind::LSTM}, &NodeReader::recurrent},
    {{OpKind::Relu,
      OpKind::Sigmoid,
      OpKind::Tanh,
      OpKind::Exp,
      OpKind::Log,
      OpKind::Sqrt,
      OpKind::Abs,
      OpKind::Neg,
      OpKind::Reciprocal,
      OpKind::MatMul,
      OpKind::Max,
      OpKind::Min,
      OpKind::Sum,
      OpKind::Mean,
      OpKind::GlobalAveragePool,
      OpKind::GlobalMaxPool,
      OpKind::Identity,
      OpKind::Floor,
      OpKind::Ceil,
      OpKind::Round,
      OpKind::Sign,
      OpKind::Erf,
      OpKind::Softplus,
      OpKind::Softsign,
      OpKind::Sin,
      OpKind::Cos,
      OpKind::Tan,
      OpKind::Asin,
      OpKind::Acos,
      OpKind::Atan,
      OpKind::Sinh,
      OpKind::Cosh,
      OpKind::Asinh,
      OpKind::Acosh,
      OpKind::Atanh,
      OpKind::Not,
      OpKind::HardSwish,
      OpKind::IsNaN,
      OpKind::LessOrEqual,
      OpKind::GreaterOrEqual,
      OpKind::Where,
      OpKind::Size,
      OpKind::BipolarQuant},
     &NodeReader::plain},
    {{OpKind::Dense}, &NodeReader::not_onnx},
});

LoweredNode NodeReader::run() {
  return (this->*kRead[c_.kind])();
}

}  // namespace

const AP* AttrReader::find(const std::string& name) const {
  for (const AP& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void AttrReader::wrong_type(const AP& a, const char* expected) const {
  throw_error(
      ErrorKind::InvalidModel, where_,
      "attribute '" + a.name() + "' must be " + expected + ", got " + attr_type_name(a.type()),
      "fix the attribute in the model");
}

// Very old exporters left AttributeProto.type unset; then the filled field decides.
std::optional<int64_t> AttrReader::get_int(const std::string& name) const {
  const AP* a = find(name);
  if (!a) return std::nullopt;
  if (a->type() != AP::INT && !(a->type() == AP::UNDEFINED && a->has_i())) wrong_type(*a, "an int");
  return a->i();
}

std::optional<float> AttrReader::get_float(const std::string& name) const {
  const AP* a = find(name);
  if (!a) return std::nullopt;
  if (a->type() != AP::FLOAT && !(a->type() == AP::UNDEFINED && a->has_f()))
    wrong_type(*a, "a float");
  return a->f();
}

std::optional<std::string> AttrReader::get_string(const std::string& name) const {
  const AP* a = find(name);
  if (!a) return std::nullopt;
  if (a->type() != AP::STRING && !(a->type() == AP::UNDEFINED && a->has_s()))
    wrong_type(*a, "a string");
  return a->s();
}

std::optional<std::vector<int64_t>> AttrReader::get_ints(const std::string& name) const {
  const AP* a = find(name);
  if (!a) return std::nullopt;
  if (a->type() != AP::INTS && a->type() != AP::UNDEFINED) wrong_type(*a, "a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> AttrReader::get_floats(const std::string& name) const {
  const AP* a = find(name);
  if (!a) return std::nullopt;
  if (a->type() != AP::FLOATS && a->type() != AP::UNDEFINED) wrong_type(*a, "a list of floats");
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

std::optional<std::vector<std::string>> AttrReader::get_strings(const std::string& name) const {
  const AP* a = find(name);
  if (!a) return std::nullopt;
  if (a->type() != AP::STRINGS && a->type() != AP::UNDEFINED) wrong_type(*a, "a list of strings");
  return std::vector<std::string>(a->strings().begin(), a->strings().end());
}

const ::onnx::TensorProto* AttrReader::get_tensor(const std::string& name) const {
  const AP* a = find(name);
  if (!a) return nullptr;
  if (a->type() != AP::TENSOR && !(a->type() == AP::UNDEFINED && a->has_t()))
    wrong_type(*a, "a tensor");
  return &a->t();
}

int64_t AttrReader::required_int(const std::string& name) const {
  auto v = get_int(name);
  if (!v)
    throw_error(ErrorKind::InvalidModel, where_, "attribute '" + name + "' is required",
                "fix or re-export the model");
  return *v;
}

std::vector<int64_t> AttrReader::required_ints(const std::string& name) const {
  auto v = get_ints(name);
  if (!v)
    throw_error(ErrorKind::InvalidModel, where_, "attribute '" + name + "' is required",
                "fix or re-export the model");
  return *v;
}

LoweredNode lower_node(const NodeContext& ctx) {
  LoweredNode out = NodeReader(ctx).run();
  // Omitted trailing optional inputs carry no information.
  while (!out.inputs.empty() && !out.inputs.back().valid()) out.inputs.pop_back();
  return out;
}

Tensor constant_node_value(const ::onnx::NodeProto& node, const std::filesystem::path& base_dir,
                           const std::string& where) {
  const AttrReader attrs(node, where);
  for (const char* name : {"sparse_value", "value_string", "value_strings"})
    if (attrs.has(name))
      throw_error(ErrorKind::Unsupported, where,
                  std::string("Constant with '") + name + "' is not supported",
                  "kiln handles dense numeric constants only");
  int given = 0;
  for (const char* name : {"value", "value_float", "value_floats", "value_int", "value_ints"})
    given += attrs.has(name) ? 1 : 0;
  if (given != 1)
    throw_error(ErrorKind::InvalidModel, where,
                "a Constant needs exactly one value attribute, got " + std::to_string(given),
                "give one of value, value_float(s), value_int(s)");
  if (const auto* t = attrs.get_tensor("value")) return tensor_from_proto(*t, base_dir, where);
  if (auto f = attrs.get_float("value_float")) return Tensor::scalar<float>(*f);
  if (auto i = attrs.get_int("value_int")) return Tensor::scalar<int64_t>(*i);
  if (auto fs = attrs.get_floats("value_floats"))
    return Tensor::from_vector<float>({static_cast<int64_t>(fs->size())}, *fs);
  auto is = attrs.get_ints("value_ints");
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(is->size())}, *is);
}

int count_used_outputs(const ::onnx::NodeProto& node) {
  int n = 0;
  for (const std::string& o : node.output()) n += o.empty() ? 0 : 1;
  return n;
}

}  // namespace kiln::onnx_import

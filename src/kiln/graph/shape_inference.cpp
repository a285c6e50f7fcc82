// Static shape and type inference, following the ONNX operator specification in
// inference mode and reading the canonical typed attributes of ops.h.
//
// Every check that bad input can fail throws InvalidModel (Unsupported for
// valid models kiln does not handle) with the node as location and the
// offending shapes in the message. Element types are checked against ONNX's
// type constraints for the op; which of those types a backend implements is
// the backend's business (the reference kernels raise Unsupported).
//
// Canonical input lists: shape-determining ONNX inputs (Reshape's shape,
// Slice's starts/ends/axes/steps, Pad's pads and constant_value, Squeeze /
// Unsqueeze / Reduce* axes) are attributes, so those nodes have one input.
// Data operands (Conv/Gemm bias, BN statistics, PRelu slope, Clip min/max,
// Gather indices, Dropout ratio/training_mode) remain inputs.
#include "kiln/graph/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kiln/support/enum_table.h"
#include "kiln/support/strings.h"

namespace kiln {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// Saturating arithmetic: only absurd attributes overflow, and check_shape_sane
// rejects the saturated result afterwards with a readable message.
int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kInt64Max : kInt64Min;
  return r;
}
int64_t sat_mul(int64_t a, int64_t b) {  // a, b >= 0
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return kInt64Max;
  return r;
}
int64_t sat_product(const Shape& s, std::size_t begin, std::size_t end) {
  int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p = sat_mul(p, s[i]);
  return p;
}

std::string join(const std::vector<int64_t>& v) {
  return kiln::join(v, ",");
}

std::string bracket(const Shape& s) {
  return "[" + shape_to_string(s) + "]";
}

// Sets of element types, as bit masks, for ONNX type constraints.
using DTypeSet = uint32_t;
constexpr DTypeSet bit(DType t) {
  return DTypeSet{1} << static_cast<unsigned>(t);
}
constexpr DTypeSet kFloats = bit(DType::Float32) | bit(DType::Float64);
constexpr DTypeSet kSignedInts =
    bit(DType::Int8) | bit(DType::Int16) | bit(DType::Int32) | bit(DType::Int64);
constexpr DTypeSet kUnsignedInts =
    bit(DType::UInt8) | bit(DType::UInt16) | bit(DType::UInt32) | bit(DType::UInt64);
constexpr DTypeSet kNumeric = kFloats | kSignedInts | kUnsignedInts;
constexpr DTypeSet kAll = kNumeric | bit(DType::Bool);
// Gemm, MatMul, PRelu, ReduceMean/ReduceSum: floats and 32/64-bit integers.
constexpr DTypeSet kFloatsAndWideInts =
    kFloats | bit(DType::Int32) | bit(DType::Int64) | bit(DType::UInt32) | bit(DType::UInt64);
constexpr DTypeSet kIndexTypes = bit(DType::Int32) | bit(DType::Int64);

std::string dtype_set_text(DTypeSet set) {
  if (set == kFloats) return "float32 or float64";
  if (set == kNumeric) return "a numeric type (not bool)";
  std::string s;
  for (int t = 0; t <= static_cast<int>(DType::Bool); ++t) {
    if (!(set & bit(static_cast<DType>(t)))) continue;
    if (!s.empty()) s += ", ";
    s += dtype_name(static_cast<DType>(t));
  }
  return s;
}

// Per-node context: input access and error helpers that name the node.
class Ctx {
 public:
  Ctx(const Graph& graph, const Node& node) : graph_(graph), node_(node), where_(node.describe()) {}

  const Node& node() const { return node_; }
  const std::string& where() const { return where_; }

  [[noreturn]] void fail(const std::string& what, const std::string& hint = {}) const {
    throw_error(ErrorKind::InvalidModel, where_, what,
                hint.empty() ? "fix or re-export the model" : hint);
  }
  [[noreturn]] void unsupported(const std::string& what, const std::string& hint) const {
    throw_error(ErrorKind::Unsupported, where_, what, hint);
  }

  std::size_t num_inputs() const { return node_.inputs.size(); }
  bool has(std::size_t i) const { return i < node_.inputs.size() && node_.inputs[i].valid(); }
  const TensorType& in(std::size_t i) const {
    KILN_ASSERT(has(i), "missing input checked by expect_inputs");
    return graph_.value(node_.inputs[i]).type;
  }
  const Shape& shape(std::size_t i) const { return in(i).shape; }
  std::size_t rank(std::size_t i) const { return in(i).shape.size(); }
  const Tensor* constant(std::size_t i) const {
    return has(i) ? graph_.constant(node_.inputs[i]) : nullptr;
  }
  // "W float32[8x3x3x3]"
  std::string arg(std::size_t i) const {
    return input_role(node_.kind, i) + " " + in(i).to_string();
  }

  // Between min and max inputs, the first `min` present (not kNoValue).
  void expect_inputs(std::size_t min, std::size_t max) const {
    const std::size_t n = node_.inputs.size();
    if (n < min || n > max)
      fail(count_text("input", n, min, max), "check the node's inputs in the model");
    for (std::size_t i = 0; i < min; ++i)
      if (!node_.inputs[i].valid())
        fail("required input " + std::to_string(i) + " (" + input_role(node_.kind, i) +
                 ") is missing",
             "give the node all its required inputs");
  }
  void expect_outputs(std::size_t min, std::size_t max) const {
    const std::size_t n = node_.outputs.size();
    if (n < min || n > max)
      fail(count_text("output", n, min, max), "check the node's outputs in the model");
  }

  void expect_dtype(std::size_t i, DTypeSet allowed) const {
    if (!(allowed & bit(in(i).dtype)))
      fail(arg(i) + " has element type " + dtype_name(in(i).dtype) + ", but " +
               std::string(op_name(node_.kind)) + " requires " + dtype_set_text(allowed),
           "cast the input to a supported type in the model");
  }
  void expect_same_dtype(std::size_t i, std::size_t ref) const {
    if (in(i).dtype != in(ref).dtype)
      fail(arg(i) + " and " + arg(ref) + " have different element types",
           "ONNX requires equal element types here; insert a Cast");
  }
  void expect_rank(std::size_t i, std::size_t r) const {
    if (rank(i) != r)
      fail(
          arg(i) + " must have rank " + std::to_string(r) + ", got rank " + std::to_string(rank(i)),
          "fix the tensor's shape in the model");
  }
  void expect_min_rank(std::size_t i, std::size_t r, const std::string& layout) const {
    if (rank(i) < r)
      fail(arg(i) + " must have rank >= " + std::to_string(r) + " (" + layout + "), got rank " +
               std::to_string(rank(i)),
           "fix the tensor's shape in the model");
  }
  // A scalar operand: rank 0, or rank 1 with one element.
  void expect_scalar(std::size_t i) const {
    const Shape& s = shape(i);
    if (!(s.empty() || (s.size() == 1 && s[0] == 1)))
      fail(arg(i) + " must be a scalar (rank 0 or one element)",
           "give a single value for this operand");
  }
  // An axis attribute in [0, limit).
  void expect_axis(const char* name, int64_t axis, std::size_t limit, const std::string& of) const {
    if (axis < 0 || axis >= static_cast<int64_t>(limit))
      fail(std::string(name) + " " + std::to_string(axis) + " is out of range for " + of +
               " (valid: 0.." + std::to_string(static_cast<int64_t>(limit) - 1) + ")",
           "fix the axis attribute in the model");
  }

 private:
  static std::string count_text(const char* what, std::size_t n, std::size_t min, std::size_t max) {
    std::string expected = min == max        ? std::to_string(min)
                           : max == SIZE_MAX ? "at least " + std::to_string(min)
                                             : std::to_string(min) + " to " + std::to_string(max);
    const bool singular = min == 1 && (max == 1 || max == SIZE_MAX);
    return std::string("expected ") + expected + " " + what + (singular ? "" : "s") + ", got " +
           std::to_string(n);
  }

  const Graph& graph_;
  const Node& node_;
  std::string where_;
};

bool try_broadcast(const Shape& a, const Shape& b, Shape& out) {
  const std::size_t r = std::max(a.size(), b.size());
  out.assign(r, 1);
  for (std::size_t i = 0; i < r; ++i) {
    // Align from the right; missing leading dims act as 1.
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return false;
    }
  }
  return true;
}

// True if `from` broadcasts to `to` without changing `to` (ONNX "unidirectional").
bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const std::size_t off = to.size() - from.size();
  for (std::size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[off + i]) return false;
  return true;
}

// Axis lists of Squeeze/Unsqueeze/Reduce*: strictly increasing, below `limit`.
void check_axes(const Ctx& c, const std::vector<int64_t>& axes, std::size_t limit,
                const std::string& of) {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    c.expect_axis("axis", axes[i], limit, of);
    if (i > 0 && axes[i] <= axes[i - 1])
      c.fail("axes " + join(axes) + " are not sorted and unique",
             "list each axis once, in increasing order");
  }
}

std::vector<TensorType> same_as_input(const Ctx& c) {
  return {c.in(0)};
}

// Absurd outputs (huge pads, strides or targets) are reported as the node's fault.
void check_output_shape(const Ctx& c, const Shape& s) {
  try {
    check_shape_sane(s, c.where());
  } catch (const Error& e) {
    c.fail("inferred output: " + e.what_happened(),
           "check the node's attributes (pads, kernel, strides, target shape)");
  }
}

// ---- Convolution and pooling -------------------------------------------------

// Checks the sizes and ranges of window attributes for `nsp` spatial dims.
void check_window_attrs(const Ctx& c, std::size_t nsp, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                        const std::vector<int64_t>& dilations) {
  auto check_len = [&](const char* name, const std::vector<int64_t>& v, std::size_t want) {
    if (v.size() != want)
      c.fail(std::string(name) + " has " + std::to_string(v.size()) + " entries (" + join(v) +
                 ") but " + c.arg(0) + " has " + std::to_string(nsp) + " spatial dimensions",
             "give one entry per spatial dimension (pads: begins then ends)");
  };
  check_len("kernel_shape", kernel, nsp);
  check_len("strides", strides, nsp);
  check_len("dilations", dilations, nsp);
  check_len("pads", pads, 2 * nsp);
  auto check_min = [&](const char* name, const std::vector<int64_t>& v, int64_t min) {
    for (int64_t x : v)
      if (x < min)
        c.fail(std::string(name) + " " + join(v) + " has an entry below " + std::to_string(min),
               std::string(name) + " must be >= " + std::to_string(min));
  };
  check_min("kernel_shape", kernel, 1);
  check_min("strides", strides, 1);
  check_min("dilations", dilations, 1);
  check_min("pads", pads, 0);
}

// Layout helpers for channels-last nodes: [N, spatial..., C] <-> [N, C, spatial...].
// Inference works on the channels-first view and converts the result back.
Shape to_channels_first(const Shape& s) {
  if (s.size() < 2) return s;
  Shape r = {s[0], s.back()};
  r.insert(r.end(), s.begin() + 1, s.end() - 1);
  return r;
}
Shape to_channels_last(const Shape& s) {
  if (s.size() < 2) return s;
  Shape r = {s[0]};
  r.insert(r.end(), s.begin() + 2, s.end());
  r.push_back(s[1]);
  return r;
}

// Input 0 in the channels-first view.
Shape input_nc(const Ctx& c, bool channels_last) {
  return channels_last ? to_channels_first(c.shape(0)) : c.shape(0);
}
Shape output_layout(Shape nc, bool channels_last) {
  return channels_last ? to_channels_last(nc) : nc;
}

// [N, C_out, out...] for a window op over input 0 (`x` in the channels-first view).
Shape window_output_shape(const Ctx& c, const Shape& x, int64_t channels,
                          const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                          const std::vector<int64_t>& pads, const std::vector<int64_t>& dilations,
                          bool ceil_mode) {
  const std::size_t nsp = x.size() - 2;
  Shape out = {x[0], channels};
  for (std::size_t i = 0; i < nsp; ++i) {
    const int64_t o = window_output_size(x[2 + i], kernel[i], strides[i], pads[i], pads[nsp + i],
                                         dilations[i], ceil_mode);
    if (o < 1)
      c.fail("the window (kernel " + std::to_string(kernel[i]) + ", dilation " +
                 std::to_string(dilations[i]) + ") is larger than the padded input along " +
                 "spatial axis " + std::to_string(i) + " of " + c.arg(0) + " (size " +
                 std::to_string(x[2 + i]) + ", pads " + std::to_string(pads[i]) + "+" +
                 std::to_string(pads[nsp + i]) + ")",
             "use a smaller kernel or dilation, or a larger input");
    out.push_back(o);
  }
  return out;
}

std::vector<TensorType> infer_conv(const Ctx& c) {
  c.expect_inputs(2, 3);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<ConvAttrs>();
  c.expect_dtype(0, kFloats);
  c.expect_same_dtype(1, 0);
  c.expect_min_rank(0, 3, "N, C, spatial...");
  if (c.rank(1) != c.rank(0))
    c.fail(c.arg(1) + " must have the rank of " + c.arg(0) + " ([M, C/group, kernel...])",
           "fix the weight shape");
  const std::size_t nsp = c.rank(0) - 2;
  check_window_attrs(c, nsp, a.kernel_shape, a.strides, a.pads, a.dilations);
  const Shape x = input_nc(c, a.channels_last);
  const Shape& w = c.shape(1);
  if (a.group < 1)
    c.fail("group " + std::to_string(a.group) + " is not positive", "use group >= 1");
  const int64_t channels = x[1];
  const int64_t m = w[0];
  if (channels % a.group != 0)
    c.fail(c.arg(0) + " has " + std::to_string(channels) + " channels, not divisible by group " +
               std::to_string(a.group),
           "fix the group attribute or the input channels");
  if (w[1] != channels / a.group)
    c.fail(c.arg(1) + " has " + std::to_string(w[1]) + " input channels per group, but " +
               c.arg(0) + " has " + std::to_string(channels) + " channels / group " +
               std::to_string(a.group) + " = " + std::to_string(channels / a.group),
           "the weight must be [M, C/group, kernel...]");
  if (m % a.group != 0)
    c.fail(c.arg(1) + " has " + std::to_string(m) + " output channels, not divisible by group " +
               std::to_string(a.group),
           "fix the group attribute or the weight shape");
  for (std::size_t i = 0; i < nsp; ++i)
    if (a.kernel_shape[i] != w[2 + i])
      c.fail("kernel_shape " + join(a.kernel_shape) + " does not match " + c.arg(1),
             "kernel_shape must equal the weight's spatial dimensions");
  if (c.has(2)) {
    c.expect_same_dtype(2, 0);
    if (c.shape(2) != Shape{m})
      c.fail(
          c.arg(2) + " must have shape [" + std::to_string(m) + "] (one bias per output channel)",
          "fix the bias shape");
  }
  return {TensorType{c.in(0).dtype,
                     output_layout(window_output_shape(c, x, m, a.kernel_shape, a.strides, a.pads,
                                                       a.dilations, false),
                                   a.channels_last)}};
}

std::vector<TensorType> infer_pool(const Ctx& c) {
  const bool is_max = c.node().kind == OpKind::MaxPool;
  c.expect_inputs(1, 1);
  c.expect_outputs(1, is_max ? 2 : 1);
  const auto& a = c.node().attr<PoolAttrs>();
  // ONNX MaxPool (opset 12) also takes int8 and uint8.
  c.expect_dtype(0, is_max ? kFloats | bit(DType::Int8) | bit(DType::UInt8) : kFloats);
  c.expect_min_rank(0, 3, "N, C, spatial...");
  const std::size_t nsp = c.rank(0) - 2;
  check_window_attrs(c, nsp, a.kernel_shape, a.strides, a.pads, a.dilations);
  // A pad as wide as the kernel allows windows made only of padding, which have
  // no defined max or average; onnxruntime and PyTorch reject them too.
  for (std::size_t i = 0; i < 2 * nsp; ++i)
    if (a.pads[i] >= a.kernel_shape[i % nsp])
      c.fail("pads " + join(a.pads) + " are not smaller than kernel_shape " + join(a.kernel_shape) +
                 " (a window could lie entirely in the padding)",
             "use pads smaller than the kernel");
  const Shape x = input_nc(c, a.channels_last);
  if (a.channels_last && c.node().outputs.size() == 2 && c.node().outputs[1].valid())
    c.unsupported("a channels-last MaxPool cannot produce Indices",
                  "kiln's channels_last pass keeps such pools channels-first");
  Shape out = output_layout(
      window_output_shape(c, x, x[1], a.kernel_shape, a.strides, a.pads, a.dilations, a.ceil_mode),
      a.channels_last);
  std::vector<TensorType> types = {TensorType{c.in(0).dtype, out}};
  if (c.node().outputs.size() == 2) types.push_back(TensorType{DType::Int64, out});
  return types;
}

std::vector<TensorType> infer_global_pool(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloats);
  c.expect_min_rank(0, 3, "N, C, spatial...");
  const auto* a = std::get_if<GlobalPoolAttrs>(&c.node().attrs);
  const bool channels_last = a != nullptr && a->channels_last;
  const Shape x = input_nc(c, channels_last);
  Shape out(c.rank(0), 1);
  out[0] = x[0];
  out[1] = x[1];
  return {TensorType{c.in(0).dtype, output_layout(out, channels_last)}};
}

// ---- Linear algebra ----------------------------------------------------------

std::vector<TensorType> infer_gemm(const Ctx& c) {
  c.expect_inputs(2, 3);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<GemmAttrs>();
  c.expect_dtype(0, kFloatsAndWideInts);
  c.expect_same_dtype(1, 0);
  c.expect_rank(0, 2);
  c.expect_rank(1, 2);
  const Shape& sa = c.shape(0);
  const Shape& sb = c.shape(1);
  const int64_t m = a.trans_a ? sa[1] : sa[0];
  const int64_t k = a.trans_a ? sa[0] : sa[1];
  const int64_t kb = a.trans_b ? sb[1] : sb[0];
  const int64_t n = a.trans_b ? sb[0] : sb[1];
  if (k != kb)
    c.fail("inner dimensions differ: " + c.arg(0) + (a.trans_a ? " (transposed)" : "") +
               " has K=" + std::to_string(k) + " but " + c.arg(1) +
               (a.trans_b ? " (transposed)" : "") + " has K=" + std::to_string(kb),
           "check the shapes and the transA/transB attributes");
  const Shape out = {m, n};
  if (c.has(2)) {
    c.expect_same_dtype(2, 0);
    if (!broadcasts_to(c.shape(2), out))
      c.fail(c.arg(2) + " does not broadcast to the output " + bracket(out),
             "C must be unidirectionally broadcastable to [M, N]");
  }
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_matmul(const Ctx& c) {
  c.expect_inputs(2, 2);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloatsAndWideInts);
  c.expect_same_dtype(1, 0);
  if (c.rank(0) == 0 || c.rank(1) == 0)
    c.fail("MatMul operands must have rank >= 1, got " + c.arg(0) + " and " + c.arg(1),
           "use Mul for scalars");
  // numpy semantics: a 1-D A is a row [1, K], a 1-D B a column [K, 1]; the
  // added dimension is removed from the result again.
  Shape sa = c.shape(0);
  Shape sb = c.shape(1);
  const bool a_vec = sa.size() == 1;
  const bool b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  const int64_t k = sa[sa.size() - 1];
  const int64_t kb = sb[sb.size() - 2];
  if (k != kb)
    c.fail("inner dimensions differ: " + c.arg(0) + " has K=" + std::to_string(k) + " but " +
               c.arg(1) + " has K=" + std::to_string(kb),
           "the last dim of A must equal the second-to-last dim of B");
  Shape batch;
  if (!try_broadcast(Shape(sa.begin(), sa.end() - 2), Shape(sb.begin(), sb.end() - 2), batch))
    c.fail("batch dimensions of " + c.arg(0) + " and " + c.arg(1) + " do not broadcast",
           "batch dimensions must be equal or 1");
  Shape out = batch;
  if (!a_vec) out.push_back(sa[sa.size() - 2]);
  if (!b_vec) out.push_back(sb[sb.size() - 1]);
  return {TensorType{c.in(0).dtype, out}};
}

// Dense: X [..., K] times constant W [K, N] plus bias [N] on the last axis.
std::vector<TensorType> infer_dense(const Ctx& c) {
  c.expect_inputs(3, 3);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloats);
  c.expect_same_dtype(1, 0);
  c.expect_same_dtype(2, 0);
  c.expect_min_rank(0, 1, "..., K");
  c.expect_rank(1, 2);
  c.expect_rank(2, 1);
  const int64_t k = c.shape(0).back();
  const int64_t n = c.shape(1)[1];
  if (c.shape(1)[0] != k)
    c.fail(c.arg(1) + " must have " + std::to_string(k) + " rows to match " + c.arg(0),
           "Dense weights are [K, N]");
  if (c.shape(2)[0] != n)
    c.fail(c.arg(2) + " must have " + std::to_string(n) + " entries to match " + c.arg(1),
           "Dense bias is [N]");
  Shape out = c.shape(0);
  out.back() = n;
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_batch_norm(const Ctx& c) {
  c.expect_inputs(5, 5);
  c.expect_outputs(1, 5);
  // Outputs 1..4 (running/saved statistics) exist only in training mode, which
  // the importer rejects.
  for (std::size_t i = 1; i < c.node().outputs.size(); ++i)
    KILN_ASSERT(!c.node().outputs[i].valid(),
                "training-mode BatchNormalization output reached the IR: " + c.where());
  c.expect_dtype(0, kFloats);
  c.expect_min_rank(0, 2, "N, C, ...");
  const bool channels_last = c.node().attr<BatchNormAttrs>().channels_last;
  const int64_t channels = channels_last ? c.shape(0).back() : c.shape(0)[1];
  for (std::size_t i = 1; i < 5; ++i) {
    c.expect_dtype(i, kFloats);
    if (c.shape(i) != Shape{channels})
      c.fail(c.arg(i) + " must have shape [" + std::to_string(channels) + "] to match " + c.arg(0),
             "BatchNormalization takes one scale, bias, mean and variance per channel");
  }
  std::vector<TensorType> types = {c.in(0)};
  for (std::size_t i = 1; i < c.node().outputs.size(); ++i)
    types.push_back(TensorType{c.in(3).dtype, Shape{channels}});
  return types;
}

// ---- Elementwise -------------------------------------------------------------

DTypeSet unary_dtypes(OpKind k) {
  if (k == OpKind::Relu || k == OpKind::Neg) return kFloats | kSignedInts;
  if (k == OpKind::Abs || k == OpKind::Sign || k == OpKind::Shrink || k == OpKind::Erf)
    return kNumeric;
  if (k == OpKind::Not) return bit(DType::Bool);
  return kFloats;  // the other activations and unary math ops
}

std::vector<TensorType> infer_unary(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, unary_dtypes(c.node().kind));
  return same_as_input(c);
}

// IsNaN, IsInf: a bool mask of the input's shape.
std::vector<TensorType> infer_predicate(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloats);
  return {TensorType{DType::Bool, c.shape(0)}};
}

std::vector<TensorType> infer_where(const Ctx& c) {
  c.expect_inputs(3, 3);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, bit(DType::Bool));
  c.expect_same_dtype(2, 1);
  Shape out = c.shape(0);
  for (std::size_t i = 1; i < 3; ++i) {
    Shape next;
    if (!try_broadcast(out, c.shape(i), next))
      c.fail("cannot broadcast condition " + c.in(0).to_string() + ", X " + c.in(1).to_string() +
                 " and Y " + c.in(2).to_string(),
             "each dimension must be equal or 1 across the three inputs (numpy broadcasting)");
    out = std::move(next);
  }
  return {TensorType{c.in(1).dtype, out}};
}

std::vector<TensorType> infer_prelu(const Ctx& c) {
  c.expect_inputs(2, 2);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloatsAndWideInts);
  c.expect_same_dtype(1, 0);
  if (!broadcasts_to(c.shape(1), c.shape(0)))
    c.fail(c.arg(1) + " does not broadcast to " + c.arg(0),
           "the slope must be unidirectionally broadcastable to X (e.g. [C, 1, 1])");
  return same_as_input(c);
}

std::vector<TensorType> infer_clip(const Ctx& c) {
  c.expect_inputs(1, 3);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kNumeric);
  for (std::size_t i = 1; i < 3; ++i) {
    if (!c.has(i)) continue;
    c.expect_same_dtype(i, 0);
    c.expect_scalar(i);
  }
  return same_as_input(c);
}

std::vector<TensorType> infer_softmax(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloats);
  c.expect_axis("axis", c.node().attr<SoftmaxAttrs>().axis, c.rank(0), c.arg(0));
  return same_as_input(c);
}

std::vector<TensorType> infer_broadcast(const Ctx& c) {
  const OpKind k = c.node().kind;
  const bool variadic = is_variadic_elementwise(k);
  if (variadic) {
    c.expect_inputs(1, SIZE_MAX);
  } else {
    c.expect_inputs(2, 2);
  }
  c.expect_outputs(1, 1);
  for (std::size_t i = 0; i < c.num_inputs(); ++i)
    if (!c.has(i)) c.fail("input " + std::to_string(i) + " is missing", "give every input");
  DTypeSet allowed = kNumeric;
  if (k == OpKind::Sum || k == OpKind::Mean) allowed = kFloats;
  if (is_logical(k)) allowed = bit(DType::Bool);
  if (k == OpKind::Equal) allowed = kAll;
  if (k == OpKind::BitShift) allowed = kUnsignedInts;
  c.expect_dtype(0, allowed);
  Shape out = c.shape(0);
  for (std::size_t i = 1; i < c.num_inputs(); ++i) {
    // Pow's exponent may have its own numeric type (opset >= 12).
    if (k == OpKind::Pow)
      c.expect_dtype(i, kNumeric);
    else
      c.expect_same_dtype(i, 0);
    Shape next;
    if (!try_broadcast(out, c.shape(i), next))
      c.fail("cannot broadcast " + (i == 1 ? c.arg(0) : bracket(out)) + " with " + c.arg(i),
             "each dimension pair must be equal or contain a 1 (numpy broadcasting)");
    out = std::move(next);
  }
  return {TensorType{is_comparison(k) ? DType::Bool : c.in(0).dtype, out}};
}

// ---- Data movement -----------------------------------------------------------

std::vector<TensorType> infer_concat(const Ctx& c) {
  c.expect_inputs(1, SIZE_MAX);
  c.expect_outputs(1, 1);
  for (std::size_t i = 0; i < c.num_inputs(); ++i)
    if (!c.has(i)) c.fail("input " + std::to_string(i) + " is missing", "give every input");
  const int64_t axis = c.node().attr<ConcatAttrs>().axis;
  c.expect_axis("axis", axis, c.rank(0), c.arg(0));
  Shape out = c.shape(0);
  for (std::size_t i = 1; i < c.num_inputs(); ++i) {
    c.expect_same_dtype(i, 0);
    const Shape& s = c.shape(i);
    bool ok = s.size() == out.size();
    for (std::size_t d = 0; ok && d < s.size(); ++d)
      if (static_cast<int64_t>(d) != axis && s[d] != out[d]) ok = false;
    if (!ok)
      c.fail(c.arg(i) + " does not match " + c.arg(0) + " outside axis " + std::to_string(axis),
             "Concat inputs must have equal rank and equal dimensions except along the axis");
    const auto ax = static_cast<std::size_t>(axis);
    out[ax] = sat_add(out[ax], s[ax]);
  }
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_slice(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<SliceAttrs>();
  const Shape& x = c.shape(0);
  if (a.starts.size() != x.size() || a.ends.size() != x.size() || a.steps.size() != x.size())
    c.fail("starts " + join(a.starts) + ", ends " + join(a.ends) + ", steps " + join(a.steps) +
               " must have one entry per dimension of " + c.arg(0),
           "the importer should expand Slice bounds to every dimension");
  Shape out(x.size());
  for (std::size_t d = 0; d < x.size(); ++d) {
    const int64_t start = a.starts[d], end = a.ends[d], step = a.steps[d], dim = x[d];
    const std::string at = "along axis " + std::to_string(d) + " of " + c.arg(0);
    if (step == 0) c.fail("slice step is 0 " + at, "steps must be non-zero");
    // Clamped bounds lie in [-1, dim] (-1 is the exclusive end of a backward slice).
    if (start < -1 || start > dim || end < -1 || end > dim)
      c.fail("slice bounds " + std::to_string(start) + ":" + std::to_string(end) +
                 " are not clamped " + at,
             "bounds must lie in [-1, dim]");
    const int64_t diff = end - start;  // in [-(dim+1), dim+1]: cannot overflow
    // |step| saturates for INT64_MIN; any |step| >= |diff| gives one element anyway.
    const int64_t abs_step = step == kInt64Min ? kInt64Max : (step < 0 ? -step : step);
    int64_t count = 0;
    if ((step > 0 && diff > 0) || (step < 0 && diff < 0)) {
      const int64_t abs_diff = diff < 0 ? -diff : diff;
      count = abs_diff / abs_step + (abs_diff % abs_step != 0 ? 1 : 0);
    }
    if (count > 0) {
      // Every index read, start + i*step for i < count, must be inside the dim.
      const int64_t last = start + (count - 1) * step;
      if (start < 0 || start >= dim || last < 0 || last >= dim)
        c.fail("slice " + std::to_string(start) + ":" + std::to_string(end) + ":" +
                   std::to_string(step) + " " + at + " reads outside the dimension",
               "clamp the slice bounds to the dimension");
    }
    out[d] = count;
  }
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_flatten(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const int64_t axis = c.node().attr<FlattenAttrs>().axis;
  const Shape& x = c.shape(0);
  c.expect_axis("axis", axis, x.size() + 1, c.arg(0));  // axis == rank is allowed
  const auto ax = static_cast<std::size_t>(axis);
  return {TensorType{c.in(0).dtype, {sat_product(x, 0, ax), sat_product(x, ax, x.size())}}};
}

std::vector<TensorType> infer_reshape(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const Shape& target = c.node().attr<ReshapeAttrs>().shape;
  for (int64_t d : target)
    if (d < 0)
      c.fail("target shape " + bracket(target) + " has a negative dimension",
             "the importer resolves 0 and -1; the canonical shape is explicit");
  check_output_shape(c, target);
  if (shape_numel(target) != c.in(0).numel())
    c.fail("cannot reshape " + c.arg(0) + " (" + std::to_string(c.in(0).numel()) +
               " elements) to " + bracket(target) + " (" + std::to_string(shape_numel(target)) +
               " elements)",
           "the target shape must have the same number of elements");
  return {TensorType{c.in(0).dtype, target}};
}

std::vector<TensorType> infer_transpose(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const auto& perm = c.node().attr<TransposeAttrs>().perm;
  const Shape& x = c.shape(0);
  std::vector<bool> seen(x.size(), false);
  bool ok = perm.size() == x.size();
  for (std::size_t i = 0; ok && i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(x.size()) ||
        seen[static_cast<std::size_t>(perm[i])]) {
      ok = false;
    } else {
      seen[static_cast<std::size_t>(perm[i])] = true;
    }
  }
  if (!ok)
    c.fail("perm " + join(perm) + " is not a permutation of the " + std::to_string(x.size()) +
               " axes of " + c.arg(0),
           "list every axis exactly once");
  Shape out(x.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[i] = x[static_cast<std::size_t>(perm[i])];
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_squeeze(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const auto& axes = c.node().attr<AxesAttrs>().axes;
  const Shape& x = c.shape(0);
  check_axes(c, axes, x.size(), c.arg(0));
  std::vector<bool> drop(x.size(), false);
  if (axes.empty()) {
    // ONNX: no axes means every dimension of size 1 (the importer normally lists them).
    for (std::size_t d = 0; d < x.size(); ++d) drop[d] = x[d] == 1;
  }
  for (int64_t ax : axes) {
    if (x[static_cast<std::size_t>(ax)] != 1)
      c.fail("cannot squeeze axis " + std::to_string(ax) + " of " + c.arg(0) + ": its size is " +
                 std::to_string(x[static_cast<std::size_t>(ax)]) + ", not 1",
             "only dimensions of size 1 can be squeezed");
    drop[static_cast<std::size_t>(ax)] = true;
  }
  Shape out;
  for (std::size_t d = 0; d < x.size(); ++d)
    if (!drop[d]) out.push_back(x[d]);
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_unsqueeze(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const auto& axes = c.node().attr<AxesAttrs>().axes;
  const Shape& x = c.shape(0);
  const std::size_t out_rank = x.size() + axes.size();
  check_axes(c, axes, out_rank, "the output of rank " + std::to_string(out_rank));
  Shape out(out_rank, 1);
  std::size_t next = 0, a = 0;
  for (std::size_t d = 0; d < out_rank; ++d) {
    if (a < axes.size() && axes[a] == static_cast<int64_t>(d)) {
      ++a;  // a new dimension of size 1
    } else {
      out[d] = x[next++];
    }
  }
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_pad(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<PadAttrs>();
  const Shape& x = c.shape(0);
  const std::size_t r = x.size();
  if (a.pads.size() != 2 * r)
    c.fail("pads " + join(a.pads) + " must have 2 entries per dimension of " + c.arg(0),
           "give [begins..., ends...]");
  Shape out(r);
  for (std::size_t d = 0; d < r; ++d) {
    const int64_t begin = a.pads[d], end = a.pads[r + d], dim = x[d];
    const std::string at = "along axis " + std::to_string(d) + " of " + c.arg(0);
    // A negative pad crops; it may not crop more than the dimension holds.
    const int64_t total = sat_add(dim, sat_add(begin, end));
    if ((begin < 0 && begin < -dim) || (end < 0 && end < -dim) || total < 0)
      c.fail("pads " + std::to_string(begin) + "," + std::to_string(end) +
                 " crop more than the whole dimension " + at,
             "negative pads may remove at most the dimension's size");
    if (a.mode == PadMode::Edge && dim == 0 && (begin > 0 || end > 0))
      c.fail("edge padding of an empty dimension " + at, "there is no edge value to repeat");
    if (a.mode == PadMode::Reflect && (begin >= dim || end >= dim) && (begin > 0 || end > 0))
      c.unsupported("reflect pads " + std::to_string(begin) + "," + std::to_string(end) +
                        " are not smaller than the dimension " + at,
                    "reflect padding must be smaller than the padded dimension");
    out[d] = total;
  }
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_gather(const Ctx& c) {
  c.expect_inputs(2, 2);
  c.expect_outputs(1, 1);
  c.expect_dtype(1, kIndexTypes);
  const int64_t axis = c.node().attr<GatherAttrs>().axis;
  const Shape& data = c.shape(0);
  c.expect_axis("axis", axis, data.size(), c.arg(0));
  const auto ax = static_cast<std::size_t>(axis);
  // Constant indices are checked now; the kernel checks runtime ones.
  if (const Tensor* idx = c.constant(1)) {
    for (int64_t i = 0; i < idx->numel(); ++i) {
      const int64_t v = idx->as_int64(i);
      if (v < -data[ax] || v >= data[ax])
        c.fail("index " + std::to_string(v) + " is out of range for axis " + std::to_string(axis) +
                   " of " + c.arg(0),
               "indices must lie in [-dim, dim-1]");
    }
  }
  Shape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), c.shape(1).begin(), c.shape(1).end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_cast(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  return {TensorType{c.node().attr<CastAttrs>().to, c.shape(0)}};
}

// QuantizeLinear / DequantizeLinear: x's shape; scale (and zero point) one
// value, or with per_axis one per index of the axis.
std::vector<TensorType> infer_quant(const Ctx& c) {
  c.expect_inputs(2, 3);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<QuantAttrs>();
  const bool quantize = c.node().kind == OpKind::QuantizeLinear;
  constexpr DTypeSet kQuantized = bit(DType::Int8) | bit(DType::UInt8);
  c.expect_dtype(0, quantize ? bit(DType::Float32) : kQuantized | bit(DType::Int32));
  c.expect_dtype(1, bit(DType::Float32));
  const int64_t per = a.per_axis ? c.shape(0).at(static_cast<std::size_t>(a.axis)) : 1;
  for (std::size_t i = 1; i < 3; ++i) {
    if (!c.has(i)) continue;
    if (shape_numel(c.shape(i)) != per || c.rank(i) > 1)
      c.fail(c.arg(i) + " must hold " + std::to_string(per) + " value(s)" +
                 (a.per_axis ? " along axis " + std::to_string(a.axis) + " of " + c.arg(0) : ""),
             "give one scale (and zero point) per tensor or per index of the axis");
  }
  if (c.has(2)) {
    c.expect_dtype(2, kQuantized | (quantize ? 0 : bit(DType::Int32)));
    if (!quantize) c.expect_same_dtype(2, 0);
  }
  return {TensorType{quantize ? a.to : DType::Float32, c.shape(0)}};
}

// QONNX Quant, BipolarQuant, Trunc: float32 X's type; the other inputs are
// float32 parameters that broadcast to X (one value, or e.g. one per channel).
std::vector<TensorType> infer_qonnx_quant(const Ctx& c) {
  const OpKind k = c.node().kind;
  std::size_t inputs = k == OpKind::BipolarQuant ? 2 : 3;
  const auto check_bits = [&](const char* name, int64_t bits) {
    if (bits < 1) c.fail(std::string(name) + " " + std::to_string(bits) + " must be at least 1");
    if (bits > kMaxQuantBitwidth)
      c.unsupported(std::string(name) + " " + std::to_string(bits) + " is above kiln's limit of " +
                        std::to_string(kMaxQuantBitwidth),
                    "quantize to at most " + std::to_string(kMaxQuantBitwidth) + " bits");
  };
  if (k == OpKind::Quant) check_bits("bitwidth", c.node().attr<IntQuantAttrs>().bitwidth);
  if (k == OpKind::Trunc) {
    const auto& a = c.node().attr<TruncAttrs>();
    if (a.version != 1 && a.version != 2)
      c.fail("Trunc version " + std::to_string(a.version) + " is not 1 or 2");
    check_bits("in_bitwidth", a.in_bitwidth);
    check_bits("out_bitwidth", a.out_bitwidth);
    if (a.version == 2) inputs = 4;  // out_scale
  }
  c.expect_inputs(inputs, inputs);
  c.expect_outputs(1, 1);
  for (std::size_t i = 0; i < inputs; ++i) {
    c.expect_dtype(i, bit(DType::Float32));
    if (i > 0 && !broadcasts_to(c.shape(i), c.shape(0)))
      c.fail(c.arg(i) + " does not broadcast to " + c.arg(0),
             "give one value, or a tensor of X's rank with X's sizes or 1 (e.g. per channel)");
  }
  return same_as_input(c);
}

std::vector<TensorType> infer_shape_op(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<ShapeAttrs>();
  const auto r = static_cast<int64_t>(c.rank(0));
  if (a.start < 0 || a.start > r || a.end < 0 || a.end > r)
    c.fail("start " + std::to_string(a.start) + " / end " + std::to_string(a.end) +
               " are not clamped to the rank of " + c.arg(0),
           "the importer should clamp them to [0, rank]");
  return {TensorType{DType::Int64, {std::max<int64_t>(0, a.end - a.start)}}};
}

std::vector<TensorType> infer_reduce(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<ReduceAttrs>();
  const OpKind k = c.node().kind;
  c.expect_dtype(0,
                 k == OpKind::ReduceMax || k == OpKind::ReduceMin ? kNumeric : kFloatsAndWideInts);
  const Shape& x = c.shape(0);
  if (a.axes.empty() && !x.empty())
    c.fail("no axes to reduce", "the importer lists every axis for a full reduction");
  check_axes(c, a.axes, x.size(), c.arg(0));
  Shape out;
  std::size_t next_axis = 0;
  for (std::size_t d = 0; d < x.size(); ++d) {
    const bool reduced = next_axis < a.axes.size() && a.axes[next_axis] == static_cast<int64_t>(d);
    if (reduced) ++next_axis;
    if (!reduced) {
      out.push_back(x[d]);
    } else if (a.keepdims) {
      out.push_back(1);
    }
  }
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_arg_reduce(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kNumeric);
  const auto& a = c.node().attr<ArgAttrs>();
  Shape x = c.shape(0);
  c.expect_axis("axis", a.axis, x.size(), c.arg(0));
  const auto ax = static_cast<std::size_t>(a.axis);
  if (x[ax] == 0)
    c.fail("cannot take the arg-extreme of an empty axis " + std::to_string(a.axis) + " of " +
               c.arg(0),
           "the reduced axis needs at least one element");
  if (a.keepdims) {
    x[ax] = 1;
  } else {
    x.erase(x.begin() + a.axis);
  }
  return {TensorType{DType::Int64, x}};
}

// ---- Shape-ish ops -------------------------------------------------------------

std::vector<TensorType> infer_split(const Ctx& c) {
  c.expect_inputs(1, 1);
  const auto& a = c.node().attr<SplitAttrs>();
  c.expect_outputs(1, SIZE_MAX);
  const Shape& x = c.shape(0);
  c.expect_axis("axis", a.axis, x.size(), c.arg(0));
  const auto ax = static_cast<std::size_t>(a.axis);
  int64_t total = 0;
  for (int64_t v : a.split) total = v < 0 ? -1 : sat_add(total, v);
  if (a.split.size() != c.node().outputs.size() || total != x[ax])
    c.fail("split sizes " + join(a.split) + " do not divide axis " + std::to_string(a.axis) +
               " of " + c.arg(0) + " into " + std::to_string(c.node().outputs.size()) + " outputs",
           "give one non-negative size per output, summing to the axis size");
  std::vector<TensorType> types;
  for (int64_t v : a.split) {
    Shape s = x;
    s[ax] = v;
    types.push_back(TensorType{c.in(0).dtype, s});
  }
  return types;
}

std::vector<TensorType> infer_expand(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const Shape& target = c.node().attr<ExpandAttrs>().shape;
  if (!broadcasts_to(c.shape(0), target))
    c.fail(c.arg(0) + " does not broadcast to the expanded shape " + bracket(target),
           "the importer resolves the target; input dims must be 1 or equal");
  return {TensorType{c.in(0).dtype, target}};
}

std::vector<TensorType> infer_tile(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const auto& r = c.node().attr<TileAttrs>().repeats;
  const Shape& x = c.shape(0);
  if (r.size() != x.size())
    c.fail("repeats " + join(r) + " must have one entry per dimension of " + c.arg(0),
           "give one repeat count per dimension");
  Shape out(x.size());
  for (std::size_t d = 0; d < x.size(); ++d) {
    if (r[d] < 0) c.fail("repeats " + join(r) + " has a negative count", "counts must be >= 0");
    out[d] = sat_mul(x[d], r[d]);
  }
  return {TensorType{c.in(0).dtype, out}};
}

std::vector<TensorType> infer_constant_of_shape(const Ctx& c) {
  c.expect_inputs(0, 0);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<ConstantOfShapeAttrs>();
  for (int64_t d : a.shape)
    if (d < 0) c.fail("shape " + bracket(a.shape) + " has a negative dimension", "fix the shape");
  return {TensorType{a.dtype, a.shape}};
}

// Number of elements of a Range; InvalidModel for steps that never end.
int64_t range_count(const Ctx& c, const RangeAttrs& a) {
  if (a.delta == 0.0 || !std::isfinite(a.start) || !std::isfinite(a.limit) ||
      !std::isfinite(a.delta))
    c.fail("start " + std::to_string(a.start) + ", limit " + std::to_string(a.limit) + ", delta " +
               std::to_string(a.delta) + " do not describe a finite range",
           "delta must be non-zero and all three finite");
  const double n = std::ceil((a.limit - a.start) / a.delta);
  if (n > static_cast<double>(kMaxTensorElements))
    c.fail("the range has " + std::to_string(n) + " elements", "use a larger delta");
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

std::vector<TensorType> infer_range(const Ctx& c) {
  c.expect_inputs(0, 0);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<RangeAttrs>();
  return {TensorType{a.dtype, {range_count(c, a)}}};
}

std::vector<TensorType> infer_size(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  return {TensorType{DType::Int64, {}}};
}

std::vector<TensorType> infer_eye_like(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_rank(0, 2);
  return {TensorType{c.node().attr<EyeLikeAttrs>().dtype, c.shape(0)}};
}

std::vector<TensorType> infer_trilu(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_min_rank(0, 2, "..., rows, columns");
  return same_as_input(c);
}

std::vector<TensorType> infer_block(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_rank(0, 4);
  const int64_t b = c.node().attr<BlockAttrs>().blocksize;
  if (b < 1) c.fail("blocksize " + std::to_string(b) + " must be >= 1", "fix the blocksize");
  const Shape& x = c.shape(0);
  const int64_t bb = sat_mul(b, b);
  if (c.node().kind == OpKind::DepthToSpace) {
    if (x[1] % bb != 0)
      c.fail(c.arg(0) + " has " + std::to_string(x[1]) +
                 " channels, not divisible by blocksize^2 " + std::to_string(bb),
             "the channels must be a multiple of blocksize * blocksize");
    return {TensorType{c.in(0).dtype, {x[0], x[1] / bb, sat_mul(x[2], b), sat_mul(x[3], b)}}};
  }
  if (x[2] % b != 0 || x[3] % b != 0)
    c.fail(
        "the spatial size of " + c.arg(0) + " is not divisible by blocksize " + std::to_string(b),
        "height and width must be multiples of the blocksize");
  return {TensorType{c.in(0).dtype, {x[0], sat_mul(x[1], bb), x[2] / b, x[3] / b}}};
}

std::vector<TensorType> infer_gather_elements(const Ctx& c) {
  c.expect_inputs(2, 2);
  c.expect_outputs(1, 1);
  c.expect_dtype(1, kIndexTypes);
  const int64_t axis = c.node().attr<GatherAttrs>().axis;
  c.expect_axis("axis", axis, c.rank(0), c.arg(0));
  if (c.rank(1) != c.rank(0))
    c.fail(c.arg(1) + " must have the rank of " + c.arg(0), "indices and data have equal rank");
  if (const Tensor* idx = c.constant(1)) {
    const int64_t dim = c.shape(0)[static_cast<std::size_t>(axis)];
    for (int64_t i = 0; i < idx->numel(); ++i)
      if (idx->as_int64(i) < -dim || idx->as_int64(i) >= dim)
        c.fail("index " + std::to_string(idx->as_int64(i)) + " is out of range for axis " +
                   std::to_string(axis) + " of " + c.arg(0),
               "indices must lie in [-dim, dim-1]");
  }
  return {TensorType{c.in(0).dtype, c.shape(1)}};
}

std::vector<TensorType> infer_cum_sum(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloatsAndWideInts);
  c.expect_axis("axis", c.node().attr<CumSumAttrs>().axis, c.rank(0), c.arg(0));
  return same_as_input(c);
}

std::vector<TensorType> infer_one_hot(const Ctx& c) {
  c.expect_inputs(2, 2);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kNumeric);
  const auto& a = c.node().attr<OneHotAttrs>();
  if (c.in(1).numel() != 2)
    c.fail(c.arg(1) + " must hold two values [off, on]", "give values as a 2-element tensor");
  c.expect_axis("axis", a.axis, c.rank(0) + 1,
                "the output of rank " + std::to_string(c.rank(0) + 1));
  if (a.depth < 1) c.fail("depth " + std::to_string(a.depth) + " must be >= 1", "fix depth");
  Shape out = c.shape(0);
  out.insert(out.begin() + a.axis, a.depth);
  return {TensorType{c.in(1).dtype, out}};
}

// ---- Network layers --------------------------------------------------------------

std::vector<TensorType> infer_layer_norm(const Ctx& c) {
  c.expect_inputs(2, 3);
  c.expect_outputs(1, 3);
  c.expect_dtype(0, kFloats);
  const int64_t axis = c.node().attr<LayerNormAttrs>().axis;
  const Shape& x = c.shape(0);
  c.expect_axis("axis", axis, x.size(), c.arg(0));
  const Shape normalized(x.begin() + axis, x.end());
  for (std::size_t i = 1; i < 3; ++i) {
    if (!c.has(i)) continue;
    c.expect_same_dtype(i, 0);
    if (!broadcasts_to(c.shape(i), normalized))
      c.fail(c.arg(i) + " does not broadcast to the normalized shape " + bracket(normalized),
             "Scale and B must match X's dimensions from axis on");
  }
  std::vector<TensorType> types = {c.in(0)};
  Shape stats = x;
  for (std::size_t d = static_cast<std::size_t>(axis); d < stats.size(); ++d) stats[d] = 1;
  for (std::size_t i = 1; i < c.node().outputs.size(); ++i)
    types.push_back(TensorType{DType::Float32, stats});
  return types;
}

std::vector<TensorType> infer_instance_norm(const Ctx& c) {
  c.expect_inputs(3, 3);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloats);
  c.expect_min_rank(0, 3, "N, C, spatial...");
  const int64_t channels = c.shape(0)[1];
  for (std::size_t i = 1; i < 3; ++i) {
    c.expect_same_dtype(i, 0);
    if (c.shape(i) != Shape{channels})
      c.fail(c.arg(i) + " must have shape [" + std::to_string(channels) + "] to match " + c.arg(0),
             "InstanceNormalization takes one scale and bias per channel");
  }
  return same_as_input(c);
}

std::vector<TensorType> infer_lrn(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloats);
  c.expect_min_rank(0, 3, "N, C, spatial...");
  if (c.node().attr<LrnAttrs>().size < 1) c.fail("size must be >= 1", "fix the size attribute");
  return same_as_input(c);
}

std::vector<TensorType> infer_conv_transpose(const Ctx& c) {
  c.expect_inputs(2, 3);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<ConvTransposeAttrs>();
  c.expect_dtype(0, kFloats);
  c.expect_same_dtype(1, 0);
  c.expect_min_rank(0, 3, "N, C, spatial...");
  if (c.rank(1) != c.rank(0))
    c.fail(c.arg(1) + " must have the rank of " + c.arg(0) + " ([C, M/group, kernel...])",
           "fix the weight shape");
  const Shape x = input_nc(c, a.channels_last);
  const Shape& w = c.shape(1);
  const std::size_t nsp = x.size() - 2;
  auto check_len = [&](const char* name, const std::vector<int64_t>& v, std::size_t want) {
    if (v.size() != want)
      c.fail(std::string(name) + " has " + std::to_string(v.size()) + " entries (" + join(v) +
                 ") but " + c.arg(0) + " has " + std::to_string(nsp) + " spatial dimensions",
             "give one entry per spatial dimension (pads: begins then ends)");
  };
  check_len("kernel_shape", a.kernel_shape, nsp);
  check_len("strides", a.strides, nsp);
  check_len("dilations", a.dilations, nsp);
  check_len("pads", a.pads, 2 * nsp);
  check_len("output_padding", a.output_padding, nsp);
  if (a.group < 1)
    c.fail("group " + std::to_string(a.group) + " is not positive", "use group >= 1");
  if (x[1] != w[0])
    c.fail(c.arg(0) + " has " + std::to_string(x[1]) + " channels but " + c.arg(1) + " expects " +
               std::to_string(w[0]),
           "the weight must be [C, M/group, kernel...]");
  if (x[1] % a.group != 0)
    c.fail(c.arg(0) + " has " + std::to_string(x[1]) + " channels, not divisible by group " +
               std::to_string(a.group),
           "fix the group attribute or the input channels");
  const int64_t m = sat_mul(w[1], a.group);
  Shape out = {x[0], m};
  for (std::size_t i = 0; i < nsp; ++i) {
    if (a.kernel_shape[i] != w[2 + i])
      c.fail("kernel_shape " + join(a.kernel_shape) + " does not match " + c.arg(1),
             "kernel_shape must equal the weight's spatial dimensions");
    if (a.strides[i] < 1 || a.dilations[i] < 1 || a.output_padding[i] < 0 ||
        a.pads[i] < -kMaxTensorElements || a.pads[nsp + i] < -kMaxTensorElements ||
        a.pads[i] > kMaxTensorElements || a.pads[nsp + i] > kMaxTensorElements)
      c.fail("strides " + join(a.strides) + ", dilations " + join(a.dilations) +
                 ", output_padding " + join(a.output_padding) + ", pads " + join(a.pads) +
                 " are out of range",
             "strides and dilations must be >= 1, output_padding >= 0");
    if (x[2 + i] < 1 || a.kernel_shape[i] < 1)
      c.fail(c.arg(0) + " has an empty spatial axis " + std::to_string(i),
             "ConvTranspose needs at least one input element per spatial axis");
    const int64_t full = sat_add(sat_add(sat_mul(a.strides[i], x[2 + i] - 1), a.output_padding[i]),
                                 sat_add(sat_mul(a.kernel_shape[i] - 1, a.dilations[i]), 1));
    const int64_t o = sat_add(sat_add(full, -a.pads[i]), -a.pads[nsp + i]);
    if (o < 1)
      c.fail("pads " + join(a.pads) + " leave no output along spatial axis " + std::to_string(i) +
                 " of " + c.arg(0),
             "use smaller pads or output_shape");
    out.push_back(o);
  }
  if (c.has(2)) {
    c.expect_same_dtype(2, 0);
    if (c.shape(2) != Shape{m})
      c.fail(
          c.arg(2) + " must have shape [" + std::to_string(m) + "] (one bias per output channel)",
          "fix the bias shape");
  }
  return {TensorType{c.in(0).dtype, output_layout(out, a.channels_last)}};
}

std::vector<TensorType> infer_resize(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  const auto& a = c.node().attr<ResizeAttrs>();
  const std::size_t r = c.rank(0);
  if (a.sizes.size() != r || a.scales.size() != r ||
      (a.coord == ResizeCoord::TfCropAndResize && a.roi.size() != 2 * r))
    c.fail(
        "sizes " + join(a.sizes) + " and scales must have one entry per dimension of " + c.arg(0),
        "the importer resolves scales and sizes to the output shape");
  if (a.mode != ResizeMode::Nearest) c.expect_dtype(0, kFloats);
  for (std::size_t d = 0; d < r; ++d)
    if (a.sizes[d] < 0 || !(a.scales[d] > 0.0))
      c.fail("sizes " + join(a.sizes) + " must be >= 0 and scales positive",
             "fix the scales or sizes input");
  return {TensorType{c.in(0).dtype, a.sizes}};
}

std::vector<TensorType> infer_max_unpool(const Ctx& c) {
  c.expect_inputs(2, 2);
  c.expect_outputs(1, 1);
  c.expect_dtype(0, kFloats);
  c.expect_dtype(1, bit(DType::Int64));
  c.expect_min_rank(0, 3, "N, C, spatial...");
  if (c.shape(1) != c.shape(0))
    c.fail(c.arg(1) + " must have the shape of " + c.arg(0), "I is MaxPool's Indices output");
  const auto& a = c.node().attr<MaxUnpoolAttrs>();
  const Shape& out = a.output_shape;
  if (out.size() != c.rank(0) || out[0] != c.shape(0)[0] || out[1] != c.shape(0)[1])
    c.fail("output_shape " + bracket(out) + " must keep the batch and channels of " + c.arg(0),
           "give [N, C, spatial...]");
  for (int64_t d : out)
    if (d < 0) c.fail("output_shape " + bracket(out) + " has a negative dimension", "fix it");
  return {TensorType{c.in(0).dtype, out}};
}

// RNN, GRU, LSTM (G gate blocks of hidden_size rows, D directions):
// X [seq, batch, input], W [D, G*hidden, input], R [D, G*hidden, hidden],
// B [D, 2*G*hidden], sequence_lens [batch], initial_h and initial_c
// [D, batch, hidden], P [D, 3*hidden]; outputs Y [seq, D, batch, hidden] and
// Y_h, Y_c like initial_h. batch_first swaps the first two axes of X, Y and
// the states.
std::vector<TensorType> infer_recurrent(const Ctx& c) {
  const OpKind kind = c.node().kind;
  const bool lstm = kind == OpKind::LSTM;
  c.expect_inputs(3, lstm ? 8 : 6);
  c.expect_outputs(1, lstm ? 3 : 2);
  const auto& a = c.node().attr<RecurrentAttrs>();
  const int64_t dirs = rnn_num_directions(a), gates = rnn_gate_count(kind), h = a.hidden_size;
  if (h < 1)
    c.fail("hidden_size " + std::to_string(h) + " must be >= 1", "give the layer's hidden_size");
  const auto want_acts = static_cast<std::size_t>(dirs * rnn_activation_count(kind));
  if (a.activations.size() != want_acts)
    c.fail(std::to_string(a.activations.size()) + " activations, expected " +
               std::to_string(want_acts) + " (" + std::to_string(rnn_activation_count(kind)) +
               " per direction)",
           "list the activations of every direction");
  if (!(a.clip >= 0.0f)) c.fail("clip must be > 0, or 0 for no clipping");
  c.expect_dtype(0, kFloats);
  c.expect_rank(0, 3);
  const Shape& x = c.shape(0);
  const int64_t seq = x[a.batch_first ? 1 : 0], batch = x[a.batch_first ? 0 : 1], input = x[2];
  auto expect_shape = [&](std::size_t i, const Shape& want, const char* layout) {
    if (!c.has(i)) return;
    if (i != 4) c.expect_same_dtype(i, 0);
    if (c.shape(i) != want)
      c.fail(c.arg(i) + " must have shape " + bracket(want) + " (" + layout + ") for X " +
                 c.in(0).to_string() + " and hidden_size " + std::to_string(h),
             "fix the tensor's shape or hidden_size in the model");
  };
  expect_shape(1, {dirs, gates * h, input}, "num_directions, gates x hidden_size, input_size");
  expect_shape(2, {dirs, gates * h, h}, "num_directions, gates x hidden_size, hidden_size");
  expect_shape(3, {dirs, 2 * gates * h}, "num_directions, 2 x gates x hidden_size");
  if (c.has(4)) c.expect_dtype(4, kIndexTypes);
  expect_shape(4, {batch}, "batch_size");
  const Shape state = a.batch_first ? Shape{batch, dirs, h} : Shape{dirs, batch, h};
  const char* state_layout = a.batch_first ? "batch_size, num_directions, hidden_size"
                                           : "num_directions, batch_size, hidden_size";
  expect_shape(5, state, state_layout);
  if (lstm) {
    expect_shape(6, state, state_layout);
    expect_shape(7, {dirs, 3 * h}, "num_directions, 3 x hidden_size");
  }
  const DType t = c.in(0).dtype;
  std::vector<TensorType> types = {
      TensorType{t, a.batch_first ? Shape{batch, seq, dirs, h} : Shape{seq, dirs, batch, h}}};
  while (types.size() < c.node().outputs.size()) types.push_back(TensorType{t, state});
  return types;
}

std::vector<TensorType> infer_identity(const Ctx& c) {
  c.expect_inputs(1, 1);
  c.expect_outputs(1, 1);
  return same_as_input(c);
}

std::vector<TensorType> infer_dropout(const Ctx& c) {
  c.expect_inputs(1, 3);
  c.expect_outputs(1, 2);
  c.expect_dtype(0, kFloats);
  if (c.has(1)) {
    c.expect_dtype(1, kFloats);
    c.expect_scalar(1);
  }
  if (c.has(2)) {
    c.expect_dtype(2, bit(DType::Bool));
    c.expect_scalar(2);
    if (const Tensor* t = c.constant(2); t != nullptr && t->as_int64(0) != 0)
      c.unsupported("training_mode is true", "kiln runs inference only; export in eval mode");
  }
  std::vector<TensorType> types = {c.in(0)};
  if (c.node().outputs.size() == 2) types.push_back(TensorType{DType::Bool, c.shape(0)});
  return types;
}

// Shape inference of every op kind; the build fails while a kind has no row.
using InferFn = std::vector<TensorType> (*)(const Ctx&);
constexpr auto kInfer = make_enum_table<OpKind, kNumOpKinds, InferFn>({
    {{OpKind::Conv}, infer_conv},
    {{OpKind::MaxPool, OpKind::AveragePool}, infer_pool},
    {{OpKind::GlobalAveragePool, OpKind::GlobalMaxPool}, infer_global_pool},
    {{OpKind::Gemm}, infer_gemm},
    {{OpKind::MatMul}, infer_matmul},
    {{OpKind::Dense}, infer_dense},
    {{OpKind::BatchNormalization}, infer_batch_norm},
    {{OpKind::Relu,       OpKind::LeakyRelu, OpKind::Elu,
      OpKind::Selu,       OpKind::Sigmoid,   OpKind::HardSigmoid,
      OpKind::Tanh,       OpKind::Exp,       OpKind::Log,
      OpKind::Sqrt,       OpKind::Abs,       OpKind::Neg,
      OpKind::Reciprocal, OpKind::Floor,     OpKind::Ceil,
      OpKind::Round,      OpKind::Sign,      OpKind::Erf,
      OpKind::Softplus,   OpKind::Softsign,  OpKind::Sin,
      OpKind::Cos,        OpKind::Tan,       OpKind::Asin,
      OpKind::Acos,       OpKind::Atan,      OpKind::Sinh,
      OpKind::Cosh,       OpKind::Asinh,     OpKind::Acosh,
      OpKind::Atanh,      OpKind::Not,       OpKind::ThresholdedRelu,
      OpKind::Celu,       OpKind::HardSwish, OpKind::Shrink},
     infer_unary},
    {{OpKind::PRelu}, infer_prelu},
    {{OpKind::Clip}, infer_clip},
    {{OpKind::Softmax, OpKind::LogSoftmax, OpKind::Hardmax}, infer_softmax},
    {{OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div, OpKind::Max, OpKind::Min, OpKind::Sum,
      OpKind::Mean, OpKind::Pow, OpKind::Mod, OpKind::BitShift, OpKind::And, OpKind::Or,
      OpKind::Xor, OpKind::Equal, OpKind::Less, OpKind::LessOrEqual, OpKind::Greater,
      OpKind::GreaterOrEqual},
     infer_broadcast},
    {{OpKind::IsNaN, OpKind::IsInf}, infer_predicate},
    {{OpKind::Where}, infer_where},
    {{OpKind::Concat}, infer_concat},
    {{OpKind::Slice}, infer_slice},
    {{OpKind::Flatten}, infer_flatten},
    {{OpKind::Reshape}, infer_reshape},
    {{OpKind::Transpose}, infer_transpose},
    {{OpKind::Squeeze}, infer_squeeze},
    {{OpKind::Unsqueeze}, infer_unsqueeze},
    {{OpKind::Pad}, infer_pad},
    {{OpKind::Gather}, infer_gather},
    {{OpKind::Cast}, infer_cast},
    {{OpKind::QuantizeLinear, OpKind::DequantizeLinear}, infer_quant},
    {{OpKind::Quant, OpKind::BipolarQuant, OpKind::Trunc}, infer_qonnx_quant},
    {{OpKind::Shape}, infer_shape_op},
    {{OpKind::ReduceMean, OpKind::ReduceSum, OpKind::ReduceMax, OpKind::ReduceMin,
      OpKind::ReduceProd, OpKind::ReduceL1, OpKind::ReduceL2, OpKind::ReduceSumSquare,
      OpKind::ReduceLogSum, OpKind::ReduceLogSumExp},
     infer_reduce},
    {{OpKind::ArgMax, OpKind::ArgMin}, infer_arg_reduce},
    {{OpKind::Split}, infer_split},
    {{OpKind::Expand}, infer_expand},
    {{OpKind::Tile}, infer_tile},
    {{OpKind::ConstantOfShape}, infer_constant_of_shape},
    {{OpKind::Range}, infer_range},
    {{OpKind::Size}, infer_size},
    {{OpKind::EyeLike}, infer_eye_like},
    {{OpKind::Trilu}, infer_trilu},
    {{OpKind::DepthToSpace, OpKind::SpaceToDepth}, infer_block},
    {{OpKind::GatherElements}, infer_gather_elements},
    {{OpKind::CumSum}, infer_cum_sum},
    {{OpKind::OneHot}, infer_one_hot},
    {{OpKind::LayerNormalization}, infer_layer_norm},
    {{OpKind::InstanceNormalization}, infer_instance_norm},
    {{OpKind::LRN}, infer_lrn},
    {{OpKind::ConvTranspose}, infer_conv_transpose},
    {{OpKind::Resize}, infer_resize},
    {{OpKind::MaxUnpool}, infer_max_unpool},
    {{OpKind::RNN, OpKind::GRU, OpKind::LSTM}, infer_recurrent},
    {{OpKind::Identity}, infer_identity},
    {{OpKind::Dropout}, infer_dropout},
});

}  // namespace

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& where) {
  Shape out;
  if (!try_broadcast(a, b, out))
    throw_error(ErrorKind::InvalidModel, where,
                "cannot broadcast " + bracket(a) + " with " + bracket(b),
                "each dimension pair must be equal or contain a 1 (numpy broadcasting)");
  return out;
}

int64_t window_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_begin,
                           int64_t pad_end, int64_t dilation, bool ceil_mode) {
  KILN_ASSERT(
      in >= 0 && kernel >= 1 && stride >= 1 && dilation >= 1 && pad_begin >= 0 && pad_end >= 0,
      "window_output_size: attributes not validated");
  const int64_t effective_kernel = sat_add(sat_mul(dilation, kernel - 1), 1);
  const int64_t padded = sat_add(in, sat_add(pad_begin, pad_end));
  if (effective_kernel > padded) return 0;  // not even one window fits
  const int64_t span = padded - effective_kernel;
  if (!ceil_mode) return span / stride + 1;
  int64_t out = span / stride + (span % stride != 0 ? 1 : 0) + 1;
  // ONNX/PyTorch drop a last window that would start inside the end padding.
  if (sat_mul(out - 1, stride) >= sat_add(in, pad_begin)) --out;
  return out;
}

std::vector<TensorType> infer_node_types(const Graph& graph, const Node& node) {
  Ctx c(graph, node);
  for (std::size_t i = 0; i < node.inputs.size(); ++i)
    if (c.has(i)) check_shape_sane(c.shape(i), c.where());
  std::vector<TensorType> types = kInfer[node.kind](c);
  KILN_ASSERT(types.size() == node.outputs.size(),
              "shape inference returned the wrong number of outputs for " + c.where());
  for (const TensorType& t : types) check_output_shape(c, t.shape);
  return types;
}

void check_value_types(const Graph& graph, std::string_view after_pass) {
  for (const Node& node : graph.nodes()) {
    const std::vector<TensorType> types = infer_node_types(graph, node);
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      if (!node.outputs[i].valid()) continue;
      const TensorType& stored = graph.value(node.outputs[i]).type;
      if (stored != types[i])
        throw_error(ErrorKind::Internal, node.describe(),
                    "after pass " + std::string(after_pass) + " output " + std::to_string(i) +
                        " is stored as " + stored.to_string() + " but infers as " +
                        types[i].to_string());
    }
  }
}

void IrTraits<Graph>::verify(const Graph& graph, std::string_view after_pass) {
  graph.verify();
  check_value_types(graph, after_pass);
}

void infer_shapes(Graph& graph) {
  for (const Node& node : graph.nodes()) {
    std::vector<TensorType> types = infer_node_types(graph, node);
    for (std::size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i].valid()) graph.value(node.outputs[i]).type = std::move(types[i]);
  }
}

}  // namespace kiln

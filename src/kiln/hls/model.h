// The HLS layer model: what kiln's dataflow project, its bit-exact emulator and
// its estimator are built from.
//
// hls/build_model.h builds it from a graph that has been through the HLS graph
// pass pipeline (passes/pipeline.h: BN folded, dense formed, activations
// fused, channels last): structural lowering into layers (lower_graph.h),
// then layer passes (layer_passes/) that resolve the configuration, quantize
// the constants and copy tensors with several readers, with the model
// verified after each.
//
// Tensors drop the batch dimension (batch is 1) and are channels-last:
// [H, W, C] for 2-D feature maps, [L, C] for 1-D, [N] for vectors. In io_stream
// a feature map streams one pixel (all C channels) per element, row by row.
//
// KILN_LAYER_KINDS is the one list of layer kinds: each row gives a kind its
// parameter struct and the facts every module reads (which configuration keys
// apply, what arithmetic it has); layer_kinds.h derives the rest.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "kiln/hls/rtl_settings.h"
#include "kiln/numeric/fixed.h"
#include "kiln/support/enum_table.h"

namespace kiln::hls {

using numeric::FixedType;

enum class IOType : uint8_t { Parallel, Stream };  // io_parallel, io_stream
enum class Strategy : uint8_t { Latency, Resource };
enum class ConvImpl : uint8_t { LineBuffer, Encoded };
enum class Backend : uint8_t { Vitis, Bambu };
// What a Vitis project holds: the layer library's dataflow of layer
// functions (the default), or the loop IR's nests with the directives as
// pragmas (docs/cflow.md).
enum class Style : uint8_t { Layers, Loops };

// Activations a layer can apply (standalone Activation layers or fused into
// Dense/Conv). Sigmoid, Tanh, Exp, Elu and Selu read lookup tables.
enum class ActKind : uint8_t {
  None,
  Relu,
  LeakyRelu,    // alpha
  Elu,          // alpha; exp via table
  Selu,         // alpha, gamma; exp via table
  PRelu,        // per-channel slope tensor (Layer::weights)
  Clip,         // lo, hi
  Sigmoid,      // table
  Tanh,         // table
  Exp,          // table
  HardSigmoid,  // clamp(alpha * x + beta, 0, 1)
  HardSwish,    // x * clamp(alpha * x + beta, 0, 1); ONNX fixes alpha 1/6, beta 1/2
};

struct Activation {
  ActKind kind = ActKind::None;
  double alpha = 0.0;  // LeakyRelu/Elu/Selu/HardSigmoid/HardSwish alpha; Clip lo
  double beta = 0.0;   // Selu gamma; Clip hi; HardSigmoid/HardSwish beta
  bool operator==(const Activation&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("kind", s.kind), f("alpha", s.alpha), f("beta", s.beta);
  }
};

// ---- per-kind parameters -------------------------------------------------
//
// Each struct lists its fields once in visit(); kiln_model.json and the
// layer model text read and write them through it.

// y[n_out] = act(x[n_in] . W + b); W stored [n_in][n_out] row-major.
struct DenseParams {
  int64_t n_in = 0;
  int64_t n_out = 0;
  Activation act;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("n_in", s.n_in), f("n_out", s.n_out), f("act", s.act);
  }
};

// 1-D (in_h = out_h = kernel_h = 1, stride_h = 1, pads 0 on H) or 2-D
// convolution, channels-last. Weights stored [kh][kw][c_in / groups][c_out].
// Depthwise: groups == c_in == c_out.
struct ConvParams {
  int dims = 2;  // 1 or 2
  int64_t in_h = 1, in_w = 0, c_in = 0;
  int64_t out_h = 1, out_w = 0, c_out = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int64_t groups = 1;
  Activation act;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("dims", s.dims), f("in_h", s.in_h), f("in_w", s.in_w), f("c_in", s.c_in);
    f("out_h", s.out_h), f("out_w", s.out_w), f("c_out", s.c_out);
    f("kernel_h", s.kernel_h), f("kernel_w", s.kernel_w);
    f("stride_h", s.stride_h), f("stride_w", s.stride_w);
    f("pad_top", s.pad_top), f("pad_bottom", s.pad_bottom), f("pad_left", s.pad_left);
    f("pad_right", s.pad_right), f("groups", s.groups), f("act", s.act);
  }
};

enum class PoolKind : uint8_t { Max, Average };
// Pooling windows never see padding values: max ignores them and average
// divides by the count of real pixels unless count_include_pad. Global pooling
// is a pool whose kernel is the whole map.
struct PoolParams {
  PoolKind kind = PoolKind::Max;
  int dims = 2;
  int64_t in_h = 1, in_w = 0, channels = 0;
  int64_t out_h = 1, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  bool count_include_pad = false;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("kind", s.kind), f("dims", s.dims), f("in_h", s.in_h), f("in_w", s.in_w);
    f("channels", s.channels), f("out_h", s.out_h), f("out_w", s.out_w);
    f("kernel_h", s.kernel_h), f("kernel_w", s.kernel_w);
    f("stride_h", s.stride_h), f("stride_w", s.stride_w);
    f("pad_top", s.pad_top), f("pad_bottom", s.pad_bottom), f("pad_left", s.pad_left);
    f("pad_right", s.pad_right), f("count_include_pad", s.count_include_pad);
  }
};

// Zeros around a channels-last map and, with strides above 1, between its
// pixels: input pixel (h, w) lands at (pad_top + h * stride_h, pad_left + w *
// stride_w), as a transposed convolution spreads its input.
struct ZeroPadParams {
  int dims = 2;
  int64_t in_h = 1, in_w = 0, channels = 0;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t out_h() const { return (in_h - 1) * stride_h + 1 + pad_top + pad_bottom; }
  int64_t out_w() const { return (in_w - 1) * stride_w + 1 + pad_left + pad_right; }
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("dims", s.dims), f("in_h", s.in_h), f("in_w", s.in_w), f("channels", s.channels);
    f("pad_top", s.pad_top), f("pad_bottom", s.pad_bottom), f("pad_left", s.pad_left);
    f("pad_right", s.pad_right), f("stride_h", s.stride_h), f("stride_w", s.stride_w);
  }
};

// y = x * scale[c] + bias[c] over the last axis (weights = scale, bias = bias).
struct BatchNormParams {
  int64_t n = 0;         // total elements
  int64_t channels = 0;  // last-axis size
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("n", s.n), f("channels", s.channels);
  }
};

// Elementwise activation over n elements (per-channel for PRelu).
struct ActivationParams {
  int64_t n = 0;
  int64_t channels = 0;  // last-axis size, for PRelu
  Activation act;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("n", s.n), f("channels", s.channels), f("act", s.act);
  }
};

// Softmax over the last axis, `rows` independent rows of `length`. `log`:
// LogSoftmax (the same exp table and sum; a log table of the sum in place of
// the reciprocal table, docs/numerics.md "Softmax").
struct SoftmaxParams {
  int64_t rows = 1;
  int64_t length = 0;
  bool log = false;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("rows", s.rows), f("length", s.length), f("log", s.log);
  }
};

// ReverseSub is y = b - a: ONNX's Sub(gate, x) with the broadcast operand
// first, since the layer always takes the full-shaped operand as `a`.
enum class BinaryOp : uint8_t { Add, Sub, Mul, ReverseSub };
// How the second operand `b` maps onto the output (batch-free, channels-last
// [..., C]); `a` always has the output's shape:
//  - None: b has the output's shape;
//  - PerChannel: b is [1, ..., 1, C], one value per channel for every pixel
//    (a squeeze-and-excitation gate after a global pool);
//  - PerPixel: b is [..., 1], one value per pixel for every channel (a
//    spatial-attention gate).
// Other broadcasts are refused at lowering.
enum class BinaryBroadcast : uint8_t { None, PerChannel, PerPixel };
struct BinaryParams {
  BinaryOp op = BinaryOp::Add;
  int64_t n = 0;         // output (and `a`) elements
  int64_t channels = 0;  // last-axis size of the output (stream element width)
  BinaryBroadcast broadcast = BinaryBroadcast::None;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("op", s.op), f("n", s.n), f("channels", s.channels), f("broadcast", s.broadcast);
  }
};

// Concatenation of two or more inputs along `axis` of the output shape.
struct ConcatParams {
  int axis = 0;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis);
  }
};

// Output = input[begin[a] + i * step[a]] along every axis a of the batch-free
// shape (steps > 0); the output shape gives the counts. ONNX Slice with
// constant bounds, and each output of a Split.
struct SliceParams {
  std::vector<int64_t> begin;
  std::vector<int64_t> step;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("begin", s.begin), f("step", s.step);
  }
};

enum class ResizeKind : uint8_t { Nearest, Linear };
// Resize of the spatial axes of a channels-last map (ONNX Resize / Upsample,
// nearest or linear, any coordinate mode that reads neighbouring rows in
// order): output row o reads input rows row_index[o * taps + t], t < taps
// (1 nearest, 2 linear), likewise columns. Linear weights are
// Layer::weights: the rows' taps, then the columns'. Linear interpolates
// along H into the accumulator, then along W into the result
// (docs/numerics.md "Resize").
struct ResizeParams {
  ResizeKind mode = ResizeKind::Nearest;
  int dims = 2;
  int64_t in_h = 1, in_w = 0, channels = 0;
  int64_t out_h = 1, out_w = 0;
  std::vector<int64_t> row_index;
  std::vector<int64_t> col_index;
  int64_t taps() const { return mode == ResizeKind::Linear ? 2 : 1; }
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("mode", s.mode), f("dims", s.dims), f("in_h", s.in_h), f("in_w", s.in_w);
    f("channels", s.channels), f("out_h", s.out_h), f("out_w", s.out_w);
    f("row_index", s.row_index), f("col_index", s.col_index);
  }
};

// The model's own quantizer (ONNX QuantizeLinear followed by
// DequantizeLinear): y = clamp(Q_format(x), min_raw, max_raw), the layer's
// result format is `format` whatever the config says. With a power-of-two
// scale 2^-k, `format` has k fraction bits, rounds half to even and saturates, and
// the clamp keeps the integer range less the zero point: the quantizer
// exactly (`exact`). Another scale keeps values on a finer grid of
// fraction bits instead (docs/hls-layers.md). A bipolar quantizer (QONNX
// BipolarQuant) outputs max_raw (+1) for x >= 0 and min_raw (-1) otherwise.
struct QuantizeParams {
  FixedType format;
  int64_t min_raw = 0, max_raw = 0;
  double scale = 1.0;  // the model's scale, for messages
  bool exact = true;
  bool bipolar = false;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("format", s.format), f("min_raw", s.min_raw), f("max_raw", s.max_raw), f("scale", s.scale);
    f("exact", s.exact), f("bipolar", s.bipolar);
  }
};

enum class CellKind : uint8_t { Gru, Lstm };
// A GRU or LSTM over one sequence, the forms PyTorch exports (one forward
// direction, zero initial state, sigmoid and tanh by lookup tables, GRU with
// linear_before_reset): input [steps, n_in], output every step's state
// [steps, ..., hidden] (`sequences`) or the last one [..., hidden].
// Layer::weights: W as [n_in][gates * hidden], then R as
// [hidden][gates * hidden], gate blocks in ONNX order (GRU z r h, LSTM i o f
// c); Layer::bias: Wb then Rb, gates * hidden each. Per step: two
// matrix-vector products into the accumulator (Dense's order and rounding),
// gate pre-activations rounded to accum, table lookups, the cell state (LSTM)
// in accum and h in the result format (docs/numerics.md "Recurrent").
struct RecurrentParams {
  CellKind cell = CellKind::Gru;
  int64_t steps = 0, n_in = 0, hidden = 0;
  bool sequences = true;
  int64_t gates() const { return cell == CellKind::Gru ? 3 : 4; }
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("cell", s.cell), f("steps", s.steps), f("n_in", s.n_in), f("hidden", s.hidden);
    f("sequences", s.sequences);
  }
};

// Output = input permuted by `perm` (over the batch-free shape).
struct TransposeParams {
  std::vector<int64_t> perm;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("perm", s.perm);
  }
};

// out[b][m][n] = sum_k a[b][m][k] * b[b][k][n]; both operands are activations.
struct MatMulParams {
  int64_t batch = 1, m = 0, k = 0, n = 0;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("batch", s.batch), f("m", s.m), f("k", s.k), f("n", s.n);
  }
};

// Same data, new shape label (Flatten, Reshape that keeps the row-major order).
struct ReshapeParams {
  template <class S, class F>
  static void visit(S&, F&&) {}
};

// The top function's input: converts the testbench's floats to the input type.
struct InputParams {
  template <class S, class F>
  static void visit(S&, F&&) {}
};

// One tensor read by several consumers: a copy per output (io_stream: a
// stream cannot be read twice; io_parallel: a model output that layers also
// read is copied to its port). Made by the insert_clones pass.
struct CloneParams {
  template <class S, class F>
  static void visit(S&, F&&) {}
};

// X(Kind, Params, multipliers, target_cycles, window, encoded)
//  - multipliers: products of two operands; ReuseFactor and Strategy apply;
//  - target_cycles: TargetCycles chooses the reuse factor;
//  - window: a sliding window over a feature map (line buffer in io_stream);
//  - encoded: also has the encoded window implementation (ConvImplementation).
#define KILN_LAYER_KINDS(X)                                   \
  X(Input, InputParams, false, false, false, false)           \
  X(Dense, DenseParams, true, true, false, false)             \
  X(Conv, ConvParams, true, true, true, true)                 \
  X(Pool, PoolParams, false, false, true, false)              \
  X(ZeroPad, ZeroPadParams, false, false, false, false)       \
  X(BatchNorm, BatchNormParams, false, false, false, false)   \
  X(Activation, ActivationParams, false, false, false, false) \
  X(Softmax, SoftmaxParams, false, false, false, false)       \
  X(Binary, BinaryParams, false, false, false, false)         \
  X(Concat, ConcatParams, false, false, false, false)         \
  X(Transpose, TransposeParams, false, false, false, false)   \
  X(Slice, SliceParams, false, false, false, false)           \
  X(Resize, ResizeParams, false, false, false, false)         \
  X(Quantize, QuantizeParams, false, false, false, false)     \
  X(MatMul, MatMulParams, true, false, false, false)          \
  X(Recurrent, RecurrentParams, true, true, false, false)     \
  X(Reshape, ReshapeParams, false, false, false, false)       \
  X(Clone, CloneParams, false, false, false, false)

enum class LayerKind : uint8_t {
#define KILN_LAYER_ENUM(kind, ...) kind,
  KILN_LAYER_KINDS(KILN_LAYER_ENUM)
#undef KILN_LAYER_ENUM
};

namespace detail {
template <class Ignored, class... Ts>
struct VariantOfRest {
  using type = std::variant<Ts...>;
};
}  // namespace detail
// The parameters of a layer; the alternative's index is its LayerKind.
#define KILN_LAYER_PARAMS(kind, params, ...) , params
using LayerParams = typename detail::VariantOfRest<void KILN_LAYER_KINDS(KILN_LAYER_PARAMS)>::type;
#undef KILN_LAYER_PARAMS

// Formats of one layer, by default kiln's defaults (docs/config.md), which a
// config overrides field by field. Unused fields keep their defaults.
struct Precision {
  FixedType weight{16, 6};  // Dense/Conv weights, BatchNorm scale, PRelu slope
  FixedType bias{16, 6};
  FixedType result{16, 6};  // the output tensor's type
  FixedType accum{32, 12};  // Dense/Conv/Pool(average)/MatMul/Softmax-sum accumulator
  FixedType table{18, 8};   // lookup table entries (Sigmoid, Tanh, Exp, Elu, Selu, Softmax exp)
  FixedType inv_table{18, 8, false};  // Softmax reciprocal table entries
  FixedType log_table{18, 8};         // LogSoftmax log table entries
  bool operator==(const Precision&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("weight", s.weight), f("bias", s.bias), f("result", s.result), f("accum", s.accum);
    f("table", s.table), f("inv_table", s.inv_table), f("log_table", s.log_table);
  }
};

// Lookup-table geometry (docs/numerics.md "Lookup tables"): a table of
// table_size = 2^k entries covering [-table_range, table_range) (Softmax exp:
// [-table_range, 0]); table_range is a power of two.
struct TableConfig {
  int64_t table_size = 1024;
  double table_range = 8.0;
  int64_t inv_table_size = 1024;  // Softmax reciprocal (LogSoftmax: log) table
  double inv_table_range = 0;     // 0: smallest power of two >= row length
  bool operator==(const TableConfig&) const = default;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("table_size", s.table_size), f("table_range", s.table_range);
    f("inv_table_size", s.inv_table_size), f("inv_table_range", s.inv_table_range);
  }
};

struct Layer {
  std::string name;       // unique C identifier (from the graph node)
  std::string onnx_name;  // the ONNX node name, for messages
  LayerParams params;

  std::vector<int> inputs;   // tensor indices into Model::tensors
  std::vector<int> outputs;  // tensor indices; one except for Clone layers

  // Resolved configuration.
  Precision precision;
  int64_t reuse_factor = 1;
  Strategy strategy = Strategy::Latency;
  ConvImpl conv_impl = ConvImpl::LineBuffer;
  TableConfig tables;
  // The TargetCycles value that chose reuse_factor (0: the reuse factor was
  // configured directly); see docs/config.md.
  int64_t target_cycles = 0;
  // What the config asks of kiln rtl for this layer (not in kiln_model.json).
  LayerRtlSettings rtl;

  // Constants, quantized: weights in precision.weight, bias in precision.bias,
  // layout as documented on the params struct.
  std::vector<int64_t> weights;
  std::vector<int64_t> bias;
  // The same constants as the graph gives them, from lowering until the
  // quantize pass (not saved in kiln_model.json).
  std::vector<double> float_weights;
  std::vector<double> float_bias;

  LayerKind kind() const { return static_cast<LayerKind>(params.index()); }
  int output() const { return outputs.at(0); }
  template <class P>
  const P& as() const {
    return std::get<P>(params);
  }
  template <class P>
  P& as() {
    return std::get<P>(params);
  }
};

struct TensorInfo {
  std::string name;            // unique C identifier
  std::vector<int64_t> shape;  // batch-free, channels-last
  FixedType type;              // = the producing layer's precision.result
  int64_t numel() const;
};

struct Model {
  std::string name;
  std::string part = "xcvu9p-flga2104-2L-e";
  double clock_period_ns = 5.0;
  IOType io_type = IOType::Parallel;
  Backend backend = Backend::Vitis;
  Style style = Style::Layers;
  // What the config asks of kiln rtl (not in kiln_model.json).
  ModelRtlSettings rtl;

  std::vector<TensorInfo> tensors;
  std::vector<Layer> layers;  // topological order; Input layers first
  std::vector<int> inputs;    // tensor indices of the top function's inputs
  std::vector<int> outputs;   // tensor indices of its outputs

  // How each model input/output maps to the ONNX tensor: the ONNX shape
  // (with batch) and the permutation from it to the tensor's channels-last
  // shape (identity when no layout change). csim and the emulator use these to
  // feed NCHW data and compare outputs in ONNX order.
  struct Port {
    std::string onnx_name;
    std::vector<int64_t> onnx_shape;
    std::vector<int64_t> perm;  // tensor shape[i] = onnx_shape[perm[i]] (batch dropped)
    bool operator==(const Port&) const = default;
  };
  std::vector<Port> input_ports;
  std::vector<Port> output_ports;

  // The layer producing `tensor` (Internal error if none).
  const Layer& producer(int tensor) const;
};

}  // namespace kiln::hls

namespace kiln {
template <>
struct EnumNames<hls::IOType> {
  static constexpr std::pair<hls::IOType, std::string_view> kNames[] = {
      {hls::IOType::Parallel, "io_parallel"}, {hls::IOType::Stream, "io_stream"}};
};
template <>
struct EnumNames<hls::Strategy> {
  static constexpr std::pair<hls::Strategy, std::string_view> kNames[] = {
      {hls::Strategy::Latency, "Latency"}, {hls::Strategy::Resource, "Resource"}};
};
template <>
struct EnumNames<hls::ConvImpl> {
  static constexpr std::pair<hls::ConvImpl, std::string_view> kNames[] = {
      {hls::ConvImpl::LineBuffer, "LineBuffer"}, {hls::ConvImpl::Encoded, "Encoded"}};
};
template <>
struct EnumNames<hls::Backend> {
  static constexpr std::pair<hls::Backend, std::string_view> kNames[] = {
      {hls::Backend::Vitis, "vitis"}, {hls::Backend::Bambu, "bambu"}};
};
template <>
struct EnumNames<hls::Style> {
  static constexpr std::pair<hls::Style, std::string_view> kNames[] = {
      {hls::Style::Layers, "layers"}, {hls::Style::Loops, "loops"}};
};
template <>
struct EnumNames<hls::ActKind> {
  static constexpr std::pair<hls::ActKind, std::string_view> kNames[] = {
      {hls::ActKind::None, "None"},
      {hls::ActKind::Relu, "Relu"},
      {hls::ActKind::LeakyRelu, "LeakyRelu"},
      {hls::ActKind::Elu, "Elu"},
      {hls::ActKind::Selu, "Selu"},
      {hls::ActKind::PRelu, "PRelu"},
      {hls::ActKind::Clip, "Clip"},
      {hls::ActKind::Sigmoid, "Sigmoid"},
      {hls::ActKind::Tanh, "Tanh"},
      {hls::ActKind::Exp, "Exp"},
      {hls::ActKind::HardSigmoid, "HardSigmoid"},
      {hls::ActKind::HardSwish, "HardSwish"}};
};
template <>
struct EnumNames<hls::PoolKind> {
  static constexpr std::pair<hls::PoolKind, std::string_view> kNames[] = {
      {hls::PoolKind::Max, "Max"}, {hls::PoolKind::Average, "Average"}};
};
template <>
struct EnumNames<hls::ResizeKind> {
  static constexpr std::pair<hls::ResizeKind, std::string_view> kNames[] = {
      {hls::ResizeKind::Nearest, "Nearest"}, {hls::ResizeKind::Linear, "Linear"}};
};
template <>
struct EnumNames<hls::BinaryOp> {
  static constexpr std::pair<hls::BinaryOp, std::string_view> kNames[] = {
      {hls::BinaryOp::Add, "Add"},
      {hls::BinaryOp::Sub, "Sub"},
      {hls::BinaryOp::Mul, "Mul"},
      {hls::BinaryOp::ReverseSub, "ReverseSub"}};
};
template <>
struct EnumNames<hls::BinaryBroadcast> {
  static constexpr std::pair<hls::BinaryBroadcast, std::string_view> kNames[] = {
      {hls::BinaryBroadcast::None, "None"},
      {hls::BinaryBroadcast::PerChannel, "PerChannel"},
      {hls::BinaryBroadcast::PerPixel, "PerPixel"}};
};
// The LayerType names of the config file, and the spelling everywhere else.
template <>
struct EnumNames<hls::CellKind> {
  static constexpr std::pair<hls::CellKind, std::string_view> kNames[] = {
      {hls::CellKind::Gru, "GRU"}, {hls::CellKind::Lstm, "LSTM"}};
};
template <>
struct EnumNames<hls::LayerKind> {
#define KILN_LAYER_NAME(kind, ...) {hls::LayerKind::kind, #kind},
  static constexpr std::pair<hls::LayerKind, std::string_view> kNames[] = {
      KILN_LAYER_KINDS(KILN_LAYER_NAME)};
#undef KILN_LAYER_NAME
};
}  // namespace kiln

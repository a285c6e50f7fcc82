// The HLS layer model: what kiln's dataflow project, its bit-exact emulator and
// its estimator are built from.
//
// build_model() lowers a graph that has been through the HLS pass pipeline
// (passes/pipeline.h: BN folded, dense formed, activations fused, channels
// last) into a list of layers in topological order, each with its resolved
// configuration (precision, reuse factor, strategy, convolution
// implementation) and its constants already quantized to their formats.
//
// Tensors drop the batch dimension (batch is 1) and are channels-last:
// [H, W, C] for 2-D feature maps, [L, C] for 1-D, [N] for vectors. In io_stream
// a feature map streams one pixel (all C channels) per element, row by row.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "kiln/numeric/fixed.h"

namespace kiln::hls {

using numeric::FixedType;

enum class IOType : uint8_t { Parallel, Stream };  // io_parallel, io_stream
enum class Strategy : uint8_t { Latency, Resource };
enum class ConvImpl : uint8_t { LineBuffer, Encoded };
enum class Backend : uint8_t { Vitis, Bambu };

// Activations a layer can apply (standalone Activation layers or fused into
// Dense/Conv). Sigmoid, Tanh, Exp, Elu and Selu read lookup tables.
enum class ActKind : uint8_t {
  None,
  Relu,
  LeakyRelu,  // alpha
  Elu,        // alpha; exp via table
  Selu,       // alpha, gamma; exp via table
  PRelu,      // per-channel slope tensor (Layer::weights)
  Clip,       // lo, hi
  Sigmoid,    // table
  Tanh,       // table
  Exp,        // table
};

struct Activation {
  ActKind kind = ActKind::None;
  double alpha = 0.0;  // LeakyRelu/Elu/Selu alpha; Clip lo
  double beta = 0.0;   // Selu gamma; Clip hi
};

// ---- per-kind parameters -------------------------------------------------

// y[n_out] = act(x[n_in] . W + b); W stored [n_in][n_out] row-major.
struct DenseParams {
  int64_t n_in = 0;
  int64_t n_out = 0;
  Activation act;
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
};

struct ZeroPadParams {
  int dims = 2;
  int64_t in_h = 1, in_w = 0, channels = 0;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};

// y = x * scale[c] + bias[c] over the last axis (weights = scale, bias = bias).
struct BatchNormParams {
  int64_t n = 0;         // total elements
  int64_t channels = 0;  // last-axis size
};

// Elementwise activation over n elements (per-channel for PRelu).
struct ActivationParams {
  int64_t n = 0;
  int64_t channels = 0;  // last-axis size, for PRelu
  Activation act;
};

// Softmax over the last axis, `rows` independent rows of `length`.
struct SoftmaxParams {
  int64_t rows = 1;
  int64_t length = 0;
};

enum class BinaryOp : uint8_t { Add, Sub, Mul };
// Both inputs have the output's shape (broadcasting is resolved by passes or
// refused at lowering).
struct BinaryParams {
  BinaryOp op = BinaryOp::Add;
  int64_t n = 0;
  int64_t channels = 0;  // last-axis size (stream element width)
};

// Concatenation of two or more inputs along `axis` of the output shape.
struct ConcatParams {
  int axis = 0;
};

// Output = input permuted by `perm` (over the batch-free shape).
struct TransposeParams {
  std::vector<int64_t> perm;
};

// out[b][m][n] = sum_k a[b][m][k] * b[b][k][n]; both operands are activations.
struct MatMulParams {
  int64_t batch = 1, m = 0, k = 0, n = 0;
};

// Same data, new shape label (Flatten, Reshape that keeps the row-major order).
struct ReshapeParams {};

// The top function's input: converts the testbench's floats to the input type.
struct InputParams {};

using LayerParams = std::variant<InputParams, DenseParams, ConvParams, PoolParams, ZeroPadParams,
                                 BatchNormParams, ActivationParams, SoftmaxParams, BinaryParams,
                                 ConcatParams, TransposeParams, MatMulParams, ReshapeParams>;

enum class LayerKind : uint8_t {
  Input,
  Dense,
  Conv,
  Pool,
  ZeroPad,
  BatchNorm,
  Activation,
  Softmax,
  Binary,
  Concat,
  Transpose,
  MatMul,
  Reshape,
};
// "Dense", "Conv", ...: the LayerType names of the config file.
const char* layer_kind_name(LayerKind kind);

// Formats of one layer. Unused fields keep their defaults.
struct Precision {
  FixedType weight;  // Dense/Conv weights, BatchNorm scale, PRelu slope
  FixedType bias;
  FixedType result;     // the output tensor's type
  FixedType accum;      // Dense/Conv/Pool(average)/MatMul/Softmax-sum accumulator
  FixedType table;      // lookup table entries (Sigmoid, Tanh, Exp, Elu, Selu, Softmax exp)
  FixedType inv_table;  // Softmax reciprocal table entries
};

// Lookup-table geometry (docs/numerics.md "Lookup tables"): a table of
// table_size = 2^k entries covering [-table_range, table_range) (Softmax exp:
// [-table_range, 0]); table_range is a power of two.
struct TableConfig {
  int64_t table_size = 1024;
  double table_range = 8.0;
  int64_t inv_table_size = 1024;  // Softmax reciprocal table
  double inv_table_range = 0;     // 0: smallest power of two >= row length
};

struct Layer {
  std::string name;       // unique C identifier (from the graph node)
  std::string onnx_name;  // the ONNX node name, for messages
  LayerKind kind = LayerKind::Input;
  LayerParams params;

  std::vector<int> inputs;  // tensor indices into Model::tensors
  int output = -1;          // tensor index

  // Resolved configuration.
  Precision precision;
  int64_t reuse_factor = 1;
  Strategy strategy = Strategy::Latency;
  ConvImpl conv_impl = ConvImpl::LineBuffer;
  TableConfig tables;
  // The TargetCycles value that chose reuse_factor (0: the reuse factor was
  // configured directly); see docs/config.md.
  int64_t target_cycles = 0;

  // Constants, quantized: weights in precision.weight, bias in precision.bias,
  // layout as documented on the params struct.
  std::vector<int64_t> weights;
  std::vector<int64_t> bias;

  template <class P>
  const P& as() const {
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
  };
  std::vector<Port> input_ports;
  std::vector<Port> output_ports;

  const Layer& producer(int tensor) const;
};

// Valid reuse factors for a layer (hls4ml rule: RF divides n_in * n_out and the
// resulting block factor is valid); {1} for layers without multipliers.
std::vector<int64_t> valid_reuse_factors(const Layer& layer);

}  // namespace kiln::hls

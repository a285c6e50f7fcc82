// Internal declarations of the reference kernels (one per op family) and the
// small helpers they share: broadcast iteration plans and parallel-loop grain.
//
// Kernels take typed tensors and the node's canonical attributes; evaluate.cpp
// unpacks nodes. `where` (node.describe()) names the node in errors. Output
// tensors are allocated with the types shape inference gave.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/graph/graph.h"

namespace kiln::ref::kernels {

// ---- conv.cpp
Tensor conv(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvAttrs& attrs,
            const TensorType& out, const std::string& where);

// ---- pool.cpp
// Returns {Y} or, with want_indices, {Y, Indices} (int64, flat index into x).
std::vector<Tensor> max_pool(const Tensor& x, const PoolAttrs& attrs, const TensorType& out,
                             bool want_indices, const std::string& where);
Tensor average_pool(const Tensor& x, const PoolAttrs& attrs, const TensorType& out,
                    const std::string& where);
Tensor global_pool(const Tensor& x, bool is_max, const TensorType& out, const std::string& where);

// ---- matmul.cpp
Tensor gemm(const Tensor& a, const Tensor& b, const Tensor* c, const GemmAttrs& attrs,
            const TensorType& out, const std::string& where);
Tensor matmul(const Tensor& a, const Tensor& b, const TensorType& out, const std::string& where);

// A row-major matrix operand of a product: op(X) = X^T if `trans`, else X;
// X's rows are `ld` elements apart.
template <class T>
struct MatArg {
  const T* data = nullptr;
  int64_t ld = 0;
  bool trans = false;
};

// y [m x n] (rows ldy apart) = alpha * op(a) [m x k] * op(b) [k x n]. Eigen's
// serial GEMM runs on tiles of y spread over the OpenMP threads; inside a
// parallel region, or for small products, it runs on the calling thread.
template <class T>
void gemm_tiled(const MatArg<T>& a, const MatArg<T>& b, T* y, int64_t ldy, int64_t m, int64_t n,
                int64_t k, T alpha);
extern template void gemm_tiled<float>(const MatArg<float>&, const MatArg<float>&, float*, int64_t,
                                       int64_t, int64_t, int64_t, float);
extern template void gemm_tiled<double>(const MatArg<double>&, const MatArg<double>&, double*,
                                        int64_t, int64_t, int64_t, int64_t, double);

// Threads a parallel loop started here would get (1 inside a parallel region).
int available_threads();

// ---- elementwise: map.h (templates over the functors of scalar_ops.h)

// ---- math.cpp
// Pow (base and exponent of any numeric types), Mod, BitShift, with broadcasting.
Tensor pow(const Tensor& a, const Tensor& b, const TensorType& out, const std::string& where);
Tensor mod(const Tensor& a, const Tensor& b, bool fmod, const TensorType& out,
           const std::string& where);
Tensor bit_shift(const Tensor& a, const Tensor& b, bool left, const TensorType& out,
                 const std::string& where);
Tensor where_select(const Tensor& cond, const Tensor& x, const Tensor& y, const TensorType& out,
                    const std::string& where);

// ---- activation.cpp
Tensor prelu(const Tensor& x, const Tensor& slope, const std::string& where);
// Clip with optional scalar bounds (nullptr = unbounded).
Tensor clip(const Tensor& x, const Tensor* min, const Tensor* max, const std::string& where);

// ---- softmax.cpp
Tensor softmax(const Tensor& x, const SoftmaxAttrs& attrs, bool log, const std::string& where);
// 1 at the first maximum along the axis (or the coerced 2-D row), 0 elsewhere.
Tensor hardmax(const Tensor& x, const SoftmaxAttrs& attrs, const std::string& where);

// ---- reduce.cpp
enum class ReduceOp : uint8_t { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };
Tensor reduce(ReduceOp op, const Tensor& x, const ReduceAttrs& attrs, const TensorType& out,
              const std::string& where);
Tensor arg_reduce(bool is_max, const Tensor& x, const ArgAttrs& attrs, const TensorType& out,
                  const std::string& where);

// ---- normalization.cpp
Tensor batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                  const Tensor& var, const BatchNormAttrs& attrs, const std::string& where);

// ---- data_movement.cpp
Tensor concat(std::span<const Tensor* const> inputs, int64_t axis, const TensorType& out,
              const std::string& where);
Tensor slice(const Tensor& x, const SliceAttrs& attrs, const TensorType& out,
             const std::string& where);
Tensor transpose(const Tensor& x, const TransposeAttrs& attrs, const TensorType& out,
                 const std::string& where);
Tensor pad(const Tensor& x, const PadAttrs& attrs, const TensorType& out, const std::string& where);
Tensor gather(const Tensor& data, const Tensor& indices, int64_t axis, const TensorType& out,
              const std::string& where);
// Shape op: the dims [start, end) of x as int64.
Tensor shape_of(const Tensor& x, const ShapeAttrs& attrs);
// Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout: same data, shape of `out`.
Tensor reshape_to(const Tensor& x, const TensorType& out, const std::string& where);

// ---- shape_ops.cpp
std::vector<Tensor> split(const Tensor& x, const SplitAttrs& attrs, std::span<const TensorType> out,
                          const std::string& where);
Tensor expand(const Tensor& x, const TensorType& out, const std::string& where);
Tensor tile(const Tensor& x, const TensorType& out, const std::string& where);
Tensor constant_of_shape(const ConstantOfShapeAttrs& attrs, const TensorType& out);
Tensor range(const RangeAttrs& attrs, const TensorType& out, const std::string& where);
Tensor eye_like(const EyeLikeAttrs& attrs, const TensorType& out);
Tensor trilu(const Tensor& x, const TriluAttrs& attrs, const std::string& where);
// DepthToSpace (to_space) or SpaceToDepth.
Tensor depth_space(bool to_space, const Tensor& x, const BlockAttrs& attrs, const TensorType& out,
                   const std::string& where);
Tensor gather_elements(const Tensor& data, const Tensor& indices, int64_t axis,
                       const TensorType& out, const std::string& where);
Tensor cum_sum(const Tensor& x, const CumSumAttrs& attrs, const std::string& where);
Tensor one_hot(const Tensor& indices, const Tensor& values, const OneHotAttrs& attrs,
               const TensorType& out, const std::string& where);
// Scatters x to the flat positions in `indices` of the unpooled tensor (zeros elsewhere).
Tensor max_unpool(const Tensor& x, const Tensor& indices, const MaxUnpoolAttrs& attrs,
                  const TensorType& out, const std::string& where);

// ---- layers.cpp
// Returns {Y} plus Mean and InvStdDev when `out` lists them.
std::vector<Tensor> layer_norm(const Tensor& x, const Tensor& scale, const Tensor* bias,
                               const LayerNormAttrs& attrs, std::span<const TensorType> out,
                               const std::string& where);
Tensor instance_norm(const Tensor& x, const Tensor& scale, const Tensor& bias,
                     const InstanceNormAttrs& attrs, const std::string& where);
Tensor lrn(const Tensor& x, const LrnAttrs& attrs, const std::string& where);

// ---- conv_transpose.cpp
Tensor conv_transpose(const Tensor& x, const Tensor& w, const Tensor* bias,
                      const ConvTransposeAttrs& attrs, const TensorType& out,
                      const std::string& where);

// ---- resize.cpp
Tensor resize(const Tensor& x, const ResizeAttrs& attrs, const TensorType& out,
              const std::string& where);

// ---- fused.cpp
// Dense: matmul(x, w) + bias on the last axis, then the fused activation.
Tensor dense(const Tensor& x, const Tensor& w, const Tensor& bias, const DenseAttrs& attrs,
             const TensorType& out, const std::string& where);
// Applies a fused activation in place (float types).
void apply_activation(Tensor& y, const FusedActivation& act, const std::string& where);
// [N, s..., C] -> [N, C, s...] and back; rank < 3 shapes are returned unchanged.
Shape channels_first_shape(const Shape& s);
Shape channels_last_shape(const Shape& s);
// Transposes x between the two layouts (to_last: [N, C, s...] -> [N, s..., C]).
Tensor move_channels(const Tensor& x, bool to_last, const std::string& where);

// ---- quantize.cpp
Tensor quantize_linear(const Tensor& x, const Tensor& scale, const Tensor* zero_point,
                       const QuantAttrs& attrs, const TensorType& out, const std::string& where);
Tensor dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor* zero_point,
                         const QuantAttrs& attrs, const TensorType& out);

// ---- recurrent.cpp
// RNN, GRU or LSTM (`kind`): inputs as the node has them (absent optional ones
// null or past the end); returns Y, Y_h (and Y_c), each of its type in `out`
// where `wanted`, else empty.
std::vector<Tensor> recurrent(OpKind kind, std::span<const Tensor* const> inputs,
                              const RecurrentAttrs& attrs, std::span<const TensorType> out,
                              const std::vector<bool>& wanted, const std::string& where);

// ---- qonnx_quant.cpp: QONNX's quantizers; parameters broadcast to x
Tensor int_quant(const Tensor& x, const Tensor& scale, const Tensor& zeropt,
                 const IntQuantAttrs& attrs, const std::string& where);
Tensor bipolar_quant(const Tensor& x, const Tensor& scale, const std::string& where);
// out_scale: opset 2's input (nullptr for opset 1).
Tensor trunc_quant(const Tensor& x, const Tensor& scale, const Tensor& zeropt,
                   const Tensor* out_scale, const TruncAttrs& attrs, const std::string& where);

// ---- shared helpers ------------------------------------------------------

// Below this many elements a loop runs on one thread: forking costs more.
inline constexpr int64_t kParallelGrain = int64_t{1} << 15;

inline int64_t dims_product(const Shape& s, std::size_t begin, std::size_t end) {
  int64_t n = 1;
  for (std::size_t i = begin; i < end && i < s.size(); ++i) n *= s[i];
  return n;
}

// Multidirectional (numpy) broadcast of two shapes; InvalidModel if incompatible.
Shape broadcast_two(const Shape& a, const Shape& b, const std::string& where);

// How to walk an output and the operands that broadcast to it. Output dims of
// size 1 are dropped and adjacent dims that are contiguous in every operand are
// merged, so equal shapes become one run and a per-channel operand [C,1,1]
// against [N,C,H,W] becomes dims [N*C, H*W] with operand strides [1, 0].
struct BroadcastPlan {
  std::vector<int64_t> dims;                  // merged output dims, outer first; never empty
  std::vector<std::vector<int64_t>> strides;  // per operand, per merged dim (0 = broadcast)
  int64_t numel = 1;
};
BroadcastPlan make_broadcast_plan(const Shape& out, std::span<const Shape> operands);

// Calls run(out_off, a_off, b_off, n, a_step, b_step) for runs along the
// innermost merged dim that cover the output once; runs may be processed in
// parallel, so `run` must not throw. The plan must have exactly two operands.
template <class Run>
void for_each_broadcast_run(const BroadcastPlan& p, Run&& run) {
  const std::size_t rank = p.dims.size();
  const int64_t inner = p.dims[rank - 1];
  const int64_t sa = p.strides[0][rank - 1], sb = p.strides[1][rank - 1];
  if (p.numel == 0) return;
  // Long inner runs are chopped into chunks so a single run still parallelizes.
  const int64_t chunk = std::min<int64_t>(inner, 16384);
  const int64_t chunks_per_run = (inner + chunk - 1) / chunk;
  const int64_t outer = p.numel / inner;
  const int64_t total = outer * chunks_per_run;
#pragma omp parallel for schedule(static) if (total > 1 && p.numel >= kParallelGrain)
  for (int64_t r = 0; r < total; ++r) {
    const int64_t o = r / chunks_per_run;
    const int64_t start = (r % chunks_per_run) * chunk;
    int64_t a_off = 0, b_off = 0, rest = o;
    for (std::size_t d = rank - 1; d-- > 0;) {
      const int64_t i = rest % p.dims[d];
      rest /= p.dims[d];
      a_off += i * p.strides[0][d];
      b_off += i * p.strides[1][d];
    }
    run(o * inner + start, a_off + start * sa, b_off + start * sb, std::min(chunk, inner - start),
        sa, sb);
  }
}

// out[i] = op(a[.], b[.]) with broadcasting; the inner loops are specialized
// for the common stride patterns so the compiler can vectorize them.
template <class TA, class TB, class TO, class Op>
void broadcast_apply(const BroadcastPlan& p, const TA* a, const TB* b, TO* out, Op op) {
  for_each_broadcast_run(
      p, [&](int64_t oo, int64_t ao, int64_t bo, int64_t n, int64_t sa, int64_t sb) {
        TO* o = out + oo;
        const TA* x = a + ao;
        const TB* y = b + bo;
        if (sa == 1 && sb == 1) {
          for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i]);
        } else if (sa == 1 && sb == 0) {
          const TB yv = *y;
          for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], yv);
        } else if (sa == 0 && sb == 1) {
          const TA xv = *x;
          for (int64_t i = 0; i < n; ++i) o[i] = op(xv, y[i]);
        } else {
          for (int64_t i = 0; i < n; ++i) o[i] = op(x[i * sa], y[i * sb]);
        }
      });
}

// Out-of-place element-wise map, parallel for large tensors.
template <class TI, class TO, class F>
void map_elements(const TI* in, TO* out, int64_t n, F f) {
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
}

// Calls f(U{}) with U an unsigned integer type of `size` bytes (1, 2, 4, 8):
// data movement copies elements by size so it serves every DType, bool included.
template <class F>
decltype(auto) visit_element_size(std::size_t size, F&& f) {
  switch (size) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: break;
  }
  KILN_ASSERT(size == 8, "unexpected element size");
  return f(uint64_t{});
}

// Throws InvalidModel unless `t` has `rank` dims (kernels index by rank).
void expect_rank(const Tensor& t, std::size_t rank, const char* operand, const std::string& where);

}  // namespace kiln::ref::kernels

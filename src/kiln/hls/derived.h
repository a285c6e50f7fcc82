// Numbers derived from a layer's shape and configuration, computed here once
// and read by the emitter, the emulator and the estimator alike: products
// per call and valid reuse factors, multipliers (the block factor), stream
// FIFO depths and the window buffers of io_stream convolutions and pools.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kiln/hls/model.h"

namespace kiln::hls {

// A layer with multipliers computes n_in * n_out products per call: Dense
// n_in, n_out; Conv kh * kw * c_in / groups, c_out; MatMul k, n.
struct ProductShape {
  int64_t n_in = 0;
  int64_t n_out = 0;
  int64_t products() const { return n_in * n_out; }
};
// nullopt for kinds without multipliers. Recurrent: the products of one
// step, n_in + hidden inputs to gates * hidden outputs.
std::optional<ProductShape> product_shape(const Layer& layer);

// The matrix-vector kernels a call runs, each at the layer's reuse factor:
// product_shape() for Dense, Conv and MatMul; for Recurrent two per step,
// W x (n_in to gates * hidden) and R h (hidden to gates * hidden). Empty for
// kinds without multipliers.
std::vector<ProductShape> kernel_products(const Layer& layer);
// ceil(products / RF), RF clamped to [1, products].
int64_t multipliers_of(const ProductShape& product, int64_t reuse_factor);

// kiln's rule (docs/config.md "Valid reuse factors"): RF is valid iff
// 1 <= RF <= n_in * n_out and RF divides n_in * n_out, so every multiplier
// does the same number of products (Recurrent: RF divides both kernels'
// products). {1} for layers without multipliers.
std::vector<int64_t> valid_reuse_factors(const Layer& layer);

// Multipliers of a product layer, ceil(n_in * n_out / RF) with RF clamped to
// [1, n_in * n_out] (hls4ml's block factor and multiplier limit), summed over
// kernel_products(); 0 for layers without multipliers.
int64_t block_factor(const Layer& layer);

// The initiation interval of a product layer (Dense, Conv, MatMul) run at
// reuse factor `rf`, as the library's kernels run it and the estimator
// reports it: io_stream Conv, one pipeline iteration of rf cycles per padded
// input pixel (the line buffer and the encoded FIFOs both take every pixel);
// io_parallel Conv, rf cycles per output pixel; Dense and MatMul, rf cycles
// after reading their input (one beat per stream element in io_stream).
// Recurrent: per step rf cycles for the products plus
// kRecurrentStepOverhead for the gates and the state update, the steps one
// after another (each needs the state before it). 0 for other kinds.
inline constexpr int64_t kRecurrentStepOverhead = 4;
int64_t product_layer_ii(const Model& model, const Layer& layer, int64_t rf);

// The reuse factor TargetCycles picks (docs/config.md "TargetCycles"): the
// largest valid one whose product_layer_ii() is at most `target_cycles`, or
// 1 when none is (the estimate then says the target is not met).
int64_t reuse_factor_for_target(const Model& model, const Layer& layer, int64_t target_cycles);

// An io_stream tensor streams one element of `channels` values (its last
// dimension, 1 for a scalar) per beat; its FIFO is one image deep. That depth
// is what a Binary with a per-channel gate needs: it reads the gate (made
// after a global pool has read the whole map) before the map, so the map
// waits whole in its FIFO, and a shallower one would deadlock the clone that
// feeds both. The project's STREAM pragmas and the estimate both read it.
int64_t stream_width(const TensorInfo& tensor);
int64_t stream_elements(const TensorInfo& tensor);
int64_t stream_fifo_depth(const TensorInfo& tensor);  // elements, at least 1

// The shape of a Binary layer's second operand when its output has shape
// `out` and the operand broadcasts as `b` (BinaryParams::broadcast).
std::vector<int64_t> binary_operand_shape(std::vector<int64_t> out, BinaryBroadcast b);

// A pool whose window is the whole unpadded map (kiln::global_pool_2d: a
// running sum or maximum per channel, no window buffer).
bool is_global_pool(const PoolParams& p);

// Compile-time structures of the encoded convolution (seed 002 §4.4).
struct EncodedTable {
  // Compressed instruction table, [row class][column class]; bit
  // (kh * kernel_w + kw) of an instruction is set when the pixel feeds the
  // FIFO of window position (kh, kw).
  std::vector<uint64_t> table;
  int64_t n_row_classes = 0;
  int64_t n_col_classes = 0;
  // Largest occupancy any of the kernel_h * kernel_w FIFOs reaches.
  int64_t stream_depth = 1;
};
// Requires kernel_h * kernel_w <= 64 and out = (in + pads - k) / stride + 1.
EncodedTable encoded_table(const ConvParams& p);

// The window buffer an io_stream layer keeps (docs/hls-layers.md):
//  - line buffer (Conv, and Pool except global): kernel_h - 1 shift
//    registers per channel, each one padded row deep;
//  - encoded (Conv with ConvImplementation Encoded): kernel_h * kernel_w *
//    channels FIFOs of the depth encoded_table() computes.
enum class WindowKind : uint8_t { None, LineBuffer, Encoded };
struct WindowBuffer {
  WindowKind kind = WindowKind::None;
  int64_t count = 0;  // shift registers or FIFOs
  int64_t depth = 0;  // words each
  int64_t width = 0;  // bits per word
};
WindowBuffer window_buffer(const Model& model, const Layer& layer);

}  // namespace kiln::hls

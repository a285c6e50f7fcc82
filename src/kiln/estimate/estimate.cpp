#include "kiln/estimate/estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <sstream>

#include "kiln/fpga/devices.h"
#include "kiln/hls/derived.h"
#include "kiln/hls/layer_kinds.h"
#include "kiln/hls/model_edit.h"
#include "kiln/hls/tables.h"
#include "kiln/sched/operator_library.h"
#include "kiln/support/error.h"

namespace kiln::estimate {

using hls::ActKind;
using hls::ConvImpl;
using hls::IOType;
using hls::Layer;
using hls::LayerKind;
using hls::Model;
using hls::Strategy;

namespace {

// ---- the constants (docs/estimates.md explains each) ------------------------

// Pipeline depth of a DSP multiply (A/B input, M and P registers).
constexpr int64_t kMultLatency = 3;
// Control of one layer: loop counters, FSM, stream handshakes.
constexpr int64_t kLayerLut = 150;
constexpr int64_t kLayerFf = 150;
// Control of one FIFO (pointers, full/empty flags); fitted to the per-stream
// LUT/FF difference between encoded and line buffer in seed 002 Tables 3, 5.
constexpr int64_t kFifoLut = 24;
constexpr int64_t kFifoFf = 8;
// A product layer's loop is pipelined at II = RF (dense.h, conv.h) and the
// reuse loop inside it is unrolled: HLS gives the pipeline one FSM state per
// cycle of the II and writes the state register one-hot, which synthesis
// keeps by default (Vitis HLS config_rtl -fsm_encoding none): one FF and one
// next-state LUT per state. (This replaces a reuse counter; the selects
// below decode their inputs from the state bits.)
constexpr int64_t kFsmFfPerState = 1;
constexpr int64_t kFsmLutPerState = 1;
// Operands at most this wide multiply in LUTs.
constexpr int kNarrowWidth = 10;
// Width of param_t (activation parameters, average-pool reciprocals).
constexpr int kParamWidth = 24;

int64_t ceil_div(int64_t a, int64_t b) {
  return b <= 0 ? 0 : (a + b - 1) / b;
}

int64_t ceil_log2(int64_t n) {
  int64_t bits = 0;
  while ((int64_t{1} << bits) < n) ++bits;
  return bits;
}

// Shape facts of a tensor as it streams: elements (pixels) of `channels` each.
struct StreamShape {
  int64_t numel = 1;
  int64_t channels = 1;
  int64_t elements = 1;
  int width = 16;
};

StreamShape stream_shape(const Model& model, int tensor) {
  StreamShape s;
  if (tensor < 0 || tensor >= static_cast<int>(model.tensors.size())) return s;
  const hls::TensorInfo& t = model.tensors[tensor];
  s.numel = 1;
  for (int64_t d : t.shape) s.numel *= std::max<int64_t>(d, 1);
  s.channels = t.shape.empty() ? 1 : std::max<int64_t>(t.shape.back(), 1);
  s.elements = s.numel / s.channels;
  s.width = t.type.width;
  return s;
}

// Timing of one layer in io_stream, in the terms of the dataflow recurrence
// used by estimate(): a layer runs `iterations` iterations of `cost` cycles.
struct StreamTiming {
  int64_t iterations = 1;
  int64_t cost = 1;        // cycles per iteration
  int64_t extra = 0;       // cycles outside the iteration loop (dense compute)
  int64_t depth = 1;       // pipeline depth: input to its output
  int64_t fill_iters = 1;  // iterations before the first output
  int64_t pre_iters = 0;   // iterations needing no input (top/left padding)
  int64_t tail_iters = 1;  // iterations left after the last input arrives
  bool needs_all = false;  // first output only after the whole input
};

struct Work {
  LayerEstimate est;
  StreamTiming timing;
};

// Resources of the activation applied to `lanes` values in parallel whose
// input is `in_width` bits wide.
void add_activation(const hls::Activation& act, const Layer& layer, int64_t lanes, int in_width,
                    fpga::Family fam, LayerEstimate& e) {
  int rw = layer.precision.result.width;
  switch (act.kind) {
    case ActKind::None: return;
    case ActKind::Relu:
    case ActKind::Clip:
      e.lut += lanes * rw;  // compare + select
      return;
    case ActKind::LeakyRelu:
    case ActKind::PRelu: {
      int64_t d = dsp_per_multiplier(in_width, kParamWidth, fam);
      e.dsp += lanes * d;
      if (d == 0) e.lut += lanes * in_width * kParamWidth / 2;
      e.lut += lanes * rw;
      e.ff += lanes * rw;
      return;
    }
    case ActKind::HardSigmoid:
    case ActKind::HardSwish: {
      // alpha * x + beta and the clamp; HardSwish multiplies x by the result.
      const int hw = in_width + kParamWidth - 8 + 2;  // h: at most x's and alpha's fractions + 2
      int64_t d = dsp_per_multiplier(in_width, kParamWidth, fam);
      if (act.kind == ActKind::HardSwish) d += dsp_per_multiplier(in_width, hw, fam);
      e.dsp += lanes * d;
      if (d == 0) e.lut += lanes * in_width * kParamWidth / 2;
      e.lut += lanes * (hw + rw);
      e.ff += lanes * (hw + rw);
      return;
    }
    case ActKind::Elu:
    case ActKind::Selu:
      e.dsp += lanes * dsp_per_multiplier(layer.precision.table.width, kParamWidth, fam);
      [[fallthrough]];
    case ActKind::Sigmoid:
    case ActKind::Tanh:
    case ActKind::Exp: {
      // One dual-port table ROM per two lanes.
      int64_t copies = ceil_div(lanes, 2);
      int64_t size = layer.tables.table_size;
      int64_t tw = layer.precision.table.width;
      if (size > kSrlMaxDepth) {
        e.bram18 += copies * sched::bram18_count(tw, size);
      } else {
        e.lut += copies * tw;
      }
      e.lut += lanes * (in_width + rw);  // index computation and clamp
      e.ff += lanes * rw;
      return;
    }
  }
}

// Where a weight memory of `depth` words lives.
enum class WeightStorage { Logic, LutRom, Bram };
WeightStorage weight_storage(int64_t depth) {
  if (depth <= 1) return WeightStorage::Logic;
  return depth <= kSrlMaxDepth ? WeightStorage::LutRom : WeightStorage::Bram;
}

// Does the layer's product run dense.h's reuse loop (dense_resource)? A
// grouped convolution's product is conv_grouped_product instead.
bool runs_reuse_loop(const Layer& layer) {
  if (layer.strategy != Strategy::Resource) return false;
  return layer.kind() != LayerKind::Conv || layer.as<hls::ConvParams>().groups <= 1;
}

// The multiplexers of the reuse loop: each distinct input select of w_in
// bits, and, when a multiplier's accumulator changes from cycle to cycle, the
// read select before its adder and the load select of each accumulator.
void add_reuse_loop_selects(int64_t n_in, int64_t n_out, int64_t rf, int in_width, int acc_width,
                            LayerEstimate& e, std::string& notes) {
  const ReuseLoopSelects s = reuse_loop_selects(n_in, n_out, rf);
  e.lut += s.input_selects * sched::mux_luts(s.input_candidates) * in_width;
  if (s.acc_targets > 1) {
    e.lut += ceil_div(n_in * n_out, rf) * sched::mux_luts(s.acc_targets) * acc_width;
    e.lut += n_out * sched::mux_luts(s.acc_sources) * acc_width;
  }
  notes += std::to_string(s.input_selects) + " input select x " +
           std::to_string(s.input_candidates) + ":1; ";
  if (s.acc_targets > 1) notes += "accumulator select " + std::to_string(s.acc_targets) + ":1; ";
}

// Dense kernel (shared by Dense and Conv): multipliers, weight storage, adders.
void add_dense_kernel(const Model& model, const Layer& layer, int64_t n_in, int64_t n_out,
                      int in_width, LayerEstimate& e, std::string& notes) {
  const fpga::Family fam = fpga::device_of_part(model.part).family;
  const hls::Precision& p = layer.precision;
  int64_t rf = std::clamp<int64_t>(layer.reuse_factor, 1, std::max<int64_t>(n_in * n_out, 1));
  int64_t m = hls::block_factor(layer);
  int ww = p.weight.width;
  int aw = p.accum.width;
  int64_t d = dsp_per_multiplier(in_width, ww, fam);
  e.dsp += m * d;
  if (d == 0) e.lut += m * in_width * ww / 2;  // LUT array multiplier
  // Per multiplier: operand registers.
  e.ff += m * (in_width + ww);
  // The loop around the product is pipelined at II = RF: one FSM state per cycle.
  e.lut += rf * kFsmLutPerState;
  e.ff += rf * kFsmFfPerState;
  const bool reuse_loop = runs_reuse_loop(layer);
  // Operand select over the RF cycles, coarsely, where the reuse loop's own
  // selects are not modelled (Latency strategy, grouped convolution).
  if (!reuse_loop) e.lut += m * in_width / 4;
  if (layer.strategy == Strategy::Latency) {
    // Every product gets its own adder in the unrolled tree; partial sums are
    // registered every other level.
    e.lut += n_in * n_out * aw;
    e.ff += n_in * n_out * aw / 2;
  } else {
    // One accumulating adder per multiplier, plus the n_out accumulators.
    e.lut += m * aw + n_out * aw;
    e.ff += m * aw + n_out * aw;
  }
  if (reuse_loop) add_reuse_loop_selects(n_in, n_out, rf, in_width, aw, e, notes);
  // Weights: a memory of RF words of m * ww bits (word r feeds every
  // multiplier in cycle r; the Resource kernel reshapes the array cyclically
  // by the block factor, the Latency one partitions it). One word is
  // constants in logic; up to 64 words a LUT ROM (a BRAM18 would sit at most
  // 64 of its 512 to 16k words deep); deeper ones BRAM.
  int64_t wbits = m * ww;
  switch (weight_storage(rf)) {
    case WeightStorage::Logic: notes += "weights in logic; "; break;
    case WeightStorage::LutRom:
      e.lut += wbits;  // a 64-deep ROM per LUT6 and bit
      notes += "weights LUT ROM " + std::to_string(wbits) + "b x " + std::to_string(rf) + "; ";
      break;
    case WeightStorage::Bram:
      e.bram18 += sched::bram18_count(wbits, rf);
      notes += "weights BRAM " + std::to_string(wbits) + "b x " + std::to_string(rf) + "; ";
      break;
  }
  notes += std::to_string(m) + " mult x " + std::to_string(d) + " DSP; ";
}

// The io_stream window buffer of a convolution or pooling layer
// (hls::window_buffer: line buffer, encoded FIFOs, or none for global pools).
void add_window_buffer(const Model& model, const Layer& layer, LayerEstimate& e,
                       std::string& notes) {
  const hls::WindowBuffer w = hls::window_buffer(model, layer);
  if (w.kind == hls::WindowKind::None) return;
  const BufferPlacement b = place_buffers(w.count, w.width, w.depth);
  e.bram18 += b.bram18;
  e.srl += b.srl;
  e.lut += b.srl;  // a shift register is a LUT
  const bool encoded = w.kind == hls::WindowKind::Encoded;
  if (encoded) {
    e.lut += w.count * kFifoLut;
    e.ff += w.count * kFifoFf;
  } else {
    e.lut += w.count * 2;  // shift enables
  }
  notes += std::string(encoded ? "encoded " : "line buffer ") + std::to_string(w.count) + " x " +
           std::to_string(w.depth) + " x " + std::to_string(w.width) + "b; ";
}

// An average pool multiplies by 1 / count; when every window counts the same
// power of two pixels, that product is a shift.
bool reciprocal_is_shift(const hls::PoolParams& p) {
  const int64_t k = p.kernel_h * p.kernel_w;
  const bool pads = p.pad_top + p.pad_bottom + p.pad_left + p.pad_right > 0;
  return (k & (k - 1)) == 0 && (!pads || p.count_include_pad);
}

int64_t kernel_depth(const Layer& layer, int64_t n_in) {
  int64_t adds = layer.strategy == Strategy::Latency ? ceil_log2(n_in) : 2;
  return kMultLatency + adds + 2;  // + bias/activation, write
}

Work estimate_layer(const Model& model, const Layer& layer) {
  Work w;
  LayerEstimate& e = w.est;
  StreamTiming& t = w.timing;
  e.layer = layer.name;
  const fpga::Family fam = fpga::device_of_part(model.part).family;
  std::string notes = std::string(layer_kind_name(layer.kind())) + ": ";
  const bool stream = model.io_type == IOType::Stream;
  StreamShape in = layer.inputs.empty() ? stream_shape(model, layer.output())
                                        : stream_shape(model, layer.inputs[0]);
  StreamShape out = stream_shape(model, layer.output());
  int64_t rf = std::max<int64_t>(layer.reuse_factor, 1);
  int64_t par_ii = 1, par_latency = 1;

  e.lut += kLayerLut;
  e.ff += kLayerFf;

  switch (layer.kind()) {
    case LayerKind::Dense: {
      const auto& dp = layer.as<hls::DenseParams>();
      rf = std::clamp<int64_t>(rf, 1, std::max<int64_t>(dp.n_in * dp.n_out, 1));
      add_dense_kernel(model, layer, dp.n_in, dp.n_out, in.width, e, notes);
      add_activation(dp.act, layer, dp.n_out, layer.precision.accum.width, fam, e);
      int64_t depth = kernel_depth(layer, dp.n_in);
      // io_stream: reads the whole vector (element by element), then computes.
      int64_t reads = in.elements;
      if (stream) e.ff += dp.n_in * in.width;  // the collected input vector
      t.iterations = reads;
      t.cost = 1;
      t.extra = rf;
      t.depth = depth;
      t.needs_all = true;
      t.tail_iters = 1;
      par_ii = rf;
      par_latency = rf + depth;
      break;
    }
    case LayerKind::Conv: {
      const auto& cp = layer.as<hls::ConvParams>();
      int64_t groups = std::max<int64_t>(cp.groups, 1);
      int64_t n_in = cp.kernel_h * cp.kernel_w * cp.c_in / groups;
      int64_t n_out = cp.c_out;
      // Depthwise/grouped: one kernel per group of c_out / groups outputs; the
      // multipliers are counted over all groups.
      rf = std::clamp<int64_t>(rf, 1, std::max<int64_t>(n_in * n_out, 1));
      add_dense_kernel(model, layer, n_in, n_out, in.width, e, notes);
      add_activation(cp.act, layer, n_out, layer.precision.accum.width, fam, e);
      int64_t hp = cp.in_h + cp.pad_top + cp.pad_bottom;
      int64_t wp = cp.in_w + cp.pad_left + cp.pad_right;
      int64_t depth = kernel_depth(layer, n_in);
      t.iterations = hp * wp;
      t.cost = rf;
      t.depth = depth;
      t.fill_iters = (cp.kernel_h - 1) * wp + cp.kernel_w;
      t.pre_iters = cp.pad_top * wp + cp.pad_left;
      t.tail_iters = cp.pad_bottom * wp + cp.pad_right + 1;
      par_ii = cp.out_h * cp.out_w * rf;
      par_latency = par_ii + depth;
      if (stream) {
        int64_t window_bits = cp.kernel_h * cp.kernel_w * cp.c_in * in.width;
        e.ff += window_bits;
        e.lut += window_bits / 2;
        add_window_buffer(model, layer, e, notes);
      }
      break;
    }
    case LayerKind::Pool: {
      const auto& pp = layer.as<hls::PoolParams>();
      int64_t hp = pp.in_h + pp.pad_top + pp.pad_bottom;
      int64_t wp = pp.in_w + pp.pad_left + pp.pad_right;
      int64_t k = pp.kernel_h * pp.kernel_w;
      int64_t ch = pp.channels;
      const bool avg = pp.kind == hls::PoolKind::Average;
      const int aw = layer.precision.accum.width;
      // kiln::global_pool_2d (io_stream) keeps one running maximum or sum per
      // channel; a windowed pool compares or adds the k pixels of a window.
      const bool running = stream && hls::is_global_pool(pp);
      const int64_t ops = running ? 1 : k - 1;
      e.lut += ch * ops * (avg ? aw : 2 * in.width);
      if (running) e.ff += ch * (avg ? aw : in.width);
      if (avg && !reciprocal_is_shift(pp)) e.dsp += ch * dsp_per_multiplier(aw, kParamWidth, fam);
      e.ff += ch * out.width;
      t.iterations = hp * wp;
      t.cost = 1;
      t.depth = 3;
      t.fill_iters = (pp.kernel_h - 1) * wp + pp.kernel_w;
      t.pre_iters = pp.pad_top * wp + pp.pad_left;
      t.tail_iters = pp.pad_bottom * wp + pp.pad_right + 1;
      t.needs_all = running;
      par_ii = 1;
      par_latency = ceil_log2(k) + 2;
      if (stream && !running) {
        int64_t window_bits = k * ch * in.width;
        e.ff += window_bits;
        e.lut += window_bits / 2;
        add_window_buffer(model, layer, e, notes);
      }
      if (running) notes += "running " + std::string(avg ? "sum" : "maximum") + " per channel; ";
      break;
    }
    case LayerKind::BatchNorm: {
      int64_t lanes = stream ? in.channels : in.numel;
      e.dsp += lanes * dsp_per_multiplier(in.width, layer.precision.weight.width, fam);
      e.lut += lanes * layer.precision.result.width;
      e.ff += lanes * layer.precision.result.width;
      t.iterations = in.elements;
      t.depth = kMultLatency + 2;
      par_latency = kMultLatency + 2;
      break;
    }
    case LayerKind::Activation: {
      const auto& ap = layer.as<hls::ActivationParams>();
      int64_t lanes = stream ? in.channels : in.numel;
      add_activation(ap.act, layer, lanes, in.width, fam, e);
      t.iterations = in.elements;
      t.depth = 2;
      par_latency = 2;
      break;
    }
    case LayerKind::Softmax: {
      const auto& sp = layer.as<hls::SoftmaxParams>();
      int64_t lanes = sp.length;
      int tw = layer.precision.table.width;
      // The sum's table: the reciprocal (one multiply per lane) or, for
      // LogSoftmax, the log (one subtraction per lane, in LUTs).
      const int sw = hls::softmax_sum_table_type(sp, layer.precision).width;
      e.bram18 += ceil_div(lanes, 2) * (sched::bram18_count(tw, layer.tables.table_size) +
                                        sched::bram18_count(sw, layer.tables.inv_table_size));
      if (sp.log)
        e.lut += lanes * std::max(in.width, sw);
      else
        e.dsp += lanes * dsp_per_multiplier(tw, sw, fam);
      e.lut += lanes * (2 * in.width + layer.precision.accum.width);
      e.ff += lanes * (in.width + tw);
      int64_t depth = 2 * ceil_log2(lanes) + (sp.log ? 1 : kMultLatency) + 6;
      t.iterations = in.elements;
      t.depth = depth;
      t.needs_all = sp.rows == 1;
      par_ii = std::max<int64_t>(sp.rows, 1);
      par_latency = par_ii + depth;
      break;
    }
    case LayerKind::Binary: {
      const auto& bp = layer.as<hls::BinaryParams>();
      const StreamShape b = stream_shape(model, layer.inputs.at(1));
      int64_t lanes = stream ? in.channels : in.numel;
      if (bp.op == hls::BinaryOp::Mul) {
        e.dsp += lanes * dsp_per_multiplier(in.width, b.width, fam);
      }
      e.lut += lanes * out.width;
      e.ff += lanes * out.width;
      // io_stream: a per-channel operand is one element, read before the map
      // (whose FIFO holds the whole map: stream_fifo_depth) and held in
      // registers while the map streams past.
      if (stream && bp.broadcast == hls::BinaryBroadcast::PerChannel) {
        e.ff += b.numel * b.width;
        notes += "per-channel operand held; ";
      }
      t.iterations = out.elements;
      t.depth = bp.op == hls::BinaryOp::Mul ? kMultLatency + 1 : 2;
      par_latency = t.depth;
      break;
    }
    case LayerKind::Recurrent: {
      // Per step: the W x and R h kernels (each priced as the Dense kernel
      // it is), the gate table lookups (one dual-port ROM per two parallel
      // reads), the gate multiplies and the state registers; the steps run
      // one after another (hls::product_layer_ii).
      const auto& rp = layer.as<hls::RecurrentParams>();
      const std::vector<hls::ProductShape> kernels = hls::kernel_products(layer);
      const int widths[] = {in.width, out.width};  // x, then h
      for (std::size_t k = 0; k < kernels.size(); ++k) {
        Layer kernel = layer;
        hls::DenseParams dense;
        dense.n_in = kernels[k].n_in;
        dense.n_out = kernels[k].n_out;
        kernel.params = dense;
        add_dense_kernel(model, kernel, kernels[k].n_in, kernels[k].n_out, widths[k], e, notes);
      }
      const bool lstm = rp.cell == hls::CellKind::Lstm;
      const int64_t lookups = (rp.gates() + (lstm ? 1 : 0)) * rp.hidden;
      const int tw = layer.precision.table.width, aw = layer.precision.accum.width;
      const int64_t rom_copies = 2 * ceil_div(lookups, 2);  // sigmoid and tanh
      if (layer.tables.table_size > kSrlMaxDepth) {
        e.bram18 += ceil_div(rom_copies, 2) * sched::bram18_count(tw, layer.tables.table_size);
      } else {
        e.lut += rom_copies * tw;
      }
      e.lut += lookups * 2 * aw;  // pre-activation adders and index clamps
      const int64_t gate_mults = (lstm ? 3 : 2) * rp.hidden;
      e.dsp += gate_mults * dsp_per_multiplier(tw, aw, fam);
      e.ff += rp.hidden * (out.width + (lstm ? aw : 0)) + 2 * kernels[0].n_out * aw;
      notes += std::to_string(lookups) + " table lookups per step; ";
      const int64_t step = rf + hls::kRecurrentStepOverhead;
      t.iterations = rp.steps;
      t.cost = step;
      t.depth = kernel_depth(layer, rp.n_in + rp.hidden);
      t.needs_all = !rp.sequences;
      par_ii = rp.steps * step;
      par_latency = par_ii + t.depth;
      break;
    }
    case LayerKind::MatMul: {
      const auto& mp = layer.as<hls::MatMulParams>();
      int64_t macs = mp.batch * mp.m * mp.k * mp.n;
      int64_t m = ceil_div(macs, rf);
      int64_t d = dsp_per_multiplier(in.width, in.width, fam);
      e.dsp += m * d;
      e.lut += m * layer.precision.accum.width;
      e.ff += m * (2 * in.width + layer.precision.accum.width);
      int64_t depth = kMultLatency + ceil_log2(mp.k) + 1;
      t.iterations = in.elements;
      t.extra = rf;
      t.depth = depth;
      t.needs_all = true;
      par_ii = rf;
      par_latency = rf + depth;
      break;
    }
    case LayerKind::Input:
      t.iterations = out.elements;
      t.depth = 1;
      t.fill_iters = 1;
      break;
    case LayerKind::ZeroPad:
      t.iterations = out.elements;
      t.depth = 1;
      break;
    case LayerKind::Clone:
      // kiln::clone: one read, one write per copy, each cycle.
      t.iterations = in.elements;
      t.depth = 1;
      break;
    case LayerKind::Slice:
      // kiln::slice reads every input element and writes the kept ones.
      t.iterations = in.elements;
      t.depth = 1;
      break;
    case LayerKind::Resize: {
      const auto& rp = layer.as<hls::ResizeParams>();
      // Linear: per output value two row products into the accumulator at
      // each of two columns, then two column products: 6 constant
      // multipliers per channel (LUTs: the weights are constants).
      const bool linear = rp.mode == hls::ResizeKind::Linear;
      const int64_t per_value = linear ? 6 : 0;
      if (stream) {
        // Two input rows buffered; the output pixels of a row after the rows they read.
        const BufferPlacement b = place_buffers(2, rp.channels * in.width, rp.in_w);
        e.bram18 += b.bram18;
        e.srl += b.srl;
        e.lut += b.srl;
        e.lut += per_value * rp.channels * layer.precision.weight.width;
        t.iterations = in.elements + out.elements;
        t.depth = linear ? 4 : 1;
        notes += "row buffer 2 x " + std::to_string(rp.in_w) + "; ";
      } else {
        e.lut += per_value * out.numel * layer.precision.weight.width;
        par_latency = linear ? 4 : 1;
      }
      break;
    }
    case LayerKind::Quantize: {
      const auto& qp = layer.as<hls::QuantizeParams>();
      // A rounding adder and a saturation compare per value.
      e.lut += (stream ? out.channels : out.numel) * 2 * qp.format.width;
      t.iterations = in.elements;
      t.depth = 1;
      if (!qp.exact) {
        e.warnings.push_back("quantizer scale " + std::to_string(qp.scale) +
                             " is not a power of two: values stay on a grid of 2^-" +
                             std::to_string(qp.format.frac()) +
                             " instead of multiples of the scale (up to half a scale step from "
                             "the model; csim reports the difference)");
      }
      break;
    }
    case LayerKind::Concat:
    case LayerKind::Transpose:
    case LayerKind::Reshape:
      // Reshape/Flatten and Concat move data through; Transpose buffers it.
      t.iterations = std::max(in.elements, out.elements);
      t.depth = 1;
      t.needs_all = layer.kind() == LayerKind::Transpose;
      if (layer.kind() == LayerKind::Transpose) e.ff += in.numel * in.width;
      break;
  }

  // The layer's output FIFOs (io_stream): one image deep (stream_fifo_depth
  // words of C * width bits), so no schedule can deadlock; SRLs up to 64
  // deep, BRAM beyond. Reshape relabels its input stream and a port is the
  // caller's, so neither has a FIFO here. io_parallel: every output array is
  // partitioned into registers.
  for (int o : layer.outputs) {
    const hls::TensorInfo& ti = model.tensors[static_cast<std::size_t>(o)];
    const StreamShape os = stream_shape(model, o);
    if (stream) {
      if (hls::is_model_output(model, o) || layer.kind() == LayerKind::Reshape) continue;
      const int64_t width = os.channels * os.width;
      const int64_t depth = hls::stream_fifo_depth(ti);
      if (depth > kSrlMaxDepth) {
        e.bram18 += sched::bram18_count(width, depth);
      } else {
        e.srl += sched::srl_luts(width, depth);
        e.lut += sched::srl_luts(width, depth);
      }
      e.lut += kFifoLut;
      e.ff += kFifoFf;
    } else if (layer.kind() != LayerKind::Reshape) {
      e.ff += os.numel * os.width;
    }
  }
  if (stream) {
    e.ii = t.iterations * t.cost + t.extra;
    e.latency = e.ii + t.depth;
  } else {
    e.ii = par_ii;
    e.latency = par_latency;
  }
  // TargetCycles chose the reuse factor by this very II (derived.h).
  if (hls::product_shape(layer)) {
    KILN_ASSERT(e.ii == hls::product_layer_ii(model, layer, rf),
                "estimate: II of " + layer.name + " disagrees with product_layer_ii");
    if (layer.target_cycles > 0 && e.ii > layer.target_cycles) {
      e.warnings.push_back("TargetCycles " + std::to_string(layer.target_cycles) + " not met: II " +
                           std::to_string(e.ii) + " even at reuse factor " + std::to_string(rf) +
                           " (raise TargetCycles or use io_parallel)");
    }
  }
  e.notes = notes;
  if (!e.notes.empty() && e.notes.back() == ' ') e.notes.resize(e.notes.size() - 2);
  return w;
}

}  // namespace

// ---- building blocks ----------------------------------------------------------

int64_t dsp_per_multiplier(int width_a, int width_b, fpga::Family family) {
  // HLS builds narrow products in LUTs: its choice, not a second formula.
  if (std::min(width_a, width_b) <= kNarrowWidth) return 0;
  return sched::dsp_count(width_a, width_b, family);
}

ReuseLoopSelects reuse_loop_selects(int64_t n_in, int64_t n_out, int64_t rf) {
  ReuseLoopSelects s;
  const int64_t total = n_in * n_out;
  if (total <= 0) return s;
  rf = std::clamp<int64_t>(rf, 1, total);
  const int64_t m = ceil_div(total, rf);
  // In cycle r, multiplier i computes product k = r * m + i: input k / n_out,
  // accumulator k % n_out. Over the cycles r * m mod n_out runs through the
  // multiples of g = gcd(m, n_out), so the input index steps to the next
  // input only at multipliers i that are multiples of g: each run of g
  // multipliers reads the same input in every cycle and shares one select.
  const int64_t g = std::gcd(m, n_out);
  s.input_selects = ceil_div(m, g);
  // One candidate per cycle, but no more than the inputs it can reach.
  s.input_candidates = std::min({rf, n_in, (rf - 1) * m / n_out + 1});
  // Its accumulator index moves by m mod n_out each cycle: n_out / g values.
  s.acc_targets = std::min(rf, n_out / g);
  s.acc_sources = ceil_div(m * s.acc_targets, n_out);
  return s;
}

BufferPlacement place_buffers(int64_t count, int64_t width, int64_t depth) {
  BufferPlacement b;
  if (depth > kSrlMaxDepth) {
    // At least one BRAM per buffer: each has its own ports and pointers.
    b.bram18 = count * std::max<int64_t>(1, sched::bram18_count(width, depth));
  } else {
    b.srl = count * sched::srl_luts(width, depth);
  }
  return b;
}

// ---- the model -------------------------------------------------------------------

ModelEstimate estimate(const Model& model) {
  ModelEstimate result;
  result.clock_ns = model.clock_period_ns;
  LayerEstimate& total = result.total;
  total.layer = "total";

  // Per tensor: when its first and last element leave the producer (io_stream),
  // or when it is complete (io_parallel).
  std::map<int, std::pair<int64_t, int64_t>> times;
  int64_t end = 0;
  for (const Layer& layer : model.layers) {
    Work w = estimate_layer(model, layer);
    const LayerEstimate& e = w.est;
    const StreamTiming& t = w.timing;
    int64_t first_in = 0, last_in = 0;
    for (int in : layer.inputs) {
      auto it = times.find(in);
      if (it == times.end()) continue;
      first_in = std::max(first_in, it->second.first);
      last_in = std::max(last_in, it->second.second);
    }
    int64_t first_out = 0, last_out = 0;
    if (model.io_type == IOType::Stream) {
      // The layer is either input bound (it finishes `tail` after its last
      // input) or compute bound (it runs its iterations back to back from
      // its first input, the padding iterations before it).
      int64_t span = last_in - first_in;
      int64_t tail = t.tail_iters * t.cost + t.extra;
      int64_t busy = (t.iterations - t.pre_iters) * t.cost + t.extra;
      last_out = std::max(last_in + tail, first_in + busy) + t.depth;
      if (t.needs_all) {
        first_out = last_out;
      } else {
        int64_t it = std::max<int64_t>(t.iterations, 1);
        int64_t fill = std::max(t.fill_iters * t.cost, span * t.fill_iters / it);
        first_out = std::min(first_in + fill + t.depth, last_out);
      }
    } else {
      first_out = last_out = last_in + e.latency;
    }
    for (int o : layer.outputs) times[o] = {first_out, last_out};
    end = std::max(end, last_out);

    total.ii = std::max(total.ii, e.ii);
    static_cast<fpga::Resources&>(total) += e;
    result.layers.push_back(e);
  }
  int64_t out_end = 0;
  for (int o : model.outputs) {
    auto it = times.find(o);
    if (it != times.end()) out_end = std::max(out_end, it->second.second);
  }
  total.latency = out_end > 0 ? out_end : end;
  total.latency = std::max(total.latency, total.ii);
  total.notes = model.io_type == IOType::Stream ? "dataflow: II = max layer II"
                                                : "II = max layer II; latency = critical path";
  return result;
}

std::vector<std::string> warnings(const ModelEstimate& est) {
  std::vector<std::string> out;
  for (const LayerEstimate& e : est.layers)
    for (const std::string& w : e.warnings) out.push_back("layer " + e.layer + ": " + w);
  return out;
}

nlohmann::json to_json(const ModelEstimate& est) {
  auto row = [](const LayerEstimate& e) {
    nlohmann::json j = fpga::to_json(e);
    j["layer"] = e.layer;
    j["ii"] = e.ii;
    j["latency"] = e.latency;
    j["notes"] = e.notes;
    if (!e.warnings.empty()) j["warnings"] = e.warnings;
    return j;
  };
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerEstimate& e : est.layers) layers.push_back(row(e));
  return nlohmann::json{{"clock_ns", est.clock_ns}, {"layers", layers}, {"total", row(est.total)}};
}

std::string to_table(const ModelEstimate& est, const std::string& part) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"layer", "II", "latency", "DSP", "BRAM18", "LUT", "FF", "SRL"});
  auto count = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return std::string(buf);
  };
  auto add = [&](const LayerEstimate& e) {
    rows.push_back({e.layer, std::to_string(e.ii), std::to_string(e.latency), count(e.dsp),
                    count(e.bram18), count(e.lut), count(e.ff), count(e.srl)});
  };
  for (const LayerEstimate& e : est.layers) add(e);
  add(est.total);
  if (const std::optional<fpga::Device> dev = fpga::find_device(part)) {
    auto pct = [](double used, double avail) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * used / avail);
      return std::string(buf);
    };
    const LayerEstimate& t = est.total;
    const fpga::Resources& c = dev->capacity;
    rows.push_back({dev->name, "", "", pct(t.dsp, c.dsp), pct(t.bram18, c.bram18),
                    pct(t.lut, c.lut), pct(t.ff, c.ff), ""});
  }
  std::vector<size_t> w(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::ostringstream os;
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) {
      std::string cell = r[i];
      std::string pad(w[i] - cell.size(), ' ');
      if (i == 0) {
        os << cell << pad;
      } else {
        os << "  " << pad << cell;  // numbers right-aligned
      }
    }
    os << '\n';
  }
  char clk[64];
  std::snprintf(clk, sizeof clk, "clock %.2f ns; latency %.2f us\n", est.clock_ns,
                static_cast<double>(est.total.latency) * est.clock_ns / 1000.0);
  os << clk;
  return os.str();
}

}  // namespace kiln::estimate

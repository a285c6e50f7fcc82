// Latency and resource estimates for an hls::Model with no vendor tool.
//
// Every number comes from a closed formula over the layer's shape and resolved
// configuration (precision, reuse factor, strategy, conv implementation, io
// type). The formulas and the reasoning behind each constant are documented in
// docs/estimates.md; estimate_test.cpp checks them on hand-computed cases.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/fpga/family.h"
#include "kiln/fpga/resources.h"
#include "kiln/hls/model.h"

namespace kiln::estimate {

// A layer's timing and its resources (fpga::Resources: `lut` counts every
// LUT, the shift registers' included, and `srl` those of them used as SRL32).
struct LayerEstimate : fpga::Resources {
  std::string layer;
  int64_t ii = 0;       // initiation interval, cycles
  int64_t latency = 0;  // first input to last output, cycles
  std::string notes;
  // What the user asked for and this layer cannot give (a TargetCycles that
  // no reuse factor meets).
  std::vector<std::string> warnings;
};

struct ModelEstimate {
  std::vector<LayerEstimate> layers;
  LayerEstimate total;  // layer = "total"
  double clock_ns = 0;
};

// Every layer's warnings, each prefixed "layer NAME: ".
std::vector<std::string> warnings(const ModelEstimate& est);

ModelEstimate estimate(const hls::Model& model);

nlohmann::json to_json(const ModelEstimate& estimate);

// Aligned text table, one row per layer plus the total; utilization
// percentages when `part` is in the device database (devices.h).
std::string to_table(const ModelEstimate& estimate, const std::string& part = "");

// ---- building blocks (exposed for tests and for docs/estimates.md) ----------

// DSP slices for one a x b multiplier in Vitis HLS: 0 when either operand is
// narrow (<= 10 bits: HLS builds a LUT multiplier), else sched::dsp_count.
int64_t dsp_per_multiplier(int width_a, int width_b, fpga::Family family);

// What the Resource strategy's reuse loop (dense.h dense_resource) selects
// when n_in * n_out products share m = ceil(n_in * n_out / rf) multipliers:
// in cycle r multiplier i computes product k = r * m + i, of input k / n_out
// into accumulator k % n_out.
struct ReuseLoopSelects {
  int64_t input_selects = 0;     // distinct input multiplexers (multipliers share them)
  int64_t input_candidates = 0;  // inputs each one chooses among
  int64_t acc_targets = 0;       // accumulators one multiplier adds into over the cycles
  int64_t acc_sources = 0;       // multipliers one accumulator takes its sum from
};
ReuseLoopSelects reuse_loop_selects(int64_t n_in, int64_t n_out, int64_t rf);

// Above this depth a FIFO or shift register goes to BRAM instead of SRLs, and
// a ROM goes to BRAM instead of LUTs.
inline constexpr int64_t kSrlMaxDepth = 64;

// Where `count` buffers (window shift registers or FIFOs, hls::window_buffer)
// of `depth` words of `width` bits go: SRLs up to kSrlMaxDepth words, else
// BRAM, at least one block per buffer (each has its own ports and pointers).
struct BufferPlacement {
  int64_t bram18 = 0;
  int64_t srl = 0;
};
BufferPlacement place_buffers(int64_t count, int64_t width, int64_t depth);

}  // namespace kiln::estimate

// kiln's own RTL: a configured HLS model as Verilog, through the Loop IR
// (loop/), symbolic unrolling (dfg/), scheduling (sched/) and binding
// (docs/rtl-design.md).
//
// Each layer is a stage: its unrolled graph scheduled into cycles under the
// clock period and the layer's MultiplierLimit. A stage without shared
// multipliers is a pure pipeline (a new sample every cycle, every value that
// crosses a clock edge in a register per edge it crosses); a stage whose
// multipliers are shared runs one sample at a time under a cycle counter,
// each crossing value held in one register and the shared units' operands
// multiplexed by cycle. The top starts each stage at a fixed cycle after a
// sample enters: the first at which every element it reads is ready by the
// cycle the stage takes it (a layer with a kept loop takes each element just
// before its first read, so it may start while its producer still writes the
// later ones). It delays values that skip stages, and accepts a new sample
// every `interval_cycles` (the slowest stage's interval): stages overlap.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kiln/fpga/resources.h"
#include "kiln/hls/model.h"
#include "kiln/loop/loop_ir.h"
#include "kiln/netlist/netlist.h"
#include "kiln/rtl/analysis/channels.h"
#include "kiln/rtl/plan/plan.h"
#include "kiln/rtl/stage/calibration.h"

namespace kiln::rtl {

// The scheduler of every stage: the config's Model.Scheduler (one enum, one
// spelling table: hls/rtl_settings.h).
using Scheduler = hls::RtlScheduler;

struct IntervalTarget {
  std::string layer;   // hls::Layer::name
  int64_t cycles = 0;  // the most cycles between samples
  std::string source;  // the config that asks, for reports ("TargetCycles 400")
};

struct RtlOptions {
  Scheduler scheduler = Scheduler::List;
  // The most variable x variable multipliers each layer may instantiate, by
  // layer name (hls::Layer::name); a layer not listed has no limit.
  std::vector<std::pair<std::string, int>> multiplier_limits;
  // Layers folded onto their multipliers (options.h: a Dense layer whose
  // MultiplierLimit the config sets, without an interval target): unless its
  // Loop block sets a plan, kiln takes the fastest plan whose products run on
  // those multipliers, or the cheapest within 5% of it (search.h).
  std::set<std::string> fold;
  // The most cycles between samples each layer may take, where the config
  // asks (options.h: from TargetCycles or ReuseFactor); kiln picks the
  // layer's loop plan (search.h) unless its Loop block sets one.
  std::vector<IntervalTarget> interval_targets;
  // The most cycles from a sample's input to its results (Model.LatencyCycles):
  // the searched layers' plans are raised until their latencies add up to it.
  std::optional<int64_t> latency_cycles;
  // Unrolled operations allowed per layer (dfg::kMaxUnrolledOps by default).
  int64_t max_ops = 0;
  // The config's Loop and Buffer blocks, applied once to the Loop IR
  // (design_program, loop/directives.h): from then on the program's
  // directives are the one form of them, and plans (plan.h) read and write
  // those.
  hls::ConfiguredDirectives directives;
  // The layers whose loops a Loop block names (their plans are the user's,
  // never searched) and the buffers a Buffer block names (a search leaves
  // their storage as configured).
  std::set<std::string> configured_layers, configured_buffers;
  // Convolutions whose ConvImplementation the config sets, by layer name:
  // LineBuffer (true) builds a kept loop in the streaming, line-buffered form
  // (loop/lower_layers.h line_buffer), Encoded (false) in the direct form
  // (one iteration per output pixel). Unset: the TargetCycles search tries
  // both, and configured loops are direct.
  std::map<std::string, bool> line_buffer;
  // Layers whose ConstantProducts the config sets, by layer name: true puts
  // the products by their weights on DSP slices (LayerPlan). Unset: the
  // searches try both; a configured plan keeps them in LUTs.
  std::map<std::string, bool> constants_on_dsps;
  // Layers whose AdderDepth the config sets, by layer name: true shares the
  // sums of products by their weights at the least adder depth
  // (LayerPlan::least_depth). Unset: the searches try both.
  std::map<std::string, bool> least_depth;
  // Config keys that shape kiln compile's project and not this design, said
  // in the report rather than ignored in silence (options.h).
  std::vector<std::string> notes;
  // A design whose plans a search chose (TargetCycles, ReuseFactor,
  // LatencyCycles, a MultiplierLimit fold) must fit the part by its estimate;
  // false writes it anyway (`kiln rtl --over-capacity`).
  bool fit_part = true;
  // The most register bits the top may spend delaying values that skip
  // stages (top.h kMaxTopDelayBits by default); a design that needs more is
  // refused before its top is built.
  int64_t max_top_delay_bits = int64_t{1} << 22;
  // The model inputs' form (options.h input_lanes): streamed a pixel per
  // beat (true: IOType io_stream), one wide word (false: io_parallel), or,
  // with no IOType in the config, streamed where the interval targets leave
  // room for the beats.
  std::optional<bool> stream_inputs;
};

// One model input or output: a flat vector port of `lanes` elements of
// `type.width` raw bits each, lane i at bits [i*W +: W]. A sample is
// `beats()` consecutive beats of it, beat j holding elements j*lanes ..
// j*lanes + lanes - 1 in the tensor's channels-last order
// (hls::Model::Port tells how it maps to ONNX's order): one beat, the whole
// tensor, unless the input is streamed (RtlOptions::stream_inputs), when a
// beat is a pixel (the last dimension). Outputs are one beat.
struct Port {
  std::string name;  // Verilog identifier (the tensor's sanitized name)
  int64_t numel = 0;
  loop::ScalarType type;  // raw two's complement (or unsigned) bits
  int64_t lanes = 0;      // elements per beat; 0 means numel
  int64_t lanes_per_beat() const { return lanes > 0 ? lanes : numel; }
  int64_t beats() const { return numel / lanes_per_beat(); }
};

// What the stage's graph holds, for reports, and its estimated resources
// (the operator library's, sched/operator_library.h; tables read into a
// register go to block RAM, as Yosys maps them).
struct StageReport : fpga::Resources {
  std::string name;  // the layer's name
  std::string onnx_name;
  std::string plan;               // how it is built (plan.h), and why if searched
  int64_t loop_ops = 0;           // Loop IR operations before unrolling
  int64_t nodes = 0;              // graph nodes after folding
  int64_t multipliers = 0;        // variable x variable products
  int64_t multiplier_units = 0;   // DSP multipliers instantiated (shared when limited)
  int64_t const_multipliers = 0;  // products by constants, as shifts and adds
  int64_t adders = 0;             // add/sub nodes
  // Adders and subtractors spent on products by constants in LUTs (each
  // product's canonical signed digits less one, or its group's shared plan:
  // constant_products.h), those that add values together (add, subtract and
  // negate nodes), and the longest chain of both from an input to an output
  // (a product by constant counts the levels of its balanced digit tree).
  int64_t product_adders = 0;
  int64_t sum_adders = 0;
  int adder_depth = 0;
  int64_t lookups = 0;  // table lookups (ROMs)
  // Pairs of products computed by one DSP slice each (product_pairs.h), and
  // the sums of products by constants rebuilt from shared adder graphs
  // (cmvm_pass.h: its roots).
  int64_t dsp_pairs = 0;
  int64_t shared_sums = 0;
  int start_cycle = 0;          // when the stage starts after a sample enters
  int latency_cycles = 0;       // from its start to its registered results
  int interval_cycles = 1;      // 1: pipelined; else its latency (one sample at a time)
  int64_t register_bits = 0;    // flip-flops holding values across cycles
  double critical_path_ns = 0;  // the schedule's longest chain in a cycle (estimate)
  std::string loop_ii;   // a kept loop's II and what sets it (sched::describe_ii); "" if none
  LayerPlan layer_plan;  // the plan it was built from
  // Its LUTs and flip-flops per cost term, raw; lut and ff are their
  // calibrated sum (calibration.h).
  CostTerms terms;
};

// Sets r's lut and ff to its cost terms' calibrated sum (calibration.h),
// once every LUT and flip-flop it counts is booked under a term.
void calibrate_estimate(StageReport& r);

struct Design {
  std::string top;  // the top module's name
  double clock_ns = 0;
  int latency_cycles = 0;   // from an accepted input to out_valid
  int interval_cycles = 1;  // cycles between accepted inputs
  double critical_path_ns = 0;
  std::vector<Port> inputs, outputs;  // hls::Model::inputs / outputs order
  std::vector<StageReport> stages;
  // The top module's own registers: the delay lines of values that skip
  // stages (name: the top's; register_bits, lut and ff set). A chain of three
  // or more registers without reset or enable is a shift register to Xilinx
  // synthesis (Yosys's xilinx_srl, Vivado): one SRLC32E LUT per bit per 32
  // stages; a shorter one stays in flip-flops.
  StageReport top_report;
  // Every tensor between layers, and whether a channel carries it.
  std::vector<Handoff> handoffs;
  // The hardware: every stage's module (and the modules they instantiate),
  // then the top (netlist/netlist.h), and its Verilog: file name -> text, one
  // module per file (netlist/verilog.h).
  netlist::Design netlist;
  std::vector<std::pair<std::string, std::string>> files;
  // plans.yaml: every layer's plan as the config's Loop, Buffer and
  // ConvImplementation entries (rtl/plan/plan.h), so that a searched design can be
  // kept as a config.
  std::string plans;
};

// The Loop IR program build_design starts from: the model lowered, the
// config's Loop and Buffer directives applied, and the convolutions the
// config builds line-buffered (RtlOptions::line_buffer) in that form.
loop::Program design_program(const hls::Model& model, const RtlOptions& options);

// Builds the design. Throws kiln::Error: Unsupported for layers without a
// Loop IR lowering or over the unrolling bound (naming the layer), and
// InvalidModel when a schedule is infeasible (naming the constraint) or when
// a searched design needs more than the part has (naming each resource).
Design build_design(const hls::Model& model, const RtlOptions& options);

// The design's estimated resources: its stages' and the top's delay lines.
fpga::Resources estimate_of(const Design& design);

}  // namespace kiln::rtl

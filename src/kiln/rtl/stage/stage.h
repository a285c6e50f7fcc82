// One stage of a design: a layer's unrolled graph scheduled, bound and priced,
// and, unless only priced, built as a netlist module (private to rtl/;
// design.cpp connects the stages).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kiln/dfg/unroll.h"
#include "kiln/netlist/netlist.h"
#include "kiln/rtl/analysis/channels.h"
#include "kiln/rtl/lower/design.h"
#include "kiln/sched/operator_library.h"

namespace kiln::rtl {

struct StageCache;

// An element a stage reads or writes: bits [lsb, lsb + type.width) of the
// packed port `port`.
struct StagePortElement {
  dfg::Element where;
  loop::ScalarType type;  // the element's buffer type
  std::string port;       // the module's packed port that carries it
  int lsb = 0;
  // When, in cycles after the stage's start: an input is taken in cycle `at`
  // (its port must carry it then); an output is valid from cycle `at` on,
  // only in that cycle unless `held`: then it stays in a register until the
  // next sample's first write to it, in cycle `rewritten` after the stage's
  // next start. The top starts a stage as early as these allow (dataflow).
  int at = 0;
  bool held = false;
  int rewritten = 0;
};

// Elements per packed stage port. Icarus finds a module's signal by a linear
// search for every port (and every name a process reads), so one port per
// element compiles in time ports x signals; whole-buffer vectors instead make
// every reader of an element see every change of the buffer.
inline constexpr int kStagePortElements = 64;

// Names consecutive elements' packed ports <prefix>0, <prefix>1, ... and their
// bit offsets, kStagePortElements per port.
void pack_ports(std::vector<StagePortElement>& elements, const char* prefix);

// Each packed port's name and width, in order.
std::vector<std::pair<std::string, int>> packed_widths(
    const std::vector<StagePortElement>& elements);

// Each packed port of `elements` (in order) with the concatenation of
// value(i) over its elements i (the last the most significant), built in `m`.
std::vector<std::pair<std::string, netlist::ValueId>> packed_values(
    netlist::Module& m, const std::vector<StagePortElement>& elements,
    const std::function<netlist::ValueId(std::size_t)>& value);

struct StageOptions {
  double clock_ns = 5;
  fpga::Family family = fpga::Family::UltraScalePlus;
  Scheduler scheduler = Scheduler::List;
  std::optional<int> multiplier_limit;
  // Products by constants on DSP slices (node_cost.h constant_on_dsp) rather
  // than shifts and adds in LUTs: the plan's choice (LayerPlan).
  bool constants_on_dsps = false;
  // Called, before it writes its Verilog, by a stage that may take each input
  // element in any cycle from its start to the element's `at` (a loop stage:
  // to its first read); sets each `at` to the cycle the design delivers it
  // (design.cpp: when its producer has it, so it needs no delay registers),
  // and returns the cycle (after a sample enters) the stage will start: the
  // first at which every input, and every element it reads from a channel
  // (`channel_inputs`, read from its memory at `at`), is there in time.
  std::function<int(std::vector<StagePortElement>& inputs,
                    const std::vector<StagePortElement>& channel_inputs)>
      time_inputs;
  // The channels (channels.h) the stage writes or reads.
  std::vector<const Channel*> channels;
  // For a channel's consumer: the cycles, after a sample enters, at which
  // the producer writes each element of bank `bank`, in order.
  std::function<std::vector<int64_t>(const Channel& channel, int bank)> channel_writes;
  int interval = 1;  // the design's interval so far: samples come at least this far apart
  // false: schedule, bind and price only (the report), no netlist: what the
  // plan searches ask.
  bool emit = true;
  // What the Pricer keeps between the plans it prices (stage_cache.h), with
  // emit false; null: nothing is kept.
  StageCache* cache = nullptr;
};

struct BuiltStage {
  StageReport report;
  std::string module;       // its module's name
  netlist::Module netlist;  // the module (when built with StageOptions::emit)
  // In port order; consecutive elements share a packed port.
  std::vector<StagePortElement> inputs;
  std::vector<StagePortElement> outputs;
  bool sequential = false;  // has the clk port
  bool started = false;     // has rst and start ports (one sample at a time)
  bool phased = false;      // a loop body with a `ph` port (units shared by phase)
  // Modules it instantiates, each before the modules that instantiate it.
  std::vector<netlist::Module> submodules;
  // Elements handed on or taken through channels, with no bits on the ports
  // above: an output's `at` is the cycle after its write (it is in the
  // consumer's memory from then on), an input's the cycle it is first read.
  std::vector<StagePortElement> channel_outputs, channel_inputs;
  // A producer's writes into each bank of its channels: the cycles after the
  // stage's start, in order, and its ports chw_<buffer>_<bank> (data) and
  // chv_<buffer>_<bank> (valid), which its consumer takes as inputs of the
  // same names.
  std::map<std::pair<int, int>, std::vector<int64_t>> channel_write_times;
  // Every write port of a kept loop's body into a buffer of the program
  // (not its own memories): (storage buffer, LoopBody::writes index) -> the
  // cycles after the stage's start at which it writes, in order. What a
  // channel's consumer needs of its producer, whether or not the producer
  // was built with the channel.
  std::map<std::pair<int, int>, std::vector<int64_t>> port_write_times;
  std::vector<std::pair<std::string, int>> channel_outputs_ports;  // name, width
  std::vector<std::pair<std::string, int>> channel_inputs_ports;
};

// A graph to build as a stage, by reference: a layer's unrolled graph, or a
// part of a kept loop's split (not copied per price).
struct StageGraph {
  std::string name;       // the layer's (and the part's) name
  std::string onnx_name;  // for messages
  int64_t loop_ops = 0;   // Loop IR operations before unrolling
  const dfg::Graph* graph = nullptr;
  static StageGraph of(const dfg::Stage& s) { return {s.name, s.onnx_name, s.loop_ops, &s.graph}; }
};

// Schedules `stage` and builds its module; its outputs are presented in
// their program buffers' types.
BuiltStage build_stage(const StageGraph& stage, const loop::Program& program,
                       const StageOptions& options, const std::string& module_name);

// One iteration of a kept loop (loop_stage.h) as a module: each node at its
// cycle in a modulo schedule of initiation interval `ii`. Products share
// multiplier units by phase (the cycle mod ii, the module's `ph` input) when
// the layer's MultiplierLimit asks for fewer units than products; a value that
// crosses clock edges has a register per edge, so the iterations in flight
// never share one.
struct ModuloTiming {
  int ii = 1;
  std::vector<int> start;      // per node: its cycle; an Input's is when its value arrives
  std::vector<bool> stable;    // per node: an Input holding its value through the loop (state)
  std::vector<int> output_at;  // per graph output: the cycle its value is taken
};

BuiltStage build_body(const StageGraph& body, const loop::Program& program,
                      const StageOptions& options, const ModuloTiming& timing,
                      const std::string& module_name);

}  // namespace kiln::rtl

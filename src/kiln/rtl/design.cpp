// The design driver: lower, unroll, schedule and write each stage, then the
// top that starts the stages at fixed cycles and connects them, and the
// testbench.
#include "kiln/rtl/design.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "kiln/dfg/unroll.h"
#include "kiln/fpga/devices.h"
#include "kiln/loop/directives.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/rtl/search.h"
#include "kiln/rtl/stage.h"
#include "kiln/rtl/timing.h"
#include "kiln/rtl/verilog_text.h"
#include "kiln/sched/operator_library.h"
#include "kiln/support/error.h"
#include "kiln/support/names.h"

namespace kiln::rtl {

namespace {

using loop::ScalarType;

// The shortest register chain Yosys's xilinx_srl turns into a shift register
// (its -minlen default).
constexpr int kShiftRegisterMinDepth = 3;

std::string element_wire(const loop::Program& p, const dfg::Element& e) {
  return fmt::format("{}_e{}", p.buffers[static_cast<std::size_t>(e.buffer)].name, e.element);
}

int bits_for(int64_t v) {
  int b = 1;
  while ((int64_t{1} << b) <= v) ++b;
  return b;
}

// Buffers the layers hand each other are registers (loop_stage.h): a
// partition or a memory kind for one would be ignored, so it is refused.
void refuse_memories_of_computed_buffers(const loop::Program& p, const RtlOptions& o) {
  for (const auto& [name, bc] : o.buffers) {
    const int b = p.find_buffer(name);
    if (b < 0) continue;  // apply_directives has named it already
    // Weights are ROMs; a layer's own scratch may be a memory (memories.h).
    const loop::BufferRole role = p.buffers[static_cast<std::size_t>(p.storage_of(b))].role;
    if (role == loop::BufferRole::Const || role == loop::BufferRole::Local) continue;
    const bool partition = bc.partition && *bc.partition != hls::BufferPartition::None &&
                           *bc.partition != hls::BufferPartition::Complete;
    const bool memory = bc.storage && *bc.storage != hls::BufferStorage::Auto &&
                        *bc.storage != hls::BufferStorage::Registers;
    if (partition || memory)
      throw_error(ErrorKind::Unsupported, bc.where,
                  fmt::format("'{}' holds a model input or a layer's results, which kiln rtl "
                              "keeps in registers, read through a multiplexer per read (no "
                              "ports to partition, no memory to choose)",
                              name),
                  "remove the directive; partitions and storage apply to weights so far");
  }
}

// wire vld_<k> for each k of `taps`: a sample was accepted k cycles ago.
// Short latencies shift the accept pulse through a register per cycle; long
// ones (a loop's hundreds of cycles) count each sample in flight instead,
// ceil(latency / interval) + 1 counters, as samples come `interval` apart.
std::string valid_taps(int latency, int interval, const std::set<int>& taps) {
  std::string s;
  constexpr int kMaxShiftedValid = 256;
  if (latency <= kMaxShiftedValid) {
    s += fmt::format("  reg {}vld;  // vld[k]: the sample accepted k cycles ago\n",
                     fmt::format("[{}:1] ", std::max(latency, 1)));
    s += fmt::format(
        "  always @(posedge clk) vld <= rst ? {{{}{{1'b0}}}} : {};\n", latency,
        latency == 1 ? std::string("accept") : fmt::format("{{vld[{}:1], accept}}", latency - 1));
    for (int k : taps) s += fmt::format("  wire vld_{0} = vld[{0}];\n", k);
    return s;
  }
  const int slots = (latency + interval - 1) / interval + 1;
  const int ab = bits_for(latency), sb = bits_for(slots);
  s += fmt::format("  // Samples in flight, each counted from its accept: age[j] cycles ago.\n");
  s += fmt::format("  reg {}next;\n", range(sb));
  s += fmt::format(
      "  always @(posedge clk) if (rst) next <= {0}; else if (accept) next <= next == {1} ? {0} : "
      "next + {2};\n",
      literal(0, sb), literal(slots - 1, sb), literal(1, sb));
  for (int j = 0; j < slots; ++j)
    s += fmt::format(
        "  reg {0}age{1};\n  reg live{1};\n"
        "  always @(posedge clk)\n"
        "    if (rst) live{1} <= 1'b0;\n"
        "    else if (accept && next == {2}) begin live{1} <= 1'b1; age{1} <= {3}; end\n"
        "    else if (live{1}) begin live{1} <= age{1} != {4}; age{1} <= age{1} + {3}; end\n",
        range(ab), j, literal(j, sb), literal(1, ab), literal(latency, ab));
  for (int k : taps) {
    std::string any;
    for (int j = 0; j < slots; ++j)
      any += fmt::format("{}(live{} && age{} == {})", j ? " | " : "", j, j, literal(k, ab));
    s += fmt::format("  wire vld_{} = {};\n", k, any);
  }
  return s;
}

}  // namespace

loop::Program design_program(const hls::Model& model, const RtlOptions& options) {
  loop::Program program = loop::lower_model(model);
  // Convolutions the config builds line-buffered (ConvImplementation:
  // LineBuffer) take that form before their plans are made, so that the
  // directives name its loops and buffers; one without it (a stride over 1)
  // stays direct.
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const auto it = options.line_buffer.find(program.kernels[k].name);
    if (it != options.line_buffer.end() && it->second &&
        loop::can_line_buffer(program, model, static_cast<int>(k)))
      loop::line_buffer(program, model, static_cast<int>(k));
  }
  loop::apply_directives(program, options.loops, options.buffers);  // names and values
  return program;
}

namespace {

// The top module: the stages connected as the timing says (each started
// when its inputs are valid, values that skip stages delayed, channel banks
// by name), the valid chain, the input spacing. Sets the design's latency
// and the delay lines' cost (Design::top_report).
std::string top_verilog(Design& d, const loop::Program& program,
                        const std::vector<BuiltStage>& built, const DesignTiming& timing) {
  std::string body;
  std::set<int> taps;                                      // k for the vld_<k> wires the top reads
  std::map<std::string, std::pair<int, int>> delay_depth;  // element wire -> (registers, width)
  std::set<std::string> consumed;
  std::set<std::string> made;  // element wires declared
  for (std::size_t k = 0; k < program.inputs.size(); ++k) {
    const int b = program.storage_of(program.inputs[k]);
    const Port& port = d.inputs[k];
    for (int64_t e = 0; e < port.numel; ++e) {
      const std::string w = element_wire(program, {b, e});
      body += fmt::format("  wire {}{} = {}[{}:{}];\n", range(port.type.width), w, port.name,
                          (e + 1) * port.type.width - 1, e * port.type.width);
      made.insert(w);
    }
  }
  // The element as read `at` cycles after the sample entered: its wire while
  // it holds the value, else a register chain from the last cycle it did.
  auto read = [&](const dfg::Element& e, int at, const ScalarType& t) {
    const std::string wire = element_wire(program, e);
    const int delay = timing.delay(e, at);
    consumed.insert(wire);
    if (delay == 0) return wire;
    auto& [depth, width] = delay_depth[wire];
    width = t.width;
    for (int k = depth + 1; k <= delay; ++k) {
      body += fmt::format("  reg {}{}_d{};\n", range(t.width), wire, k);
      body += fmt::format("  always @(posedge clk) {0}_d{1} <= {2};\n", wire, k,
                          k == 1 ? wire : fmt::format("{}_d{}", wire, k - 1));
    }
    depth = std::max(depth, delay);
    return fmt::format("{}_d{}", wire, delay);
  };
  for (const BuiltStage& b : built) {
    const int start = b.report.start_cycle;
    std::vector<std::string> conn;
    if (b.sequential || b.started) conn.push_back(".clk(clk)");
    if (b.started) {
      conn.push_back(".rst(rst)");
      conn.push_back(
          fmt::format(".start({})", start == 0 ? "accept" : fmt::format("vld_{}", start)));
      if (start > 0) taps.insert(start);
    }
    for (const auto& [port, cat] : packed_concatenations(b.inputs, [&](std::size_t i) {
           const StagePortElement& e = b.inputs[i];
           return read(e.where, start + e.at, e.type);
         }))
      conn.push_back(fmt::format(".{}({})", port, cat));
    for (const StagePortElement& e : b.outputs) {
      const std::string w = element_wire(program, e.where);
      body += fmt::format("  wire {}{};\n", range(e.type.width), w);
      made.insert(w);
    }
    for (const auto& [port, cat] : packed_concatenations(
             b.outputs, [&](std::size_t i) { return element_wire(program, b.outputs[i].where); }))
      conn.push_back(fmt::format(".{}({})", port, cat));
    // Channels: the producer's banks are wires of the top named after them,
    // which the consumer takes.
    for (const auto& [port, width] : b.channel_outputs_ports) {
      body += fmt::format("  wire {}{};\n", range(width), port);
      conn.push_back(fmt::format(".{0}({0})", port));
    }
    for (const auto& [port, width] : b.channel_inputs_ports)
      conn.push_back(fmt::format(".{0}({0})", port));
    std::string c;
    for (std::size_t i = 0; i < conn.size(); ++i) c += (i ? ",\n    " : "") + conn[i];
    body += fmt::format("  {} s_{}(\n    {});\n", b.module, b.module, c);
  }
  // Outputs, all valid at the same cycle: the latest element's.
  std::vector<std::pair<int, int64_t>> outs;
  for (std::size_t k = 0; k < program.outputs.size(); ++k)
    outs.emplace_back(program.storage_of(program.outputs[k]), d.outputs[k].numel);
  d.latency_cycles = timing.latest(outs);
  for (std::size_t k = 0; k < program.outputs.size(); ++k) {
    const int b = program.storage_of(program.outputs[k]);
    const Port& port = d.outputs[k];
    std::string cat;
    for (int64_t e = port.numel; e-- > 0;)
      cat += read({b, e}, d.latency_cycles, port.type) + (e ? ", " : "");
    body += fmt::format("  assign {} = {{{}}};\n", port.name, cat);
  }

  // The delay lines' cost (Design::top_report).
  d.top_report.name = d.top;
  for (const auto& [wire, chain] : delay_depth) {
    const auto [depth, width] = chain;
    d.top_report.register_bits += int64_t{depth} * width;
    if (depth >= kShiftRegisterMinDepth) {
      const auto srl = static_cast<double>(sched::srl_luts(width, depth));
      d.top_report.lut += srl;
      d.top_report.srl += srl;
    } else {
      d.top_report.ff += static_cast<double>(width) * depth;
    }
  }

  // The top: ports, the valid chain, the input spacing, the unused sink.
  std::string top = fmt::format(
      "// {}: {} stage(s), latency {} cycles, a new sample every {} cycle(s).\n"
      "// Generated by kiln rtl; the clock period ({} ns) is kiln's delay-model estimate.\n",
      d.top, d.stages.size(), d.latency_cycles, d.interval_cycles, d.clock_ns);
  top +=
      "module " + d.top + "(\n  input clk,\n  input rst,\n  input in_valid,\n  output in_ready,\n";
  for (const Port& p : d.inputs)
    top += fmt::format("  input {}{},\n", range(static_cast<int>(p.numel) * p.type.width), p.name);
  top += "  output out_valid";
  for (const Port& p : d.outputs)
    top += fmt::format(",\n  output {}{}", range(static_cast<int>(p.numel) * p.type.width), p.name);
  top += "\n);\n";
  top += "  wire accept = in_valid & in_ready;\n";
  const int t = d.latency_cycles;
  taps.insert(t);
  top += valid_taps(t, d.interval_cycles, taps);
  top += fmt::format("  assign out_valid = vld_{};\n", t);
  if (d.interval_cycles == 1) {
    top += "  assign in_ready = 1'b1;\n";
  } else {
    const int b = bits_for(d.interval_cycles);
    top += fmt::format(
        "  // A new sample every {0} cycles: the slowest stage's interval.\n"
        "  reg {1}gap;\n  assign in_ready = gap == {2};\n"
        "  always @(posedge clk)\n"
        "    if (rst) gap <= {2};\n"
        "    else if (accept) gap <= {3};\n"
        "    else if (gap != {2}) gap <= gap - {4};\n",
        d.interval_cycles, range(b), literal(0, b), literal(d.interval_cycles - 1, b),
        literal(1, b));
  }
  top += body;
  std::vector<std::string> unused;
  for (const std::string& w : made)
    if (!consumed.count(w)) unused.push_back(w);
  top += unused_sinks(unused);
  top += "endmodule\n";
  return top;
}

}  // namespace

Design build_design(const hls::Model& model, const RtlOptions& options) {
  Design d;
  d.top = model.name;
  d.clock_ns = model.clock_period_ns;
  const loop::Program program = design_program(model, options);
  refuse_memories_of_computed_buffers(program, options);
  dfg::UnrollOptions uo;
  if (options.max_ops > 0) uo.max_ops = options.max_ops;
  if (program.kernels.empty())
    throw_error(ErrorKind::Unsupported, "model " + model.name, "has no layers to build",
                "kiln rtl needs at least one computing layer");

  // The part's row of the device table; an unknown part is refused there.
  const fpga::Device device = fpga::device_of_part(model.part);
  StageOptions so;
  so.clock_ns = model.clock_period_ns;
  so.family = device.family;
  so.scheduler = options.scheduler;

  NameTable names;
  for (const char* reserved : {"clk", "rst", "in_valid", "in_ready", "out_valid", "accept", "vld",
                               "gap", "unused_ok", "tb", "dut"})
    names.claim(reserved);
  auto port_of = [&](int b) {
    const loop::Buffer& buf = program.buffers[static_cast<std::size_t>(b)];
    return Port{names.unique(buf.name), buf.numel(), buf.type};
  };
  for (int b : program.inputs) d.inputs.push_back(port_of(program.storage_of(b)));
  for (int b : program.outputs) d.outputs.push_back(port_of(program.storage_of(b)));
  if (names.contains(d.top) || d.top.empty())
    d.top = names.unique(d.top.empty() ? "top" : d.top);
  else
    names.claim(d.top);

  // Each layer's plan, priced before any is built; then the channels between
  // them (they depend on both ends' plans).
  std::set<std::string> configured_forms;
  for (const auto& [layer, lb] : options.line_buffer) configured_forms.insert(layer);
  Pricer pricer(program, model, uo, device, options.configured_buffers, configured_forms);
  const std::vector<LayerChoice> plans = plan_layers(pricer, options, so);
  const std::vector<Channel> channels = plan_channels(pricer, plans);
  {
    std::vector<PlanConfig> configs;
    std::vector<std::string> layers;
    for (std::size_t k = 0; k < plans.size(); ++k) {
      const int kernel = static_cast<int>(k);
      const bool both_forms =
          program.kernels[k].line_buffered || loop::can_line_buffer(program, model, kernel);
      configs.push_back(plan_config(pricer.program_for(kernel, plans[k].plan), kernel,
                                    plans[k].plan, both_forms));
      layers.push_back(program.kernels[k].name);
    }
    d.plans =
        plans_yaml(configs, layers,
                   "kiln rtl's plan for every layer of " + model.name +
                       ": add these blocks to the config (or pass this file\n"
                       "as a second -c) and kiln rtl builds the same layers, searching none.");
  }

  // The stages in order, each where the timing of those before puts it.
  DesignTiming timing;
  for (int b : program.inputs)
    timing.add_input(program.storage_of(b), program.buffers[static_cast<std::size_t>(b)].numel());
  std::vector<BuiltStage> built;
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const int kernel = static_cast<int>(k);
    const LayerPlan& plan = plans[k].plan;
    const loop::Program& prog = pricer.program_for(kernel, plan);
    const loop::Kernel& kk = prog.kernels[k];
    StageOptions sk = so;
    sk.multiplier_limit = multiplier_limit_of(options, kk);
    for (const Channel& c : channels)
      if (c.producer == kernel || c.consumer == kernel) sk.channels.push_back(&c);
    timing.prepare(sk);
    std::string reason;
    const LayerGraph* graph = pricer.graph_for(kernel, plan, &reason);
    if (!graph) throw_error(ErrorKind::Unsupported, "layer '" + kk.onnx_name + "'", reason);
    BuiltStage b = build_layer_stage(prog, plan, *graph, sk, names.unique(d.top + "_" + kk.name));
    b.report.plan = plans[k].why.empty() ? describe(kk, plan) : plans[k].why;
    timing.commit(b);
    for (auto& [sub, text] : b.submodules) {
      names.claim(sub);
      d.files.emplace_back(sub + ".v", std::move(text));
    }
    d.files.emplace_back(b.module + ".v", std::move(b.verilog));
    d.critical_path_ns = std::max(d.critical_path_ns, b.report.critical_path_ns);
    d.stages.push_back(b.report);
    built.push_back(std::move(b));
  }
  d.interval_cycles = timing.interval();
  d.files.emplace_back(d.top + ".v", top_verilog(d, program, built, timing));
  return d;
}

std::string testbench_verilog(const Design& d, int max_samples) {
  std::string s = fmt::format(
      "// Testbench of {0} (kiln rtl): drives up to {1} samples from in_<port>.hex whenever the\n"
      "// design is ready and prints every result (protocol in kiln's rtl/design.h).\n"
      "`timescale 1ns/1ps\n"
      "module tb;\n"
      "  localparam MAX = {1};\n"
      "  reg clk = 1'b0;\n  reg rst = 1'b1;\n"
      "  reg in_valid;\n  wire in_ready;\n  wire out_valid;\n"
      "  integer nsamples, sent, got, cycle, i, j;\n"
      "  reg [31:0] count_mem [0:0];\n",
      d.top, max_samples);
  std::string conn =
      ".clk(clk), .rst(rst), .in_valid(in_valid), .in_ready(in_ready), .out_valid(out_valid)";
  for (const Port& p : d.inputs) {
    s += fmt::format("  reg {0}{1};\n  reg {0}{1}_next;\n",
                     range(static_cast<int>(p.numel) * p.type.width), p.name);
    s += fmt::format("  reg {}mem_{} [0:MAX*{}-1];\n", range(p.type.width), p.name, p.numel);
    conn += fmt::format(", .{0}({0})", p.name);
  }
  for (const Port& p : d.outputs) {
    s += fmt::format("  wire {}{};\n", range(static_cast<int>(p.numel) * p.type.width), p.name);
    conn += fmt::format(", .{0}({0})", p.name);
  }
  s += fmt::format("  {} dut({});\n", d.top, conn);
  s += "  always #5 clk = ~clk;\n";
  s +=
      "  initial begin\n    $readmemh(\"samples.hex\", count_mem);\n    nsamples = count_mem[0];\n";
  s += "    if (nsamples > MAX) begin $display(\"TOO_MANY %0d\", nsamples); $finish; end\n";
  for (const Port& p : d.inputs)
    s += fmt::format("    $readmemh(\"in_{0}.hex\", mem_{0});\n", p.name);
  s += "    sent = 0;\n    got = 0;\n    cycle = 0;\n"
       "    repeat (2) @(posedge clk);\n    @(negedge clk) rst = 1'b0;\n  end\n";
  // Not @*: its sensitivity list would hold every word of the sample memories.
  // Each port is assembled in <port>_next and assigned once: every write to
  // the port itself would send the whole vector to each of its readers.
  s += "  always @(rst or sent or nsamples) begin\n    in_valid = !rst && sent < nsamples;\n";
  for (const Port& p : d.inputs)
    s += fmt::format(
        "    for (j = 0; j < {0}; j = j + 1) {1}_next[j*{2} +: {2}] = mem_{1}[(sent < nsamples ? "
        "sent : 0)*{0} + j];\n    {1} = {1}_next;\n",
        p.numel, p.name, p.type.width);
  s += "  end\n";
  const int limit_per_sample = d.interval_cycles + 1;
  s += "  always @(posedge clk) begin\n    cycle <= cycle + 1;\n";
  s += "    if (in_valid && in_ready) begin\n      $display(\"IN %0d %0d\", sent, cycle);\n"
       "      sent <= sent + 1;\n    end\n";
  s += "    if (out_valid) begin\n      $display(\"OUT %0d %0d\", got, cycle);\n";
  for (std::size_t k = 0; k < d.outputs.size(); ++k) {
    const Port& p = d.outputs[k];
    s += fmt::format(
        "      for (i = 0; i < {0}; i = i + 1) $display(\"Y %0d {1} %0d %h\", got, i, {2}[i*{3} +: "
        "{3}]);\n",
        p.numel, k, p.name, p.type.width);
  }
  s += "      got <= got + 1;\n      if (got + 1 == nsamples) begin $display(\"DONE\"); $finish; "
       "end\n    end\n";
  s +=
      fmt::format("    if (cycle > nsamples * {} + {}) begin $display(\"TIMEOUT\"); $finish; end\n",
                  limit_per_sample, d.latency_cycles + 100);
  s += "  end\nendmodule\n";
  return s;
}

}  // namespace kiln::rtl

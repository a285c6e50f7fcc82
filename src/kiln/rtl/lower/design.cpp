// The design driver: the program and its plans (search.h), each stage built
// where the design's timing puts it (timing.h), the top (top.h), the
// netlist verified and printed as Verilog.
#include "kiln/rtl/lower/design.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "kiln/dfg/unroll.h"
#include "kiln/fpga/devices.h"
#include "kiln/loop/directives.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/sink_nests.h"
#include "kiln/netlist/verify.h"
#include "kiln/netlist/verilog.h"
#include "kiln/rtl/analysis/timing.h"
#include "kiln/rtl/lower/top.h"
#include "kiln/rtl/plan/options.h"
#include "kiln/rtl/plan/search.h"
#include "kiln/rtl/stage/stage.h"
#include "kiln/sched/operator_library.h"
#include "kiln/support/error.h"
#include "kiln/support/names.h"

namespace kiln::rtl {

namespace {

using loop::ScalarType;

// Buffers the layers hand each other are registers (loop_stage.h): a
// partition or a memory kind for one would be ignored, so it is refused.
void refuse_memories_of_computed_buffers(const loop::Program& p, const RtlOptions& o) {
  for (const auto& [name, d] : o.directives.buffers) {
    const int b = p.find_buffer(name);
    if (b < 0) continue;  // apply_directives has named it already
    // Weights are ROMs; a layer's own scratch may be a memory (memories.h).
    const loop::BufferRole role = p.buffers[static_cast<std::size_t>(p.storage_of(b))].role;
    if (role == loop::BufferRole::Const || role == loop::BufferRole::Local) continue;
    const bool partition =
        d.partition != loop::Partition::None && d.partition != loop::Partition::Complete;
    const bool memory = d.storage != loop::Storage::Auto && d.storage != loop::Storage::Registers;
    if (partition || memory)
      throw_error(ErrorKind::Unsupported, o.directives.where_of_buffer(name),
                  fmt::format("'{}' holds a model input or a layer's results, which kiln rtl "
                              "keeps in registers, read through a multiplexer per read (no "
                              "ports to partition, no memory to choose)",
                              name),
                  "remove the directive; partitions and storage apply to weights so far");
  }
}

}  // namespace

loop::Program design_program(const hls::Model& model, const RtlOptions& options) {
  // Convolutions the config builds line-buffered (ConvImplementation:
  // LineBuffer) take that form before their plans are made.
  return loop::configured_program(model, options.line_buffer, options.directives);
}

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
                               "gap", "beat", "unused_ok", "tb", "dut"})
    names.claim(reserved);
  auto port_of = [&](int b) {
    const loop::Buffer& buf = program.buffers[static_cast<std::size_t>(b)];
    return Port{names.unique(buf.name), buf.numel(), buf.type};
  };
  const std::map<int, int64_t> streamed = streamed_inputs(program, options);
  for (int b : program.inputs) {
    d.inputs.push_back(port_of(program.storage_of(b)));
    if (const auto s = streamed.find(program.storage_of(b)); s != streamed.end())
      d.inputs.back().lanes = s->second;
  }
  for (int b : program.outputs) d.outputs.push_back(port_of(program.storage_of(b)));
  // The top's name: the model's, as an identifier no port or module has.
  d.top = names.unique(d.top.empty() ? "top" : d.top, "top");

  // Each layer's plan, priced before any is built; then the channels between
  // them (they depend on both ends' plans).
  std::set<std::string> configured_forms;
  for (const auto& [layer, lb] : options.line_buffer) configured_forms.insert(layer);
  Pricer pricer(program, model, uo, device, options.configured_buffers, configured_forms,
                options.constants_on_dsps, options.least_depth);
  const std::vector<LayerChoice> plans = plan_layers(pricer, options, so);
  const std::vector<Channel> channels = plan_channels(pricer, plans, streamed, &d.handoffs);
  {
    d.plans = design_plans_yaml(pricer, model, plans, !streamed.empty(),
                                "kiln rtl's plan for every layer of " + model.name +
                                    ": add these blocks to the config (or pass this file\n"
                                    "as a second -c) and kiln rtl builds the same layers, "
                                    "searching none.");
  }

  // The stages in order, each where the timing of those before puts it.
  DesignTiming timing;
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    timing.add_input(program.storage_of(program.inputs[k]), d.inputs[k].numel, d.inputs[k].lanes);
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
    BuiltStage b =
        build_layer_stage(prog, plan, *graph, sk, names.unique(d.top + "_" + kk.name),
                          graph->split ? &pricer.memories_for(kernel, plan, *graph) : nullptr);
    b.report.plan = plans[k].why.empty() ? describe(kk, plan) : plans[k].why;
    b.report.layer_plan = plan;
    if (const SharedSums* shared = pricer.shared_sums(kernel, plan))
      b.report.shared_sums = shared->roots;
    timing.commit(b);
    for (netlist::Module& sub : b.submodules) {
      names.claim(sub.name());
      d.netlist.modules.push_back(std::move(sub));
    }
    d.netlist.modules.push_back(std::move(b.netlist));
    d.critical_path_ns = std::max(d.critical_path_ns, b.report.critical_path_ns);
    d.stages.push_back(b.report);
    built.push_back(std::move(b));
  }
  d.interval_cycles = timing.interval();
  d.netlist.modules.push_back(top_module(d, program, built, timing, options.max_top_delay_bits));
  // A search chose the plans: they must fit the part (the cheapest plans
  // meeting the targets do not, so the targets ask for too much of it).
  const bool searched =
      std::any_of(plans.begin(), plans.end(), [](const LayerChoice& c) { return !c.why.empty(); });
  if (searched && options.fit_part) {
    const std::vector<std::string> over = fpga::over_capacity(estimate_of(d), device.capacity);
    if (!over.empty())
      throw_error(ErrorKind::InvalidModel, "model " + model.name,
                  fmt::format("the searched design needs {} on the {} ({}), by kiln's estimate",
                              fmt::join(over, ", "), model.part, device.title),
                  "raise TargetCycles or LatencyCycles, lower MultiplierLimit, choose a larger "
                  "Part, or pass --over-capacity to write it anyway");
  }
  d.netlist.top = d.top;
  netlist::verify(d.netlist);
  d.files = netlist::print_verilog(d.netlist);
  return d;
}

void calibrate_estimate(StageReport& r) {
  // Every LUT and flip-flop counted is booked under a term (rounding apart).
  KILN_ASSERT(std::abs(r.lut - r.terms.raw_lut()) <= 1e-6 * std::max(1.0, r.lut) &&
                  std::abs(r.ff - r.terms.raw_ff()) <= 1e-6 * std::max(1.0, r.ff),
              "a stage's LUTs or flip-flops outside its cost terms");
  r.lut = r.terms.lut_estimate();
  r.ff = r.terms.ff_estimate();
}

fpga::Resources estimate_of(const Design& d) {
  fpga::Resources e = d.top_report;  // the top's delay lines
  for (const StageReport& s : d.stages) e += s;
  return e;
}

}  // namespace kiln::rtl

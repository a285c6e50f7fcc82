#include "kiln/rtl/target_cycles.h"

#include <fmt/format.h>

#include <limits>
#include <set>

#include "kiln/loop/directives.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {

void weights_loaded(const std::vector<loop::Stmt>& stmts, const loop::Kernel& k,
                    const loop::Program& p, std::set<int>& out) {
  for (const loop::Stmt& s : stmts) {
    if (s.kind == loop::StmtKind::Let) {
      const loop::Value& v = k.values[static_cast<std::size_t>(s.value)];
      if (v.op == loop::Op::Load &&
          p.buffers[static_cast<std::size_t>(p.storage_of(v.buffer))].role ==
              loop::BufferRole::Const)
        out.insert(v.buffer);
    }
    weights_loaded(s.body, k, p, out);
  }
}

double share(const StageReport& r, const estimate::Device& d) {
  auto frac = [](double used, int64_t have) {
    return have > 0 ? used / static_cast<double>(have) : 0;
  };
  return frac(r.lut, d.lut) + frac(r.ff, d.ff) + frac(r.dsp, d.dsp) + frac(r.bram18, d.bram18);
}

}  // namespace

void keep_weights_in_registers(loop::Program& program, int kernel, const RtlOptions& options) {
  std::set<int> weights;
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  weights_loaded(k.body, k, program, weights);
  for (int b : weights) {
    loop::Buffer& buf = program.buffers[static_cast<std::size_t>(b)];
    if (options.buffers.count(buf.name)) continue;  // the config decides
    buf.directives.storage = loop::Storage::Registers;
  }
}

PlanChoice choose_plan(const loop::Program& program, int kernel, const IntervalTarget& target,
                       const RtlOptions& options, const StageOptions& stage,
                       const dfg::UnrollOptions& unroll, const estimate::Device& device) {
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  PlanChoice best, closest;
  best.cost = std::numeric_limits<double>::infinity();
  closest.interval = std::numeric_limits<int>::max();
  int tried = 0;
  loop::Program in_registers = program;
  keep_weights_in_registers(in_registers, kernel, options);
  // Builds `plan`; true if it meets the target.
  auto consider = [&](const LayerPlan& plan) {
    try {
      const BuiltStage b = build_layer_stage(plan.weights_in_registers ? in_registers : program,
                                             kernel, plan, stage, unroll, "candidate");
      ++tried;
      const int interval = b.report.interval_cycles;
      if (interval < closest.interval) closest = {plan, interval, share(b.report, device), 0, ""};
      if (interval > target.cycles) return false;
      const double cost = share(b.report, device);
      if (cost < best.cost) best = {plan, interval, cost, 0, ""};
      return true;
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Internal) throw;
      return false;  // a plan kiln cannot build (too large, an access it refuses)
    }
  };
  consider({});
  for (const loop::Stmt& st : dfg::top_level(k)) {
    if (st.kind != loop::StmtKind::For) continue;
    const int l = st.loop;
    const int64_t trip = k.loops[static_cast<std::size_t>(l)].trip;
    if (trip < 2) continue;
    for (const bool registers : {false, true}) {
      for (const int64_t u : loop::unroll_factors(trip)) {
        if (u >= trip) break;
        LayerPlan plan{l, u, true, 1, registers};
        if (consider(plan)) break;
      }
      // A perfect nest flattened: one iteration per pair of the two loops'
      // values, so the body is the inner loop's (a convolution's pixel).
      if (dfg::perfect_inner_loop(k, l) >= 0) consider({l, 1, true, 1, registers, true});
    }
  }
  if (best.interval == 0)
    throw_error(
        ErrorKind::InvalidModel, "layer '" + k.onnx_name + "'",
        closest.interval == std::numeric_limits<int>::max()
            ? fmt::format("no way to build it met {} ({} plans tried)", target.source, tried)
            : fmt::format("cannot meet {}: the closest of {} plans, {}, takes {} cycles per sample",
                          target.source, tried, describe(program, kernel, closest.plan),
                          closest.interval),
        "raise its TargetCycles (or ReuseFactor), or set its Loop directives yourself (kiln rtl "
        "--list-loops shows what each loop would give)");
  best.tried = tried;
  best.why = fmt::format("{}: {}, {} cycles per sample, {:.2f}% of {} ({} plans tried)",
                         target.source, describe(program, kernel, best.plan), best.interval,
                         100 * best.cost, device.name, tried);
  return best;
}

}  // namespace kiln::rtl

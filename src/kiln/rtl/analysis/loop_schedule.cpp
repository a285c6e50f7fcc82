#include "kiln/rtl/analysis/loop_schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "kiln/rtl/analysis/banks.h"
#include "kiln/rtl/plan/plan.h"
#include "kiln/rtl/plan/problem.h"
#include "kiln/rtl/stage/node_cost.h"
#include "kiln/sched/solvers.h"
#include "kiln/sched/verify.h"
#include "kiln/support/error.h"
#include "kiln/support/flat_hash.h"

namespace kiln::rtl {

namespace {

using dfg::NodeOp;
class ProblemBuilder {
 public:
  ProblemBuilder(const dfg::LoopBody& body, const loop::Program& p, const LoopScheduleOptions& o)
      : body_(body), g_(body.graph), p_(p), o_(o) {}

  LoopProblem run() {
    lp_.problem.name = body_.name;
    lp_.problem.problem_class = sched::ProblemClass::Modulo;
    lp_.problem.ii = o_.ii;
    lp_.problem.clock_ns = o_.clock_ns;
    lp_.op_of_node.assign(g_.size(), -1);
    operations();
    dependences();
    return std::move(lp_);
  }

 private:
  int type_of_port(const dfg::PortAccess& pa, bool write) {
    const Bank bank = bank_of(pa, p_);
    const loop::Buffer& b = p_.buffers[static_cast<std::size_t>(pa.buffer)];
    if (o_.memories.count(pa.buffer)) {
      // A memory's bank: one write port and one read port.
      const std::string name = bank_name(b, bank) + (write ? " write" : " read");
      if (auto it = types_.find(name); it != types_.end()) return it->second;
      return types_[name] = lp_.problem.add_type({name, 1, 0, 1});
    }
    // A buffer the layers write is registers in hardware (loop_stage.h), each
    // read its own registered multiplexer: no port limit.
    const bool muxed = !bank.registers && b.role != loop::BufferRole::Const;
    const std::string name = bank.registers ? "@" + b.name + " registers"
                             : muxed        ? "@" + b.name + " muxes"
                                            : bank_name(b, bank);
    if (auto it = types_.find(name); it != types_.end()) return it->second;
    sched::OperatorType t{name, bank.registers ? 0 : 1, 0, std::nullopt};
    if (!bank.registers && !muxed) t.limit = o_.ports_per_bank;
    return types_[name] = lp_.problem.add_type(t);
  }

  // Element -1 - k of an Input or output: port k.
  static int port(int64_t element) { return static_cast<int>(-1 - element); }

  void operations() {
    sched::Problem& pb = lp_.problem;
    // The body's nodes as the unrolled stages' are (problem.h); MultiplierLimit
    // 0 puts the products in LUTs, as many as the body has.
    const bool fabric = o_.multiplier_limit == 0;
    costs_.resize(g_.size());
    for (uint32_t n = 0; n < g_.size(); ++n)
      costs_[n] = node_cost(g_, n, o_.family, fabric, o_.constants_on_dsps);
    GraphOperations nodes(pb, g_, costs_, !fabric, o_.multiplier_limit);
    for (const dfg::PortAccess& pa : body_.reads)
      lp_.read_ops.push_back(
          pb.add_operation("r" + std::to_string(lp_.read_ops.size()), type_of_port(pa, false),
                           p_.buffers[static_cast<std::size_t>(pa.buffer)].type.width));
    for (uint32_t n = 0; n < g_.size(); ++n) {
      const NodeOp op = g_.node(n).op;
      if (op == NodeOp::Const) continue;
      if (op == NodeOp::Input) {
        const int64_t e = g_.input_of(n).element;
        if (e < 0) lp_.op_of_node[n] = lp_.read_ops[static_cast<std::size_t>(port(e))];
        continue;  // state: a register, not an operation
      }
      lp_.op_of_node[n] = nodes.add(n);
    }
    for (std::size_t w = 0; w < body_.writes.size(); ++w)
      lp_.write_ops.push_back(pb.add_operation(
          "w" + std::to_string(w), type_of_port(body_.writes[w], true),
          p_.buffers[static_cast<std::size_t>(body_.writes[w].buffer)].type.width));
    // Each state element's register load: a cycle, so the next iteration's
    // readers see the new value only after the edge that stores it.
    int state_type = -1;
    for (std::size_t i = 0; i < g_.outputs().size(); ++i) {
      const dfg::Output& o = g_.outputs()[i];
      if (o.where.buffer == dfg::kWriteEnableBuffer) {  // taken by its write
        lp_.output_ops.push_back(lp_.write_ops[static_cast<std::size_t>(o.where.element)]);
        continue;
      }
      if (o.where.element < 0) {
        lp_.output_ops.push_back(lp_.write_ops[static_cast<std::size_t>(port(o.where.element))]);
        continue;
      }
      if (state_type < 0) state_type = pb.add_type({"state", 1, 0, std::nullopt});
      state_out_[o.where] = static_cast<int>(lp_.output_ops.size());
      lp_.output_ops.push_back(
          pb.add_operation("s" + std::to_string(i), state_type,
                           p_.buffers[static_cast<std::size_t>(o.where.buffer)].type.width));
    }
  }

  // The operation producing node `n`'s value for a consumer, and the
  // iterations between them: state read at an iteration's start comes from
  // the previous iteration's end. {-1, 0} for constants and loop-invariant
  // state.
  std::pair<int, int> source(uint32_t n) const {
    if (g_.node(n).op == NodeOp::Input && g_.input_of(n).element >= 0) {
      const auto it = state_out_.find(g_.input_of(n));
      if (it == state_out_.end()) return {-1, 0};
      return {lp_.output_ops[static_cast<std::size_t>(it->second)], 1};
    }
    return {lp_.op_of_node[n], 0};
  }

  // Each (from, to, distance) once: a reader that also feeds the writer
  // already precedes it. `order`: an anti-dependence (sched::Dependence).
  void add_dependence(int from, int to, int distance, bool order = false) {
    if (added_.try_emplace({from, to, distance, order}, true).second &&
        (!order || !added_.contains({from, to, distance, false})))
      lp_.problem.add_dependence(from, to, distance, order);
  }

  // A state register keeps the previous iteration's value until its readers
  // in this iteration have read it: `reader` of `value` goes no later than
  // this iteration's writer of that state.
  void precede_writer(uint32_t value, int reader) {
    if (g_.node(value).op != NodeOp::Input || g_.input_of(value).element < 0) return;
    const auto it = state_out_.find(g_.input_of(value));
    if (it == state_out_.end()) return;
    if (const int writer = lp_.output_ops[static_cast<std::size_t>(it->second)]; writer != reader)
      add_dependence(reader, writer, 0, true);
  }

  void depend(uint32_t value, int to) {
    const auto [from, distance] = source(value);
    if (from >= 0) add_dependence(from, to, distance);
  }

  void dependences() {
    // Room for about one dependence per operand and output, so the set
    // grows rarely.
    std::size_t operands = g_.outputs().size();
    for (uint32_t n = 0; n < g_.size(); ++n) operands += g_.node(n).num_args;
    added_.reserve(operands);
    for (uint32_t n = 0; n < g_.size(); ++n) {
      const int op = lp_.op_of_node[n];
      if (op < 0 || g_.node(n).op == NodeOp::Input) continue;
      for (uint32_t a : g_.args(n)) {
        depend(a, op);
        precede_writer(a, op);
      }
    }
    for (std::size_t i = 0; i < g_.outputs().size(); ++i) {
      const uint32_t value = g_.outputs()[i].node;
      const int store = lp_.output_ops[i];
      depend(value, store);
      precede_writer(value, store);
    }
    // Memory: a write and a read of one buffer.
    for (std::size_t w = 0; w < body_.writes.size(); ++w)
      for (std::size_t r = 0; r < body_.reads.size(); ++r) {
        const dfg::PortAccess& wa = body_.writes[w];
        const dfg::PortAccess& ra = body_.reads[r];
        if (wa.buffer != ra.buffer) continue;
        const int wo = lp_.write_ops[w], ro = lp_.read_ops[r];
        // Ordered conservatively unless both move alike with one variable
        // (in a flattened nest, the innermost one).
        const int64_t a = dfg::step_of(wa.element);
        const bool inner_only = body_.flat() && wa.element.terms.size() == 1 &&
                                wa.element.terms[0].first == body_.kept.back();
        if (!dfg::same_motion(wa.element, ra.element) || wa.element.terms.size() != 1 || a == 0 ||
            (body_.flat() && !inner_only)) {
          add_dependence(wo, ro, 1);
          add_dependence(ro, wo, 0, true);
          continue;
        }
        const int64_t diff = wa.element.constant - ra.element.constant;
        if (diff % a != 0) continue;  // never the same element
        const int64_t d = diff / a;   // the read's iteration minus the write's
        if (inner_only) {
          // The innermost variable restarts every `t` iterations, so the same
          // elements come back (a line buffer's columns, row after row): the
          // read sees the write d (mod t) iterations later, and the write
          // overwrites what the read reads -d (mod t) iterations later.
          const int64_t t = body_.extents.back();
          const int64_t ahead = ((d % t) + t) % t;
          add_dependence(wo, ro, static_cast<int>(ahead == 0 ? t : ahead));
          add_dependence(ro, wo, static_cast<int>(((-d % t) + t) % t), true);
          continue;
        }
        if (d >= 1)
          add_dependence(wo, ro, static_cast<int>(d));
        else
          add_dependence(ro, wo, static_cast<int>(-d), true);
      }
  }

  const dfg::LoopBody& body_;
  const dfg::Graph& g_;
  const loop::Program& p_;
  const LoopScheduleOptions& o_;
  LoopProblem lp_;
  std::map<std::string, int> types_;  // the ports' and the state's
  std::vector<sched::OperatorCost> costs_;
  struct DependenceKey {
    int from, to, distance;
    bool order;
    bool operator==(const DependenceKey&) const = default;
  };
  struct DependenceHash {
    std::size_t operator()(const DependenceKey& k) const {
      return (static_cast<std::size_t>(static_cast<uint32_t>(k.from)) << 32 ^
              static_cast<uint32_t>(k.to)) ^
             mix_hash(static_cast<uint64_t>(static_cast<uint32_t>(k.distance)) << 1 | k.order);
    }
  };
  FlatHashMap<DependenceKey, bool, DependenceHash> added_;  // each dependence once
  struct ElementLess {
    bool operator()(const dfg::Element& a, const dfg::Element& b) const {
      return std::pair(a.buffer, a.element) < std::pair(b.buffer, b.element);
    }
  };
  std::map<dfg::Element, int, ElementLess> state_out_;  // -> its graph output
};

}  // namespace

LoopProblem loop_problem(const dfg::LoopBody& body, const loop::Program& program,
                         const LoopScheduleOptions& options) {
  return ProblemBuilder(body, program, options).run();
}

LoopSchedule schedule_loop(const dfg::LoopBody& body, const loop::Program& program,
                           const LoopScheduleOptions& options) {
  LoopSchedule s;
  s.memories = options.memories;
  s.lp = loop_problem(body, program, options);
  // schedule_modulo checks the problem and verifies its solution.
  s.solution = sched::schedule_modulo(s.lp.problem, &s.bounds);
  s.why = sched::describe_ii(s.lp.problem, s.bounds, s.solution.ii);
  s.cycles = (body.trip - 1) * s.solution.ii + std::max(1, s.solution.latency);
  return s;
}

std::vector<PipelineEstimate> estimate_pipelines(const loop::Program& program,
                                                 const RtlOptions& options, fpga::Family family,
                                                 double clock_ns) {
  std::vector<PipelineEstimate> out;
  for (std::size_t k = 0; k < program.kernels.size(); ++k) {
    const loop::Kernel& kernel = program.kernels[k];
    LoopScheduleOptions o;
    o.family = family;
    o.clock_ns = clock_ns;
    for (const auto& [name, limit] : options.multiplier_limits)
      if (name == kernel.name) o.multiplier_limit = limit;
    // The layer's configured plan: a loop the directives flatten keeps its
    // nest's loops with it, the innermost kept one unrolled as its Unroll
    // says (plan.h). None when the directives are ones kiln rtl refuses.
    std::optional<LayerPlan> configured;
    try {
      configured = configured_plan(program, static_cast<int>(k));
    } catch (const Error& err) {
      if (err.kind() == ErrorKind::Internal) throw;
    }
    for (const loop::Stmt& st : dfg::top_level(kernel)) {
      if (st.kind != loop::StmtKind::For) continue;
      const loop::Loop& l = kernel.loops[static_cast<std::size_t>(st.loop)];
      PipelineEstimate e;
      e.loop = kernel.name + "/" + l.name;
      e.unroll = l.directives.unroll.value_or(1) == 0 ? l.trip : l.directives.unroll.value_or(1);
      e.iterations = l.trip / e.unroll;
      o.ii = l.directives.pipeline_ii;
      int flatten = 0;
      if (configured && configured->loop == st.loop && configured->flatten > 0) {
        flatten = configured->flatten;
        e.unroll = configured->unroll;
        e.iterations = plan_iterations(kernel, *configured);
        o.ii = configured->pipeline_ii;
      }
      const int64_t body_ops = loop::dynamic_ops(kernel, {st}) / e.iterations;
      if (body_ops > kMaxPipelinedBodyOps) {
        e.why = fmt::format("one iteration has {} operations, over the {} estimated here", body_ops,
                            kMaxPipelinedBodyOps);
        out.push_back(std::move(e));
        continue;
      }
      try {
        const dfg::SplitKernel sk =
            dfg::split_at_loop(program, static_cast<int>(k), st.loop, e.unroll, flatten);
        const LoopSchedule s = schedule_loop(sk.body, program, o);
        e.ii = s.solution.ii;
        e.depth = std::max(1, s.solution.latency);
        e.cycles = s.cycles;
        // Seed 003's rule: a loop of one iteration (single-trip or fully
        // unrolled) is the same design pipelined or not.
        e.why = e.iterations == 1 ? "one iteration: pipelining changes nothing; " + s.why : s.why;
      } catch (const Error& err) {
        if (err.kind() == ErrorKind::Internal) throw;
        e.why = err.what();
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace kiln::rtl

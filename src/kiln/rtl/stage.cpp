// A stage: the graph's nodes as scheduling operations (their operator kinds,
// delays and costs from the operator library), the schedule, the registers
// each value needs, and the Verilog.
#include "kiln/rtl/stage.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "kiln/rtl/constant_products.h"
#include "kiln/rtl/node_cost.h"
#include "kiln/rtl/verilog_text.h"
#include "kiln/sched/solvers.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {

using dfg::NodeOp;
using loop::ScalarType;
using numeric::FixedType;
using sched::OperatorCost;
using sched::OperatorKind;
using sched::OperatorShape;

class StageBuilder {
 public:
  StageBuilder(const dfg::Stage& s, const loop::Program& p, const StageOptions& o,
               std::string module, const ModuloTiming* modulo = nullptr)
      : s_(s), g_(s.graph), p_(p), o_(o), modulo_(modulo) {
    r_.module = std::move(module);
    r_.report.name = s.name;
    r_.report.onnx_name = s.onnx_name;
    r_.report.loop_ops = s.loop_ops;
    r_.report.nodes = static_cast<int64_t>(g_.size());
  }

  BuiltStage run() {
    classify();
    if (modulo_)
      take_timing();
    else
      schedule();
    registers();
    // Products by constants planned together, and priced by their plans.
    plan_product_groups();
    price_product_groups();
    ports();
    if (o_.emit) emit();
    return std::move(r_);
  }

 private:
  // ---- costs ----------------------------------------------------------------

  bool const_arg(uint32_t n, int i) const { return g_.is_const(g_.args(n)[i]); }
  bool is_var_mul(uint32_t n) const { return rtl::is_var_mul(g_, n); }
  QuantizeWork quantize_work(uint32_t n) const { return rtl::quantize_work(g_, n); }

  OperatorCost cost(uint32_t n) const { return node_cost(g_, n, o_.family, fabric_); }

  // A lookup whose value is read only from its register, none of it in its
  // own cycle: Yosys merges that register into the table and maps large ones
  // to block RAM.
  bool in_block_ram(uint32_t n) const {
    if (one_at_a_time_ || g_.node(n).op != NodeOp::Lookup || hold_[n] == 0 || read_in_own_cycle_[n])
      return false;
    const auto& t = g_.tables()[static_cast<std::size_t>(g_.lookup_of(n).table)];
    return sched::rom_in_block_ram(static_cast<int>(t.data.size()), g_.type(n).width);
  }

  void classify() {
    fabric_ = o_.multiplier_limit == 0;
    costs_.resize(g_.size());
    StageReport& rep = r_.report;
    for (uint32_t n = 0; n < g_.size(); ++n) {
      costs_[n] = cost(n);
      const NodeOp op = g_.node(n).op;
      if (op == NodeOp::Mul) (is_var_mul(n) ? rep.multipliers : rep.const_multipliers)++;
      if (op == NodeOp::Add || op == NodeOp::Sub || op == NodeOp::AddMod || op == NodeOp::SubMod)
        rep.adders++;
      if (op == NodeOp::Lookup) rep.lookups++;
    }
    shared_ = !fabric_ && o_.multiplier_limit && rep.multipliers > *o_.multiplier_limit;
    one_at_a_time_ = shared_ && !modulo_;
  }

  // The cycle a shared unit's multiplexer sees for a node at `cycle`.
  int slot(int cycle) const { return modulo_ ? cycle % modulo_->ii : cycle; }

  // A loop body's cycles come from its modulo schedule (loop_stage.cpp).
  void take_timing() {
    KILN_ASSERT(modulo_->start.size() == g_.size() && modulo_->stable.size() == g_.size() &&
                    modulo_->output_at.size() == g_.outputs().size(),
                "a loop body's timing does not match its graph");
    start_ = modulo_->start;
    depth_ = 1;
    for (uint32_t n = 0; n < g_.size(); ++n) depth_ = std::max(depth_, start_[n] + 1);
    for (int t : modulo_->output_at) depth_ = std::max(depth_, t + 1);
    r_.report.latency_cycles = depth_;
    r_.report.interval_cycles = modulo_->ii;
    // The longest chain of operations in one cycle (the modulo problem has
    // no clock yet, so this is what the clock must cover).
    std::vector<double> arrival(g_.size(), 0);
    double critical = 0;
    for (uint32_t n = 0; n < g_.size(); ++n) {
      double in = 0;
      for (uint32_t a : g_.args(n))
        if (start_[a] == start_[n] && !stable(a)) in = std::max(in, arrival[a]);
      arrival[n] = in + costs_[n].delay_ns;
      critical = std::max(critical, arrival[n]);
    }
    r_.report.critical_path_ns = critical;
  }

  bool stable(uint32_t n) const { return modulo_ && modulo_->stable[n]; }

  // When output `i` is taken: a stage's end, or a loop body's given cycle.
  int output_cycle(std::size_t i) const { return modulo_ ? modulo_->output_at[i] : depth_; }

  // ---- schedule -------------------------------------------------------------

  void schedule() {
    sched::Problem pb;
    pb.name = s_.name;
    pb.problem_class = sched::ProblemClass::Chaining;
    pb.clock_ns = o_.clock_ns;
    std::map<std::pair<int64_t, int64_t>, int> types;  // (delay in ps, kind) -> type
    int mul_type = -1;
    if (shared_) {
      double d = 0;
      for (uint32_t n = 0; n < g_.size(); ++n)
        if (is_var_mul(n)) d = std::max(d, costs_[n].delay_ns);
      mul_type = pb.add_type({"mul", 0, d, *o_.multiplier_limit});
    }
    op_of_.assign(g_.size(), -1);
    for (uint32_t n = 0; n < g_.size(); ++n) {
      const NodeOp op = g_.node(n).op;
      if (op == NodeOp::Input || op == NodeOp::Const) continue;
      int type;
      if (shared_ && is_var_mul(n)) {
        type = mul_type;
      } else {
        const auto key = std::make_pair(std::llround(costs_[n].delay_ns * 1000), int64_t{0});
        auto it = types.find(key);
        if (it == types.end())
          it = types
                   .emplace(key, pb.add_type({fmt::format("d{}ps", key.first), 0,
                                              costs_[n].delay_ns, std::nullopt}))
                   .first;
        type = it->second;
      }
      op_of_[n] = pb.add_operation(fmt::format("n{}", n), type, g_.type(n).width);
      for (uint32_t a : g_.args(n))
        if (op_of_[a] >= 0) pb.add_dependence(op_of_[a], op_of_[n]);
    }
    sched::Solution sol;
    try {
      switch (o_.scheduler) {
        case Scheduler::Asap: sol = sched::schedule_asap(pb); break;
        case Scheduler::List: sol = sched::schedule_list(pb); break;
        case Scheduler::Sdc: sol = sched::schedule_sdc(pb); break;
      }
    } catch (const Error& e) {
      throw e.within("layer '" + s_.onnx_name + "'");
    }
    start_.assign(g_.size(), 0);
    double critical = 0;
    for (uint32_t n = 0; n < g_.size(); ++n)
      if (op_of_[n] >= 0) {
        start_[n] = sol.start[static_cast<std::size_t>(op_of_[n])];
        critical = std::max(critical,
                            sol.start_ns[static_cast<std::size_t>(op_of_[n])] + costs_[n].delay_ns);
      }
    depth_ = 1;
    for (uint32_t n = 0; n < g_.size(); ++n) depth_ = std::max(depth_, start_[n] + 1);
    r_.report.latency_cycles = depth_;
    r_.report.interval_cycles = shared_ ? depth_ : 1;
    r_.report.critical_path_ns = critical;
  }

  // ---- registers ------------------------------------------------------------

  void registers() {
    // The cycles each value must outlive its own: to its last consumer, and
    // to the stage's end for the outputs (registered there).
    hold_.assign(g_.size(), 0);
    read_in_own_cycle_.assign(g_.size(), false);
    for (uint32_t n = 0; n < g_.size(); ++n)
      for (uint32_t a : g_.args(n)) {
        hold_[a] = std::max(hold_[a], start_[n] - start_[a]);
        if (start_[n] == start_[a]) read_in_own_cycle_[a] = true;
      }
    for (std::size_t i = 0; i < g_.outputs().size(); ++i) {
      const uint32_t o = g_.outputs()[i].node;
      if (!g_.is_const(o)) hold_[o] = std::max(hold_[o], output_cycle(i) - start_[o]);
    }
    int64_t bits = 0;
    for (uint32_t n = 0; n < g_.size(); ++n) {
      if (g_.is_const(n) || stable(n)) hold_[n] = 0;
      if (!one_at_a_time_) bits += static_cast<int64_t>(g_.type(n).width) * hold_[n];
    }
    if (one_at_a_time_) bits = share_registers();
    r_.report.register_bits = bits;
    r_.report.ff = static_cast<double>(bits);
    for (uint32_t n = 0; n < g_.size(); ++n) {
      if (in_block_ram(n)) {
        // The table and its read's register become one block RAM.
        costs_[n] = block_rom_cost(g_, n, o_.family);
        r_.report.ff -= g_.type(n).width;
      }
      r_.report.lut += costs_[n].resources.lut;
      r_.report.carry += costs_[n].resources.carry;
      r_.report.bram18 += costs_[n].resources.bram18;
      if (!shared_ || !is_var_mul(n)) r_.report.dsp += costs_[n].resources.dsp;
    }
    // Shared multipliers: the k-th product of a cycle runs on unit k.
    unit_of_.assign(g_.size(), -1);
    if (shared_) {
      std::map<int, int> used;  // slot -> units taken
      for (uint32_t n = 0; n < g_.size(); ++n)
        if (is_var_mul(n)) {
          unit_of_[n] = used[slot(start_[n])]++;
          units_ = std::max(units_, unit_of_[n] + 1);
        }
      r_.report.multiplier_units = units_;
      double unit_dsp = 0;
      for (uint32_t n = 0; n < g_.size(); ++n)
        if (is_var_mul(n)) unit_dsp = std::max(unit_dsp, costs_[n].resources.dsp);
      r_.report.dsp += unit_dsp * units_;
    } else {
      r_.report.multiplier_units = fabric_ ? 0 : r_.report.multipliers;
    }
  }

  // One sample at a time: a value lives in a register from the end of its
  // cycle to its last use. Values of one width whose lifetimes do not
  // overlap share a register (left edge: by start, first register free).
  int64_t share_registers() {
    reg_of_.assign(g_.size(), -1);
    std::vector<uint32_t> order;
    for (uint32_t n = 0; n < g_.size(); ++n)
      if (hold_[n] > 0) order.push_back(n);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return start_[a] < start_[b]; });
    std::map<int, std::vector<int>> free_at;  // width -> registers of that width
    int64_t bits = 0;
    for (uint32_t n : order) {
      const int w = g_.type(n).width;
      int chosen = -1;
      for (int r : free_at[w])
        if (reg_busy_until_[static_cast<std::size_t>(r)] <= start_[n]) {
          chosen = r;
          break;
        }
      if (chosen < 0) {
        chosen = static_cast<int>(reg_width_.size());
        reg_width_.push_back(w);
        reg_busy_until_.push_back(0);
        free_at[w].push_back(chosen);
        bits += w;
      }
      // Written at the end of cycle start, read through cycle start + hold.
      reg_busy_until_[static_cast<std::size_t>(chosen)] = start_[n] + hold_[n];
      reg_of_[n] = chosen;
    }
    return bits;
  }

  // ---- Verilog --------------------------------------------------------------

  std::string wire(uint32_t n) const { return fmt::format("n{}", n); }

  // Node `a` as seen in the cycle of a node scheduled at `cycle`.
  std::string ref(uint32_t a, int cycle) const {
    const int d = cycle - start_[a];
    KILN_ASSERT(d >= 0, "a value is read before it is computed");
    if (d == 0 || stable(a)) return wire(a);
    return one_at_a_time_ ? fmt::format("r{}", reg_of_[a]) : fmt::format("n{}_r{}", a, d);
  }

  // Operand `a` of a node at `cycle`, aligned to `width` bits at `frac`.
  std::string operand(uint32_t a, int cycle, int width, int frac) {
    if (g_.is_const(a)) return literal_aligned(g_.node(a).imm, g_.type(a), width, frac);
    return al(ref(a, cycle), g_.type(a), width, frac);
  }

  // align(), remembering signals not every bit of which is read.
  std::string al(const std::string& id, const ScalarType& from, int width, int frac) {
    bool truncated = false;
    std::string s = align(id, from, width, frac, &truncated);
    if (truncated) partial_.insert(id);
    return s;
  }

  // floor(x / 2^d) for d > 0 (an arithmetic shift), as `width` signed bits.
  std::string floor_bits(const std::string& x, const ScalarType& t, int d, int width) {
    partial_.insert(x);
    const std::string sign =
        t.is_signed ? (t.width == 1 ? x : fmt::format("{}[{}]", x, t.width - 1)) : "1'b0";
    if (t.width <= d) return fmt::format("{{{}{{{}}}}}", width, sign);
    const int kept = t.width - d;
    const std::string body =
        kept == 1 ? fmt::format("{}[{}]", x, d) : fmt::format("{}[{}:{}]", x, t.width - 1, d);
    return fmt::format("{{{{{}{{{}}}}}, {}}}", width - kept, sign, body);
  }

  void emit_node(uint32_t n, std::string& out) {
    const dfg::Node& node = g_.node(n);
    const ScalarType& t = g_.type(n);
    const int w = t.width;
    const int c = start_[n];
    auto args = g_.args(n);
    auto decl = [&](const std::string& expr) {
      out += fmt::format("  wire {}{} = {};\n", range(w), wire(n), expr);
    };
    switch (node.op) {
      case NodeOp::Const: return;
      case NodeOp::Input: return;                       // a slice of its packed port
      case NodeOp::Shl: decl(ref(args[0], c)); return;  // the same bits
      case NodeOp::Add:
      case NodeOp::AddMod:
        decl(operand(args[0], c, w, t.frac) + " + " + operand(args[1], c, w, t.frac));
        return;
      case NodeOp::Sub:
      case NodeOp::SubMod:
        decl(operand(args[0], c, w, t.frac) + " - " + operand(args[1], c, w, t.frac));
        return;
      case NodeOp::Neg: decl("-" + operand(args[0], c, w, t.frac)); return;
      case NodeOp::Mul: {
        if (!is_var_mul(n)) {
          decl(const_product(n, c, out));
          return;
        }
        if (fabric_) {
          decl(fabric_product(n, c, out));
          return;
        }
        if (shared_) {
          const int u = unit_of_[n];
          decl(fmt::format("u{}_p[{}:0]", u, w - 1));
          partial_.insert(fmt::format("u{}_p", u));
          unit_ops_[u].push_back(n);
          return;
        }
        const ScalarType& a = g_.type(args[0]);
        const ScalarType& b = g_.type(args[1]);
        const int wa = a.width + (a.is_signed ? 0 : 1), wb = b.width + (b.is_signed ? 0 : 1);
        out += fmt::format("  wire signed {}n{}_a = {};\n", range(wa), n,
                           operand(args[0], c, wa, a.frac));
        out += fmt::format("  wire signed {}n{}_b = {};\n", range(wb), n,
                           operand(args[1], c, wb, b.frac));
        out += fmt::format("  wire signed {}n{}_p = n{}_a * n{}_b;\n", range(w), n, n, n);
        decl(fmt::format("n{}_p", n));
        return;
      }
      case NodeOp::Quantize: emit_quantize(n, out); return;
      case NodeOp::Max:
      case NodeOp::Min:
      case NodeOp::Lt: {
        const ScalarType u = loop::union_type(g_.type(args[0]), g_.type(args[1]));
        const char* sg = u.is_signed ? "signed " : "";
        out += fmt::format("  wire {}{}n{}_x = {};\n", sg, range(u.width), n,
                           operand(args[0], c, u.width, u.frac));
        out += fmt::format("  wire {}{}n{}_y = {};\n", sg, range(u.width), n,
                           operand(args[1], c, u.width, u.frac));
        if (node.op == NodeOp::Lt) {
          decl(fmt::format("n{0}_x < n{0}_y", n));
          return;
        }
        // The result type is the union: the chosen operand as it is.
        const char* cmp = node.op == NodeOp::Max ? ">=" : "<=";
        decl(fmt::format("(n{0}_x {1} n{0}_y) ? n{0}_x : n{0}_y", n, cmp));
        return;
      }
      case NodeOp::Select:
        decl(fmt::format("{} ? {} : {}", operand(args[0], c, 1, 0), operand(args[1], c, w, t.frac),
                         operand(args[2], c, w, t.frac)));
        return;
      case NodeOp::Lookup: emit_lookup(n, out); return;
    }
  }

  // x * c for a constant c (odd, canonical): shifts of x added and
  // subtracted by c's canonical signed digits, in the product's width. With
  // more than one digit, x is extended to that width once (n<N>_x) and
  // shifted, rather than re-extended in every term: the same bits mod 2^width,
  // and a fraction of the C++ Verilator makes of it on large convolutions.
  // Products of the same x in the same cycle share terms (constant_products.h).
  std::string const_product(uint32_t n, int cycle, std::string& out) {
    auto args = g_.args(n);
    const uint32_t k = const_arg(n, 0) ? args[0] : args[1];
    const uint32_t x = const_arg(n, 0) ? args[1] : args[0];
    const ScalarType& t = g_.type(n);
    const ScalarType& xt = g_.type(x);
    if (const auto it = product_group_.find(n); it != product_group_.end())
      return shared_product(groups_[it->second.first], it->second.second, n, out);
    // The product's raw value is x's raw times c's raw; x aligned to the
    // product's fraction bits is x's raw times 2^(t.frac - xt.frac) = c's
    // fraction bits, so each digit d at 2^i adds d * (x << i) on x's own grid.
    const std::vector<std::pair<int, int>> digits = sched::csd_digits(g_.node(k).imm);
    std::string extended;
    if (digits.size() > 1) {
      extended = fmt::format("n{}_x", n);
      out += fmt::format("  wire {}{} = {};\n", range(t.width), extended,
                         al(ref(x, cycle), xt, t.width, xt.frac));
    }
    std::string expr;
    for (const auto& [digit, i] : digits) {
      std::string term = extended.empty() ? al(ref(x, cycle), xt, t.width, xt.frac + i)
                         : i == 0         ? extended
                                          : fmt::format("({} << {})", extended, i);
      if (expr.empty())
        expr = digit > 0 ? term : "-" + term;
      else
        expr += (digit > 0 ? " + " : " - ") + term;
    }
    return expr;
  }

  // x * y in LUTs (MultiplierLimit 0): y's bits select shifted copies of x,
  // added, the sign bit's copy subtracted (its weight is -2^(wb-1)); all in
  // the product's width, mod 2^w as the DSP product is. A sum of selected
  // shifts is not a $mul, so Yosys does not map it to a DSP slice.
  std::string fabric_product(uint32_t n, int cycle, std::string& out) {
    const auto args = g_.args(n);
    const ScalarType& a = g_.type(args[0]);
    const ScalarType& b = g_.type(args[1]);
    const int w = g_.type(n).width;
    const int wb = b.width + (b.is_signed ? 0 : 1);
    out += fmt::format("  wire {}n{}_x = {};\n", range(w), n, operand(args[0], cycle, w, a.frac));
    out += fmt::format("  wire {}n{}_y = {};\n", range(wb), n, operand(args[1], cycle, wb, b.frac));
    std::string expr;
    for (int i = 0; i < wb && i < w; ++i) {
      const std::string bit = wb == 1 ? fmt::format("n{}_y", n) : fmt::format("n{}_y[{}]", n, i);
      const std::string term =
          fmt::format("({{{}{{{}}}}} & {})", w, bit,
                      i == 0 ? fmt::format("n{}_x", n) : fmt::format("(n{}_x << {})", n, i));
      if (i == wb - 1)
        expr += (expr.empty() ? "-" : " - ") + term;
      else
        expr += (expr.empty() ? "" : " + ") + term;
    }
    if (wb > w) partial_.insert(fmt::format("n{}_y", n));
    return expr;
  }

  // Constant products of one x in one cycle, planned together.
  struct ProductGroup {
    std::vector<uint32_t> nodes;
    ConstantProducts plan;
    int width = 0;  // the widest product's; narrower ones take the low bits
    bool emitted = false;
  };

  void plan_product_groups() {
    std::map<std::pair<uint32_t, int>, std::vector<uint32_t>> by_x;
    for (uint32_t n = 0; n < g_.size(); ++n)
      if (g_.node(n).op == NodeOp::Mul && !is_var_mul(n) && !one_at_a_time_)
        by_x[{const_arg(n, 0) ? g_.args(n)[1] : g_.args(n)[0], start_[n]}].push_back(n);
    for (auto& [key, nodes] : by_x) {
      if (nodes.size() < 2) continue;
      std::vector<int64_t> constants;
      for (uint32_t n : nodes)
        constants.push_back(g_.node(g_.args(n)[const_arg(n, 0) ? 0 : 1]).imm);
      ProductGroup group;
      group.plan = share_constant_products(constants);
      if (group.plan.shared.empty()) continue;
      for (uint32_t n : nodes) group.width = std::max(group.width, g_.type(n).width);
      for (std::size_t i = 0; i < nodes.size(); ++i) product_group_[nodes[i]] = {groups_.size(), i};
      group.nodes = std::move(nodes);
      groups_.push_back(std::move(group));
    }
  }

  // The estimate priced each constant product alone; a group's products
  // share adders (its plan's count, each the group's width).
  void price_product_groups() {
    for (const ProductGroup& gr : groups_) {
      double lut = 0, carry = 0;
      for (uint32_t n : gr.nodes) {
        lut += costs_[n].resources.lut;
        carry += costs_[n].resources.carry;
      }
      const OperatorCost adder =
          sched::operator_cost(OperatorKind::Add, {gr.width, 0, 0, 0}, o_.family);
      const auto adders = static_cast<double>(gr.plan.adders());
      r_.report.lut += adders * adder.resources.lut - lut;
      r_.report.carry += adders * adder.resources.carry - carry;
    }
  }

  // Product `j` of its group: x extended to the group's width once
  // (n<first>_gx), the shared terms (n<first>_gt<k>) on first use.
  std::string shared_product(ProductGroup& gr, std::size_t j, uint32_t n, std::string& out) {
    const uint32_t first = gr.nodes.front();
    const std::string gx = fmt::format("n{}_gx", first);
    const int w = gr.width;
    if (!gr.emitted) {
      const uint32_t x = const_arg(n, 0) ? g_.args(n)[1] : g_.args(n)[0];
      out += fmt::format("  wire {}{} = {};\n", range(w), gx,
                         al(ref(x, start_[n]), g_.type(x), w, g_.type(x).frac));
      for (std::size_t k = 0; k < gr.plan.shared.size(); ++k) {
        const ConstantProducts::Shared& sh = gr.plan.shared[k];
        out += fmt::format("  wire {}n{}_gt{} = {} {} ({} << {});\n", range(w), first, k, gx,
                           sh.sign > 0 ? "+" : "-", gx, sh.shift);
      }
      gr.emitted = true;
    }
    std::string expr;
    for (const ConstantProducts::Digit& d : gr.plan.products[j]) {
      const std::string src = d.source < 0 ? gx : fmt::format("n{}_gt{}", first, d.source);
      const std::string term = d.shift == 0 ? src : fmt::format("({} << {})", src, d.shift);
      if (expr.empty())
        expr = d.sign > 0 ? term : "-" + term;
      else
        expr += (d.sign > 0 ? " + " : " - ") + term;
    }
    const int tw = g_.type(n).width;
    if (tw == w) return expr;
    const std::string wide = fmt::format("n{}_p", n);
    out += fmt::format("  wire {}{} = {};\n", range(w), wide, expr);
    partial_.insert(wide);
    return tw == 1 ? wide + "[0]" : fmt::format("{}[{}:0]", wide, tw - 1);
  }

  void emit_quantize(uint32_t n, std::string& out) {
    const FixedType& t = g_.quantize_target(n);
    const uint32_t a = g_.args(n)[0];
    const ScalarType& at = g_.type(a);
    const int c = start_[n];
    const int d = at.frac - t.frac();
    KILN_ASSERT(!g_.is_const(a), "a quantization of a constant should have folded");
    const std::string x = ref(a, c);
    // q: the value on the target's grid rounded down (floor), as an integer
    // of ws bits; a wrapping target keeps only its own width (modular).
    const bool wrap = t.overflow == numeric::OverflowMode::Wrap;
    const int wq = d > 0 ? std::max(at.width - d, 1) : at.width - d;
    const int ws = wrap ? t.width : std::max(wq, t.width) + 2;
    std::string q;
    if (d <= 0) {
      q = al(x, at, ws, t.frac());
    } else {
      const std::string f = floor_bits(x, at, d, std::max(ws, wq + 1));
      if (ws >= wq + 1) {
        q = f;
      } else {  // wrap: the floor's low ws bits
        out += fmt::format("  wire {}n{}_f = {};\n", range(wq + 1), n, f);
        q = fmt::format("n{}_f[{}:0]", n, ws - 1);
        partial_.insert(fmt::format("n{}_f", n));
      }
    }
    std::string up;
    if (d > 0 && t.quant != numeric::QuantMode::Trn) {
      // Bits at or above the width are copies of the sign (or zeros).
      const std::string neg = at.is_signed ? fmt::format("{}[{}]", x, at.width - 1) : "1'b0";
      auto bit = [&](int i) { return i < at.width ? fmt::format("{}[{}]", x, i) : neg; };
      auto any_up_to = [&](int i) {  // |x[i:0]
        const int top = std::min(i, at.width - 1);
        return top == 0 ? fmt::format("{}[0]", x) : fmt::format("(|{}[{}:0])", x, top);
      };
      const std::string half = bit(d - 1);
      const std::string rest = d >= 2 ? any_up_to(d - 2) : "1'b0";
      const std::string any = any_up_to(d - 1);
      const std::string q_odd = bit(d);  // floor's LSB
      switch (t.quant) {
        case numeric::QuantMode::Trn: break;
        case numeric::QuantMode::TrnZero: up = fmt::format("({} & {})", neg, any); break;
        case numeric::QuantMode::Rnd: up = half; break;
        case numeric::QuantMode::RndZero:
          up = fmt::format("({} & ({} | {}))", half, rest, neg);
          break;
        case numeric::QuantMode::RndMinInf: up = fmt::format("({} & {})", half, rest); break;
        case numeric::QuantMode::RndInf:
          up = fmt::format("({} & ({} | ~{}))", half, rest, neg);
          break;
        case numeric::QuantMode::RndConv:
          up = fmt::format("({} & ({} | {}))", half, rest, q_odd);
          break;
      }
    }
    const std::string up_ext =
        up.empty() ? "" : (ws == 1 ? " + " + up : fmt::format(" + {{{}'b0, {}}}", ws - 1, up));
    if (wrap) {
      out += fmt::format("  wire {}{} = {}{};\n", range(t.width), wire(n), q, up_ext);
      return;
    }
    out += fmt::format("  wire signed {}n{}_s = {}{};\n", range(ws), n, q, up_ext);
    const std::string s = fmt::format("n{}_s", n);
    const int64_t max = t.max_raw(), min = t.min_raw();
    const int64_t sym_min = (t.is_signed && t.width > 1) ? -max : min;
    auto lit = [&](int64_t v) { return literal_signed(v, ws); };
    auto bits = [&](int64_t v) { return literal(v, t.width); };
    std::string expr;
    switch (t.overflow) {
      case numeric::OverflowMode::Wrap: break;
      case numeric::OverflowMode::Sat:
        expr = fmt::format("({0} > {1}) ? {2} : ({0} < {3}) ? {4} : {0}[{5}:0]", s, lit(max),
                           bits(max), lit(min), bits(min), t.width - 1);
        break;
      case numeric::OverflowMode::SatZero:
        expr = fmt::format("({0} > {1} || {0} < {2}) ? {3} : {0}[{4}:0]", s, lit(max), lit(min),
                           bits(0), t.width - 1);
        break;
      case numeric::OverflowMode::SatSym:
        expr = fmt::format("({0} > {1}) ? {2} : ({0} < {3}) ? {4} : {0}[{5}:0]", s, lit(max),
                           bits(max), lit(sym_min), bits(sym_min), t.width - 1);
        break;
    }
    out += fmt::format("  wire {}{} = {};\n", range(t.width), wire(n), expr);
  }

  void emit_lookup(uint32_t n, std::string& out) {
    const dfg::LookupInfo& l = g_.lookup_of(n);
    const dfg::Table& t = g_.tables()[static_cast<std::size_t>(l.table)];
    const uint32_t a = g_.args(n)[0];
    const ScalarType& at = g_.type(a);
    const int c = start_[n];
    const auto size = static_cast<int64_t>(t.data.size());
    const int k = index_bits(size);
    // floor(x * 2^shift) + offset in a signed width that holds it.
    const int up = l.shift - at.frac;  // > 0: x's raw shifted left
    int off_bits = 1;
    while ((int64_t{1} << off_bits) <= std::abs(l.offset) + size) ++off_bits;
    const int wv = std::max(at.width + std::max(up, 0), k) + off_bits + 2;
    const std::string x = ref(a, c);
    const std::string v = up >= 0 ? al(x, at, wv, at.frac + up) : floor_bits(x, at, -up, wv);
    out += fmt::format("  wire signed {}n{}_v = {} + {};\n", range(wv), n, v,
                       literal_signed(l.offset, wv));
    out += fmt::format("  wire {}n{}_i = (n{}_v < {}) ? {} : (n{}_v > {}) ? {} : n{}_v[{}:0];\n",
                       range(k), n, n, literal_signed(0, wv), literal(0, k), n,
                       literal_signed(size - 1, wv), literal(size - 1, k), n, k - 1);
    out += fmt::format("  wire {}{} = rom_{}(n{}_i);\n", range(t.type.width), wire(n), l.table, n);
    roms_used_.insert(l.table);
  }

  // Ports: the Input nodes in order, then the outputs, packed by chunks.
  void ports() {
    for (uint32_t n = 0; n < g_.size(); ++n)
      if (g_.node(n).op == NodeOp::Input) {
        const dfg::Element& e = g_.input_of(n);
        // A loop body's iteration index has no buffer: its own type.
        const ScalarType& bt = e.buffer == dfg::kIterationBuffer
                                   ? g_.type(n)
                                   : p_.buffers[static_cast<std::size_t>(e.buffer)].type;
        KILN_ASSERT(bt == g_.type(n), "an input node's type differs from its buffer's");
        r_.inputs.push_back({e, bt, "", 0});
        input_nodes_.push_back(n);
      }
    for (std::size_t i = 0; i < g_.outputs().size(); ++i) {
      const dfg::Output& o = g_.outputs()[i];
      // A predicated write's enable has no buffer: one bit.
      r_.outputs.push_back({o.where,
                            o.where.buffer == dfg::kWriteEnableBuffer
                                ? ScalarType{1, 0, false}
                                : p_.buffers[static_cast<std::size_t>(o.where.buffer)].type,
                            "", 0});
    }
    pack_ports(r_.inputs, "i");
    pack_ports(r_.outputs, "q");
  }

  void emit() {
    bool any_register = false;
    for (uint32_t n = 0; n < g_.size(); ++n) any_register = any_register || hold_[n] > 0;
    r_.sequential = any_register || (modulo_ && shared_);
    r_.started = one_at_a_time_;
    r_.phased = modulo_ && shared_;

    std::string body;
    body.reserve(g_.size() * 64);
    if (modulo_ && shared_) {
      cyc_bits_ = index_bits(modulo_->ii);
      select_ = "ph";
    }
    if (one_at_a_time_) {
      const int b = index_bits(depth_ + 1);
      body += fmt::format(
          "  // One sample at a time: cycle 0 is the start cycle, then cnt counts.\n"
          "  reg {0}cnt;\n  reg busy;\n"
          "  always @(posedge clk)\n"
          "    if (rst) begin busy <= 1'b0; cnt <= {1}; end\n"
          "    else if (start) begin busy <= 1'b1; cnt <= {2}; end\n"
          "    else if (busy) begin busy <= cnt != {3}; cnt <= cnt + {2}; end\n"
          "  wire {0}cyc = start ? {1} : cnt;\n"
          "  wire active = start | busy;\n",
          range(b), literal(0, b), literal(1, b), literal(depth_ - 1, b));
      cyc_bits_ = b;
    }
    unit_ops_.assign(static_cast<std::size_t>(units_), {});
    for (uint32_t n = 0; n < g_.size(); ++n) emit_node(n, body);
    if (shared_) emit_units(body);
    emit_registers(body);
    // Outputs, in each element's buffer type.
    for (std::size_t i = 0; i < g_.outputs().size(); ++i) {
      const dfg::Output& o = g_.outputs()[i];
      const ScalarType& bt = r_.outputs[i].type;
      std::string v = g_.is_const(o.node)
                          ? literal_aligned(g_.node(o.node).imm, g_.type(o.node), bt.width, bt.frac)
                          : al(ref(o.node, output_cycle(i)), g_.type(o.node), bt.width, bt.frac);
      out_parts_.push_back(v);
    }
    std::string text =
        modulo_ ? fmt::format(
                      "// Layer {} ({}): one iteration of a loop, {} cycles, a new one "
                      "every {} cycle(s).\n",
                      s_.onnx_name, s_.name, depth_, modulo_->ii)
                : fmt::format("// Layer {} ({}): {} cycles, {}.\n", s_.onnx_name, s_.name, depth_,
                              one_at_a_time_ ? "one sample at a time" : "pipelined");
    text += "module " + r_.module + "(\n";
    std::vector<std::string> ports;
    if (r_.sequential || one_at_a_time_) ports.push_back("  input clk");
    if (one_at_a_time_) {
      ports.push_back("  input rst");
      ports.push_back("  input start");
    }
    if (modulo_ && shared_) ports.push_back(fmt::format("  input {}ph", range(cyc_bits_)));
    for (const auto& [name, width] : packed_widths(r_.inputs))
      ports.push_back(fmt::format("  input {}{}", range(width), name));
    for (const auto& [name, width] : packed_widths(r_.outputs))
      ports.push_back(fmt::format("  output {}{}", range(width), name));
    for (std::size_t i = 0; i < ports.size(); ++i)
      text += ports[i] + (i + 1 < ports.size() ? ",\n" : "\n");
    text += ");\n";
    for (std::size_t i = 0; i < r_.inputs.size(); ++i) {
      const StagePortElement& e = r_.inputs[i];
      text += fmt::format("  wire {}{} = {}[{}:{}];\n", range(e.type.width), wire(input_nodes_[i]),
                          e.port, e.lsb + e.type.width - 1, e.lsb);
    }
    text += roms();
    text += body;
    for (std::size_t i = 0; i < out_parts_.size(); ++i)
      text +=
          fmt::format("  wire {}o{} = {};\n", range(r_.outputs[i].type.width), i, out_parts_[i]);
    for (const auto& [port, cat] :
         packed_concatenations(r_.outputs, [](std::size_t i) { return fmt::format("o{}", i); }))
      text += fmt::format("  assign {} = {};\n", port, cat);
    if (!partial_.empty()) {
      // Bits that rounding and wrap-around drop on purpose (Verilator's
      // *unused* names are exempt from its UNUSED warning).
      text += unused_sinks({partial_.begin(), partial_.end()});
    }
    text += "endmodule\n";
    r_.verilog = std::move(text);
  }

  void emit_units(std::string& out) {
    for (int u = 0; u < units_; ++u) {
      int wa = 1, wb = 1, wp = 1;
      for (uint32_t n : unit_ops_[static_cast<std::size_t>(u)]) {
        const ScalarType& a = g_.type(g_.args(n)[0]);
        const ScalarType& b = g_.type(g_.args(n)[1]);
        wa = std::max(wa, a.width + (a.is_signed ? 0 : 1));
        wb = std::max(wb, b.width + (b.is_signed ? 0 : 1));
        wp = std::max(wp, g_.type(n).width);
      }
      out +=
          fmt::format("  reg signed {}u{}_a;\n  reg signed {}u{}_b;\n", range(wa), u, range(wb), u);
      out +=
          fmt::format("  always @* begin\n    u{0}_a = {1};\n    u{0}_b = {2};\n    case ({3})\n",
                      u, literal(0, wa), literal(0, wb), select_);
      for (uint32_t n : unit_ops_[static_cast<std::size_t>(u)]) {
        const int c = start_[n];
        const ScalarType& a = g_.type(g_.args(n)[0]);
        const ScalarType& b = g_.type(g_.args(n)[1]);
        out += fmt::format("      {}: begin u{}_a = {}; u{}_b = {}; end\n",
                           literal(slot(c), cyc_bits_), u, operand(g_.args(n)[0], c, wa, a.frac), u,
                           operand(g_.args(n)[1], c, wb, b.frac));
      }
      out += "      default: ;\n    endcase\n  end\n";
      out += fmt::format("  wire signed {}u{}_p = u{}_a * u{}_b;\n", range(wp), u, u, u);
    }
  }

  void emit_registers(std::string& out) const {
    std::string seq;
    if (one_at_a_time_) {
      for (std::size_t r = 0; r < reg_width_.size(); ++r)
        out += fmt::format("  reg {}r{};\n", range(reg_width_[r]), r);
      for (uint32_t n = 0; n < g_.size(); ++n)
        if (reg_of_[n] >= 0)
          seq += fmt::format("    if (active && cyc == {}) r{} <= n{};\n",
                             literal(start_[n], cyc_bits_), reg_of_[n], n);
    } else {
      // Pipeline registers in banks of about kBankBits: a bank is one
      // register that a process names twice, whatever it holds (Icarus
      // finds every name a process reads by a linear search of the module).
      constexpr int kBankBits = 1024;
      struct Bank {
        std::string d;  // the concatenation it loads, most significant first
        int width = 0;
      };
      std::vector<Bank> banks;
      for (uint32_t n = 0; n < g_.size(); ++n) {
        const int w = g_.type(n).width;
        for (int k = 1; k <= hold_[n]; ++k) {
          if (banks.empty() || banks.back().width + w > kBankBits) banks.emplace_back();
          Bank& b = banks.back();
          const std::string from = k == 1 ? wire(n) : fmt::format("n{}_r{}", n, k - 1);
          out += fmt::format("  wire {}n{}_r{} = rb{}[{}:{}];\n", range(w), n, k, banks.size() - 1,
                             b.width + w - 1, b.width);
          b.d = from + (b.d.empty() ? "" : ", ") + b.d;
          b.width += w;
        }
      }
      for (std::size_t b = 0; b < banks.size(); ++b) {
        // Always a vector: its bits are read as slices, even a bank of one.
        const std::string r = fmt::format("[{}:0] ", banks[b].width - 1);
        out += fmt::format("  reg {0}rb{1};\n  wire {0}rb{1}_d = {{{2}}};\n", r, b, banks[b].d);
        seq += fmt::format("    rb{0} <= rb{0}_d;\n", b);
      }
    }
    if (!seq.empty()) out += "  always @(posedge clk) begin\n" + seq + "  end\n";
  }

  // Each table once per module, as a function over a case statement: every
  // lookup is its own copy of the table, which Yosys turns into a ROM with one
  // read port (a block RAM when a register follows it, LUTs otherwise). One
  // array read by every lookup would be a ROM with hundreds of read ports,
  // which Yosys's memory_libmap cannot map (soft_max: 24 GB, then killed).
  std::string roms() const {
    std::string s;
    for (int t : roms_used_) {
      const dfg::Table& tb = g_.tables()[static_cast<std::size_t>(t)];
      const int k = index_bits(static_cast<int64_t>(tb.data.size()));
      s += fmt::format("  // Table {}: {} entries.\n", tb.name, tb.data.size());
      // Verilator would inline the case into every lookup (soft_max: a 349 s
      // build instead of 24 s); its metacomment keeps one C++ function.
      s += fmt::format(
          "  function {}rom_{}(input {}i);\n    /* verilator no_inline_task */\n    case (i)\n",
          range(tb.type.width), t, range(k));
      for (std::size_t e = 0; e < tb.data.size(); ++e)
        s += fmt::format("      {}: rom_{} = {};\n", literal(static_cast<int64_t>(e), k), t,
                         literal(tb.data[e], tb.type.width));
      s += fmt::format("      default: rom_{} = {};\n    endcase\n  endfunction\n", t,
                       literal(0, tb.type.width));
    }
    return s;
  }

  const dfg::Stage& s_;
  const dfg::Graph& g_;
  const loop::Program& p_;
  const StageOptions& o_;
  BuiltStage r_;
  std::vector<OperatorCost> costs_;
  std::vector<int> op_of_, start_, hold_, unit_of_, reg_of_;
  std::vector<int> reg_width_, reg_busy_until_;
  std::vector<bool> read_in_own_cycle_;
  const ModuloTiming* modulo_;
  bool fabric_ = false;         // products in LUTs (MultiplierLimit 0)
  bool shared_ = false;         // products on multiplier units (MultiplierLimit)
  bool one_at_a_time_ = false;  // shared units outside a loop: one sample at a time
  std::string select_ = "cyc";  // what picks a unit's operands
  int depth_ = 1;
  int units_ = 0;
  int cyc_bits_ = 1;
  std::vector<std::vector<uint32_t>> unit_ops_;
  std::set<int> roms_used_;
  std::set<std::string> partial_;
  std::vector<ProductGroup> groups_;
  std::map<uint32_t, std::pair<std::size_t, std::size_t>> product_group_;  // node -> (group, index)
  std::vector<std::string> out_parts_;
  std::vector<uint32_t> input_nodes_;  // the Input node of each r_.inputs entry
};

}  // namespace

void pack_ports(std::vector<StagePortElement>& elements, const char* prefix) {
  int lsb = 0;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (i % kStagePortElements == 0) lsb = 0;
    elements[i].port = fmt::format("{}{}", prefix, i / kStagePortElements);
    elements[i].lsb = lsb;
    lsb += elements[i].type.width;
  }
}

std::vector<std::pair<std::string, int>> packed_widths(
    const std::vector<StagePortElement>& elements) {
  std::vector<std::pair<std::string, int>> ports;
  for (const StagePortElement& e : elements)
    if (ports.empty() || ports.back().first != e.port)
      ports.emplace_back(e.port, e.lsb + e.type.width);
    else
      ports.back().second = e.lsb + e.type.width;
  return ports;
}

std::vector<std::pair<std::string, std::string>> packed_concatenations(
    const std::vector<StagePortElement>& elements,
    const std::function<std::string(std::size_t)>& signal) {
  std::vector<std::pair<std::string, std::string>> ports;
  for (std::size_t i = 0; i < elements.size();) {
    std::string cat;
    std::size_t j = i;
    for (; j < elements.size() && elements[j].port == elements[i].port; ++j)
      cat = signal(j) + (j > i ? ", " : "") + cat;
    ports.emplace_back(elements[i].port, "{" + cat + "}");
    i = j;
  }
  return ports;
}

BuiltStage build_stage(const dfg::Stage& stage, const loop::Program& program,
                       const StageOptions& options, const std::string& module_name) {
  BuiltStage s = StageBuilder(stage, program, options, module_name).run();
  for (StagePortElement& o : s.outputs) o.at = s.report.latency_cycles;  // registered at its end
  return s;
}

BuiltStage build_body(const dfg::Stage& body, const loop::Program& program,
                      const StageOptions& options, const ModuloTiming& timing,
                      const std::string& module_name) {
  return StageBuilder(body, program, options, module_name, &timing).run();
}

}  // namespace kiln::rtl

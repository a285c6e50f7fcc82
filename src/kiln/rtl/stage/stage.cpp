// A stage's analysis: its nodes priced (node_cost.h), scheduled (problem.h,
// the Chaining problem; a loop body's cycles come from its modulo schedule),
// the registers each value needs (registers.h), the shared multiplier units
// (units.h), the products by constants planned together
// (constant_products.h), the resources summed, the ports laid out. The
// netlist is stage_netlist.cpp's.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kiln/rtl/plan/problem.h"
#include "kiln/rtl/plan/stage_cache.h"
#include "kiln/rtl/stage/stage_builder.h"
#include "kiln/sched/operator_library.h"
#include "kiln/sched/solvers.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

using dfg::NodeOp;
using loop::ScalarType;

StageBuilder::StageBuilder(const StageGraph& s, const loop::Program& p, const StageOptions& o,
                           std::string module, const ModuloTiming* modulo)
    : s_(s), g_(*s.graph), p_(p), o_(o), modulo_(modulo) {
  r_.module = std::move(module);
  r_.report.name = s.name;
  r_.report.onnx_name = s.onnx_name;
  r_.report.loop_ops = s.loop_ops;
  r_.report.nodes = static_cast<int64_t>(g_.size());
}

BuiltStage StageBuilder::run() {
  classify();
  if (modulo_)
    take_timing();
  else
    schedule();
  registers();
  price_product_groups();
  pair_dsp_products();
  ports();
  calibrate_estimate(r_.report);
  if (o_.emit) emit();
  return std::move(r_);
}

// The value of lookup `n` that a register holds: the lookup's own, or that of
// its only reader when that is a bit-select (a Quantize that neither rounds
// nor saturates: wires), which Yosys sees through as well.
uint32_t StageBuilder::table_register(uint32_t n) const {
  const uint32_t r = sole_reader_[n];
  if (r == kNoReader || g_.node(r).op != NodeOp::Quantize) return n;
  const QuantizeWork q = quantize_work(g_, r);
  return q.rounds || q.saturates ? n : r;
}

// A lookup whose value is read only from its register, none of it in its own
// cycle: Yosys merges that register into the table and maps large ones (of
// the bits the register keeps) to block RAM.
bool StageBuilder::in_block_ram(uint32_t n) const {
  if (one_at_a_time_ || g_.node(n).op != NodeOp::Lookup) return false;
  const uint32_t v = table_register(n);
  if (life_.hold[v] == 0 || life_.read_in_own_cycle[v]) return false;
  const auto& t = g_.tables()[static_cast<std::size_t>(g_.lookup_of(n).table)];
  return sched::rom_in_block_ram(static_cast<int>(t.data.size()), g_.type(v).width);
}

// Node n's `luts` under their cost terms (calibration.h).
void StageBuilder::book_luts(uint32_t n, double luts) {
  CostTerms& t = r_.report.terms;
  switch (g_.node(n).op) {
    case NodeOp::Add:
    case NodeOp::AddMod:
    case NodeOp::Sub:
    case NodeOp::SubMod:
    case NodeOp::Neg: return t.add(LutTerm::Adder, luts);
    case NodeOp::Mul:
      return t.add(is_var_mul(n) ? LutTerm::FabricMul : LutTerm::ProductAdder, luts);
    case NodeOp::Quantize: return t.add(LutTerm::Quantize, luts);
    case NodeOp::Max:
    case NodeOp::Min: return t.add(LutTerm::MaxMin, luts);
    case NodeOp::Lt: return t.add(LutTerm::Compare, luts);
    case NodeOp::Select: return t.add(LutTerm::Mux, luts);
    case NodeOp::Lookup: {
      // The index's clamp, then the table (none of it when in block RAM).
      const double clamp = std::min(luts, lookup_clamp_luts(g_, n, o_.family));
      t.add(LutTerm::Quantize, clamp);
      return t.add(LutTerm::Rom, luts - clamp);
    }
    case NodeOp::Input:
    case NodeOp::Const:
    case NodeOp::Shl: return t.add(LutTerm::Adder, luts);  // free: 0
  }
}

void StageBuilder::classify() {
  fabric_ = o_.multiplier_limit == 0;
  costs_.resize(g_.size());
  StageReport& rep = r_.report;
  std::vector<int> adder_depth(g_.size(), 0);
  // The one value each node is a multiple of (through shifts, negations,
  // products by constants and sums of its multiples), kNone for a constant,
  // kMany for a sum of different values: an adder whose result is a multiple
  // of one value computes a product by a constant (shared or not), one of
  // different values adds products together.
  constexpr uint32_t kNone = UINT32_MAX, kMany = UINT32_MAX - 1;
  std::vector<uint32_t> source(g_.size(), kNone);
  for (uint32_t n = 0; n < g_.size(); ++n) {
    costs_[n] = node_cost(g_, n, o_.family, fabric_, o_.constants_on_dsps);
    const NodeOp op = g_.node(n).op;
    const auto args = g_.args(n);
    const bool sum = is_adder(op);
    const bool const_mul = op == NodeOp::Mul && !is_var_mul(n);
    if (op == NodeOp::Const) {
      source[n] = kNone;
    } else if (sum || op == NodeOp::Shl || op == NodeOp::Neg || const_mul) {
      source[n] = kNone;
      for (uint32_t a : args) {
        if (source[a] == kNone) continue;
        source[n] = source[n] == kNone || source[n] == source[a] ? source[a] : kMany;
      }
    } else {
      source[n] = n;  // a value of its own
    }
    if (op == NodeOp::Mul) (is_var_mul(n) ? rep.multipliers : rep.const_multipliers)++;
    if (sum) rep.adders++;
    if (op == NodeOp::Lookup) rep.lookups++;
    // The adders it spends and the levels they add to the chain from an input.
    int levels = 0;
    if (sum || op == NodeOp::Neg) {
      // A product's adder takes two multiples of one value (a constant
      // added, a bias, is a sum's).
      const bool product =
          sum ? source[args[0]] == source[args[1]] && source[args[0]] < kMany : source[n] < kMany;
      ++(product ? rep.product_adders : rep.sum_adders);
      levels = 1;
    } else if (const_mul && !constant_on_dsp(g_, n, o_.constants_on_dsps)) {
      const int digits = constant_digits(g_, n);
      rep.product_adders += std::max(0, digits - 1);
      while ((1 << levels) < digits) ++levels;
    }
    int from = 0;
    for (uint32_t a : args) from = std::max(from, adder_depth[a]);
    adder_depth[n] = from + levels;
  }
  for (const dfg::Output& o : g_.outputs())
    rep.adder_depth = std::max(rep.adder_depth, adder_depth[o.node]);
  shared_ = !fabric_ && o_.multiplier_limit && rep.multipliers > *o_.multiplier_limit;
  one_at_a_time_ = shared_ && !modulo_;
}

// A loop body's cycles come from its modulo schedule (loop_stage.cpp).
void StageBuilder::take_timing() {
  KILN_ASSERT(modulo_->start.size() == g_.size() && modulo_->stable.size() == g_.size() &&
                  modulo_->output_at.size() == g_.outputs().size(),
              "a loop body's timing does not match its graph");
  start_ = modulo_->start;
  depth_ = 1;
  for (uint32_t n = 0; n < g_.size(); ++n) depth_ = std::max(depth_, start_[n] + 1);
  for (int t : modulo_->output_at) depth_ = std::max(depth_, t + 1);
  r_.report.latency_cycles = depth_;
  r_.report.interval_cycles = modulo_->ii;
  // The longest chain of operations in one cycle: what the clock must cover.
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

void StageBuilder::schedule() {
  sched::Problem pb;
  pb.name = s_.name;
  pb.problem_class = sched::ProblemClass::Chaining;
  pb.clock_ns = o_.clock_ns;
  GraphOperations ops(pb, g_, costs_, shared_, o_.multiplier_limit);
  std::vector<int> op_of(g_.size(), -1);
  for (uint32_t n = 0; n < g_.size(); ++n) {
    const NodeOp op = g_.node(n).op;
    if (op == NodeOp::Input || op == NodeOp::Const) continue;
    op_of[n] = ops.add(n);
    for (uint32_t a : g_.args(n))
      if (op_of[a] >= 0) pb.add_dependence(op_of[a], op_of[n]);
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
    if (op_of[n] >= 0) {
      start_[n] = sol.start[static_cast<std::size_t>(op_of[n])];
      critical =
          std::max(critical, sol.start_ns[static_cast<std::size_t>(op_of[n])] + costs_[n].delay_ns);
    }
  depth_ = 1;
  for (uint32_t n = 0; n < g_.size(); ++n) depth_ = std::max(depth_, start_[n] + 1);
  r_.report.latency_cycles = depth_;
  r_.report.interval_cycles = shared_ ? depth_ : 1;
  r_.report.critical_path_ns = critical;
}

void StageBuilder::registers() {
  std::vector<int> output_at;
  for (std::size_t i = 0; i < g_.outputs().size(); ++i) output_at.push_back(output_cycle(i));
  life_ = lifetimes(g_, start_, output_at, modulo_ ? modulo_->stable : std::vector<bool>{});
  int64_t bits = 0;
  if (one_at_a_time_) {
    shared_regs_ = share_registers(g_, start_, life_.hold);
    verify_sharing(g_, start_, life_.hold, shared_regs_);
    bits = shared_regs_.bits;
  } else {
    for (uint32_t n = 0; n < g_.size(); ++n)
      bits += static_cast<int64_t>(g_.type(n).width) * life_.hold[n];
  }
  // Each node's only reader (outputs count as readers), for table_register.
  sole_reader_.assign(g_.size(), kNoReader);
  std::vector<int> readers(g_.size(), 0);
  for (uint32_t n = 0; n < g_.size(); ++n)
    for (uint32_t a : g_.args(n))
      if (++readers[a] == 1) sole_reader_[a] = n;
  for (const dfg::Output& o : g_.outputs()) ++readers[o.node];
  for (uint32_t n = 0; n < g_.size(); ++n)
    if (readers[n] != 1) sole_reader_[n] = kNoReader;
  StageReport& rep = r_.report;
  rep.register_bits = bits;
  rep.ff = static_cast<double>(bits);
  rep.terms.add(FfTerm::Value, static_cast<double>(bits));
  for (uint32_t n = 0; n < g_.size(); ++n) {
    if (in_block_ram(n)) {
      // The table and its read's register become one block RAM.
      costs_[n] = block_rom_cost(g_, n, o_.family);
      const int held = g_.type(table_register(n)).width;
      rep.ff -= held;
      rep.terms.add(FfTerm::Value, -held);
    }
    fpga::Resources c = costs_[n].resources;
    if (shared_ && is_var_mul(n)) c.dsp = 0;  // on the units, counted below
    static_cast<fpga::Resources&>(rep) += c;
    book_luts(n, c.lut);
  }
  if (shared_) {
    units_ = bind_units(g_, start_, [this](int c) { return slot(c); });
    verify_units(
        g_, start_, [this](int c) { return slot(c); }, units_);
    rep.multiplier_units = units_.units;
    double unit_dsp = 0;
    for (uint32_t n = 0; n < g_.size(); ++n)
      if (is_var_mul(n)) unit_dsp = std::max(unit_dsp, costs_[n].resources.dsp);
    rep.dsp += unit_dsp * units_.units;
  } else {
    rep.multiplier_units = fabric_ ? 0 : rep.multipliers;
  }
}

bool StageBuilder::on_dsp(uint32_t n) const {
  if (g_.node(n).op != NodeOp::Mul) return false;
  if (is_var_mul(n)) return !fabric_ && !shared_;
  return constant_on_dsp(g_, n, o_.constants_on_dsps);
}

// Products sharing an operand in one cycle, two per DSP slice where their
// widths let one slice compute both (product_pairs.h): one slice each pair.
void StageBuilder::pair_dsp_products() {
  const auto dsp = [this](uint32_t n) { return on_dsp(n); };
  pairs_ = pair_products(g_, start_, o_.family, dsp);
  verify_pairs(g_, start_, o_.family, dsp, pairs_);
  r_.report.dsp_pairs = static_cast<int64_t>(pairs_.size());
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    const ProductPair& p = pairs_[i];
    pair_[p.high] = pair_[p.low] = i;
    r_.report.dsp -= costs_[p.high].resources.dsp + costs_[p.low].resources.dsp - 1;
  }
}

// Products by constants of one x in one cycle share adders: the estimate
// priced each alone, a group costs its plan's adders, each the group's width.
void StageBuilder::price_product_groups() {
  if (one_at_a_time_) return;  // registers in between: each product on its own
  ConstantProductsMemo* memo = o_.cache ? &o_.cache->constant_products : nullptr;
  const auto price = [this](const std::vector<uint32_t>& nodes, const ConstantProducts& plan,
                            int width) {
    double lut = 0, carry = 0;
    for (const uint32_t n : nodes) {
      lut += costs_[n].resources.lut;
      carry += costs_[n].resources.carry;
    }
    const sched::OperatorCost adder =
        sched::operator_cost(sched::OperatorKind::Add, {width, 0, 0, 0}, o_.family);
    const auto adders = static_cast<double>(plan.adders());
    r_.report.lut += adders * adder.resources.lut - lut;
    r_.report.terms.add(LutTerm::ProductAdder, adders * adder.resources.lut - lut);
    r_.report.carry += adders * adder.resources.carry - carry;
    // The group's plan in place of its products' own digits.
    for (const uint32_t n : nodes)
      r_.report.product_adders -= std::max(0, constant_digits(g_, n) - 1);
    r_.report.product_adders += plan.adders();
  };
  // Priced only: the groups are not kept for the netlist.
  if (!o_.emit) return for_each_product_group(g_, start_, memo, price, o_.constants_on_dsps);
  groups_ = group_constant_products(g_, start_, memo, o_.constants_on_dsps);
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const ProductGroup& gr = groups_[i];
    price(gr.nodes, gr.plan, gr.width);
    for (std::size_t j = 0; j < gr.nodes.size(); ++j) product_group_[gr.nodes[j]] = {i, j};
  }
}

// Ports: the Input nodes in order, then the outputs, packed by chunks.
void StageBuilder::ports() {
  std::size_t inputs = 0;
  for (uint32_t n = 0; n < g_.size(); ++n) inputs += g_.node(n).op == NodeOp::Input ? 1 : 0;
  r_.inputs.reserve(inputs);  // at once: a layer's ports are thousands of elements
  r_.outputs.reserve(g_.outputs().size());
  for (uint32_t n = 0; n < g_.size(); ++n)
    if (g_.node(n).op == NodeOp::Input) {
      const dfg::Element& e = g_.input_of(n);
      // A loop body's iteration index has no buffer: its own type.
      const ScalarType& bt = e.buffer == dfg::kIterationBuffer
                                 ? g_.type(n)
                                 : p_.buffers[static_cast<std::size_t>(e.buffer)].type;
      KILN_ASSERT(bt == g_.type(n), "an input node's type differs from its buffer's");
      r_.inputs.push_back({e, bt, "", 0});
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
  bool any_register = false;
  for (uint32_t n = 0; n < g_.size(); ++n) any_register = any_register || life_.hold[n] > 0;
  r_.sequential = any_register || (modulo_ && shared_);
  r_.started = one_at_a_time_;
  r_.phased = modulo_ && shared_;
}

// ---- the interface --------------------------------------------------------------

namespace {

// Whether programs `a` and `b` give the buffers `g` reads and writes the
// same types: all of a program that StageBuilder reads.
bool same_buffer_types(const dfg::Graph& g, const loop::Program& a, const loop::Program& b) {
  if (&a == &b) return true;
  const auto same = [&](int buffer) {
    if (buffer < 0) return true;  // the iteration index, a write's enable: no buffer
    const auto i = static_cast<std::size_t>(buffer);
    return i < a.buffers.size() && i < b.buffers.size() && a.buffers[i].type == b.buffers[i].type;
  };
  for (uint32_t n = 0; n < g.size(); ++n)
    if (g.node(n).op == NodeOp::Input && !same(g.input_of(n).buffer)) return false;
  for (const dfg::Output& o : g.outputs())
    if (!same(o.where.buffer)) return false;
  return true;
}

}  // namespace

void pack_ports(std::vector<StagePortElement>& elements, const char* prefix) {
  int lsb = 0;
  std::string port;  // named once per port, not per element
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (i % kStagePortElements == 0) {
      lsb = 0;
      port = prefix + std::to_string(i / kStagePortElements);
    }
    elements[i].port = port;
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

std::vector<std::pair<std::string, netlist::ValueId>> packed_values(
    netlist::Module& m, const std::vector<StagePortElement>& elements,
    const std::function<netlist::ValueId(std::size_t)>& value) {
  std::vector<std::pair<std::string, netlist::ValueId>> ports;
  for (std::size_t i = 0; i < elements.size();) {
    std::vector<netlist::ValueId> parts;  // most significant first
    std::size_t j = i;
    for (; j < elements.size() && elements[j].port == elements[i].port; ++j)
      parts.insert(parts.begin(), value(j));
    ports.emplace_back(elements[i].port, parts.size() == 1 ? parts[0] : m.concat(parts));
    i = j;
  }
  return ports;
}

BuiltStage build_stage(const StageGraph& stage, const loop::Program& program,
                       const StageOptions& options, const std::string& module_name) {
  const auto build = [&] {
    BuiltStage s = StageBuilder(stage, program, options, module_name).run();
    for (StagePortElement& o : s.outputs) o.at = s.report.latency_cycles;  // registered at its end
    return s;
  };
  if (!options.cache || options.emit) return build();
  StageCache& cache = *options.cache;
  auto [hash, fresh] = cache.content_hashes.try_emplace(stage.graph, 0);
  if (fresh) hash->second = stage.graph->content_hash();
  // What StageBuilder reads of the options, when it only prices.
  const std::tuple<int, int, double, int, bool> read{
      options.multiplier_limit.value_or(-1), static_cast<int>(options.family), options.clock_ns,
      static_cast<int>(options.scheduler), options.constants_on_dsps};
  const auto [first, last] = cache.stages.equal_range(hash->second);
  for (auto it = first; it != last; ++it) {
    const StageCache::BuiltFrom& b = it->second;
    if (b.options == read && b.name == stage.name && b.onnx_name == stage.onnx_name &&
        b.loop_ops == stage.loop_ops && b.module == module_name &&
        (b.graph == stage.graph || b.graph->same_content(*stage.graph)) &&
        same_buffer_types(*stage.graph, *b.program, program))
      return b.stage;
  }
  StageCache::BuiltFrom b{stage.graph, &program,       stage.name, stage.onnx_name,
                          module_name, stage.loop_ops, read,       build()};
  return cache.stages.emplace(hash->second, std::move(b))->second.stage;
}

BuiltStage build_body(const StageGraph& body, const loop::Program& program,
                      const StageOptions& options, const ModuloTiming& timing,
                      const std::string& module_name) {
  return StageBuilder(body, program, options, module_name, &timing).run();
}

}  // namespace kiln::rtl

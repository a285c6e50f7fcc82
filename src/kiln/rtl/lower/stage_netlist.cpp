// A scheduled stage as a netlist module: one value per node in its cycle, a
// pipeline register per clock edge a value crosses (in banks of about 1 Kbit,
// which Icarus compiles in linear time), or, one sample at a time, the shared
// registers loaded by cycle under a counter; products by constants as shifts
// and adds (planned groups sharing terms), products of two variables on DSP
// multipliers, shared units multiplexed by cycle or phase, or LUTs;
// quantization, comparisons, selections and table lookups as the emulator
// computes them, bit for bit.
#include <fmt/format.h>

#include <algorithm>

#include "kiln/rtl/stage/stage_builder.h"
#include "kiln/sched/operator_library.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

using dfg::NodeOp;
using loop::ScalarType;
using netlist::kNoValue;
using netlist::Op;
using numeric::FixedType;

namespace {

// Pipeline registers are packed into banks of about this many bits: a bank is
// one register that the module's process names twice, whatever it holds
// (Icarus looks up every name a process reads by a linear search of the
// module).
constexpr int kBankBits = 1024;

}  // namespace

void StageBuilder::emit() {
  r_.netlist = netlist::Module(r_.module);
  m_ = &r_.netlist;
  fv_.emplace(*m_);
  FixedValues& fv = *fv_;
  m_->set_doc(modulo_ ? fmt::format("Layer {} ({}): one iteration of a loop, {} cycles, a new one "
                                    "every {} cycle(s).",
                                    s_.onnx_name, s_.name, depth_, modulo_->ii)
                      : fmt::format("Layer {} ({}): {} cycles, {}.", s_.onnx_name, s_.name, depth_,
                                    one_at_a_time_ ? "one sample at a time" : "pipelined"));
  // Ports in order: rst, start (one sample at a time), ph (units shared by
  // phase), the packed inputs, the packed outputs.
  ValueId rst = kNoValue, start = kNoValue;
  if (one_at_a_time_) {
    rst = m_->input("rst", 1);
    start = m_->input("start", 1);
  }
  if (modulo_ && shared_) {
    cyc_bits_ = index_bits(modulo_->ii);
    select_ = m_->input("ph", cyc_bits_);
  }
  std::map<std::string, ValueId> port_value;
  for (const auto& [name, width] : packed_widths(r_.inputs))
    port_value[name] = m_->input(name, width);
  std::vector<int> out_ports;
  for (const auto& [name, width] : packed_widths(r_.outputs))
    out_ports.push_back(m_->output(name, width));

  value_.assign(g_.size(), kNoValue);
  {
    std::size_t i = 0;
    for (uint32_t n = 0; n < g_.size(); ++n)
      if (g_.node(n).op == NodeOp::Input) {
        const StagePortElement& e = r_.inputs[i++];
        value_[n] = m_->slice(port_value.at(e.port), e.lsb, e.type.width, fmt::format("n{}", n));
      }
  }

  if (one_at_a_time_) {
    // Cycle 0 is the start cycle, then cnt counts.
    const int b = index_bits(depth_ + 1);
    cyc_bits_ = b;
    const ValueId cnt = m_->reg(b, "cnt");
    const ValueId busy = m_->reg(1, "busy");
    cyc_ = m_->mux(start, fv.lit(0, b), cnt, "cyc");
    active_ = m_->op(Op::Or, 1, {start, busy}, 0, "active");
    m_->drive_register(busy, m_->mux(start, fv.lit(1, 1), fv.ne(cnt, depth_ - 1)), active_, rst);
    m_->drive_register(cnt, m_->mux(start, fv.lit(1, b), m_->add(cnt, fv.lit(1, b))), active_, rst);
    select_ = cyc_;
    for (std::size_t r = 0; r < shared_regs_.width.size(); ++r)
      shared_reg_.push_back(m_->reg(shared_regs_.width[r], fmt::format("r{}", r)));
  } else {
    layout_registers();
  }
  unit_product_.assign(static_cast<std::size_t>(units_.units), kNoValue);
  group_values_.assign(groups_.size(), {});
  for (uint32_t n = 0; n < g_.size(); ++n) value_of(n);
  drive_registers();

  // Outputs, in each element's buffer type, packed.
  const auto packed = packed_values(*m_, r_.outputs, [&](std::size_t i) {
    const dfg::Output& o = g_.outputs()[i];
    const ScalarType& bt = r_.outputs[i].type;
    return g_.is_const(o.node)
               ? fv.aligned_literal(g_.node(o.node).imm, g_.type(o.node), bt.width, bt.frac)
               : fv.align(ref(o.node, output_cycle(i)), g_.type(o.node), bt.width, bt.frac);
  });
  for (std::size_t i = 0; i < packed.size(); ++i) m_->drive_output(out_ports[i], packed[i].second);
  m_ = nullptr;
  fv_.reset();
}

// ---- registers --------------------------------------------------------------------

void StageBuilder::layout_registers() {
  for (uint32_t n = 0; n < g_.size(); ++n) {
    const int w = g_.type(n).width;
    for (int k = 1; k <= life_.hold[n]; ++k) {
      if (bank_parts_.empty() || bank_parts_.back().empty() ||
          slot_of_.at(bank_parts_.back().back()).lsb +
                  g_.type(bank_parts_.back().back().first).width + w >
              kBankBits)
        bank_parts_.emplace_back();
      const int bank = static_cast<int>(bank_parts_.size()) - 1;
      int lsb = 0;
      if (!bank_parts_.back().empty()) {
        const auto last = bank_parts_.back().back();
        lsb = slot_of_.at(last).lsb + g_.type(last.first).width;
      }
      slot_of_[{n, k}] = {bank, lsb};
      bank_parts_.back().emplace_back(n, k);
    }
  }
  for (std::size_t b = 0; b < bank_parts_.size(); ++b) {
    const auto last = bank_parts_[b].back();
    bank_.push_back(
        m_->reg(slot_of_.at(last).lsb + g_.type(last.first).width, fmt::format("rb{}", b)));
  }
}

ValueId StageBuilder::delayed(uint32_t n, int k) {
  const auto it = delayed_.find({n, k});
  if (it != delayed_.end()) return it->second;
  const Slot s = slot_of_.at({n, k});
  return delayed_[{n, k}] = m_->slice(bank_[static_cast<std::size_t>(s.bank)], s.lsb,
                                      g_.type(n).width, fmt::format("n{}_r{}", n, k));
}

void StageBuilder::drive_registers() {
  if (one_at_a_time_) {
    // A shared register loads each of its values at the end of its cycle.
    std::vector<std::vector<std::pair<int64_t, ValueId>>> loads(shared_reg_.size());
    for (uint32_t n = 0; n < g_.size(); ++n)
      if (shared_regs_.reg_of[n] >= 0)
        loads[static_cast<std::size_t>(shared_regs_.reg_of[n])].emplace_back(start_[n],
                                                                             value_of(n));
    for (std::size_t r = 0; r < shared_reg_.size(); ++r) {
      if (loads[r].empty()) continue;
      const ValueId d = fv_->select(cyc_, loads[r], shared_reg_[r]);
      m_->drive_register(shared_reg_[r], d, active_);
    }
    return;
  }
  // Each bank loads, every cycle, each value one edge further along.
  for (std::size_t b = 0; b < bank_.size(); ++b) {
    std::vector<ValueId> parts;  // most significant first
    for (const auto& [n, k] : bank_parts_[b])
      parts.insert(parts.begin(), k == 1 ? value_of(n) : delayed(n, k - 1));
    m_->drive_register(bank_[b], parts.size() == 1 ? parts[0] : m_->concat(parts));
  }
}

// ---- values --------------------------------------------------------------------

ValueId StageBuilder::ref(uint32_t a, int cycle) {
  const int d = cycle - start_[a];
  KILN_ASSERT(d >= 0, "a value is read before it is computed");
  if (d == 0 || stable(a)) return value_of(a);
  if (one_at_a_time_) return shared_reg_[static_cast<std::size_t>(shared_regs_.reg_of[a])];
  return delayed(a, d);
}

ValueId StageBuilder::operand(uint32_t a, int cycle, int width, int frac) {
  if (g_.is_const(a)) return fv_->aligned_literal(g_.node(a).imm, g_.type(a), width, frac);
  return fv_->align(ref(a, cycle), g_.type(a), width, frac);
}

// Values are made on demand, operands first: a product on a shared unit
// needs the operands of every product of its unit, which may come later in
// the graph's order (through registers, never in a cycle).
ValueId StageBuilder::value_of(uint32_t n) {
  if (value_[n] == kNoValue) value_[n] = node_value(n);
  return value_[n];
}

ValueId StageBuilder::node_value(uint32_t n) {
  FixedValues& fv = *fv_;
  const dfg::Node& node = g_.node(n);
  const ScalarType& t = g_.type(n);
  const int w = t.width;
  const int c = start_[n];
  const auto args = g_.args(n);
  const std::string name = fmt::format("n{}", n);
  switch (node.op) {
    case NodeOp::Const: return fv.lit(node.imm, w);
    case NodeOp::Input: KILN_ASSERT(false, "an input without its port slice"); return kNoValue;
    case NodeOp::Shl: return ref(args[0], c);  // the same bits
    case NodeOp::Add:
    case NodeOp::AddMod:
    case NodeOp::Sub:
    case NodeOp::SubMod: {
      const ValueId a = operand(args[0], c, w, t.frac), b = operand(args[1], c, w, t.frac);
      const bool add = node.op == NodeOp::Add || node.op == NodeOp::AddMod;
      // The low bits one operand passes on as they are, apart from the
      // carry chain (node_cost.h adder_pass_bits).
      const int pass = adder_pass_bits(g_, n);
      if (pass == 0) return add ? m_->add(a, b, name) : m_->sub(a, b, name);
      const int za = std::max(0, t.frac - g_.type(args[0]).frac);
      const int zb = std::max(0, t.frac - g_.type(args[1]).frac);
      const ValueId low = m_->slice(add && za > zb ? b : a, 0, pass);
      const ValueId ha = m_->slice(a, pass, w - pass), hb = m_->slice(b, pass, w - pass);
      const ValueId parts[] = {add ? m_->add(ha, hb) : m_->sub(ha, hb), low};
      return m_->concat(parts, name);
    }
    case NodeOp::Neg: return m_->op(Op::Neg, w, {operand(args[0], c, w, t.frac)}, 0, name);
    case NodeOp::Mul: {
      // A product by a constant on a DSP slice is written as a product, the
      // constant a literal operand (Yosys maps it to a DSP48).
      const bool dsp_constant = constant_on_dsp(g_, n, o_.constants_on_dsps);
      if (!is_var_mul(n) && !dsp_constant) return const_product(n, c);
      if (pair_.count(n)) return paired_product(n, c);
      if (!dsp_constant && fabric_) return fabric_product(n, c);
      if (!dsp_constant && shared_) {
        const ValueId p = unit_product(units_.unit_of[n]);
        return m_->width(p) == w ? p : m_->slice(p, 0, w, name);
      }
      const ScalarType& a = g_.type(args[0]);
      const ScalarType& b = g_.type(args[1]);
      const int wa = a.width + (a.is_signed ? 0 : 1), wb = b.width + (b.is_signed ? 0 : 1);
      return m_->op(Op::MulS, w, {operand(args[0], c, wa, a.frac), operand(args[1], c, wb, b.frac)},
                    0, name);
    }
    case NodeOp::Quantize: return quantize(n);
    case NodeOp::Max:
    case NodeOp::Min:
    case NodeOp::Lt: {
      // Max and Min compare and give their operands in the node's type (the
      // join of theirs, dfg::Graph::join_type); Lt in the union of theirs.
      const ScalarType u =
          node.op == NodeOp::Lt ? loop::union_type(g_.type(args[0]), g_.type(args[1])) : t;
      const ValueId x = operand(args[0], c, u.width, u.frac);
      const ValueId y = operand(args[1], c, u.width, u.frac);
      if (node.op == NodeOp::Lt) return m_->op(u.is_signed ? Op::Slt : Op::Ult, 1, {x, y}, 0, name);
      // The result type is the union: the chosen operand as it is.
      if (node.op == NodeOp::Max) {  // x >= y ? x : y
        const ValueId lt = m_->op(u.is_signed ? Op::Slt : Op::Ult, 1, {x, y});
        return m_->mux(lt, y, x, name);
      }
      const ValueId le = m_->op(u.is_signed ? Op::Sle : Op::Ule, 1, {x, y});  // x <= y ? x : y
      return m_->mux(le, x, y, name);
    }
    case NodeOp::Select:
      return m_->mux(operand(args[0], c, 1, 0), operand(args[1], c, w, t.frac),
                     operand(args[2], c, w, t.frac), name);
    case NodeOp::Lookup: return lookup(n);
  }
  KILN_ASSERT(false, "a node kind without hardware");
  return kNoValue;
}

// x * c for a constant c (odd, canonical): shifts of x added and subtracted by
// c's canonical signed digits, in the product's width. With more than one
// digit, x is extended to that width once and shifted: the same bits mod
// 2^width. Products of the same x in the same cycle share terms.
// One of a pair's products (product_pairs.h): the slice's product
// ((a << k) + b) * x + 2^(k-1), built once, then a * x its bits from k up
// and b * x its low k bits with the top one flipped, each as wide as its node.
ValueId StageBuilder::paired_product(uint32_t n, int cycle) {
  const std::size_t i = pair_.at(n);
  const ProductPair& p = pairs_[i];
  const int k = p.low_bits, wa = p.packed_bits, ws = signed_width(g_, p.shared);
  const int wp = wa + ws;
  auto [it, fresh] = pair_product_.try_emplace(i, kNoValue);
  if (fresh) {
    const auto packed_operand = [&](uint32_t product) {
      const uint32_t d = other_operand(g_, product, p.shared);
      return operand(d, cycle, wa, g_.type(d).frac);
    };
    const ValueId packed =
        m_->add(fv_->shl(packed_operand(p.high), k), packed_operand(p.low), fmt::format("pk{}", i));
    const ValueId x = operand(p.shared, cycle, ws, g_.type(p.shared).frac);
    const ValueId product = m_->op(Op::MulS, wp, {packed, x}, 0);
    it->second =
        m_->add(product, fv_->lit(numeric::int128{1} << (k - 1), wp), fmt::format("pp{}", i));
  }
  const ValueId both = it->second;
  const int w = g_.type(n).width;
  const auto as_wide = [&](ValueId v, int bits) {
    return w <= bits ? m_->slice(v, 0, w) : m_->sext(v, w);
  };
  if (n == p.high) return as_wide(m_->slice(both, k, wp - k), wp - k);
  const std::vector<ValueId> low{fv_->not1(fv_->bit(both, k - 1)), m_->slice(both, 0, k - 1)};
  return as_wide(m_->concat(low), k);
}

ValueId StageBuilder::const_product(uint32_t n, int cycle) {
  const auto args = g_.args(n);
  const bool c0 = g_.is_const(args[0]);
  const uint32_t k = c0 ? args[0] : args[1];
  const uint32_t x = c0 ? args[1] : args[0];
  const ScalarType& t = g_.type(n);
  const ScalarType& xt = g_.type(x);
  if (const auto it = product_group_.find(n); it != product_group_.end())
    return shared_product(it->second.first, it->second.second, n);
  // The product's raw value is x's raw times c's raw; x aligned to the
  // product's fraction bits is x's raw times 2^(t.frac - xt.frac) = c's
  // fraction bits, so each digit d at 2^i adds d * (x << i) on x's own grid.
  const std::vector<std::pair<int, int>> digits = sched::csd_digits(g_.node(k).imm);
  ValueId extended = kNoValue;
  if (digits.size() > 1) extended = fv_->align(ref(x, cycle), xt, t.width, xt.frac);
  ValueId sum = kNoValue;
  for (const auto& [digit, i] : digits) {
    const ValueId term = extended == kNoValue ? fv_->align(ref(x, cycle), xt, t.width, xt.frac + i)
                                              : fv_->shl(extended, i);
    if (sum == kNoValue)
      sum = digit > 0 ? term : m_->op(Op::Neg, t.width, {term});
    else
      sum = digit > 0 ? m_->add(sum, term) : m_->sub(sum, term);
  }
  KILN_ASSERT(sum != kNoValue, "a product by zero should have folded");
  return sum;
}

// x * y in LUTs (MultiplierLimit 0): y's bits select shifted copies of x,
// added, the sign bit's copy subtracted (its weight is -2^(wb-1)); all in the
// product's width, mod 2^w as the DSP product is. A sum of selected shifts is
// not a $mul, so Yosys does not map it to a DSP slice.
ValueId StageBuilder::fabric_product(uint32_t n, int cycle) {
  const auto args = g_.args(n);
  const ScalarType& a = g_.type(args[0]);
  const ScalarType& b = g_.type(args[1]);
  const int w = g_.type(n).width;
  const int wb = b.width + (b.is_signed ? 0 : 1);
  const ValueId x = operand(args[0], cycle, w, a.frac);
  const ValueId y = operand(args[1], cycle, wb, b.frac);
  ValueId sum = kNoValue;
  for (int i = 0; i < wb && i < w; ++i) {
    const ValueId term = m_->op(Op::And, w, {m_->sext(fv_->bit(y, i), w), fv_->shl(x, i)});
    if (i == wb - 1)
      sum = sum == kNoValue ? m_->op(Op::Neg, w, {term}) : m_->sub(sum, term);
    else
      sum = sum == kNoValue ? term : m_->add(sum, term);
  }
  return sum;
}

// Product `j` of its group: x extended to the group's width once, the shared
// terms x +- (x << d) once, each product a sum of shifted terms.
ValueId StageBuilder::shared_product(std::size_t group, std::size_t j, uint32_t n) {
  const ProductGroup& gr = groups_[group];
  GroupValues& gv = group_values_[group];
  const int w = gr.width;
  if (gv.x == kNoValue) {
    const uint32_t first = gr.nodes.front();
    const auto args = g_.args(first);
    const uint32_t x = g_.is_const(args[0]) ? args[1] : args[0];
    gv.x = fv_->align(ref(x, start_[first]), g_.type(x), w, g_.type(x).frac);
    for (const ConstantProducts::Shared& sh : gr.plan.shared) {
      const ValueId shifted = fv_->shl(gv.x, sh.shift);
      gv.terms.push_back(sh.sign > 0 ? m_->add(gv.x, shifted) : m_->sub(gv.x, shifted));
    }
  }
  ValueId sum = kNoValue;
  for (const ConstantProducts::Digit& d : gr.plan.products[j]) {
    const ValueId src = d.source < 0 ? gv.x : gv.terms[static_cast<std::size_t>(d.source)];
    const ValueId term = fv_->shl(src, d.shift);
    if (sum == kNoValue)
      sum = d.sign > 0 ? term : m_->op(Op::Neg, w, {term});
    else
      sum = d.sign > 0 ? m_->add(sum, term) : m_->sub(sum, term);
  }
  const int tw = g_.type(n).width;
  return tw == w ? sum : m_->slice(sum, 0, tw, fmt::format("n{}", n));
}

// A shared multiplier unit: its operands selected by the cycle (or the
// phase) among the products bound to it, multiplied in its widest width.
ValueId StageBuilder::unit_product(int unit) {
  ValueId& p = unit_product_[static_cast<std::size_t>(unit)];
  if (p != kNoValue) return p;
  int wa = 1, wb = 1, wp = 1;
  std::vector<uint32_t> ops;
  for (uint32_t n = 0; n < g_.size(); ++n)
    if (units_.unit_of[n] == unit) {
      ops.push_back(n);
      const ScalarType& a = g_.type(g_.args(n)[0]);
      const ScalarType& b = g_.type(g_.args(n)[1]);
      wa = std::max(wa, a.width + (a.is_signed ? 0 : 1));
      wb = std::max(wb, b.width + (b.is_signed ? 0 : 1));
      wp = std::max(wp, g_.type(n).width);
    }
  std::vector<std::pair<int64_t, ValueId>> as, bs;
  for (uint32_t n : ops) {
    const int c = start_[n];
    const auto args = g_.args(n);
    as.emplace_back(slot(c), operand(args[0], c, wa, g_.type(args[0]).frac));
    bs.emplace_back(slot(c), operand(args[1], c, wb, g_.type(args[1]).frac));
  }
  const ValueId a = fv_->select(select_, as, fv_->lit(0, wa));
  const ValueId b = fv_->select(select_, bs, fv_->lit(0, wb));
  return p = m_->op(Op::MulS, wp, {a, b}, 0, fmt::format("u{}_p", unit));
}

// Assignment to the target type: the value on the target's grid rounded down
// (floor), the rounding increment of the mode, then the overflow mode.
ValueId StageBuilder::quantize(uint32_t n) {
  FixedValues& fv = *fv_;
  const FixedType& t = g_.quantize_target(n);
  const uint32_t a = g_.args(n)[0];
  const ScalarType& at = g_.type(a);
  const int c = start_[n];
  const int d = at.frac - t.frac();
  KILN_ASSERT(!g_.is_const(a), "a quantization of a constant should have folded");
  const ValueId x = ref(a, c);
  // q: floor on the target's grid as an integer of ws bits; a wrapping
  // target keeps only its own width (modular).
  const bool wrap = t.overflow == numeric::OverflowMode::Wrap;
  const int wq = d > 0 ? std::max(at.width - d, 1) : at.width - d;
  const int ws = wrap ? t.width : std::max(wq, t.width) + 2;
  ValueId q;
  if (d <= 0) {
    q = fv.align(x, at, ws, t.frac());
  } else {
    const ValueId f = fv.floor_bits(x, at, d, std::max(ws, wq + 1));
    q = ws >= wq + 1 ? f : m_->slice(f, 0, ws);
  }
  ValueId up = kNoValue;
  if (d > 0 && t.quant != numeric::QuantMode::Trn) {
    // Bits at or above the width are copies of the sign (or zeros).
    const ValueId neg = at.is_signed ? fv.bit(x, at.width - 1) : fv.lit(0, 1);
    auto bit = [&](int i) { return i < at.width ? fv.bit(x, i) : neg; };
    auto any_up_to = [&](int i) {  // |x[i:0]
      const int top = std::min(i, at.width - 1);
      return top == 0 ? fv.bit(x, 0) : m_->op(Op::ReduceOr, 1, {m_->slice(x, 0, top + 1)});
    };
    const ValueId half = bit(d - 1);
    const ValueId rest = d >= 2 ? any_up_to(d - 2) : fv.lit(0, 1);
    switch (t.quant) {
      case numeric::QuantMode::Trn: break;
      case numeric::QuantMode::TrnZero: up = fv.and2(neg, any_up_to(d - 1)); break;
      case numeric::QuantMode::Rnd: up = half; break;
      case numeric::QuantMode::RndZero: up = fv.and2(half, fv.or2(rest, neg)); break;
      case numeric::QuantMode::RndMinInf: up = fv.and2(half, rest); break;
      case numeric::QuantMode::RndInf: up = fv.and2(half, fv.or2(rest, fv.not1(neg))); break;
      case numeric::QuantMode::RndConv: up = fv.and2(half, fv.or2(rest, bit(d))); break;
    }
  }
  const ValueId s = up == kNoValue ? q : m_->add(q, ws == 1 ? up : m_->zext(up, ws));
  const std::string name = fmt::format("n{}", n);
  if (wrap) {
    KILN_ASSERT(m_->width(s) == t.width, "a wrapped quantization of another width");
    return s;
  }
  const int64_t max = t.max_raw(), min = t.min_raw();
  const int64_t sym_min = (t.is_signed && t.width > 1) ? -max : min;
  const ValueId kept = m_->slice(s, 0, t.width);
  auto above = [&](int64_t v) { return m_->op(Op::Slt, 1, {fv.lit(v, ws), s}); };  // s > v
  auto below = [&](int64_t v) { return m_->op(Op::Slt, 1, {s, fv.lit(v, ws)}); };  // s < v
  switch (t.overflow) {
    case numeric::OverflowMode::Wrap: break;
    case numeric::OverflowMode::Sat:
      return m_->mux(above(max), fv.lit(max, t.width),
                     m_->mux(below(min), fv.lit(min, t.width), kept), name);
    case numeric::OverflowMode::SatZero:
      return m_->mux(fv.or2(above(max), below(min)), fv.lit(0, t.width), kept, name);
    case numeric::OverflowMode::SatSym:
      return m_->mux(above(max), fv.lit(max, t.width),
                     m_->mux(below(sym_min), fv.lit(sym_min, t.width), kept), name);
  }
  return kept;
}

// A table lookup: floor(x * 2^shift) + offset clamped to the table, then the
// entry (each lookup its own one-port ROM in hardware).
ValueId StageBuilder::lookup(uint32_t n) {
  FixedValues& fv = *fv_;
  const dfg::LookupInfo& l = g_.lookup_of(n);
  const dfg::Table& t = g_.tables()[static_cast<std::size_t>(l.table)];
  const uint32_t a = g_.args(n)[0];
  const ScalarType& at = g_.type(a);
  const auto size = static_cast<int64_t>(t.data.size());
  const int k = index_bits(size);
  const int up = l.shift - at.frac;  // > 0: x's raw shifted left
  int off_bits = 1;
  while ((int64_t{1} << off_bits) <= std::abs(l.offset) + size) ++off_bits;
  const int wv = std::max(at.width + std::max(up, 0), k) + off_bits + 2;
  const ValueId x = ref(a, start_[n]);
  const ValueId scaled =
      up >= 0 ? fv.align(x, at, wv, at.frac + up) : fv.floor_bits(x, at, -up, wv);
  const ValueId v = m_->add(scaled, fv.lit(l.offset, wv));
  const ValueId index = m_->mux(m_->op(Op::Slt, 1, {v, fv.lit(0, wv)}), fv.lit(0, k),
                                m_->mux(m_->op(Op::Slt, 1, {fv.lit(size - 1, wv), v}),
                                        fv.lit(size - 1, k), m_->slice(v, 0, k)));
  auto [it, fresh] = table_of_.try_emplace(l.table, -1);
  if (fresh) {
    netlist::Table table;
    table.name = fmt::format("rom_{}", l.table);
    table.width = t.type.width;
    for (int64_t e : t.data) table.entries.push_back(bits_of(e, t.type.width));
    it->second = m_->table(std::move(table));
  }
  return m_->lookup(it->second, index, fmt::format("n{}", n));
}

}  // namespace kiln::rtl

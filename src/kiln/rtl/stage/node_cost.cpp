#include "kiln/rtl/stage/node_cost.h"

#include <algorithm>

namespace kiln::rtl {

using dfg::NodeOp;
using sched::OperatorCost;
using sched::OperatorKind;

bool is_var_mul(const dfg::Graph& g, uint32_t n) {
  return g.node(n).op == NodeOp::Mul && !g.is_const(g.args(n)[0]) && !g.is_const(g.args(n)[1]);
}

int constant_digits(const dfg::Graph& g, uint32_t n) {
  const uint32_t c = g.is_const(g.args(n)[0]) ? g.args(n)[0] : g.args(n)[1];
  return sched::csd_nonzero_digits(g.node(c).imm);
}

bool constant_on_dsp(const dfg::Graph& g, uint32_t n, bool constants_on_dsps) {
  if (!constants_on_dsps || g.node(n).op != NodeOp::Mul || is_var_mul(g, n)) return false;
  return constant_digits(g, n) >= kMinDigitsOnDsp;
}

QuantizeWork quantize_work(const dfg::Graph& g, uint32_t n) {
  const numeric::FixedType& t = g.quantize_target(n);
  const loop::ScalarType& a = g.type(g.args(n)[0]);
  QuantizeWork w;
  w.drop = a.frac - t.frac();
  w.rounds = w.drop > 0 && t.quant != numeric::QuantMode::Trn;
  w.saturates = t.overflow != numeric::OverflowMode::Wrap;
  return w;
}

int index_bits(int64_t size) {
  int k = 0;
  while ((int64_t{1} << k) < size) ++k;
  return std::max(k, 1);
}

int adder_pass_bits(const dfg::Graph& g, uint32_t n) {
  const auto args = g.args(n);
  const int frac = g.type(n).frac;
  // Each operand's zero bits below its own grid, aligned to the result's.
  const int za = std::max(0, frac - g.type(args[0]).frac);
  const int zb = std::max(0, frac - g.type(args[1]).frac);
  const NodeOp op = g.node(n).op;
  const int pass = op == NodeOp::Add || op == NodeOp::AddMod ? std::max(za, zb) : zb;
  return std::clamp(pass, 0, g.type(n).width - 1);
}

OperatorCost sum(OperatorCost a, const OperatorCost& b) {
  a.delay_ns += b.delay_ns;
  a.resources += b.resources;
  return a;
}

namespace {

int table_entries(const dfg::Graph& g, uint32_t n) {
  return static_cast<int>(g.tables()[static_cast<std::size_t>(g.lookup_of(n).table)].data.size());
}

OperatorCost clamp_cost(const dfg::Graph& g, uint32_t n, fpga::Family family) {
  return sched::operator_cost(OperatorKind::Saturate,
                              {index_bits(table_entries(g, n)) + 1, 0, 0, 0}, family);
}

// Lookup `n`: the index's clamp in LUTs and the table as `table` (Rom or
// BlockRom).
OperatorCost lookup_cost(const dfg::Graph& g, uint32_t n, OperatorKind table, fpga::Family family) {
  return sum(clamp_cost(g, n, family),
             sched::operator_cost(table, {g.type(n).width, 0, table_entries(g, n), 0}, family));
}

}  // namespace

double lookup_clamp_luts(const dfg::Graph& g, uint32_t n, fpga::Family family) {
  return clamp_cost(g, n, family).resources.lut;
}

OperatorCost node_cost(const dfg::Graph& g, uint32_t n, fpga::Family family,
                       bool fabric_multipliers, bool constants_on_dsps) {
  auto lib = [family](OperatorKind k, const sched::OperatorShape& shape) {
    return sched::operator_cost(k, shape, family);
  };
  const dfg::Node& node = g.node(n);
  const int w = g.type(n).width;
  switch (node.op) {
    case NodeOp::Input:
    case NodeOp::Const:
    case NodeOp::Shl: return {};
    case NodeOp::Add:
    case NodeOp::AddMod: return lib(OperatorKind::Add, {w - adder_pass_bits(g, n), 0, 0, 0});
    case NodeOp::Sub:
    case NodeOp::SubMod: return lib(OperatorKind::Sub, {w - adder_pass_bits(g, n), 0, 0, 0});
    case NodeOp::Neg: return lib(OperatorKind::Sub, {w, 0, 0, 0});
    case NodeOp::Mul: {
      if (is_var_mul(g, n))
        return lib(fabric_multipliers ? OperatorKind::FabricMul : OperatorKind::Mul,
                   {g.type(g.args(n)[0]).width, g.type(g.args(n)[1]).width, 0, 0});
      if (constant_on_dsp(g, n, constants_on_dsps))
        return lib(OperatorKind::Mul,
                   {g.type(g.args(n)[0]).width, g.type(g.args(n)[1]).width, 0, 0});
      return lib(OperatorKind::ConstMul, {w, 0, constant_digits(g, n), 0});
    }
    case NodeOp::Quantize: {
      const QuantizeWork q = quantize_work(g, n);
      OperatorCost c;
      if (q.rounds) c = lib(OperatorKind::Round, {w + 1, 0, 0, 0});
      if (q.saturates) c = sum(c, lib(OperatorKind::Saturate, {w, 0, 0, 0}));
      return c;
    }
    case NodeOp::Max:
    case NodeOp::Min: {
      // Against the constant 0 (a ReLU, or its mirror) the sign decides
      // alone: Yosys maps it to a LUT per bit, no carry chain.
      const auto args = g.args(n);
      const bool zero = std::any_of(args.begin(), args.end(), [&](uint32_t a) {
        return g.is_const(a) && g.node(a).imm == 0;
      });
      return lib(zero ? OperatorKind::SignMask : OperatorKind::MaxMin, {w, 0, 0, 0});
    }
    case NodeOp::Lt: return lib(OperatorKind::Compare, {g.type(g.args(n)[0]).width, 0, 0, 0});
    case NodeOp::Select: return lib(OperatorKind::Mux, {w, 0, 2, 0});
    case NodeOp::Lookup: return lookup_cost(g, n, OperatorKind::Rom, family);
  }
  return {};
}

OperatorCost block_rom_cost(const dfg::Graph& g, uint32_t n, fpga::Family family) {
  return lookup_cost(g, n, OperatorKind::BlockRom, family);
}

}  // namespace kiln::rtl

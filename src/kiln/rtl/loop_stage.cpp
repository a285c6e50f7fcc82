// A layer with a kept loop: its buffers as registers and ROM banks, the
// controller that counts cycles and iterations, and the before, body and
// after modules connected to them (the timeline is in loop_stage.h).
#include "kiln/rtl/loop_stage.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "kiln/fpga/devices.h"
#include "kiln/rtl/banks.h"
#include "kiln/rtl/node_cost.h"
#include "kiln/rtl/verilog_text.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {

using dfg::NodeOp;
using loop::ScalarType;

// The synthesis attribute a buffer's Storage directive asks for, if any.
const char* ram_style(loop::Storage s) {
  return s == loop::Storage::Bram ? "block" : s == loop::Storage::Lutram ? "distributed" : nullptr;
}

// Whether a memory bank of `entries` words of `width` bits goes to block RAM:
// as its Storage directive says, else as Yosys maps it.
bool in_block_ram(loop::Storage s, int entries, int width) {
  return s == loop::Storage::Bram ||
         (s != loop::Storage::Lutram && sched::rom_in_block_ram(entries, width));
}

// What the layer does with one buffer (storage) outside its weights.
struct BufferUse {
  std::set<int64_t> read, written;
};

// One ROM bank of a weight buffer and the body reads on each of its ports.
struct RomBank {
  int accessed = -1;  // the buffer as the reads name it (partitioned)
  int storage = -1;
  std::vector<int64_t> part;
  std::vector<std::map<int, int>> ports;  // per port: phase -> read
};

// One bank of a buffer the loop keeps in memory (memories.h) and the body's
// accesses on its write port and its read port, by phase.
struct RamBank {
  int storage = -1;
  std::vector<int64_t> part;
  std::map<int, int> reads;   // phase -> read
  std::map<int, int> writes;  // phase -> write
};

class LoopStageBuilder {
 public:
  LoopStageBuilder(const dfg::SplitKernel& sk, const loop::Program& p, const LoopSchedule& ls,
                   bool pipelined, const StageOptions& o, std::string module)
      : sk_(sk), p_(p), ls_(ls), pipelined_(pipelined), o_(o), body_(sk.body) {
    r_.module = std::move(module);
  }

  BuiltStage run() {
    timing();
    parts();
    uses();
    if (o_.emit) emit();
    report();
    return std::move(r_);
  }

 private:
  // ---- the timeline -----------------------------------------------------------

  int op_latency(int op) const {
    const sched::Problem& pb = ls_.lp.problem;
    return pb.types[static_cast<std::size_t>(pb.operations[static_cast<std::size_t>(op)].type)]
        .latency;
  }
  int op_start(int op) const { return ls_.solution.start[static_cast<std::size_t>(op)]; }

  void timing() {
    depth_ = 1;
    for (std::size_t op = 0; op < ls_.lp.problem.operations.size(); ++op)
      depth_ = std::max(
          depth_, op_start(static_cast<int>(op)) + std::max(1, op_latency(static_cast<int>(op))));
    ii_ = ls_.solution.ii;
    // Not pipelined: the next iteration starts when this one is done (the
    // schedule stays valid, every constraint only loosening as II grows).
    if (!pipelined_) ii_ = std::max(ii_, depth_);
    stages_ = (depth_ + ii_ - 1) / ii_;
  }

  dfg::Stage part_stage(const dfg::Graph& g, const std::string& suffix) const {
    dfg::Stage s;
    s.name = body_.name + suffix;
    s.onnx_name = onnx_name_;
    s.graph = g;
    return s;
  }

  void parts() {
    const std::string kernel = body_.name.substr(0, body_.name.find('/'));
    for (std::size_t i = 0; i < p_.kernels.size(); ++i)
      if (p_.kernels[i].name == kernel) {
        onnx_name_ = p_.kernels[i].onnx_name;
        r_.report.loop_ops = loop::dynamic_ops(p_.kernels[i]);
        kernel_ = static_cast<int>(i);
      }
    // The body's writes and reads that channels carry (channels.h).
    for (const Channel* c : o_.channels) {
      if (c->producer == kernel_)
        for (std::size_t bank = 0; bank < c->writes.size(); ++bank)
          chan_write_[c->writes[bank]] = {c, static_cast<int>(bank)};
      if (c->consumer == kernel_)
        for (const ChannelRead& r : c->reads) chan_read_[r.read] = {c, &r};
    }
    r_.report.name = kernel;
    r_.report.onnx_name = onnx_name_;
    if (!sk_.before.outputs().empty())
      before_ = build_stage(part_stage(sk_.before, "_before"), p_, o_, r_.module + "_before");
    if (!sk_.after.outputs().empty())
      after_ = build_stage(part_stage(sk_.after, "_after"), p_, o_, r_.module + "_after");
    const dfg::Graph& g = body_.graph;
    ModuloTiming t;
    t.ii = ii_;
    t.start.assign(g.size(), 0);
    t.stable.assign(g.size(), false);
    for (uint32_t n = 0; n < g.size(); ++n) {
      const NodeOp op = g.node(n).op;
      if (op == NodeOp::Const) continue;
      if (op == NodeOp::Input && g.input_of(n).buffer == dfg::kIterationBuffer)
        continue;  // the index, from cycle 0 of the iteration, carried along by the body
      if (op == NodeOp::Input && g.input_of(n).element >= 0) {
        t.stable[n] = true;  // state: its register, read where the schedule says
        continue;
      }
      const int o = ls_.lp.op_of_node[n];
      // A read's value arrives after the read's latency.
      t.start[n] = op_start(o) + (op == NodeOp::Input ? op_latency(o) : 0);
    }
    for (int op : ls_.lp.output_ops) t.output_at.push_back(op_start(op));
    body_stage_ = build_body(part_stage(g, ""), p_, o_, t, r_.module + "_body");
    r_.report.multipliers = body_stage_.report.multipliers;
    r_.report.const_multipliers = body_stage_.report.const_multipliers;
    r_.report.adders = body_stage_.report.adders;
    r_.report.lookups = body_stage_.report.lookups;
    r_.report.nodes = body_stage_.report.nodes;
    for (const auto* s : {&before_, &after_})
      if (*s) {
        r_.report.multipliers += (*s)->report.multipliers;
        r_.report.const_multipliers += (*s)->report.const_multipliers;
        r_.report.adders += (*s)->report.adders;
        r_.report.lookups += (*s)->report.lookups;
        r_.report.nodes += (*s)->report.nodes;
      }
    b_at_ = before_ ? 1 + before_->report.latency_cycles : 0;
    l0_ = before_ ? b_at_ + 1 : 1;
    a0_ = l0_ + (body_.trip - 1) * ii_ + depth_;
    a_at_ = after_ ? a0_ + after_->report.latency_cycles : a0_ - 1;
    end_ = a_at_ + 1;
  }

  // ---- buffers ----------------------------------------------------------------

  bool is_const(int b) const {
    return p_.buffers[static_cast<std::size_t>(b)].role == loop::BufferRole::Const;
  }

  // The element a moving access reaches in iteration k; -1 past the
  // buffer's ends (a read that padding guards, its value never used).
  // -1 too in the iterations whose conditions it does not happen in (a
  // predicated write, a read whose value is not used).
  int64_t element_at(const dfg::PortAccess& pa, int64_t k) const {
    if (!body_.happens(pa, k)) return -1;
    const int64_t e = body_.element_at(pa.element, k);
    return e >= 0 && e < p_.buffers[static_cast<std::size_t>(pa.buffer)].numel() ? e : -1;
  }

  // A read of element `e` in cycle `cycle`: its register must hold it then.
  void note_read(int b, int64_t e, int64_t cycle) {
    uses_[b].read.insert(e);
    auto [it, fresh] = first_read_.try_emplace({b, e}, cycle);
    if (!fresh) it->second = std::min(it->second, cycle);
  }
  // A write of element `e` in cycle `cycle` (its register loads at its end).
  void note_write(int b, int64_t e, int64_t cycle) {
    uses_[b].written.insert(e);
    auto [it, fresh] = writes_.try_emplace({b, e}, cycle, cycle);
    if (!fresh)
      it->second = {std::min(it->second.first, cycle), std::max(it->second.second, cycle)};
  }

  // The fixed elements graph `g` reads, from cycle `cycle` on.
  void note_reads(const dfg::Graph& g, int64_t cycle) {
    for (uint32_t n = 0; n < g.size(); ++n)
      if (g.node(n).op == NodeOp::Input && g.input_of(n).element >= 0 &&
          g.input_of(n).buffer != dfg::kIterationBuffer) {
        const dfg::Element& e = g.input_of(n);
        KILN_ASSERT(!is_const(e.buffer), "a weight reaches a graph as an input");
        note_read(e.buffer, e.element, cycle);
      }
  }
  // The fixed elements graph `g` writes, in cycle `cycle`.
  void note_writes(const dfg::Graph& g, int64_t cycle) {
    for (const dfg::Output& o : g.outputs())
      if (o.where.element >= 0) note_write(o.where.buffer, o.where.element, cycle);
  }

  void uses() {
    // The before part takes its inputs in cycle 1 and its results load in
    // cycle b_at_; the after part's in a0_ and a_at_.
    note_reads(sk_.before, 1);
    note_writes(sk_.before, b_at_);
    note_reads(sk_.after, a0_);
    note_writes(sk_.after, a_at_);
    // The body's fixed reads are wires into it (read any time in the loop);
    // its writes happen in every iteration.
    const dfg::Graph& g = body_.graph;
    note_reads(g, l0_);
    for (std::size_t i = 0; i < g.outputs().size(); ++i) {
      const dfg::Output& o = g.outputs()[i];
      const int64_t t = op_start(ls_.lp.output_ops[i]);
      if (o.where.buffer == dfg::kWriteEnableBuffer) continue;  // its write's
      if (o.where.element >= 0) {
        note_write(o.where.buffer, o.where.element, l0_ + t);
        note_write(o.where.buffer, o.where.element, l0_ + (body_.trip - 1) * ii_ + t);
        continue;
      }
      const dfg::PortAccess& pa = body_.writes[static_cast<std::size_t>(-1 - o.where.element)];
      KILN_ASSERT(!is_const(pa.buffer), "a loop writes a weight");
      if (ls_.memories.count(pa.buffer)) {
        ram_access(pa, static_cast<int>(-1 - o.where.element), static_cast<int>(t), true);
        continue;
      }
      // When each of the port's writes happens (a producer's side of any
      // channel the design may plan: DesignTiming).
      std::vector<int64_t>& written =
          r_.port_write_times[{pa.buffer, static_cast<int>(-1 - o.where.element)}];
      for (int64_t k = 0; k < body_.trip; ++k)
        if (element_at(pa, k) >= 0) written.push_back(l0_ + k * ii_ + t);
      if (const auto ch = chan_write_.find(static_cast<int>(-1 - o.where.element));
          ch != chan_write_.end()) {
        // Into a channel: the consumer's memories take it as it is written.
        std::vector<int64_t>& times = r_.channel_write_times[{pa.buffer, ch->second.second}];
        for (int64_t k = 0; k < body_.trip; ++k)
          if (const int64_t e = element_at(pa, k); e >= 0) {
            times.push_back(l0_ + k * ii_ + t);
            StagePortElement out{
                {pa.buffer, e}, p_.buffers[static_cast<std::size_t>(pa.buffer)].type, "", 0};
            out.at = static_cast<int>(l0_ + k * ii_ + t + 1);
            r_.channel_outputs.push_back(out);
          }
        continue;
      }
      for (int64_t k = 0; k < body_.trip; ++k)
        if (const int64_t e = element_at(pa, k); e >= 0)
          note_write(pa.buffer, e, l0_ + k * ii_ + t);
    }
    // A moving read in iteration k happens in cycle L0 + k*II + t, both as a
    // multiplexer (latency 0) and as a registered read (latency 1).
    for (std::size_t r = 0; r < body_.reads.size(); ++r) {
      const dfg::PortAccess& pa = body_.reads[r];
      if (is_const(pa.buffer)) {
        rom_read(static_cast<int>(r));
        continue;
      }
      const int64_t t = op_start(ls_.lp.read_ops[r]);
      if (ls_.memories.count(pa.buffer)) {
        ram_access(pa, static_cast<int>(r), static_cast<int>(t), false);
        continue;
      }
      if (const auto ch = chan_read_.find(static_cast<int>(r)); ch != chan_read_.end()) {
        // From a channel's memory: each element's first read and each
        // place's last, for the memory's depth.
        const ChannelRead& cr = *ch->second.second;
        for (int64_t k = 0; k < body_.trip; ++k)
          if (const int64_t e = element_at(pa, k); e >= 0) {
            const int64_t cycle = l0_ + k * ii_ + t;
            auto [it, fresh] = chan_first_.try_emplace({pa.buffer, e}, cycle);
            if (!fresh) it->second = std::min(it->second, cycle);
            int64_t& last = chan_last_[{pa.buffer, cr.bank}][rank_of(cr, k)];
            last = std::max(last, cycle);
          }
        continue;
      }
      for (int64_t k = 0; k < body_.trip; ++k)
        if (const int64_t e = element_at(pa, k); e >= 0) note_read(pa.buffer, e, l0_ + k * ii_ + t);
    }
    // The ports: what the layer reads from other layers, each element taken
    // the cycle before its first read (so the producer may still be working
    // on later ones), and what it hands on, valid after its last write and
    // held until the next sample's first.
    for (const auto& [b, use] : uses_) {
      const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(b)];
      if (use.written.empty()) {
        for (int64_t e : use.read) {
          StagePortElement in{{b, e}, buf.type, "", 0};
          in.at = static_cast<int>(first_read_.at({b, e}) - 1);
          r_.inputs.push_back(in);
        }
      } else if (buf.role != loop::BufferRole::Local) {
        for (int64_t e : use.written) {
          const auto [first, last] = writes_.at({b, e});
          StagePortElement out{{b, e}, buf.type, "", 0};
          out.at = static_cast<int>(last + 1);
          out.held = true;
          out.rewritten = static_cast<int>(first);
          r_.outputs.push_back(out);
        }
      }
    }
    for (const auto& [at, cycle] : chan_first_) {
      StagePortElement in{
          {at.first, at.second}, p_.buffers[static_cast<std::size_t>(at.first)].type, "", 0};
      in.at = static_cast<int>(cycle);
      r_.channel_inputs.push_back(in);
    }
    if (o_.time_inputs) start_ = o_.time_inputs(r_.inputs, r_.channel_inputs);
    pack_ports(r_.inputs, "i");
    pack_ports(r_.outputs, "q");
    channel_depths();
  }

  // A channel read's place in its bank's order in iteration k.
  static int64_t rank_of(const ChannelRead& r, const dfg::LoopBody& body, int64_t k) {
    const auto v = body.variables(k);
    return r.base + r.step[0] * v[0].second + (v.size() > 1 ? r.step[1] * v[1].second : 0);
  }
  int64_t rank_of(const ChannelRead& r, int64_t k) const { return rank_of(r, body_, k); }

  // Each channel bank this stage reads: a circular memory as deep as the
  // most writes of the bank that can come between a place's write and its
  // last read, over this and the following samples (at least the design's
  // interval apart), rounded up to a power of two.
  void channel_depths() {
    for (const auto& [key, last] : chan_last_) {
      const auto [buffer, bank] = key;
      const Channel* c = nullptr;
      for (const auto& [r, ch] : chan_read_)
        if (ch.first->buffer == buffer) c = ch.first;
      KILN_ASSERT(c && o_.channel_writes, "a channel read without its producer's writes");
      std::vector<int64_t> writes = o_.channel_writes(*c, bank);
      for (int64_t& w : writes) w -= start_;
      const int64_t interval = std::max(1, o_.interval);
      int64_t need = 1;
      for (const auto& [rank, read] : last) {
        KILN_ASSERT(rank >= 0 && rank < static_cast<int64_t>(writes.size()),
                    "a channel read past its bank's writes");
        const int64_t written = writes[static_cast<std::size_t>(rank)];
        KILN_ASSERT(read > written, "a channel element read before it is written");
        int64_t between = 0;
        for (int64_t n = 0; writes.front() + n * interval <= read; ++n) {
          const auto lo = std::upper_bound(writes.begin(), writes.end(), written - n * interval);
          const auto hi = std::upper_bound(writes.begin(), writes.end(), read - n * interval);
          if (hi > lo) between += hi - lo;
        }
        need = std::max(need, between + 1);
      }
      int bits = 1;
      while ((int64_t{1} << bits) < need) ++bits;
      chan_bits_[key] = bits;
      chan_per_sample_[key] = static_cast<int64_t>(writes.size());
    }
  }

  // A weight read: a port of its bank's ROM (or, for weights kept in
  // registers, a table of the whole buffer).
  void rom_read(int r) {
    const dfg::PortAccess& pa = body_.reads[static_cast<std::size_t>(r)];
    // A flattened nest's reads get a table each, indexed by the iteration:
    // bank addresses count one loop's variable so far.
    if (body_.flat()) return;
    const Bank bank = bank_of(pa, p_);
    const int accessed = pa.accessed >= 0 ? pa.accessed : pa.buffer;
    if (bank.any)
      throw_error(ErrorKind::Unsupported, "loop " + body_.name,
                  fmt::format("a read of '{}' moves across the banks of its partition",
                              p_.buffers[static_cast<std::size_t>(accessed)].name),
                  "partition it so that each read stays in one bank (a cyclic factor that "
                  "divides the step of its index), or not at all");
    if (bank.registers) return;  // a table of its own (emit_reads)
    std::size_t i = 0;
    while (i < banks_.size() && !(banks_[i].accessed == accessed && banks_[i].part == bank.part))
      ++i;
    if (i == banks_.size()) banks_.push_back({accessed, pa.buffer, bank.part, {}});
    RomBank& rb = banks_[i];
    const int op = ls_.lp.read_ops[static_cast<std::size_t>(r)];
    const int phase = op_start(op) % ii_;
    std::size_t port = 0;
    while (port < rb.ports.size() && rb.ports[port].count(phase)) ++port;
    if (port == rb.ports.size()) rb.ports.emplace_back();
    rb.ports[port][phase] = r;
    rom_port_[r] = {static_cast<int>(i), static_cast<int>(port)};
  }

  // A read or write of a buffer in memory: its bank's one port of that kind,
  // at the phase the schedule gives it (one per phase: the bank's limit).
  void ram_access(const dfg::PortAccess& pa, int index, int t, bool write) {
    const Bank bank = bank_of(pa, p_);
    std::size_t i = 0;
    while (i < rams_.size() && !(rams_[i].storage == pa.buffer && rams_[i].part == bank.part)) ++i;
    if (i == rams_.size()) rams_.push_back({pa.buffer, bank.part, {}, {}});
    std::map<int, int>& port = write ? rams_[i].writes : rams_[i].reads;
    const int phase = t % ii_;
    KILN_ASSERT(!port.count(phase), "two accesses of one memory port in one phase");
    port[phase] = index;
    if (!write) ram_of_read_[index] = static_cast<int>(i);
  }

  // ---- Verilog ----------------------------------------------------------------

  // A channel bank's port: chw_<buffer>_<bank> (data), chv_... (valid).
  static std::string channel_port(const char* what, const std::pair<int, int>& bank) {
    return fmt::format("{}_{}_{}", what, bank.first, bank.second);
  }

  // The stage-s copy of a kept variable: k<s>, or a flattened nest's var0/var1.
  std::string variable_at(int which, int t) const {
    const int st = t / ii_;
    if (!body_.flat()) return fmt::format("k{}", st);
    return st == 0 ? fmt::format("var{}", which) : fmt::format("var{}_{}", which, st);
  }

  // The bits of a kept variable's counter (variable_at's).
  int variable_bits(int which) const {
    if (!body_.flat()) return k_bits_;
    return which == 0 ? index_bits(body_.trip / body_.inner_trip) : index_bits(body_.inner_trip);
  }

  // sum of c * variable over `terms` (variable, its bits, c) + `constant` +
  // `extra` (a `bits`-wide signal), modulo 2^bits, every operand `bits` wide.
  static std::string modular_sum(int bits, int64_t constant,
                                 const std::vector<std::tuple<std::string, int, int64_t>>& terms,
                                 const std::string& extra) {
    const int64_t size = int64_t{1} << bits;
    std::string e = literal(((constant % size) + size) % size, bits);
    for (const auto& [var, width, c] : terms) {
      const std::string v = width == bits  ? var
                            : width < bits ? fmt::format("{{{}'b0, {}}}", bits - width, var)
                                           : fmt::format("{}[{}:0]", var, bits - 1);
      for (const auto& [digit, shift] : sched::csd_digits(c))
        e += fmt::format(" {} ({} << {})", digit > 0 ? "+" : "-", v, shift);
    }
    if (!extra.empty()) e += " + " + extra;
    return e;
  }

  std::string m(int b) const { return fmt::format("m{}", b); }
  int width_of(int b) const { return p_.buffers[static_cast<std::size_t>(b)].type.width; }
  std::string slice(int b, int64_t e) const {
    const int w = width_of(b);
    return fmt::format("{}[{}:{}]", m(b), (e + 1) * w - 1, e * w);
  }

  // `cycle` cycles after start.
  std::string at(int64_t cycle) const {
    if (cycle == 0) return "start";
    return fmt::format("(busy && cyc == {})", literal(cycle, cyc_bits_));
  }

  // Operation time `t` of an iteration in flight.
  std::string active(int t) const {
    const int s = t / ii_;
    if (ii_ == 1) return fmt::format("vs[{}]", s);
    return fmt::format("(vs[{}] && ph == {})", s, literal(t % ii_, ph_bits_));
  }
  std::string k_at(int t) const { return fmt::format("k{}", t / ii_); }
  // A flattened nest's inner variable in the iteration at time t.
  std::string inner_at(int t) const { return variable_at(1, t); }

  // wire `name` = a.step * k + a.base in `width` bits, k being the
  // iteration at time t (or, `inner`, a flattened nest's inner variable in
  // that iteration).
  std::string linear(const Linear& a, int t, int width, const std::string& name, std::string& out,
                     bool inner = false) {
    const int kb = inner ? index_bits(body_.inner_trip) : k_bits_;
    const std::string at = inner ? inner_at(t) : k_at(t);
    const int cw = std::max(width, kb) + index_bits(std::abs(a.step) + 1) + 1;
    const std::string k = cw == kb ? at : fmt::format("{{{}'b0, {}}}", cw - kb, at);
    // step * k as shifted copies of k by step's signed digits: a product by a
    // constant written as `*` is one Yosys may map to a DSP slice.
    std::string expr = literal(a.base, cw);
    for (const auto& [digit, shift] : sched::csd_digits(a.step))
      expr += fmt::format(" {} ({} << {})", digit > 0 ? "+" : "-", k, shift);
    out += fmt::format("  wire {}{}_x = {};\n", range(cw), name, expr);
    out += fmt::format("  wire {}{} = {}_x[{}:0];\n", range(width), name, name, width - 1);
    sinks_.push_back(name + "_x");
    return name;
  }

  void emit() {
    cyc_bits_ = index_bits(end_ + 1);
    ph_bits_ = index_bits(ii_);
    k_bits_ = index_bits(body_.trip);
    std::string v;
    v += fmt::format(
        "// Layer {} ({}): loop {}{} kept, {} iteration(s), a new one every {} cycle(s) ({}), {} "
        "cycle(s) each; {} cycles in all, one sample at a time.\n",
        onnx_name_, r_.report.name, body_.name,
        body_.flat() ? " (flattened with the loop inside it)" : "", body_.trip, ii_,
        pipelined_ ? "pipelined" : "not pipelined", depth_, end_);
    v += "module " + r_.module + "(\n  input clk,\n  input rst,\n  input start";
    for (const auto& [name, width] : packed_widths(r_.inputs))
      v += fmt::format(",\n  input {}{}", range(width), name);
    for (const auto& [name, width] : packed_widths(r_.outputs))
      v += fmt::format(",\n  output {}{}", range(width), name);
    // Channel banks: a producer's data and valid out, a consumer's in.
    for (const auto& [key, times] : r_.channel_write_times) {
      const int w = p_.buffers[static_cast<std::size_t>(key.first)].type.width;
      r_.channel_outputs_ports.emplace_back(channel_port("chw", key), w);
      r_.channel_outputs_ports.emplace_back(channel_port("chv", key), 1);
    }
    for (const auto& [key, bits] : chan_bits_) {
      const int w = p_.buffers[static_cast<std::size_t>(key.first)].type.width;
      r_.channel_inputs_ports.emplace_back(channel_port("chw", key), w);
      r_.channel_inputs_ports.emplace_back(channel_port("chv", key), 1);
    }
    for (const auto& [name, width] : r_.channel_outputs_ports)
      v += fmt::format(",\n  output {}{}", range(width), name);
    for (const auto& [name, width] : r_.channel_inputs_ports)
      v += fmt::format(",\n  input {}{}", range(width), name);
    v += "\n);\n";
    // The controller: cyc counts the cycles after start.
    v += fmt::format(
        "  reg {0}cyc;\n  reg busy;\n"
        "  always @(posedge clk)\n"
        "    if (rst) begin busy <= 1'b0; cyc <= {1}; end\n"
        "    else if (start) begin busy <= 1'b1; cyc <= {2}; end\n"
        "    else if (busy) begin busy <= cyc != {3}; cyc <= cyc + {2}; end\n",
        range(cyc_bits_), literal(0, cyc_bits_), literal(1, cyc_bits_),
        literal(std::max<int64_t>(end_ - 1, 1), cyc_bits_));
    emit_iterations(v);
    for (const auto& [b, use] : uses_) {
      const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(b)];
      // Always a vector: its elements are written as slices, even one bit.
      v += fmt::format("  reg [{}:0] {};  // {}\n", buf.numel() * buf.type.width - 1, m(b),
                       buf.name);
    }
    emit_reads(v);
    emit_part(v, before_, "pre", b_at_ - (before_ ? before_->report.latency_cycles : 0));
    emit_body(v);
    emit_part(v, after_, "post", a0_);
    emit_buffers(v);
    for (const auto& [port, cat] : packed_concatenations(r_.outputs, [&](std::size_t i) {
           return slice(r_.outputs[i].where.buffer, r_.outputs[i].where.element);
         }))
      v += fmt::format("  assign {} = {};\n", port, cat);
    v += unused_sinks(sinks_);
    v += "endmodule\n";
    r_.verilog = std::move(v);
    r_.sequential = true;
    r_.started = true;
    for (const auto* s : {&before_, &after_})
      if (*s) r_.submodules.emplace_back((*s)->module, (*s)->verilog);
    r_.submodules.emplace_back(body_stage_.module, body_stage_.verilog);
  }

  // Iteration k of the loop is in pipeline stage s (times s*II .. s*II +
  // II - 1) during cycles L0 + (k + s) * II + phase: k<s> holds its index,
  // vs[s] whether one is there.
  void emit_iterations(std::string& v) {
    const std::string go = l0_ == 1 ? "start" : at(l0_ - 1);
    v += fmt::format("  // Iterations: a new one every {} cycle(s) from cycle {}.\n", ii_, l0_);
    v += fmt::format("  reg [{}:0] vs;\n", stages_ - 1);  // a vector even of one stage
    for (int s = 0; s < stages_; ++s) {
      v += fmt::format("  reg {}k{};\n", range(k_bits_), s);
      sinks_.push_back(fmt::format("k{}", s));
    }
    sinks_.push_back("vs");
    std::string wrap = "1'b1";
    if (ii_ > 1) {
      v += fmt::format("  reg {}ph;\n", range(ph_bits_));
      wrap = fmt::format("(ph == {})", literal(ii_ - 1, ph_bits_));
    }
    const std::string next_valid =
        fmt::format("vs[0] && k0 != {}", literal(body_.trip - 1, k_bits_));
    v += "  always @(posedge clk)\n";
    v += fmt::format("    if (rst) begin vs <= {};{} end\n", literal(0, stages_),
                     ii_ > 1 ? fmt::format(" ph <= {};", literal(0, ph_bits_)) : "");
    v += fmt::format("    else if ({}) begin vs <= {}; k0 <= {};{} end\n", go, literal(1, stages_),
                     literal(0, k_bits_),
                     ii_ > 1 ? fmt::format(" ph <= {};", literal(0, ph_bits_)) : "");
    v += "    else begin\n";
    if (ii_ > 1)
      v += fmt::format("      ph <= {} ? {} : ph + {};\n", wrap, literal(0, ph_bits_),
                       literal(1, ph_bits_));
    v += fmt::format("      if ({}) begin\n", wrap);
    v += fmt::format(
        "        vs <= {};\n",
        stages_ == 1 ? next_valid : fmt::format("{{vs[{}:0], {}}}", stages_ - 2, next_valid));
    v += fmt::format("        k0 <= k0 + {};\n", literal(1, k_bits_));
    for (int s = 1; s < stages_; ++s) v += fmt::format("        k{} <= k{};\n", s, s - 1);
    v += "      end\n    end\n";
    shift_when_ =
        ii_ > 1 ? fmt::format("!rst && !({}) && {}", go, wrap) : fmt::format("!rst && !({})", go);
    emit_variables(v, go, ii_ > 1 ? fmt::format("!rst && !({}) && {}", go, wrap) : "1'b1");
  }

  // The kept loop's variable in the iteration entering the body: k0, or, for
  // a flattened nest, counters of the outer (0) and inner (1) variables.
  std::string iteration_variable(int64_t which) const {
    if (!body_.flat()) return "k0";
    return fmt::format("var{}", which);
  }

  void emit_variables(std::string& v, const std::string& go, const std::string& wrap) {
    if (!body_.flat()) return;
    const int ob = index_bits(body_.trip / body_.inner_trip), ib = index_bits(body_.inner_trip);
    const std::string last_inner = literal(body_.inner_trip - 1, ib);
    v += fmt::format(
        "  // The flattened nest's variables in the iteration k0 holds.\n"
        "  reg {0}var0;\n  reg {1}var1;\n"
        "  always @(posedge clk)\n"
        "    if ({2}) begin var0 <= {3}; var1 <= {4}; end\n"
        "    else if ({5}) begin\n"
        "      var1 <= var1 == {6} ? {4} : var1 + {7};\n"
        "      if (var1 == {6}) var0 <= var0 + {8};\n"
        "    end\n",
        range(ob), range(ib), go, literal(0, ob), literal(0, ib), wrap, last_inner, literal(1, ib),
        literal(1, ob));
    sinks_.push_back("var0");
    sinks_.push_back("var1");
    // Memories and channels address by the variables of the iteration in
    // each pipeline stage: they move along with k.
    if ((rams_.empty() && chan_read_.empty()) || stages_ < 2) return;
    std::string shift;
    for (int s = 1; s < stages_; ++s)
      for (const int which : {0, 1}) {
        v += fmt::format("  reg {}var{}_{};\n", range(which == 0 ? ob : ib), which, s);
        shift += fmt::format(
            " var{0}_{1} <= {2};", which, s,
            s == 1 ? fmt::format("var{}", which) : fmt::format("var{}_{}", which, s - 1));
        sinks_.push_back(fmt::format("var{}_{}", which, s));
      }
    v += fmt::format("  always @(posedge clk) if ({}) begin{} end\n", shift_when_, shift);
  }

  void emit_reads(std::string& v) {
    // Weights in ROM banks: each port's address by phase, its data registered.
    for (std::size_t i = 0; i < banks_.size(); ++i) {
      const RomBank& rb = banks_[i];
      const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(rb.storage)];
      const std::vector<int64_t> elems = bank_elements(p_, rb.accessed, rb.part);
      const int w = buf.type.width;
      const int ab = index_bits(static_cast<int64_t>(elems.size()));
      v += fmt::format(
          "  // {}: {} entries.\n",
          bank_name(p_.buffers[static_cast<std::size_t>(rb.accessed)], {false, false, rb.part}),
          elems.size());
      const char* style = ram_style(buf.directives.storage);
      if (style) v += fmt::format("  (* ram_style = \"{}\" *)\n", style);
      v += fmt::format("  reg {}rom{} [0:{}];\n  initial begin\n", range(w), i, elems.size() - 1);
      for (std::size_t a = 0; a < elems.size(); ++a)
        v += fmt::format(
            "    rom{}[{}] = {};\n", i, a,
            literal(elems[a] < 0 ? 0 : buf.data[static_cast<std::size_t>(elems[a])], w));
      v += "  end\n";
      for (std::size_t port = 0; port < rb.ports.size(); ++port) {
        const std::string pa = fmt::format("pa{}_{}", i, port);
        const std::string pd = fmt::format("pd{}_{}", i, port);
        std::vector<std::pair<int, std::string>> addresses;  // phase -> address wire
        for (const auto& [phase, r] : rb.ports[port]) {
          const int t = op_start(ls_.lp.read_ops[static_cast<std::size_t>(r)]);
          addresses.emplace_back(
              phase, linear(bank_address(body_.reads[static_cast<std::size_t>(r)], p_), t, ab,
                            fmt::format("ra{}", r), v));
        }
        if (addresses.size() == 1) {
          v += fmt::format("  wire {}{} = {};\n", range(ab), pa, addresses[0].second);
        } else {
          v += fmt::format("  reg {}{};\n  always @* begin\n    {} = {};\n    case (ph)\n",
                           range(ab), pa, pa, literal(0, ab));
          for (const auto& [phase, wire] : addresses)
            v += fmt::format("      {}: {} = {};\n", literal(phase, ph_bits_), pa, wire);
          v += "      default: ;\n    endcase\n  end\n";
        }
        v += fmt::format("  reg {}{};\n  always @(posedge clk) {} <= rom{}[{}];\n", range(w), pd,
                         pd, i, pa);
      }
    }
    for (std::size_t r = 0; r < body_.reads.size(); ++r) {
      const dfg::PortAccess& pa = body_.reads[r];
      const int op = ls_.lp.read_ops[r];
      const int t = op_start(op);
      const int w = width_of(pa.buffer);
      if (const auto it = rom_port_.find(static_cast<int>(r)); it != rom_port_.end()) {
        v += fmt::format("  wire {}rd{} = pd{}_{};\n", range(w), r, it->second.first,
                         it->second.second);
      } else if (const auto ram = ram_of_read_.find(static_cast<int>(r));
                 ram != ram_of_read_.end()) {
        v += fmt::format("  wire {}rd{} = mq{};\n", range(w), r, ram->second);
      } else if (const auto ch = chan_read_.find(static_cast<int>(r)); ch != chan_read_.end()) {
        emit_channel_read(v, static_cast<int>(r), *ch->second.second, t, w);
      } else if (is_const(pa.buffer)) {
        // Weights in registers: the elements this read reaches, by iteration.
        const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(pa.buffer)];
        v += fmt::format("  function {}wt{}(input {}k);\n    case (k)\n", range(w), r,
                         range(k_bits_));
        for (int64_t k = 0; k < body_.trip; ++k)
          if (const int64_t e = element_at(pa, k); e >= 0)
            v += fmt::format("      {}: wt{} = {};\n", literal(k, k_bits_), r,
                             literal(buf.data[static_cast<std::size_t>(e)], w));
        v += fmt::format("      default: wt{} = {};\n    endcase\n  endfunction\n", r,
                         literal(0, w));
        // Registered where the schedule counts a read's latency (a port of a
        // bank it would have had: a flattened nest's reads).
        if (op_latency(op) > 0)
          v += fmt::format("  reg {0}rd{1};\n  always @(posedge clk) rd{1} <= wt{1}({2});\n",
                           range(w), r, k_at(t));
        else
          v += fmt::format("  wire {}rd{} = wt{}({});\n", range(w), r, r, k_at(t));
      } else {
        // A buffer in registers: a multiplexer over the elements the read
        // reaches, by iteration (a shift by a computed offset would be a
        // barrel shifter over the whole buffer).
        const bool now = op_latency(op) == 0;
        v += fmt::format("  reg {}rd{};\n  always @{} begin\n    {} {} {};\n    case ({})\n",
                         range(w), r, now ? "*" : "(posedge clk)", fmt::format("rd{}", r),
                         now ? "=" : "<=", literal(0, w), k_at(t));
        for (int64_t k = 0; k < body_.trip; ++k)
          if (const int64_t e = element_at(pa, k); e >= 0)
            v += fmt::format("      {}: rd{} {} {};\n", literal(k, k_bits_), r,
                             now ? "=" : "<=", slice(pa.buffer, e));
        v += "      default: ;\n    endcase\n  end\n";
      }
    }
  }

  // Instance of before or after, its inputs the buffer registers, its
  // outputs wires the buffers load at its end.
  void emit_part(std::string& v, const std::optional<BuiltStage>& s, const std::string& name,
                 int64_t start_cycle) {
    if (!s) return;
    std::vector<std::string> conn;
    if (s->sequential || s->started) conn.push_back(".clk(clk)");
    if (s->started) {
      conn.push_back(".rst(rst)");
      conn.push_back(fmt::format(".start({})", at(start_cycle)));
    }
    for (const auto& [port, cat] : packed_concatenations(s->inputs, [&](std::size_t i) {
           return slice(s->inputs[i].where.buffer, s->inputs[i].where.element);
         }))
      conn.push_back(fmt::format(".{}({})", port, cat));
    for (const auto& [port, width] : packed_widths(s->outputs)) {
      v += fmt::format("  wire {}{}_{};\n", range(width), name, port);
      conn.push_back(fmt::format(".{0}({1}_{0})", port, name));
    }
    v += instance(s->module, "u_" + name, conn);
  }

  static std::string instance(const std::string& module, const std::string& name,
                              const std::vector<std::string>& conn) {
    std::string c;
    for (std::size_t i = 0; i < conn.size(); ++i) c += (i ? ",\n    " : "") + conn[i];
    return fmt::format("  {} {}(\n    {});\n", module, name, c);
  }

  void emit_body(std::string& v) {
    const BuiltStage& s = body_stage_;
    std::vector<std::string> conn;
    if (s.sequential) conn.push_back(".clk(clk)");
    if (s.phased) conn.push_back(".ph(ph)");
    for (const auto& [port, cat] : packed_concatenations(s.inputs, [&](std::size_t i) {
           const dfg::Element& e = s.inputs[i].where;
           if (e.buffer == dfg::kIterationBuffer) return iteration_variable(e.element);
           return e.element >= 0 ? slice(e.buffer, e.element) : fmt::format("rd{}", -1 - e.element);
         }))
      conn.push_back(fmt::format(".{}({})", port, cat));
    for (const auto& [port, width] : packed_widths(s.outputs)) {
      v += fmt::format("  wire {}body_{};\n", range(width), port);
      conn.push_back(fmt::format(".{0}(body_{0})", port));
    }
    v += instance(s.module, "u_body", conn);
  }

  static std::string part_bits(const StagePortElement& e, const std::string& prefix) {
    return fmt::format("{}_{}[{}:{}]", prefix, e.port, e.lsb + e.type.width - 1, e.lsb);
  }

  // Each buffer's register vector and everything that loads it.
  void emit_buffers(std::string& v) {
    std::map<int, std::vector<std::string>> loads;  // buffer -> statements
    std::map<int, std::set<int64_t>> loaded;
    for (std::size_t i = 0; i < r_.inputs.size(); ++i) {
      const StagePortElement& e = r_.inputs[i];
      loads[e.where.buffer].push_back(fmt::format("if ({}) {} <= {}[{}:{}];", at(e.at),
                                                  slice(e.where.buffer, e.where.element), e.port,
                                                  e.lsb + e.type.width - 1, e.lsb));
      loaded[e.where.buffer].insert(e.where.element);
    }
    auto from_part = [&](const std::optional<BuiltStage>& s, const std::string& name,
                         int64_t cycle) {
      if (!s) return;
      for (const StagePortElement& e : s->outputs) {
        loads[e.where.buffer].push_back(fmt::format("if ({}) {} <= {};", at(cycle),
                                                    slice(e.where.buffer, e.where.element),
                                                    part_bits(e, name)));
        loaded[e.where.buffer].insert(e.where.element);
      }
    };
    from_part(before_, "pre", b_at_);
    // Each predicated port write's enable, by write.
    std::map<int64_t, std::string> enables;
    for (const StagePortElement& e : body_stage_.outputs)
      if (e.where.buffer == dfg::kWriteEnableBuffer)
        enables[e.where.element] = part_bits(e, "body");
    for (std::size_t i = 0; i < body_stage_.outputs.size(); ++i) {
      const StagePortElement& e = body_stage_.outputs[i];
      const int t = op_start(ls_.lp.output_ops[i]);
      const int b = e.where.buffer;
      if (b == dfg::kWriteEnableBuffer || ls_.memories.count(b) ||
          (e.where.element < 0 && chan_write_.count(static_cast<int>(-1 - e.where.element))))
        continue;  // not registers
      if (e.where.element >= 0) {
        loads[b].push_back(fmt::format("if ({}) {} <= {};", active(t), slice(b, e.where.element),
                                       part_bits(e, "body")));
        loaded[b].insert(e.where.element);
      } else {
        // The element the iteration writes, decoded from its index (where
        // the write happens; a predicated one when its enable says so too).
        const int64_t w = -1 - e.where.element;
        const dfg::PortAccess& pa = body_.writes[static_cast<std::size_t>(w)];
        std::string cases;
        for (int64_t k = 0; k < body_.trip; ++k)
          if (const int64_t el = element_at(pa, k); el >= 0) {
            cases += fmt::format("      {}: {} <= {};\n", literal(k, k_bits_), slice(b, el),
                                 part_bits(e, "body"));
            loaded[b].insert(el);
          }
        const auto en = enables.find(w);
        loads[b].push_back(
            fmt::format("if ({}{})\n      case ({})\n{}      default: ;\n      endcase", active(t),
                        en == enables.end() ? "" : " && " + en->second, k_at(t), cases));
      }
    }
    from_part(after_, "post", a_at_);
    emit_rams(v, enables);
    // Channel writes: the body's value and when it is written, to the consumer.
    for (std::size_t i = 0; i < body_stage_.outputs.size(); ++i) {
      const StagePortElement& e = body_stage_.outputs[i];
      if (e.where.buffer < 0 || e.where.element >= 0) continue;
      const int w = static_cast<int>(-1 - e.where.element);
      const auto ch = chan_write_.find(w);
      if (ch == chan_write_.end()) continue;
      const std::pair<int, int> key{e.where.buffer, ch->second.second};
      const int t = op_start(ls_.lp.output_ops[i]);
      const auto en = enables.find(w);
      v += fmt::format("  assign {} = {};\n  assign {} = {}{};\n", channel_port("chw", key),
                       part_bits(e, "body"), channel_port("chv", key), active(t),
                       en == enables.end() ? "" : " && " + en->second);
    }
    for (const auto& [b, use] : uses_) {
      const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(b)];
      const int64_t n = buf.numel();
      std::string seq;
      // Elements nothing loads stay zero (every bit of the vector driven).
      for (int64_t e = 0; e < n; ++e)
        if (!loaded[b].count(e))
          seq += fmt::format("    if (start) {} <= {};\n", slice(b, e), literal(0, buf.type.width));
      for (const std::string& s : loads[b]) seq += "    " + s + "\n";
      v += "  always @(posedge clk) begin\n" + seq + "  end\n";
      sinks_.push_back(m(b));
    }
  }

  // A channel bank's write pointer and the place its sample starts at, once
  // per bank; then the read's own copy of the bank, written as the producer
  // writes and read at the element's place.
  void emit_channel_read(std::string& v, int r, const ChannelRead& cr, int t, int w) {
    const int buffer = body_.reads[static_cast<std::size_t>(r)].buffer;
    const std::pair<int, int> key{buffer, cr.bank};
    const int bits = chan_bits_.at(key);
    const std::string wd = channel_port("chw", key), wv = channel_port("chv", key);
    const std::string tag = fmt::format("{}_{}", key.first, key.second);
    if (chan_declared_.insert(key).second) {
      const int64_t size = int64_t{1} << bits;
      v += fmt::format(
          "  // Channel @{} bank {}: {} writes per sample into memories of {} entries.\n"
          "  reg {}cwp_{}, cbase_{}, cnext_{};\n"
          "  always @(posedge clk)\n"
          "    if (rst) begin cwp_{} <= {}; cnext_{} <= {}; end\n"
          "    else begin\n"
          "      if ({}) cwp_{} <= cwp_{} + {};\n"
          "      if (start) begin cbase_{} <= cnext_{}; cnext_{} <= cnext_{} + {}; end\n"
          "    end\n",
          p_.buffers[static_cast<std::size_t>(buffer)].name, cr.bank, chan_per_sample_.at(key),
          size, range(bits), tag, tag, tag, tag, literal(0, bits), tag, literal(0, bits), wv, tag,
          tag, literal(1, bits), tag, tag, tag, tag,
          literal(chan_per_sample_.at(key) % size, bits));
      sinks_.push_back(fmt::format("cbase_{}", tag));
    }
    std::vector<std::tuple<std::string, int, int64_t>> terms = {
        {variable_at(0, t), variable_bits(0), cr.step[0]}};
    if (body_.flat()) terms.emplace_back(variable_at(1, t), variable_bits(1), cr.step[1]);
    v += fmt::format("  wire {}cra{} = {};\n", range(bits), r,
                     modular_sum(bits, cr.base, terms, fmt::format("cbase_{}", tag)));
    v += fmt::format(
        "  reg {0}chm{1} [0:{2}];\n"
        "  always @(posedge clk) if ({3}) chm{1}[cwp_{4}] <= {5};\n"
        "  reg {0}chq{1};\n  always @(posedge clk) chq{1} <= chm{1}[cra{1}];\n"
        "  wire {0}rd{1} = chq{1};\n",
        range(w), r, (int64_t{1} << bits) - 1, wv, tag, wd);
    sinks_.push_back(fmt::format("rd{}", r));  // a read the body folded away
  }

  // Each memory bank: one write port and one registered read port, their
  // addresses and data multiplexed by phase among the accesses the schedule
  // put there; coded as Yosys infers a simple dual-port RAM (a read in the
  // cycle of a write to its address sees the old value, as the schedule's
  // order of a read before a write assumes).
  void emit_rams(std::string& v, const std::map<int64_t, std::string>& enables) {
    // The body's output that each write stores.
    std::map<int, std::string> data;
    for (const StagePortElement& e : body_stage_.outputs)
      if (e.where.buffer >= 0 && e.where.element < 0)
        data[static_cast<int>(-1 - e.where.element)] = part_bits(e, "body");
    for (std::size_t i = 0; i < rams_.size(); ++i) {
      const RamBank& rb = rams_[i];
      const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(rb.storage)];
      const auto depth = static_cast<int64_t>(bank_elements(p_, rb.storage, rb.part).size());
      const int w = buf.type.width;
      const int ab = index_bits(depth);
      v += fmt::format("  // {}: {} entries in memory, one write and one read per cycle.\n",
                       bank_name(buf, {false, false, rb.part}), depth);
      const char* style = ram_style(buf.directives.storage);
      if (style) v += fmt::format("  (* ram_style = \"{}\" *)\n", style);
      v += fmt::format("  reg {}mem{} [0:{}];\n", range(w), i, depth - 1);
      // Addresses by phase: a case over ph, or the one access's.
      auto by_phase = [&](const std::string& name, int width,
                          const std::vector<std::pair<int, std::string>>& at) {
        if (at.size() == 1) {
          v += fmt::format("  wire {}{} = {};\n", range(width), name, at[0].second);
          return;
        }
        v += fmt::format("  reg {}{};\n  always @* begin\n    {} = {};\n    case (ph)\n",
                         range(width), name, name, literal(0, width));
        for (const auto& [phase, value] : at)
          v += fmt::format("      {}: {} = {};\n", literal(phase, ph_bits_), name, value);
        v += "      default: ;\n    endcase\n  end\n";
      };
      if (!rb.reads.empty()) {
        std::vector<std::pair<int, std::string>> at;
        for (const auto& [phase, r] : rb.reads) {
          const int t = op_start(ls_.lp.read_ops[static_cast<std::size_t>(r)]);
          at.emplace_back(phase, linear(bank_address(body_.reads[static_cast<std::size_t>(r)], p_),
                                        t, ab, fmt::format("mra{}", r), v, body_.flat()));
        }
        by_phase(fmt::format("ma{}", i), ab, at);
        v += fmt::format("  reg {0}mq{1};\n  always @(posedge clk) mq{1} <= mem{1}[ma{1}];\n",
                         range(w), i);
      }
      if (!rb.writes.empty()) {
        std::vector<std::pair<int, std::string>> addr, value;
        std::string we;
        for (const auto& [phase, wr] : rb.writes) {
          const int t = op_start(ls_.lp.write_ops[static_cast<std::size_t>(wr)]);
          addr.emplace_back(
              phase, linear(bank_address(body_.writes[static_cast<std::size_t>(wr)], p_), t, ab,
                            fmt::format("mwa{}", wr), v, body_.flat()));
          value.emplace_back(phase, data.at(wr));
          const auto en = enables.find(wr);
          we += fmt::format("{}{}{}", we.empty() ? "" : " || ", active(t),
                            en == enables.end() ? "" : " && " + en->second);
        }
        by_phase(fmt::format("mwa{}_", i), ab, addr);
        by_phase(fmt::format("mwd{}_", i), w, value);
        v += fmt::format("  always @(posedge clk) if ({0}) mem{1}[mwa{1}_] <= mwd{1}_;\n", we, i);
      }
    }
  }

  // ---- the estimate -----------------------------------------------------------

  void add(const StageReport& s) {
    StageReport& r = r_.report;
    static_cast<fpga::Resources&>(r) += s;
    r.register_bits += s.register_bits;
    r.multiplier_units += s.multiplier_units;
    r.critical_path_ns = std::max(r.critical_path_ns, s.critical_path_ns);
  }

  void report() {
    StageReport& r = r_.report;
    r.latency_cycles = static_cast<int>(end_);
    r.interval_cycles = static_cast<int>(end_);
    add(body_stage_.report);
    if (before_) add(before_->report);
    if (after_) add(after_->report);
    const int control = cyc_bits_ + 1 + stages_ * (k_bits_ + 1) + (ii_ > 1 ? ph_bits_ : 0);
    // Every buffer the layer keeps outside memories is a register vector.
    int64_t register_bits = 0;
    for (const auto& [b, use] : uses_) {
      const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(b)];
      register_bits += buf.numel() * buf.type.width;
    }
    r.register_bits += register_bits + control;
    r.ff += static_cast<double>(register_bits + control);
    const fpga::Family f = o_.family;
    for (const RomBank& rb : banks_) {
      const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(rb.storage)];
      const auto entries = static_cast<int>(bank_elements(p_, rb.accessed, rb.part).size());
      const int w = buf.type.width;
      const bool bram = in_block_ram(buf.directives.storage, entries, w);
      // One block RAM serves both ports; a LUT ROM is copied per port.
      const int copies = bram ? 1 : static_cast<int>(rb.ports.size());
      for (int c = 0; c < copies; ++c) {
        const sched::OperatorCost cost = sched::operator_cost(
            bram ? sched::OperatorKind::BlockRom : sched::OperatorKind::Rom, {w, 0, entries, 0}, f);
        static_cast<fpga::Resources&>(r) += cost.resources;
      }
      r.ff += static_cast<double>(w * static_cast<int>(rb.ports.size()));
    }
    for (const auto& [read, ch] : chan_read_) {
      const int w = p_.buffers[static_cast<std::size_t>(ch.first->buffer)].type.width;
      const int entries = 1 << chan_bits_.at({ch.first->buffer, ch.second->bank});
      const sched::OperatorCost cost =
          sched::operator_cost(sched::rom_in_block_ram(entries, w) ? sched::OperatorKind::BlockRam
                                                                   : sched::OperatorKind::Ram,
                               {w, 0, entries, 0}, f);
      static_cast<fpga::Resources&>(r) += cost.resources;
    }
    for (const auto& [key, bits] : chan_bits_) r.ff += 3.0 * bits;  // pointer, base, next
    for (const RamBank& rb : rams_) {
      const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(rb.storage)];
      const auto depth = static_cast<int>(bank_elements(p_, rb.storage, rb.part).size());
      const int w = buf.type.width;
      const bool bram = in_block_ram(buf.directives.storage, depth, w);
      const sched::OperatorCost cost = sched::operator_cost(
          bram ? sched::OperatorKind::BlockRam : sched::OperatorKind::Ram, {w, 0, depth, 0}, f);
      static_cast<fpga::Resources&>(r) += cost.resources;
    }
    // Reads outside the banks: a table or a multiplexer over what they reach.
    for (std::size_t i = 0; i < body_.reads.size(); ++i) {
      const dfg::PortAccess& pa = body_.reads[i];
      if (rom_port_.count(static_cast<int>(i)) || ram_of_read_.count(static_cast<int>(i)) ||
          chan_read_.count(static_cast<int>(i)))
        continue;
      const auto kind = is_const(pa.buffer) ? sched::OperatorKind::Rom : sched::OperatorKind::Mux;
      r.lut +=
          sched::operator_cost(kind, {width_of(pa.buffer), 0, static_cast<int>(body_.trip), 0}, f)
              .resources.lut;
    }
  }

  const dfg::SplitKernel& sk_;
  const loop::Program& p_;
  const LoopSchedule& ls_;
  const bool pipelined_;
  const StageOptions& o_;
  const dfg::LoopBody& body_;
  BuiltStage r_;
  std::string onnx_name_;
  std::optional<BuiltStage> before_, after_;
  BuiltStage body_stage_;
  int ii_ = 1, depth_ = 1, stages_ = 1;
  int64_t b_at_ = 0, l0_ = 1, a0_ = 0, a_at_ = 0, end_ = 0;
  int cyc_bits_ = 1, ph_bits_ = 1, k_bits_ = 1;
  std::map<int, BufferUse> uses_;
  std::map<std::pair<int, int64_t>, int64_t> first_read_;  // element -> cycle of its first read
  std::map<std::pair<int, int64_t>, std::pair<int64_t, int64_t>> writes_;  // first, last write
  std::vector<RomBank> banks_;
  std::map<int, std::pair<int, int>> rom_port_;  // read -> (bank, port)
  std::vector<RamBank> rams_;
  std::map<int, int> ram_of_read_;  // read -> its memory bank
  int kernel_ = -1;
  int start_ = 0;  // when the design starts this stage after a sample enters
  std::map<int, std::pair<const Channel*, int>> chan_write_;                // write -> bank
  std::map<int, std::pair<const Channel*, const ChannelRead*>> chan_read_;  // read -> its
  std::map<std::pair<int, int64_t>, int64_t> chan_first_;                   // element -> first read
  std::map<std::pair<int, int>, std::map<int64_t, int64_t>>
      chan_last_;                                           // bank -> place -> last read
  std::map<std::pair<int, int>, int> chan_bits_;            // bank -> address bits
  std::map<std::pair<int, int>, int64_t> chan_per_sample_;  // bank -> writes per sample
  std::set<std::pair<int, int>> chan_declared_;             // banks whose pointers are out
  std::string shift_when_;  // when each pipeline stage takes the one before's iteration
  std::vector<std::string> sinks_;
};

}  // namespace

BuiltStage build_loop_stage(const dfg::SplitKernel& split, const loop::Program& program,
                            const LoopSchedule& schedule, bool pipelined,
                            const StageOptions& options, const std::string& module_name) {
  return LoopStageBuilder(split, program, schedule, pipelined, options, module_name).run();
}

}  // namespace kiln::rtl

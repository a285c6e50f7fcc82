// A layer with a kept loop, analysed: its timeline (loop_stage.h), the
// before, body and after stages built from their graphs, what it does with
// each buffer (registers, ROM banks, memories, channels), when it takes its
// inputs and hands on its results, and its resources. Its netlist is
// loop_netlist.cpp's.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "kiln/rtl/stage/loop_stage_builder.h"
#include "kiln/rtl/stage/node_cost.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

using dfg::NodeOp;
using loop::ScalarType;

bool ram_in_block_ram(loop::Storage s, int64_t depth, int width) {
  return s == loop::Storage::Bram ||
         (s != loop::Storage::Lutram && sched::rom_in_block_ram(static_cast<int>(depth), width));
}

bool rom_group_in_block_ram(loop::Storage s, int64_t depth, int width) {
  if (s == loop::Storage::Bram) return true;
  return s != loop::Storage::Lutram && depth > kLutRomMostDepth &&
         sched::rom_in_block_ram(static_cast<int>(depth), width);
}

BuiltStage LoopStageBuilder::run() {
  timing();
  parts();
  uses();
  group_roms();
  report();
  r_.sequential = true;
  r_.started = true;
  // Channel banks: a producer's data and valid out, a consumer's in.
  for (const auto& [key, times] : r_.channel_write_times) {
    r_.channel_outputs_ports.emplace_back(channel_port("chw", key), width_of(key.first));
    r_.channel_outputs_ports.emplace_back(channel_port("chv", key), 1);
  }
  std::set<std::pair<int, int>> banks_read;
  for (const auto& [stream, bits] : chan_bits_)
    banks_read.emplace(std::get<0>(stream), std::get<1>(stream));
  for (const std::pair<int, int>& key : banks_read) {
    r_.channel_inputs_ports.emplace_back(channel_port("chw", key), width_of(key.first));
    r_.channel_inputs_ports.emplace_back(channel_port("chv", key), 1);
  }
  if (o_.emit) emit();
  return std::move(r_);
}

int LoopStageBuilder::op_latency(int op) const {
  const sched::Problem& pb = ls_.lp.problem;
  return pb.types[static_cast<std::size_t>(pb.operations[static_cast<std::size_t>(op)].type)]
      .latency;
}

void LoopStageBuilder::timing() {
  depth_ = 1;
  for (std::size_t op = 0; op < ls_.lp.problem.operations.size(); ++op)
    depth_ = std::max(
        depth_, op_start(static_cast<int>(op)) + std::max(1, op_latency(static_cast<int>(op))));
  ii_ = ls_.solution.ii;
  // Not pipelined: the next iteration starts when this one is done (the
  // schedule stays valid, every constraint only loosening as II grows).
  if (!pipelined_) ii_ = std::max(ii_, depth_);
  stages_ = (depth_ + ii_ - 1) / ii_;
  ph_bits_ = index_bits(ii_);
  k_bits_ = index_bits(body_.trip);
}

StageGraph LoopStageBuilder::part_stage(const dfg::Graph& g, const std::string& suffix) const {
  return {body_.name + suffix, onnx_name_, 0, &g};
}

void LoopStageBuilder::parts() {
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
  r_.report.product_adders = body_stage_.report.product_adders;
  r_.report.sum_adders = body_stage_.report.sum_adders;
  r_.report.adder_depth = body_stage_.report.adder_depth;
  r_.report.lookups = body_stage_.report.lookups;
  r_.report.dsp_pairs = body_stage_.report.dsp_pairs;
  r_.report.nodes = body_stage_.report.nodes;
  for (const auto* s : {&before_, &after_})
    if (*s) {
      r_.report.multipliers += (*s)->report.multipliers;
      r_.report.const_multipliers += (*s)->report.const_multipliers;
      r_.report.adders += (*s)->report.adders;
      r_.report.product_adders += (*s)->report.product_adders;
      r_.report.sum_adders += (*s)->report.sum_adders;
      r_.report.adder_depth = std::max(r_.report.adder_depth, (*s)->report.adder_depth);
      r_.report.lookups += (*s)->report.lookups;
      r_.report.dsp_pairs += (*s)->report.dsp_pairs;
      r_.report.nodes += (*s)->report.nodes;
    }
  b_at_ = before_ ? 1 + before_->report.latency_cycles : 0;
  l0_ = before_ ? b_at_ + 1 : 1;
  a0_ = l0_ + (body_.trip - 1) * ii_ + depth_;
  a_at_ = after_ ? a0_ + after_->report.latency_cycles : a0_ - 1;
  end_ = a_at_ + 1;
  cyc_bits_ = index_bits(end_ + 1);
}

// ---- buffers ----------------------------------------------------------------

int64_t LoopStageBuilder::element_at(const dfg::PortAccess& pa, int64_t k) const {
  return elements_of(pa)[static_cast<std::size_t>(k)];
}

// `pa` is one of the body's reads or writes.
const std::vector<int64_t>& LoopStageBuilder::elements_of(const dfg::PortAccess& pa) const {
  const auto in = [&pa](const std::vector<dfg::PortAccess>& v) {
    return !v.empty() && &pa >= v.data() && &pa < v.data() + v.size();
  };
  if (in(body_.reads)) return elements_.reads[static_cast<std::size_t>(&pa - body_.reads.data())];
  KILN_ASSERT(in(body_.writes), "an access that is not the loop body's");
  return elements_.writes[static_cast<std::size_t>(&pa - body_.writes.data())];
}

namespace {

// Every iteration's element at once, the kept variables stepped rather than
// divided out: a price walks every iteration of every access.
std::vector<int64_t> iteration_elements(const dfg::LoopBody& body, const loop::Program& p,
                                        const dfg::PortAccess& pa) {
  const int64_t numel = p.buffers[static_cast<std::size_t>(pa.buffer)].numel();
  // An affine expression of the kept variables as a constant and a
  // coefficient per kept loop; the variables are stepped like an odometer.
  struct Linear {
    int64_t c = 0;
    std::vector<int64_t> at;
    int64_t value(const std::vector<int64_t>& v) const {
      int64_t x = c;
      for (std::size_t i = 0; i < v.size(); ++i) x += at[i] * v[i];
      return x;
    }
  };
  auto linear = [&](const loop::Affine& a) { return Linear{a.constant, body.coefficients(a)}; };
  const Linear e = linear(pa.element);
  std::vector<std::pair<Linear, std::pair<int64_t, int64_t>>> guards;
  for (const loop::Guard& g : pa.guards) guards.push_back({linear(g.expr), {g.lo, g.hi}});
  std::vector<int64_t> out(static_cast<std::size_t>(body.trip));
  std::vector<int64_t> v(body.kept.size(), 0);
  for (int64_t k = 0; k < body.trip; ++k) {
    bool happens = true;
    for (const auto& [g, range] : guards) {
      const int64_t x = g.value(v);
      happens = happens && x >= range.first && x < range.second;
    }
    const int64_t el = e.value(v);
    out[static_cast<std::size_t>(k)] = happens && el >= 0 && el < numel ? el : -1;
    for (std::size_t i = v.size(); i-- > 0;) {
      if (i == 0 || ++v[i] < body.extents[i]) {
        if (i == 0) ++v[0];
        break;
      }
      v[i] = 0;
    }
  }
  return out;
}

}  // namespace

LoopElements loop_elements(const dfg::LoopBody& body, const loop::Program& program) {
  LoopElements e;
  for (const dfg::PortAccess& pa : body.reads)
    e.reads.push_back(iteration_elements(body, program, pa));
  for (const dfg::PortAccess& pa : body.writes)
    e.writes.push_back(iteration_elements(body, program, pa));
  return e;
}

BufferUse& LoopStageBuilder::use_of(int b) {
  auto it = uses_.find(b);
  if (it == uses_.end())
    it = uses_.emplace(b, BufferUse(p_.buffers[static_cast<std::size_t>(b)].numel())).first;
  return it->second;
}

void LoopStageBuilder::note_read(int b, int64_t e, int64_t cycle) {
  use_of(b).note_read(e, cycle);
}
void LoopStageBuilder::note_write(int b, int64_t e, int64_t cycle) {
  use_of(b).note_write(e, cycle);
}

// The fixed elements graph `g` reads, from cycle `cycle` on.
void LoopStageBuilder::note_reads(const dfg::Graph& g, int64_t cycle) {
  for (uint32_t n = 0; n < g.size(); ++n)
    if (g.node(n).op == NodeOp::Input && g.input_of(n).element >= 0 &&
        g.input_of(n).buffer != dfg::kIterationBuffer) {
      const dfg::Element& e = g.input_of(n);
      KILN_ASSERT(!is_const(e.buffer), "a weight reaches a graph as an input");
      note_read(e.buffer, e.element, cycle);
    }
}
// The fixed elements graph `g` writes, in cycle `cycle`.
void LoopStageBuilder::note_writes(const dfg::Graph& g, int64_t cycle) {
  for (const dfg::Output& o : g.outputs())
    if (o.where.element >= 0) note_write(o.where.buffer, o.where.element, cycle);
}

void LoopStageBuilder::uses() {
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
  std::set<int64_t> enabled;  // the writes with an enable (kWriteEnableBuffer outputs)
  for (const dfg::Output& o : g.outputs())
    if (o.where.buffer == dfg::kWriteEnableBuffer) enabled.insert(o.where.element);
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
    const std::vector<int64_t>& elements = elements_of(pa);
    std::vector<int64_t>& written =
        r_.port_write_times[{pa.buffer, static_cast<int>(-1 - o.where.element)}];
    for (int64_t k = 0; k < body_.trip; ++k)
      if (elements[static_cast<std::size_t>(k)] >= 0) written.push_back(l0_ + k * ii_ + t);
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
    BufferUse* use = nullptr;  // made at the first element written, as note_write() would
    bool everywhere = true;
    for (int64_t k = 0; k < body_.trip; ++k)
      if (const int64_t e = elements[static_cast<std::size_t>(k)]; e >= 0) {
        if (!use) use = &use_of(pa.buffer);
        use->note_write(e, l0_ + k * ii_ + t);
      } else {
        everywhere = false;
      }
    // Decoded from the element's index where the write happens in every
    // iteration or under its enable (loads()).
    const int w = static_cast<int>(-1 - o.where.element);
    if (everywhere || enabled.count(w))
      if (std::optional<RegisterRead> rr = element_index(pa)) register_writes_[w] = std::move(*rr);
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
          const std::vector<int64_t> v = body_.values(k);
          const int bank = cr.bank_at(v);
          int64_t& last = chan_last_[chan_stream(static_cast<int>(r), bank)][cr.rank_at(v)];
          last = std::max(last, cycle);
          if (cr.crosses()) chan_read_banks_[static_cast<int>(r)].insert(bank);
        }
      continue;
    }
    const std::vector<int64_t>& elements = elements_of(pa);
    BufferUse* use = nullptr;  // made at the first element read, as note_read() would
    for (int64_t k = 0; k < body_.trip; ++k)
      if (const int64_t e = elements[static_cast<std::size_t>(k)]; e >= 0) {
        if (!use) use = &use_of(pa.buffer);
        use->note_read(e, l0_ + k * ii_ + t);
      }
    element_address(static_cast<int>(r));
  }
  // The ports: what the layer reads from other layers, each element taken
  // the cycle before its first read (so the producer may still be working
  // on later ones), and what it hands on, valid after its last write and
  // held until the next sample's first.
  // Room for every element at once: the ports of a layer are thousands.
  std::size_t in_elements = 0, out_elements = 0;
  for (const auto& [b, use] : uses_)
    (use.any_write ? out_elements : in_elements) += use.first_read.size();
  r_.inputs.reserve(in_elements);
  r_.outputs.reserve(out_elements);
  for (const auto& [b, use] : uses_) {
    const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(b)];
    const auto n = static_cast<int64_t>(use.first_read.size());
    if (!use.any_write) {
      for (int64_t e = 0; e < n; ++e)
        if (use.read(e)) {
          StagePortElement in{{b, e}, buf.type, "", 0};
          in.at = static_cast<int>(use.first_read[static_cast<std::size_t>(e)] - 1);
          r_.inputs.push_back(in);
        }
    } else if (buf.role != loop::BufferRole::Local) {
      for (int64_t e = 0; e < n; ++e)
        if (use.written(e)) {
          StagePortElement out{{b, e}, buf.type, "", 0};
          out.at = static_cast<int>(use.last_write[static_cast<std::size_t>(e)] + 1);
          out.held = true;
          out.rewritten = static_cast<int>(use.first_write[static_cast<std::size_t>(e)]);
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

// A read of registers selects its element by the element's row-major index
// when that index is linear in the kept variables wherever the read happens
// (a multiplexer over the elements it reaches, not over the iterations: a
// 768-element input read by a loop of 19,200 iterations). Elsewhere (a
// padded read that does not happen) the index selects any element: the
// body's graph predicates what it does with it, as with a memory's read.
void LoopStageBuilder::element_address(int r) {
  if (std::optional<RegisterRead> rr = element_index(body_.reads[static_cast<std::size_t>(r)]))
    register_reads_[r] = std::move(*rr);
}

// The access's row-major element as a linear function of the kept
// variables, checked against every iteration where it happens; none when it
// is not one.
std::optional<LoopStageBuilder::RegisterRead> LoopStageBuilder::element_index(
    const dfg::PortAccess& pa) const {
  const int accessed = pa.accessed >= 0 ? pa.accessed : pa.buffer;
  const loop::Buffer& b = p_.buffers[static_cast<std::size_t>(accessed)];
  if (pa.index.size() != b.shape.size()) return std::nullopt;
  Linear a;
  a.step.assign(body_.kept.size(), 0);
  for (std::size_t dim = 0; dim < b.shape.size(); ++dim) {
    const std::vector<int64_t> step = body_.coefficients(pa.index[dim]);
    for (std::size_t v = 0; v < step.size() && v < a.step.size(); ++v)
      a.step[v] = a.step[v] * b.shape[dim] + step[v];
    a.base = a.base * b.shape[dim] + pa.index[dim].constant;
  }
  const std::vector<int64_t>& elements = elements_of(pa);
  std::set<int64_t> reached;
  for (int64_t k = 0; k < body_.trip; ++k) {
    const int64_t e = elements[static_cast<std::size_t>(k)];
    if (e < 0) continue;
    const std::vector<int64_t> v = body_.values(k);
    int64_t at = a.base;
    for (std::size_t i = 0; i < v.size() && i < a.step.size(); ++i) at += a.step[i] * v[i];
    if (at != e) return std::nullopt;  // not row-major in the variables: by iteration
    reached.insert(e);
  }
  if (reached.empty()) return std::nullopt;
  // Dense cases: when the elements reached are e0 + g * j (a channel of a
  // channels-last tensor), the index is j, every step a multiple of g.
  const int64_t e0 = *reached.begin();
  int64_t g = 0;
  for (int64_t e : reached) g = std::gcd(g, e - e0);
  for (int64_t st : a.step) g = std::gcd(g, st);
  g = std::max<int64_t>(std::abs(g), 1);
  for (int64_t& st : a.step) st /= g;
  a.base = (a.base - e0) / g;
  RegisterRead rr{a, e0, g, {}};
  rr.elements.assign(reached.begin(), reached.end());
  return rr;
}

LoopStageBuilder::ChanStream LoopStageBuilder::chan_stream(int read, int bank) const {
  const auto& [c, cr] = chan_read_.at(read);
  return {c->buffer, bank, cr->filtered() ? read : -1};
}

// Each channel stream this stage reads: a circular memory as deep as the
// most writes it keeps that can come between a place's write and its last
// read, over this and the following samples (at least the design's interval
// apart, and so this stage's), rounded up to a power of two.
void LoopStageBuilder::channel_depths() {
  for (const auto& [key, last] : chan_last_) {
    const auto [buffer, bank, read] = key;
    const Channel* c = nullptr;
    const ChannelRead* filter = nullptr;
    for (const auto& [r, ch] : chan_read_)
      if (ch.first->buffer == buffer) {
        c = ch.first;
        if (r == read) filter = ch.second;
      }
    KILN_ASSERT(c && o_.channel_writes, "a channel read without its producer's writes");
    std::vector<int64_t> writes;
    const std::vector<int64_t>& all = o_.channel_writes(*c, bank);
    for (std::size_t i = 0; i < all.size(); ++i)
      if (!filter || filter->takes[i % filter->takes.size()]) writes.push_back(all[i] - start_);
    // The next sample comes no sooner than the design's interval so far or
    // this stage's own, whichever is longer (the design's is at least both).
    const int64_t interval = std::max<int64_t>({1, o_.interval, end_});
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
  // A read across banks addresses them all at once: as deep as the deepest.
  for (const auto& [read, banks] : chan_read_banks_) {
    int bits = 1;
    for (int b : banks) bits = std::max(bits, chan_bits_.at(chan_stream(read, b)));
    for (int b : banks) chan_bits_[chan_stream(read, b)] = bits;
  }
}

// A weight read: a port of its bank's ROM (or, for weights kept in
// registers, a table of the whole buffer).
void LoopStageBuilder::rom_read(int r) {
  const dfg::PortAccess& pa = body_.reads[static_cast<std::size_t>(r)];
  const Bank bank = bank_of(pa, p_);
  const int accessed = pa.accessed >= 0 ? pa.accessed : pa.buffer;
  // A flattened nest's read that crosses the banks gets a table of its own,
  // indexed by the iteration, as it did before its banks had addresses in
  // every kept variable.
  if (bank.any && body_.flat()) return;
  if (bank.any)
    throw_error(ErrorKind::Unsupported, "loop " + body_.name,
                fmt::format("a read of '{}' moves across the banks of its partition",
                            p_.buffers[static_cast<std::size_t>(accessed)].name),
                "partition it so that each read stays in one bank (a cyclic factor that "
                "divides the step of its index), or not at all");
  if (bank.registers) return;  // a table of its own (emit_reads)
  const auto [at, added] = bank_index_.try_emplace({accessed, bank.part}, banks_.size());
  const std::size_t i = at->second;
  if (added) banks_.push_back({accessed, pa.buffer, bank.part, {}});
  RomBank& rb = banks_[i];
  const int op = ls_.lp.read_ops[static_cast<std::size_t>(r)];
  const int phase = op_start(op) % ii_;
  std::size_t port = 0;
  while (port < rb.ports.size() && rb.ports[port].count(phase)) ++port;
  if (port == rb.ports.size()) rb.ports.emplace_back();
  rb.ports[port][phase] = r;
  rom_port_[r] = {static_cast<int>(i), static_cast<int>(port)};
}

void LoopStageBuilder::group_roms() {
  // A bank's key: its buffer, and per port per phase the read's cycle and
  // address (the address's registers are the same for equal keys).
  std::map<std::vector<int64_t>, std::size_t> group_of;
  rom_groups_.clear();
  for (std::size_t i = 0; i < banks_.size(); ++i) {
    const RomBank& rb = banks_[i];
    std::vector<int64_t> key{rb.storage, rb.accessed, static_cast<int64_t>(rb.ports.size())};
    for (const std::map<int, int>& port : rb.ports) {
      key.push_back(static_cast<int64_t>(port.size()));
      for (const auto& [phase, r] : port) {
        const Linear a = bank_address(body_.reads[static_cast<std::size_t>(r)], p_, body_);
        key.push_back(phase);
        key.push_back(op_start(ls_.lp.read_ops[static_cast<std::size_t>(r)]));
        key.push_back(a.base);
        key.insert(key.end(), a.step.begin(), a.step.end());
      }
    }
    const auto [at, added] = group_of.try_emplace(std::move(key), rom_groups_.size());
    if (added) rom_groups_.emplace_back();
    rom_groups_[at->second].push_back(static_cast<int>(i));
  }
}

// A read or write of a buffer in memory: its bank's one port of that kind,
// at the phase the schedule gives it (one per phase: the bank's limit).
void LoopStageBuilder::ram_access(const dfg::PortAccess& pa, int index, int t, bool write) {
  const Bank bank = bank_of(pa, p_);
  const auto [at, added] = ram_index_.try_emplace({pa.buffer, bank.part}, rams_.size());
  const std::size_t i = at->second;
  if (added) rams_.push_back({pa.buffer, bank.part, {}, {}});
  std::map<int, int>& port = write ? rams_[i].writes : rams_[i].reads;
  const int phase = t % ii_;
  KILN_ASSERT(!port.count(phase), "two accesses of one memory port in one phase");
  port[phase] = index;
  if (!write) ram_of_read_[index] = static_cast<int>(i);
}

// ---- the estimate -----------------------------------------------------------

void LoopStageBuilder::add(const StageReport& s) {
  StageReport& r = r_.report;
  static_cast<fpga::Resources&>(r) += s;
  // Raw here, calibrated once with this stage's own terms (calibrate_estimate).
  r.lut += s.terms.raw_lut() - s.lut;
  r.ff += s.terms.raw_ff() - s.ff;
  r.terms += s.terms;
  r.register_bits += s.register_bits;
  r.multiplier_units += s.multiplier_units;
  r.critical_path_ns = std::max(r.critical_path_ns, s.critical_path_ns);
}

void LoopStageBuilder::report() {
  StageReport& r = r_.report;
  r.latency_cycles = static_cast<int>(end_);
  r.interval_cycles = static_cast<int>(end_);
  r.loop_ii = ls_.why;
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
  r.terms.add(FfTerm::Loop, static_cast<double>(register_bits + control));
  const fpga::Family f = o_.family;
  for (const std::vector<int>& group : rom_groups_) {
    const RomBank& rb = banks_[static_cast<std::size_t>(group.front())];
    const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(rb.storage)];
    const auto entries = static_cast<int>(bank_depth(p_, rb.accessed));
    const int w = buf.type.width * static_cast<int>(group.size());
    const bool bram = rom_group_in_block_ram(buf.directives.storage, entries, w);
    // One block RAM serves both ports; a LUT ROM is copied per port.
    const int copies = bram ? 1 : static_cast<int>(rb.ports.size());
    for (int c = 0; c < copies; ++c) {
      const sched::OperatorCost cost = sched::operator_cost(
          bram ? sched::OperatorKind::BlockRom : sched::OperatorKind::Rom, {w, 0, entries, 0}, f);
      static_cast<fpga::Resources&>(r) += cost.resources;
      r.terms.add(LutTerm::Rom, cost.resources.lut);
    }
    r.ff += static_cast<double>(w * static_cast<int>(rb.ports.size()));
    r.terms.add(FfTerm::Loop, static_cast<double>(w * static_cast<int>(rb.ports.size())));
  }
  // Each channel read's copy of each bank it reads; across banks, a
  // multiplexer over them by the registered lane.
  for (const auto& [read, ch] : chan_read_) {
    const int buffer = ch.first->buffer;
    if (ch.second->filtered()) {
      // Its pattern's phase and table, once per bank.
      const auto period = static_cast<int>(ch.second->takes.size());
      const std::size_t n = ch.second->crosses() ? chan_read_banks_.at(read).size() : 1;
      const double ff = static_cast<double>(n) * index_bits(period);
      const double lut =
          static_cast<double>(n) *
          sched::operator_cost(sched::OperatorKind::Rom, {1, 0, period, 0}, f).resources.lut;
      r.ff += ff;
      r.lut += lut;
      r.terms.add(FfTerm::Loop, ff);
      r.terms.add(LutTerm::Rom, lut);
    }
    const int w = p_.buffers[static_cast<std::size_t>(buffer)].type.width;
    std::vector<int> banks{ch.second->bank};
    if (ch.second->crosses()) {
      const auto it = chan_read_banks_.find(read);
      banks.assign(it->second.begin(), it->second.end());
      const double lut = sched::operator_cost(sched::OperatorKind::Mux,
                                              {w, 0, static_cast<int>(banks.size()), 0}, f)
                             .resources.lut;
      r.lut += lut;
      r.terms.add(LutTerm::Mux, lut);
      r.ff += ch.second->lanes_log2;
      r.terms.add(FfTerm::Loop, ch.second->lanes_log2);
    }
    for (int b : banks) {
      const int entries = 1 << chan_bits_.at(chan_stream(read, b));
      const sched::OperatorCost cost = sched::operator_cost(
          ram_in_block_ram(loop::Storage::Auto, entries, w) ? sched::OperatorKind::BlockRam
                                                            : sched::OperatorKind::Ram,
          {w, 0, entries, 0}, f);
      static_cast<fpga::Resources&>(r) += cost.resources;
      r.terms.add(LutTerm::Ram, cost.resources.lut);
      r.terms.add(FfTerm::Loop, cost.resources.ff);
    }
  }
  for (const auto& [key, bits] : chan_bits_) {
    r.ff += 3.0 * bits;  // pointer, base, next
    r.terms.add(FfTerm::Loop, 3.0 * bits);
  }
  for (const RamBank& rb : rams_) {
    const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(rb.storage)];
    const auto depth = static_cast<int>(bank_depth(p_, rb.storage));
    const int w = buf.type.width;
    const bool bram = ram_in_block_ram(buf.directives.storage, depth, w);
    const sched::OperatorCost cost = sched::operator_cost(
        bram ? sched::OperatorKind::BlockRam : sched::OperatorKind::Ram, {w, 0, depth, 0}, f);
    static_cast<fpga::Resources&>(r) += cost.resources;
    r.terms.add(LutTerm::Ram, cost.resources.lut);
    r.terms.add(FfTerm::Loop, cost.resources.ff);
  }
  // Reads outside the banks: a table or a multiplexer over what they reach.
  for (std::size_t i = 0; i < body_.reads.size(); ++i) {
    const dfg::PortAccess& pa = body_.reads[i];
    if (rom_port_.count(static_cast<int>(i)) || ram_of_read_.count(static_cast<int>(i)) ||
        chan_read_.count(static_cast<int>(i)))
      continue;
    const auto kind = is_const(pa.buffer) ? sched::OperatorKind::Rom : sched::OperatorKind::Mux;
    const auto addressed = register_reads_.find(static_cast<int>(i));
    const int64_t inputs = addressed == register_reads_.end()
                               ? body_.trip
                               : static_cast<int64_t>(addressed->second.elements.size());
    // One element reached (a pooling window's padded rows leave one): a
    // wire, no multiplexer (the fuzz tier's seed 1165 was refused).
    if (kind == sched::OperatorKind::Mux && inputs < 2) continue;
    const double lut =
        sched::operator_cost(kind, {width_of(pa.buffer), 0, static_cast<int>(inputs), 0}, f)
            .resources.lut;
    r.lut += lut;
    r.terms.add(kind == sched::OperatorKind::Rom ? LutTerm::Rom : LutTerm::Mux, lut);
  }
  calibrate_estimate(r);
}

BuiltStage build_loop_stage(const dfg::SplitKernel& split, const loop::Program& program,
                            const LoopSchedule& schedule, bool pipelined,
                            const StageOptions& options, const std::string& module_name,
                            const LoopElements* elements) {
  std::optional<LoopElements> own;
  if (!elements) elements = &own.emplace(loop_elements(split.body, program));
  return LoopStageBuilder(split, program, schedule, pipelined, options, module_name, *elements)
      .run();
}

}  // namespace kiln::rtl

// A layer with a kept loop as a netlist module (the timeline is in
// loop_stage.h): the controller that counts cycles after start, the
// iterations in flight (an index and a valid bit per pipeline stage, the
// phase), the buffers it keeps in registers (in banks of about 1 Kbit, each
// element loaded when the design delivers it, when the parts and the body
// write it), the weights in ROM banks or tables, its own memories, the
// channels' memories, and the before, body and after modules as instances.
#include <fmt/format.h>

#include <algorithm>

#include "kiln/rtl/stage/loop_stage_builder.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

using dfg::NodeOp;
using netlist::kNoValue;
using netlist::Op;

namespace {

// Buffer registers are packed into banks of about this many bits (stage_netlist.cpp).
constexpr int kBankBits = 1024;

netlist::Storage storage_of(loop::Storage s) {
  switch (s) {
    case loop::Storage::Bram: return netlist::Storage::Bram;
    case loop::Storage::Lutram: return netlist::Storage::Lutram;
    case loop::Storage::Registers: return netlist::Storage::Registers;
    case loop::Storage::Auto: return netlist::Storage::Auto;
  }
  return netlist::Storage::Auto;
}

// Where a loop's memory goes, as the estimate counts it (ram_in_block_ram).
netlist::Storage ram_storage(loop::Storage s, int64_t depth, int width) {
  if (s == loop::Storage::Registers) return netlist::Storage::Registers;
  return ram_in_block_ram(s, depth, width) ? netlist::Storage::Bram : netlist::Storage::Lutram;
}

}  // namespace

void LoopStageBuilder::emit() {
  r_.netlist = netlist::Module(r_.module);
  m_ = &r_.netlist;
  fv_.emplace(*m_);
  m_->set_doc(fmt::format(
      "Layer {} ({}): loop {}{} kept, {} iteration(s), a new one every {} cycle(s) ({}), {} "
      "cycle(s) each; {} cycles in all, one sample at a time.",
      onnx_name_, r_.report.name, body_.name,
      body_.flat() ? fmt::format(" (flattened with the {} loop(s) inside it)", body_.depth() - 1)
                   : std::string(),
      body_.trip, ii_, pipelined_ ? "pipelined" : "not pipelined", depth_, end_));
  // Ports: rst, start, the inputs, the outputs, the channel banks out and in.
  rst_ = m_->input("rst", 1);
  start_in_ = m_->input("start", 1);
  for (const auto& [name, width] : packed_widths(r_.inputs)) inputs_[name] = m_->input(name, width);
  std::vector<int> out_ports;
  for (const auto& [name, width] : packed_widths(r_.outputs))
    out_ports.push_back(m_->output(name, width));
  std::map<std::string, int> chan_out;
  for (const auto& [name, width] : r_.channel_outputs_ports)
    chan_out[name] = m_->output(name, width);
  for (const auto& [name, width] : r_.channel_inputs_ports) inputs_[name] = m_->input(name, width);

  controller();
  iterations();
  variables();
  buffer_registers();
  reads();
  if (before_) instance_of(*before_, "u_pre", b_at_ - before_->report.latency_cycles, pre_);
  body_instance();
  if (after_) instance_of(*after_, "u_post", a0_, post_);
  loads();
  rams();
  // Channel write ports (the producer's side).
  for (std::size_t i = 0; i < body_stage_.outputs.size(); ++i) {
    const StagePortElement& e = body_stage_.outputs[i];
    if (e.where.buffer < 0 || e.where.element >= 0) continue;
    const int w = static_cast<int>(-1 - e.where.element);
    const auto ch = chan_write_.find(w);
    if (ch == chan_write_.end()) continue;
    const std::pair<int, int> key{e.where.buffer, ch->second.second};
    const int t = op_start(ls_.lp.output_ops[i]);
    const auto en = enable_.find(w);
    m_->drive_output(chan_out.at(channel_port("chw", key)),
                     m_->slice(body_out_.at(e.port), e.lsb, e.type.width));
    m_->drive_output(chan_out.at(channel_port("chv", key)),
                     en == enable_.end() ? active(t) : fv_->and2(active(t), en->second));
  }
  const auto packed = packed_values(*m_, r_.outputs, [&](std::size_t i) {
    return element(r_.outputs[i].where.buffer, r_.outputs[i].where.element);
  });
  for (std::size_t i = 0; i < packed.size(); ++i) m_->drive_output(out_ports[i], packed[i].second);
  for (const auto* s : {&before_, &after_})
    if (*s) r_.submodules.push_back(std::move((*s)->netlist));
  r_.submodules.push_back(std::move(body_stage_.netlist));
  m_ = nullptr;
  fv_.reset();
}

// ---- the controller ----------------------------------------------------------------

// cyc counts the cycles after start while busy.
void LoopStageBuilder::controller() {
  FixedValues& fv = *fv_;
  const int b = cyc_bits_;
  cyc_ = m_->reg(b, "cyc");
  busy_ = m_->reg(1, "busy");
  const ValueId en = fv.or2(start_in_, busy_);
  m_->drive_register(busy_,
                     m_->mux(start_in_, fv.lit(1, 1), fv.ne(cyc_, std::max<int64_t>(end_ - 1, 1))),
                     en, rst_);
  m_->drive_register(cyc_, m_->mux(start_in_, fv.lit(1, b), m_->add(cyc_, fv.lit(1, b))), en, rst_);
}

ValueId LoopStageBuilder::at(int64_t cycle) {
  if (cycle == 0) return start_in_;
  auto [it, fresh] = at_.try_emplace(cycle, kNoValue);
  if (fresh) it->second = fv_->and2(busy_, fv_->eq(cyc_, cycle));
  return it->second;
}

// Iteration k is in pipeline stage s (times s*II .. s*II + II - 1) during
// cycles L0 + (k + s) * II + phase: k<s> holds its index, vs[s] whether one
// is there; ph counts the phase.
void LoopStageBuilder::iterations() {
  FixedValues& fv = *fv_;
  go_ = l0_ == 1 ? start_in_ : at(l0_ - 1);
  vs_ = m_->reg(stages_, "vs");
  for (int s = 0; s < stages_; ++s) k_.push_back(m_->reg(k_bits_, fmt::format("k{}", s)));
  wrap_ = fv.lit(1, 1);
  if (ii_ > 1) {
    ph_ = m_->reg(ph_bits_, "ph");
    wrap_ = fv.eq(ph_, ii_ - 1);
    // rst, go: 0; else 0 at the wrap, else + 1.
    m_->drive_register(
        ph_, m_->mux(fv.or2(go_, wrap_), fv.lit(0, ph_bits_), m_->add(ph_, fv.lit(1, ph_bits_))),
        kNoValue, rst_);
  }
  const ValueId not_rst = fv.not1(rst_);
  const ValueId not_go = fv.not1(go_);
  const ValueId next_valid = fv.and2(fv.bit(vs_, 0), fv.ne(k_[0], body_.trip - 1));
  ValueId shifted = next_valid;
  if (stages_ > 1) {
    const ValueId parts[] = {m_->slice(vs_, 0, stages_ - 1), next_valid};
    shifted = m_->concat(parts);
  }
  m_->drive_register(vs_, m_->mux(go_, fv.lit(1, stages_), shifted), fv.or2(go_, wrap_), rst_);
  m_->drive_register(k_[0], m_->mux(go_, fv.lit(0, k_bits_), m_->add(k_[0], fv.lit(1, k_bits_))),
                     fv.and2(not_rst, fv.or2(go_, wrap_)));
  shift_ = fv.and2(fv.and2(not_rst, not_go), wrap_);
  for (int s = 1; s < stages_; ++s)
    m_->drive_register(k_[static_cast<std::size_t>(s)], k_[static_cast<std::size_t>(s - 1)],
                       shift_);
}

int LoopStageBuilder::variable_bits(int which) const {
  if (!body_.flat()) return k_bits_;
  return index_bits(body_.extents[static_cast<std::size_t>(which)]);
}

// A flattened nest's variables in the iteration k0 holds, counted like an
// odometer (the innermost every iteration, each outer one when all inside it
// wrap), and, for the memories, ROM banks and channels that address by them,
// and the registers addressed by element (element_index), their copies in
// each pipeline stage (moving along with k).
void LoopStageBuilder::variables() {
  if (!body_.flat()) return;
  FixedValues& fv = *fv_;
  const ValueId step = ii_ > 1 ? shift_ : fv.lit(1, 1);
  const int d = body_.depth();
  var_.assign(static_cast<std::size_t>(d), {});
  for (int i = 0; i < d; ++i)
    var_[static_cast<std::size_t>(i)].push_back(m_->reg(variable_bits(i), fmt::format("var{}", i)));
  // The innermost moves every iteration; each one out, when all inside it are at their last.
  ValueId carry = step;
  for (int i = d - 1; i >= 0; --i) {
    const ValueId v = var_[static_cast<std::size_t>(i)][0];
    const int b = variable_bits(i);
    const int64_t last_value = body_.extents[static_cast<std::size_t>(i)] - 1;
    const ValueId last = fv.eq(v, last_value);
    const ValueId next =
        i == 0 ? m_->add(v, fv.lit(1, b)) : m_->mux(last, fv.lit(0, b), m_->add(v, fv.lit(1, b)));
    m_->drive_register(v, m_->mux(go_, fv.lit(0, b), next), fv.or2(go_, carry));
    carry = fv.and2(carry, last);
  }
  if ((rams_.empty() && banks_.empty() && chan_read_.empty() && register_reads_.empty() &&
       register_writes_.empty()) ||
      stages_ < 2)
    return;
  for (int s = 1; s < stages_; ++s)
    for (int i = 0; i < d; ++i) {
      auto& copies = var_[static_cast<std::size_t>(i)];
      const ValueId v = m_->reg(variable_bits(i), fmt::format("var{}_{}", i, s));
      m_->drive_register(v, copies.back(), shift_);
      copies.push_back(v);
    }
}

ValueId LoopStageBuilder::variable_at(int which, int t) {
  const auto st = static_cast<std::size_t>(t / ii_);
  if (!body_.flat()) return k_[st];
  const auto& copies = var_[static_cast<std::size_t>(which)];
  KILN_ASSERT(st < copies.size(), "a variable's copy in a pipeline stage that has none");
  return copies[st];
}

ValueId LoopStageBuilder::active(int t) {
  auto [it, fresh] = active_.try_emplace(t, kNoValue);
  if (!fresh) return it->second;
  const ValueId valid = fv_->bit(vs_, t / ii_);
  return it->second = ii_ == 1 ? valid : fv_->and2(valid, fv_->eq(ph_, t % ii_));
}

// base + step . the kept variables of the iteration at time t, in `width`
// bits; the products by the constant steps as shifted copies (a `*` is one
// Yosys may map to a DSP slice).
ValueId LoopStageBuilder::linear(const Linear& a, int t, int width) {
  std::vector<std::pair<ValueId, int64_t>> terms;
  int cw = width;
  for (std::size_t i = 0; i < a.step.size(); ++i) {
    if (a.step[i] == 0) continue;
    const ValueId v = variable_at(static_cast<int>(i), t);
    terms.emplace_back(v, a.step[i]);
    cw = std::max(cw, m_->width(v) + index_bits(std::abs(a.step[i]) + 1));
  }
  cw += index_bits(static_cast<int64_t>(terms.size()) + 1) + 1;
  return m_->slice(fv_->modular_sum(cw, a.base, terms), 0, width);
}

// ---- the buffers in registers ---------------------------------------------------------

// Every element something loads gets a register, in banks; the others hold
// zero.
void LoopStageBuilder::buffer_registers() {
  std::set<std::pair<int, int64_t>> loaded;
  for (const StagePortElement& e : r_.inputs) loaded.insert({e.where.buffer, e.where.element});
  for (const auto* s : {&before_, &after_})
    if (*s)
      for (const StagePortElement& e : (*s)->outputs)
        loaded.insert({e.where.buffer, e.where.element});
  for (std::size_t i = 0; i < body_stage_.outputs.size(); ++i) {
    const StagePortElement& e = body_stage_.outputs[i];
    const int b = e.where.buffer;
    if (b == dfg::kWriteEnableBuffer || ls_.memories.count(b) ||
        (e.where.element < 0 && chan_write_.count(static_cast<int>(-1 - e.where.element))))
      continue;
    if (e.where.element >= 0) {
      loaded.insert({b, e.where.element});
      continue;
    }
    const dfg::PortAccess& pa = body_.writes[static_cast<std::size_t>(-1 - e.where.element)];
    for (int64_t k = 0; k < body_.trip; ++k)
      if (const int64_t el = element_at(pa, k); el >= 0) loaded.insert({b, el});
  }
  int bits = kBankBits;
  for (const auto& [b, use] : uses_)
    for (int64_t e = 0; e < p_.buffers[static_cast<std::size_t>(b)].numel(); ++e) {
      if (!loaded.count({b, e})) continue;
      const int w = width_of(b);
      if (bits + w > kBankBits) {
        bank_elements_.emplace_back();
        bits = 0;
      }
      element_slot_[{b, e}] = {static_cast<int>(bank_elements_.size()) - 1, bits};
      bank_elements_.back().emplace_back(b, e);
      bits += w;
    }
  for (std::size_t i = 0; i < bank_elements_.size(); ++i) {
    const auto last = bank_elements_[i].back();
    element_bank_.push_back(
        m_->reg(element_slot_.at(last).lsb + width_of(last.first), fmt::format("m{}", i)));
  }
}

ValueId LoopStageBuilder::element(int b, int64_t e) {
  auto [it, fresh] = element_value_.try_emplace({b, e}, kNoValue);
  if (!fresh) return it->second;
  const auto slot = element_slot_.find({b, e});
  if (slot == element_slot_.end()) return it->second = fv_->lit(0, width_of(b));
  return it->second = m_->slice(
             element_bank_[static_cast<std::size_t>(slot->second.bank)], slot->second.lsb,
             width_of(b), fmt::format("{}_{}", p_.buffers[static_cast<std::size_t>(b)].name, e));
}

// Each element's next value: its register, unless a load of it happens this
// cycle (the last of them in this order: inputs, before, body, after).
void LoopStageBuilder::loads() {
  FixedValues& fv = *fv_;
  std::map<std::pair<int, int64_t>, std::vector<std::pair<ValueId, ValueId>>> load;  // cond, data
  for (const StagePortElement& e : r_.inputs)
    load[{e.where.buffer, e.where.element}].emplace_back(
        at(e.at), m_->slice(inputs_.at(e.port), e.lsb, e.type.width));
  auto from_part = [&](const std::optional<BuiltStage>& s, std::map<std::string, ValueId>& outs,
                       int64_t cycle) {
    if (!s) return;
    for (const StagePortElement& e : s->outputs)
      load[{e.where.buffer, e.where.element}].emplace_back(
          at(cycle), m_->slice(outs.at(e.port), e.lsb, e.type.width));
  };
  from_part(before_, pre_, b_at_);
  std::map<std::pair<int, int64_t>, ValueId> iteration_is;  // (stage, k) -> k<stage> == k
  for (std::size_t i = 0; i < body_stage_.outputs.size(); ++i) {
    const StagePortElement& e = body_stage_.outputs[i];
    const int t = op_start(ls_.lp.output_ops[i]);
    const int b = e.where.buffer;
    if (b == dfg::kWriteEnableBuffer || ls_.memories.count(b) ||
        (e.where.element < 0 && chan_write_.count(static_cast<int>(-1 - e.where.element))))
      continue;  // not registers
    const ValueId data = m_->slice(body_out_.at(e.port), e.lsb, e.type.width);
    if (e.where.element >= 0) {
      load[{b, e.where.element}].emplace_back(active(t), data);
      continue;
    }
    // The element the iteration writes, decoded from its index (where the
    // write happens; a predicated one when its enable says so too).
    const int64_t w = -1 - e.where.element;
    const dfg::PortAccess& pa = body_.writes[static_cast<std::size_t>(w)];
    const auto en = enable_.find(w);
    const ValueId when = en == enable_.end() ? active(t) : fv.and2(active(t), en->second);
    if (const auto it = register_writes_.find(static_cast<int>(w)); it != register_writes_.end()) {
      // By the element's index (element_index): a comparison per element
      // written, not per iteration (an accumulator per output channel
      // updated over a pointwise layer's 73,728 iterations).
      const RegisterRead& rw = it->second;
      const int64_t last = (rw.elements.back() - rw.first) / rw.stride;
      const ValueId index = linear(rw.index, t, index_bits(last + 1));
      for (int64_t el : rw.elements)
        load[{b, el}].emplace_back(fv.and2(when, fv.eq(index, (el - rw.first) / rw.stride)), data);
      continue;
    }
    for (int64_t k = 0; k < body_.trip; ++k)
      if (const int64_t el = element_at(pa, k); el >= 0) {
        auto [is, fresh] = iteration_is.try_emplace({t / ii_, k}, kNoValue);
        if (fresh) is->second = fv.eq(k_at(t), k);
        load[{b, el}].emplace_back(fv.and2(when, is->second), data);
      }
  }
  from_part(after_, post_, a_at_);
  for (std::size_t i = 0; i < element_bank_.size(); ++i) {
    std::vector<ValueId> parts;  // most significant first
    for (const auto& [b, e] : bank_elements_[i]) {
      ValueId v = element(b, e);
      for (const auto& [cond, data] : load[{b, e}]) v = m_->mux(cond, data, v);
      parts.insert(parts.begin(), v);
    }
    m_->drive_register(element_bank_[i], parts.size() == 1 ? parts[0] : m_->concat(parts));
  }
}

// ---- reads ------------------------------------------------------------------------

void LoopStageBuilder::reads() {
  FixedValues& fv = *fv_;
  // Weights in ROM banks, those read in lockstep in one wide ROM
  // (group_roms): each port's address by phase, its data registered, each
  // bank's word a slice of it.
  std::vector<std::vector<ValueId>> port_data(banks_.size());
  for (std::size_t g = 0; g < rom_groups_.size(); ++g) {
    const std::vector<int>& group = rom_groups_[g];
    const RomBank& rb = banks_[static_cast<std::size_t>(group.front())];
    const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(rb.storage)];
    const int w = buf.type.width;
    const auto lanes = static_cast<int>(group.size());
    const int64_t depth = bank_depth(p_, rb.accessed);
    const int ab = index_bits(depth);
    netlist::Memory mem;
    mem.name = fmt::format("rom{}", g);
    mem.kind = netlist::MemoryKind::Rom;
    // Block RAM where the estimate put it; else the buffer's Storage (Yosys
    // maps no two-port ROM to "distributed" memory: Auto lets it use logic).
    mem.storage = rom_group_in_block_ram(buf.directives.storage, depth, w * lanes)
                      ? netlist::Storage::Bram
                      : storage_of(buf.directives.storage);
    mem.width = w * lanes;
    mem.depth = depth;
    mem.read_latency = 1;
    mem.read_ports = static_cast<int>(rb.ports.size());
    mem.write_ports = 0;
    mem.init.assign(static_cast<std::size_t>(depth), netlist::Bits(mem.width));
    for (int lane = 0; lane < lanes; ++lane) {
      const RomBank& bank = banks_[static_cast<std::size_t>(group[static_cast<std::size_t>(lane)])];
      const std::vector<int64_t> elems = bank_elements(p_, bank.accessed, bank.part);
      for (std::size_t a = 0; a < elems.size(); ++a) {
        const netlist::Bits word =
            bits_of(elems[a] < 0 ? 0 : buf.data[static_cast<std::size_t>(elems[a])], w);
        for (int bit = 0; bit < w; ++bit) mem.init[a].set_bit(lane * w + bit, word.bit(bit));
      }
    }
    const int id = m_->memory(std::move(mem));
    for (std::size_t port = 0; port < rb.ports.size(); ++port) {
      std::vector<std::pair<int64_t, ValueId>> addresses;  // phase -> address
      for (const auto& [phase, r] : rb.ports[port]) {
        const int t = op_start(ls_.lp.read_ops[static_cast<std::size_t>(r)]);
        addresses.emplace_back(
            phase,
            linear(bank_address(body_.reads[static_cast<std::size_t>(r)], p_, body_), t, ab));
      }
      const ValueId addr =
          addresses.size() == 1 ? addresses[0].second : fv.select(ph_, addresses, fv.lit(0, ab));
      const ValueId data =
          m_->read(id, static_cast<int>(port), addr, kNoValue, fmt::format("pd{}_{}", g, port));
      for (int lane = 0; lane < lanes; ++lane)
        port_data[static_cast<std::size_t>(group[static_cast<std::size_t>(lane)])].push_back(
            lanes == 1 ? data
                       : m_->slice(data, lane * w, w, fmt::format("pd{}_{}_{}", g, port, lane)));
    }
  }
  // The memories (their writes in rams()), each read registered.
  for (std::size_t i = 0; i < rams_.size(); ++i) {
    const RamBank& rb = rams_[i];
    const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(rb.storage)];
    netlist::Memory mem;
    mem.name = fmt::format("mem{}_{}", i, buf.name);
    mem.kind = netlist::MemoryKind::Ram;
    mem.width = buf.type.width;
    mem.depth = bank_depth(p_, rb.storage);
    mem.storage = ram_storage(buf.directives.storage, mem.depth, mem.width);
    mem.read_latency = 1;
    mem.read_ports = rb.reads.empty() ? 0 : 1;
    mem.write_ports = 1;
    ram_id_.push_back(m_->memory(std::move(mem)));
  }
  rd_.assign(body_.reads.size(), kNoValue);
  for (std::size_t r = 0; r < body_.reads.size(); ++r) {
    const dfg::PortAccess& pa = body_.reads[r];
    const int op = ls_.lp.read_ops[r];
    const int t = op_start(op);
    const int w = width_of(pa.buffer);
    const std::string name = fmt::format("rd{}", r);
    if (const auto it = rom_port_.find(static_cast<int>(r)); it != rom_port_.end()) {
      rd_[r] = port_data[static_cast<std::size_t>(it->second.first)]
                        [static_cast<std::size_t>(it->second.second)];
    } else if (ram_of_read_.count(static_cast<int>(r))) {
      continue;  // rams() reads it
    } else if (const auto ch = chan_read_.find(static_cast<int>(r)); ch != chan_read_.end()) {
      rd_[r] = channel_read(static_cast<int>(r), *ch->second.second, t);
    } else if (is_const(pa.buffer)) {
      // Weights in registers: the elements this read reaches, by iteration.
      const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(pa.buffer)];
      netlist::Table table;
      table.name = fmt::format("wt{}", r);
      table.width = w;
      for (int64_t k = 0; k < body_.trip; ++k) {
        const int64_t e = element_at(pa, k);
        table.entries.push_back(bits_of(e < 0 ? 0 : buf.data[static_cast<std::size_t>(e)], w));
      }
      const ValueId v = m_->lookup(m_->table(std::move(table)), k_at(t));
      // Registered where the schedule counts a read's latency (a port of a
      // bank it would have had: a flattened nest's read across banks).
      if (op_latency(op) > 0) {
        rd_[r] = m_->reg(w, name);
        m_->drive_register(rd_[r], v);
      } else {
        rd_[r] = v;
      }
    } else {
      // A buffer in registers: a multiplexer over the elements the read
      // reaches, by iteration (a shift by a computed offset would be a
      // barrel shifter over the whole buffer).
      std::vector<std::pair<int64_t, ValueId>> cases;
      ValueId v = kNoValue;
      if (const auto it = register_reads_.find(static_cast<int>(r)); it != register_reads_.end()) {
        // By the element's index (element_address).
        const RegisterRead& rr = it->second;
        for (int64_t e : rr.elements)
          cases.emplace_back((e - rr.first) / rr.stride, element(pa.buffer, e));
        const ValueId index = linear(rr.index, t, index_bits(cases.back().first + 1));
        v = fv.select(index, cases, fv.lit(0, w));
      } else {
        for (int64_t k = 0; k < body_.trip; ++k)
          if (const int64_t e = element_at(pa, k); e >= 0)
            cases.emplace_back(k, element(pa.buffer, e));
        v = cases.empty() ? fv.lit(0, w) : fv.select(k_at(t), cases, fv.lit(0, w));
      }
      if (op_latency(op) > 0) {
        rd_[r] = m_->reg(w, name);
        m_->drive_register(rd_[r], v);
      } else {
        rd_[r] = v;
      }
    }
  }
  for (std::size_t i = 0; i < rams_.size(); ++i) {
    const RamBank& rb = rams_[i];
    if (rb.reads.empty()) continue;
    const int ab = index_bits(m_->memories()[static_cast<std::size_t>(ram_id_[i])].depth);
    std::vector<std::pair<int64_t, ValueId>> at;
    for (const auto& [phase, r] : rb.reads) {
      const int t = op_start(ls_.lp.read_ops[static_cast<std::size_t>(r)]);
      at.emplace_back(
          phase, linear(bank_address(body_.reads[static_cast<std::size_t>(r)], p_, body_), t, ab));
    }
    const ValueId addr = at.size() == 1 ? at[0].second : fv.select(ph_, at, fv.lit(0, ab));
    const ValueId mq = m_->read(ram_id_[i], 0, addr, kNoValue, fmt::format("mq{}", i));
    for (const auto& [phase, r] : rb.reads) rd_[static_cast<std::size_t>(r)] = mq;
  }
}

// A channel stream's write pointer and the place its sample starts at, once
// per stream (a bank's writes, or those a filtered read keeps: then a phase
// counter over the read's pattern enables them); then the read's own copy of
// each bank it reads, written as the stream's writes come and read at the
// element's place. A read across banks reads
// every copy at the rank and picks the lane a cycle later (the memories'
// read latency), by the low bits of the place.
ValueId LoopStageBuilder::channel_read(int r, const ChannelRead& cr, int t) {
  FixedValues& fv = *fv_;
  const int buffer = body_.reads[static_cast<std::size_t>(r)].buffer;
  const std::vector<int> banks =
      cr.crosses() ? std::vector<int>(chan_read_banks_.at(r).begin(), chan_read_banks_.at(r).end())
                   : std::vector<int>{cr.bank};
  const int bits = chan_bits_.at(chan_stream(r, banks.front()));
  const auto pointers = [&](int b) -> const std::vector<ValueId>& {
    const ChanStream key = chan_stream(r, b);
    auto [bank, fresh] = chan_bank_.try_emplace(key);
    if (fresh) {
      const int64_t size = int64_t{1} << chan_bits_.at(key);
      const int kb = chan_bits_.at(key);
      const std::string tag = std::get<2>(key) < 0
                                  ? fmt::format("{}_{}", buffer, b)
                                  : fmt::format("{}_{}_r{}", buffer, b, std::get<2>(key));
      const ValueId cwp = m_->reg(kb, "cwp_" + tag);
      const ValueId cbase = m_->reg(kb, "cbase_" + tag);
      const ValueId cnext = m_->reg(kb, "cnext_" + tag);
      const ValueId valid = inputs_.at(channel_port("chv", {buffer, b}));
      ValueId kept = valid;
      if (cr.filtered()) {
        // The pattern's phase, one step per write of the bank, and whether
        // this write is one the read keeps.
        const auto period = static_cast<int64_t>(cr.takes.size());
        const int pb = index_bits(period);
        const ValueId phase = m_->reg(pb, "cph_" + tag);
        const ValueId step = m_->add(phase, fv.lit(1, pb));
        m_->drive_register(phase,
                           period == int64_t{1} << pb
                               ? step
                               : m_->mux(fv.eq(phase, period - 1), fv.lit(0, pb), step),
                           valid, rst_);
        std::vector<std::pair<int64_t, ValueId>> taken;
        for (int64_t i = 0; i < period; ++i)
          if (cr.takes[static_cast<std::size_t>(i)]) taken.emplace_back(i, fv.lit(1, 1));
        kept = fv.and2(valid, fv.select(phase, taken, fv.lit(0, 1)));
      }
      m_->drive_register(cwp, m_->add(cwp, fv.lit(1, kb)), kept, rst_);
      m_->drive_register(cnext, m_->add(cnext, fv.lit(chan_per_sample_.at(key) % size, kb)),
                         start_in_, rst_);
      m_->drive_register(cbase, cnext, fv.and2(fv.not1(rst_), start_in_));
      bank->second = {cwp, cbase, kept};
    }
    return bank->second;
  };
  std::vector<std::pair<ValueId, int64_t>> terms;
  for (std::size_t i = 0; i < cr.step.size(); ++i)
    if (cr.step[i] != 0) terms.emplace_back(variable_at(static_cast<int>(i), t), cr.step[i]);
  // Every bank a read crosses is written as often and as deep (channels.h,
  // channel_depths): their bases agree, and the first bank's serves.
  const int lanes = cr.lanes_log2;
  ValueId address = kNoValue, lane = kNoValue;
  if (lanes == 0) {
    address = fv.modular_sum(bits, cr.base, terms, pointers(banks.front())[1]);
  } else {
    const ValueId place = fv.modular_sum(bits + lanes, cr.base, terms);
    address = m_->add(m_->slice(place, lanes, bits), pointers(banks.front())[1]);
    lane = m_->reg(lanes, fmt::format("lane{}", r));
    m_->drive_register(lane, m_->slice(place, 0, lanes));
  }
  std::vector<std::pair<int64_t, ValueId>> lanes_read;
  for (int b : banks) {
    const std::pair<int, int> key{buffer, b};
    netlist::Memory mem;
    mem.name = banks.size() == 1 ? fmt::format("chm{}", r) : fmt::format("chm{}_{}", r, b);
    mem.kind = netlist::MemoryKind::Ram;
    mem.width = width_of(buffer);
    mem.depth = int64_t{1} << bits;
    mem.storage = ram_storage(loop::Storage::Auto, mem.depth, mem.width);
    mem.read_latency = 1;
    mem.read_ports = 1;
    mem.write_ports = 1;
    const int id = m_->memory(std::move(mem));
    m_->write(id, 0, pointers(b)[0], inputs_.at(channel_port("chw", key)), pointers(b)[2]);
    lanes_read.emplace_back(
        b, m_->read(id, 0, address, kNoValue,
                    banks.size() == 1 ? fmt::format("rd{}", r) : fmt::format("rd{}_{}", r, b)));
  }
  if (lane == kNoValue) return lanes_read.front().second;
  return fv.select(lane, lanes_read, fv.lit(0, width_of(buffer)));
}

// ---- the parts as instances ---------------------------------------------------------

// Before or after: its inputs the buffer registers, its start `start_cycle`
// cycles after the layer's, its outputs instance outputs the buffers load.
void LoopStageBuilder::instance_of(const BuiltStage& s, const std::string& name,
                                   int64_t start_cycle, std::map<std::string, ValueId>& outputs) {
  const int inst = m_->instance(name, s.module);
  if (s.started) {
    m_->connect(inst, "rst", rst_);
    m_->connect(inst, "start", at(start_cycle));
  }
  for (const auto& [port, v] : packed_values(*m_, s.inputs, [&](std::size_t i) {
         return element(s.inputs[i].where.buffer, s.inputs[i].where.element);
       }))
    m_->connect(inst, port, v);
  for (const auto& [port, width] : packed_widths(s.outputs))
    outputs[port] = m_->instance_output(inst, port, width, name + "_" + port);
}

void LoopStageBuilder::body_instance() {
  const BuiltStage& s = body_stage_;
  const int inst = m_->instance("u_body", s.module);
  if (s.phased) m_->connect(inst, "ph", ph_);
  for (const auto& [port, v] : packed_values(*m_, s.inputs, [&](std::size_t i) {
         const dfg::Element& e = s.inputs[i].where;
         if (e.buffer == dfg::kIterationBuffer) {
           // The iteration entering the body: k0, or a flattened nest's variables.
           const ValueId var = body_.flat() ? var_[static_cast<std::size_t>(e.element)][0] : k_[0];
           return fv_->low(var, s.inputs[i].type.width);
         }
         return e.element >= 0 ? element(e.buffer, e.element)
                               : rd_[static_cast<std::size_t>(-1 - e.element)];
       }))
    m_->connect(inst, port, v);
  for (const auto& [port, width] : packed_widths(s.outputs))
    body_out_[port] = m_->instance_output(inst, port, width, "body_" + port);
  // Each predicated port write's enable, by write.
  for (const StagePortElement& e : s.outputs)
    if (e.where.buffer == dfg::kWriteEnableBuffer)
      enable_[e.where.element] = m_->slice(body_out_.at(e.port), e.lsb, 1);
}

// ---- memories ---------------------------------------------------------------------

// Each memory bank: one write port and one registered read port (reads()),
// the addresses and data multiplexed by phase among the accesses the schedule
// put there; a read in the cycle of a write to its address sees the old word,
// as the schedule's order of a read before a write assumes.
void LoopStageBuilder::rams() {
  FixedValues& fv = *fv_;
  std::map<int, ValueId> data;  // the body's output each write stores
  for (const StagePortElement& e : body_stage_.outputs)
    if (e.where.buffer >= 0 && e.where.element < 0)
      data[static_cast<int>(-1 - e.where.element)] =
          m_->slice(body_out_.at(e.port), e.lsb, e.type.width);
  for (std::size_t i = 0; i < rams_.size(); ++i) {
    const RamBank& rb = rams_[i];
    if (rb.writes.empty()) continue;
    const int id = ram_id_[i];
    const loop::Buffer& buf = p_.buffers[static_cast<std::size_t>(rb.storage)];
    const int ab = index_bits(bank_depth(p_, rb.storage));
    std::vector<std::pair<int64_t, ValueId>> addr, value;
    std::vector<ValueId> we;
    for (const auto& [phase, wr] : rb.writes) {
      const int t = op_start(ls_.lp.write_ops[static_cast<std::size_t>(wr)]);
      addr.emplace_back(
          phase,
          linear(bank_address(body_.writes[static_cast<std::size_t>(wr)], p_, body_), t, ab));
      value.emplace_back(phase, data.at(wr));
      const auto en = enable_.find(wr);
      we.push_back(en == enable_.end() ? active(t) : fv.and2(active(t), en->second));
    }
    const int w = buf.type.width;
    const ValueId a = addr.size() == 1 ? addr[0].second : fv.select(ph_, addr, fv.lit(0, ab));
    const ValueId d = value.size() == 1 ? value[0].second : fv.select(ph_, value, fv.lit(0, w));
    m_->write(id, 0, a, d, fv.any(we));
  }
}

}  // namespace kiln::rtl

// The builder of a layer with a kept loop (private to rtl/; loop_stage.h is
// the interface and its timeline): the loop's timeline and the before, body
// and after stages (stage_builder.h), what it does with each buffer (registers,
// ROM banks, memories, channels) and its resources (loop_stage.cpp), then,
// unless only priced, its netlist module with the controller that counts
// cycles and iterations (loop_netlist.cpp).
#pragma once

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "kiln/rtl/analysis/banks.h"
#include "kiln/rtl/cmvm/fixed_values.h"
#include "kiln/rtl/stage/loop_stage.h"
#include "kiln/rtl/stage/node_cost.h"

namespace kiln::rtl {

// What the layer does with one buffer (storage) outside its weights, per
// element: the cycle of its first read, of its first and last write (kNever
// when none). Dense arrays: a loop touches most of a buffer's elements, and
// a price walks every iteration's accesses.
struct BufferUse {
  static constexpr int64_t kNever = INT64_MIN;
  std::vector<int64_t> first_read, first_write, last_write;
  bool any_read = false, any_write = false;
  explicit BufferUse(int64_t numel)
      : first_read(static_cast<std::size_t>(numel), kNever),
        first_write(static_cast<std::size_t>(numel), kNever),
        last_write(static_cast<std::size_t>(numel), kNever) {}
  bool read(int64_t e) const { return first_read[static_cast<std::size_t>(e)] != kNever; }
  bool written(int64_t e) const { return first_write[static_cast<std::size_t>(e)] != kNever; }
  // A read of element `e` in cycle `cycle`: its register must hold it then.
  void note_read(int64_t e, int64_t cycle) {
    int64_t& first = first_read[static_cast<std::size_t>(e)];
    first = first == kNever ? cycle : std::min(first, cycle);
    any_read = true;
  }
  // A write of element `e` in cycle `cycle` (its register loads at its end).
  void note_write(int64_t e, int64_t cycle) {
    int64_t& first = first_write[static_cast<std::size_t>(e)];
    int64_t& last = last_write[static_cast<std::size_t>(e)];
    first = first == kNever ? cycle : std::min(first, cycle);
    last = last == kNever ? cycle : std::max(last, cycle);
    any_write = true;
  }
};

// Whether a ROM of weights (a group of lockstep banks) goes to block RAM: as
// its buffer's Storage says, else when it is large (sched::rom_in_block_ram)
// and deeper than a LUT6 (64 words). Up to that depth a LUT ROM costs one
// LUT per bit, 36 per block RAM's width, fewer than the LUTs a block RAM is
// worth on any part (190 on a Zynq-7020, 273 on a VU9P); a 25-word group of
// 3,072 bits would take 86 block RAMs. The netlist asks Yosys for block RAM
// (ram_style) where the estimate counts it.
inline constexpr int64_t kLutRomMostDepth = 64;
bool rom_group_in_block_ram(loop::Storage storage, int64_t depth, int width);

// Whether a memory a loop writes (a buffer's bank, a channel's copy of one)
// goes to block RAM: as its Storage says, else when it is large
// (sched::rom_in_block_ram). The estimate counts it there, and the netlist
// asks Yosys for it by ram_style, block or distributed: left to choose,
// Yosys put MobileNetV1's 4 Kbit channel banks in block RAM (293 BRAM18 where
// the estimate counted 182, over the Zynq-7020's 280).
bool ram_in_block_ram(loop::Storage storage, int64_t depth, int width);

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
                   bool pipelined, const StageOptions& o, std::string module,
                   const LoopElements& elements)
      : sk_(sk), p_(p), ls_(ls), pipelined_(pipelined), o_(o), body_(sk.body), elements_(elements) {
    r_.module = std::move(module);
  }

  BuiltStage run();

 private:
  // ---- analysis (loop_stage.cpp) ----
  int op_latency(int op) const;
  int op_start(int op) const { return ls_.solution.start[static_cast<std::size_t>(op)]; }
  void timing();
  StageGraph part_stage(const dfg::Graph& g, const std::string& suffix) const;
  void parts();
  bool is_const(int b) const {
    return p_.buffers[static_cast<std::size_t>(b)].role == loop::BufferRole::Const;
  }
  int width_of(int b) const { return p_.buffers[static_cast<std::size_t>(b)].type.width; }
  int64_t element_at(const dfg::PortAccess& pa, int64_t k) const;
  const std::vector<int64_t>& elements_of(const dfg::PortAccess& pa) const;
  void note_read(int b, int64_t e, int64_t cycle);
  void note_write(int b, int64_t e, int64_t cycle);
  void note_reads(const dfg::Graph& g, int64_t cycle);
  void note_writes(const dfg::Graph& g, int64_t cycle);
  void uses();
  void channel_depths();
  void element_address(int r);
  struct RegisterRead;
  std::optional<RegisterRead> element_index(const dfg::PortAccess& pa) const;
  void rom_read(int r);
  void group_roms();
  void ram_access(const dfg::PortAccess& pa, int index, int t, bool write);
  void add(const StageReport& s);
  void report();

  // ---- the netlist (loop_netlist.cpp) ----
  void emit();
  ValueId at(int64_t cycle);  // `cycle` cycles after start
  ValueId active(int t);      // operation time t of an iteration in flight
  ValueId k_at(int t) { return k_[static_cast<std::size_t>(t / ii_)]; }
  ValueId variable_at(int which, int t);  // a kept variable in the iteration at time t
  int variable_bits(int which) const;
  ValueId linear(const Linear& a, int t, int width);
  ValueId element(int b, int64_t e);  // a buffer element's register (0 if nothing loads it)
  void controller();
  void iterations();
  void variables();
  void buffer_registers();
  void reads();
  ValueId channel_read(int r, const ChannelRead& cr, int t);
  void instance_of(const BuiltStage& s, const std::string& name, int64_t start_cycle,
                   std::map<std::string, ValueId>& outputs);
  void body_instance();
  void loads();
  void rams();

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
  const LoopElements& elements_;
  std::map<int, BufferUse> uses_;
  BufferUse& use_of(int b);
  std::vector<RomBank> banks_;
  // banks_'s and rams_'s index by (buffer, part): a body of thousands of
  // banked reads found its bank by a linear search.
  std::map<std::pair<int, std::vector<int64_t>>, std::size_t> bank_index_, ram_index_;
  std::map<int, std::pair<int, int>> rom_port_;  // read -> (bank, port)
  // Banks read in lockstep (on every port, in every phase, at the same
  // address in the same cycle) share one ROM whose word holds theirs side by
  // side, the first bank's in the low bits (as Vitis's array_reshape): a
  // convolution's output-channel banks of one input channel become one wide
  // block RAM instead of a LUT ROM each. Each group lists its banks.
  std::vector<std::vector<int>> rom_groups_;
  std::vector<RamBank> rams_;
  std::map<int, int> ram_of_read_;  // read -> its memory bank
  int kernel_ = -1;
  int start_ = 0;  // when the design starts this stage after a sample enters
  std::map<int, std::pair<const Channel*, int>> chan_write_;                // write -> bank
  std::map<int, std::pair<const Channel*, const ChannelRead*>> chan_read_;  // read -> its
  std::map<std::pair<int, int64_t>, int64_t> chan_first_;                   // element -> first read
  // A channel memory's stream of writes: (buffer, bank, read), read -1 for
  // every write of the bank (shared by the reads that keep them all), else
  // the writes that filtered read keeps (ChannelRead::takes).
  using ChanStream = std::tuple<int, int, int>;
  ChanStream chan_stream(int read, int bank) const;
  std::map<ChanStream, std::map<int64_t, int64_t>> chan_last_;  // place -> last read
  std::map<ChanStream, int> chan_bits_;                         // address bits
  std::map<ChanStream, int64_t> chan_per_sample_;               // writes kept per sample
  std::map<int, std::set<int>> chan_read_banks_;  // a read across banks -> the banks it reaches
  // A read or write of registers addressed by its element's row-major index
  // (element_index): `index` gives (element - first) / stride, and
  // `elements` are those it reaches.
  struct RegisterRead {
    Linear index;
    int64_t first = 0, stride = 1;
    std::vector<int64_t> elements;
  };
  std::map<int, RegisterRead> register_reads_;
  std::map<int, RegisterRead> register_writes_;  // by LoopBody::writes index

  // The netlist under construction.
  netlist::Module* m_ = nullptr;
  std::optional<FixedValues> fv_;
  ValueId rst_ = netlist::kNoValue, start_in_ = netlist::kNoValue;
  ValueId cyc_ = netlist::kNoValue, busy_ = netlist::kNoValue, ph_ = netlist::kNoValue;
  ValueId vs_ = netlist::kNoValue, go_ = netlist::kNoValue, wrap_ = netlist::kNoValue;
  ValueId shift_ = netlist::kNoValue;      // each pipeline stage takes the one before's iteration
  std::vector<ValueId> k_;                 // per pipeline stage: its iteration's index
  std::vector<std::vector<ValueId>> var_;  // [which][stage]: a flattened nest's variables
  std::map<int64_t, ValueId> at_, active_;
  std::map<std::string, ValueId> inputs_;  // the module's input ports
  struct ElementSlot {
    int bank = -1;
    int lsb = 0;
  };
  std::map<std::pair<int, int64_t>, ElementSlot> element_slot_;  // (buffer, element) -> register
  std::map<std::pair<int, int64_t>, ValueId> element_value_;
  std::vector<ValueId> element_bank_;
  std::vector<std::vector<std::pair<int, int64_t>>> bank_elements_;  // per bank, lsb first
  std::vector<ValueId> rd_;                                          // per body read: its value
  std::vector<int> ram_id_;                                          // per memory bank: its memory
  std::map<int64_t, ValueId> enable_;                     // per predicated write: its enable
  std::map<std::string, ValueId> pre_, post_, body_out_;  // the parts' output ports
  std::map<ChanStream, std::vector<ValueId>> chan_bank_;  // cwp, cbase, write enable
};

}  // namespace kiln::rtl

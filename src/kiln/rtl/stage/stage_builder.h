// The builder of one stage (private to rtl/; stage.h is the interface): a
// layer's unrolled graph, or a kept loop's body, scheduled, its registers and
// shared units bound and its resources priced (stage.cpp), then, unless only
// priced, its netlist module (stage_netlist.cpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kiln/rtl/analysis/registers.h"
#include "kiln/rtl/analysis/units.h"
#include "kiln/rtl/cmvm/constant_products.h"
#include "kiln/rtl/cmvm/fixed_values.h"
#include "kiln/rtl/cmvm/product_pairs.h"
#include "kiln/rtl/stage/node_cost.h"
#include "kiln/rtl/stage/stage.h"

namespace kiln::rtl {

class StageBuilder {
 public:
  StageBuilder(const StageGraph& s, const loop::Program& p, const StageOptions& o,
               std::string module, const ModuloTiming* modulo = nullptr);
  BuiltStage run();

 private:
  // ---- analysis (stage.cpp) ----
  bool is_var_mul(uint32_t n) const { return rtl::is_var_mul(g_, n); }
  void book_luts(uint32_t n, double luts);
  bool in_block_ram(uint32_t n) const;
  uint32_t table_register(uint32_t n) const;
  void classify();
  int slot(int cycle) const { return modulo_ ? cycle % modulo_->ii : cycle; }
  void take_timing();
  bool stable(uint32_t n) const { return modulo_ && modulo_->stable[n]; }
  int output_cycle(std::size_t i) const { return modulo_ ? modulo_->output_at[i] : depth_; }
  void schedule();
  void registers();
  void price_product_groups();
  bool on_dsp(uint32_t n) const;  // a product with a DSP slice of its own
  void pair_dsp_products();
  void ports();

  // ---- the netlist (stage_netlist.cpp) ----
  void emit();
  ValueId value_of(uint32_t n);        // node n's value in its own cycle
  ValueId ref(uint32_t a, int cycle);  // node a as seen in `cycle`
  ValueId operand(uint32_t a, int cycle, int width, int frac);
  ValueId delayed(uint32_t n, int k);  // node n held k cycles (a pipeline register)
  ValueId node_value(uint32_t n);
  ValueId const_product(uint32_t n, int cycle);
  ValueId fabric_product(uint32_t n, int cycle);
  ValueId shared_product(std::size_t group, std::size_t j, uint32_t n);
  ValueId paired_product(uint32_t n, int cycle);
  ValueId unit_product(int unit);
  ValueId quantize(uint32_t n);
  ValueId lookup(uint32_t n);
  void layout_registers();
  void drive_registers();

  const StageGraph s_;
  const dfg::Graph& g_;
  const loop::Program& p_;
  const StageOptions& o_;
  const ModuloTiming* modulo_;
  BuiltStage r_;
  std::vector<sched::OperatorCost> costs_;
  std::vector<int> start_;
  Lifetimes life_;
  static constexpr uint32_t kNoReader = UINT32_MAX;
  std::vector<uint32_t> sole_reader_;  // per node: its only reader, or kNoReader
  UnitBinding units_;
  SharedRegisters shared_regs_;
  std::vector<ProductGroup> groups_;
  std::map<uint32_t, std::pair<std::size_t, std::size_t>> product_group_;  // node -> (group, index)
  std::vector<ProductPair> pairs_;        // two products per DSP slice (product_pairs.h)
  std::map<uint32_t, std::size_t> pair_;  // node -> its pair
  bool fabric_ = false;                   // products in LUTs (MultiplierLimit 0)
  bool shared_ = false;                   // products on multiplier units (MultiplierLimit)
  bool one_at_a_time_ = false;            // shared units outside a loop: one sample at a time
  int depth_ = 1;
  int cyc_bits_ = 1;

  // The netlist under construction.
  netlist::Module* m_ = nullptr;
  std::optional<FixedValues> fv_;
  std::vector<ValueId> value_;          // per node, in its own cycle
  ValueId select_ = netlist::kNoValue;  // what picks a unit's operands: cyc or ph
  ValueId cyc_ = netlist::kNoValue, active_ = netlist::kNoValue;
  std::vector<ValueId> shared_reg_;  // one sample at a time: per register
  struct Slot {
    int bank = 0;
    int lsb = 0;
  };
  std::map<std::pair<uint32_t, int>, Slot> slot_of_;               // (node, k) -> its bank bits
  std::map<std::pair<uint32_t, int>, ValueId> delayed_;            // (node, k) -> its slice
  std::vector<ValueId> bank_;                                      // pipeline register banks
  std::vector<std::vector<std::pair<uint32_t, int>>> bank_parts_;  // per bank, lsb first
  std::vector<ValueId> unit_product_;                              // per unit, once built
  std::map<std::size_t, ValueId> pair_product_;                    // per pair, once built
  struct GroupValues {
    ValueId x = netlist::kNoValue;
    std::vector<ValueId> terms;
  };
  std::vector<GroupValues> group_values_;
  std::map<int, int> table_of_;  // dfg table -> the module's table
};

}  // namespace kiln::rtl

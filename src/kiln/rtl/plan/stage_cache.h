// What a Pricer (price.h) keeps between the plans it prices: results that
// depend on a graph and the options it is priced with, not on the rest of
// the plan. A plan's weight storage, pipelining and the channels the search
// gives it reuse them, and so does the same plan priced again (the searches
// price a layer's chosen plan once more where the design puts it). Only
// pricing uses it (StageOptions::emit false); the graphs and programs the
// keys point to are the Pricer's and live as long as it.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "kiln/rtl/analysis/loop_schedule.h"
#include "kiln/rtl/cmvm/constant_products.h"
#include "kiln/rtl/stage/stage.h"

namespace kiln::rtl {

struct LoopMemories;

struct StageCache {
  ConstantProductsMemo constant_products;

  // A stage built from a graph alone (a layer unrolled, a kept loop's before
  // and after parts) by build_stage, kept for a graph of the same content
  // (dfg::Graph::same_content: the part of a Gemm after its kept init loop
  // is the same whatever that loop's unroll), with the same names, module
  // and options it reads, and a program that gives the graph's buffers the
  // same types (stage.cpp).
  struct BuiltFrom {
    const dfg::Graph* graph = nullptr;
    const loop::Program* program = nullptr;
    std::string name, onnx_name, module;
    int64_t loop_ops = 0;
    // The options StageBuilder reads: MultiplierLimit (-1 for none), family,
    // clock, scheduler, constants on DSPs.
    std::tuple<int, int, double, int, bool> options;
    BuiltStage stage;
  };
  std::unordered_multimap<uint64_t, BuiltFrom> stages;   // by the graph's content_hash()
  std::map<const dfg::Graph*, uint64_t> content_hashes;  // each graph's, made once

  // A kept loop's modulo schedule (schedule_loop), by its body, its program
  // with memories, and the options (MultiplierLimit, -1 for none; family;
  // II asked, 0 for none; clock; ports per bank; constants on DSPs).
  using ScheduleKey =
      std::tuple<const dfg::LoopBody*, const LoopMemories*, int, int, int, double, int, bool>;
  std::map<ScheduleKey, LoopSchedule> schedules;
};

}  // namespace kiln::rtl

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

#include "kiln/rtl/constant_products.h"
#include "kiln/rtl/loop_schedule.h"
#include "kiln/rtl/stage.h"

namespace kiln::rtl {

struct LoopMemories;

struct StageCache {
  ConstantProductsMemo constant_products;

  // A stage built from a graph alone (a layer unrolled, a kept loop's before
  // and after parts) by build_stage: by graph, program, name and module,
  // and the options it reads (MultiplierLimit, -1 for none; family; clock;
  // scheduler).
  using StageKey = std::tuple<const dfg::Graph*, const loop::Program*, std::string, std::string,
                              int, int, double, int>;
  std::map<StageKey, BuiltStage> stages;

  // A kept loop's modulo schedule (schedule_loop), by its body, its program
  // with memories, and the options (MultiplierLimit, -1 for none; family;
  // II asked, 0 for none; clock; ports per bank).
  using ScheduleKey =
      std::tuple<const dfg::LoopBody*, const LoopMemories*, int, int, int, double, int>;
  std::map<ScheduleKey, LoopSchedule> schedules;
};

}  // namespace kiln::rtl

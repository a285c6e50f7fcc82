// A layer's stage under a plan (plan.h): its dataflow graph (fully unrolled,
// or split at the kept loop, dfg/unroll.h), then the stage built from it,
// priced only (StageOptions::emit false) or with its Verilog.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "kiln/dfg/unroll.h"
#include "kiln/rtl/cmvm/cmvm_pass.h"
#include "kiln/rtl/plan/plan.h"
#include "kiln/rtl/stage/loop_stage.h"
#include "kiln/rtl/stage/stage.h"

namespace kiln::rtl {

// The graph a plan's stage is built from. It depends on the kernel's form and
// the plan's loop, unroll and flatten only (not on pipelining or where the
// weights sit), so the searches share it between plans.
struct LayerGraph {
  std::optional<dfg::Stage> unrolled;     // plan.loop < 0
  std::optional<dfg::SplitKernel> split;  // a kept loop
};

// `program` holds the kernel in the plan's form. Throws kiln::Error
// (Unsupported) naming the layer or loop for a graph kiln cannot make (over
// the unrolling bound, accesses one iteration cannot order).
LayerGraph layer_graph(const loop::Program& program, int kernel, const LayerPlan& plan,
                       const dfg::UnrollOptions& unroll);

// Shares the sums of products by constants in each of the graph's parts (the
// unrolled graph; a split's before, iteration and after), cmvm_pass.h; what
// it did, summed over them.
SharedSums share_layer_sums(LayerGraph& graph, const ShareOptions& options);

// A kept loop's program: `program` with the locals that loop keeps in
// memories partitioned (memories.h), and which they are, with the elements
// its accesses reach (loop_stage.h). The Pricer keeps one per graph and
// weight storage.
struct LoopMemories {
  loop::Program program;
  std::set<int> memories;
  LoopElements elements;
};
LoopMemories loop_memories(const loop::Program& program, const dfg::SplitKernel& split);

// The layer's stage from its graph (`program` in the plan's form, with its
// weights' storage; for a kept loop, `memories` when the caller has them);
// its submodules in BuiltStage::submodules.
BuiltStage build_layer_stage(const loop::Program& program, const LayerPlan& plan,
                             const LayerGraph& graph, const StageOptions& options,
                             const std::string& module, const LoopMemories* memories = nullptr);

}  // namespace kiln::rtl

// How one layer (a Loop IR kernel) becomes hardware: fully unrolled, or with
// one top-level loop kept as a loop (issue 10). The plan comes from the
// config's Loop directives or from the TargetCycles search
// (target_cycles.h); build_layer_stage() builds either.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kiln/dfg/unroll.h"
#include "kiln/rtl/stage.h"

namespace kiln::rtl {

struct LayerPlan {
  int loop = -1;  // the kept loop (index in Kernel::loops); -1: unroll everything
  // Copies of its body per iteration (flattened: of the inner loop's body).
  int64_t unroll = 1;
  bool pipelined = false;
  std::optional<int> ii;  // the II asked for when pipelined
  // Weights the kept loop reads kept in registers (a table per read)
  // rather than in two-port ROM banks: the search's choice, applied to the
  // program's buffers by the caller.
  bool weights_in_registers = false;
  bool flatten = false;  // kept with the one loop its body is (dfg::split_at_loop)
  // A convolution in its line-buffered form (loop::line_buffer): the caller
  // builds it from the program with that kernel replaced, where `loop` names
  // the new kernel's loop.
  bool line_buffered = false;
};

// "fully unrolled", "loop Gemm/i unrolled by 8, pipelined", ...
std::string describe(const loop::Program& program, int kernel, const LayerPlan& plan);

// The plan the config's Loop directives give kernel `kernel` (one kept loop
// at most: Unsupported otherwise).
LayerPlan configured_plan(const loop::Program& program, int kernel, const RtlOptions& options);

// The layer's stage under `plan`; its submodules in BuiltStage::submodules.
BuiltStage build_layer_stage(const loop::Program& program, int kernel, const LayerPlan& plan,
                             const StageOptions& options, const dfg::UnrollOptions& unroll,
                             const std::string& module);

}  // namespace kiln::rtl

// A clean-up before printing C: guards decided by the loops' ranges. A
// guard `lo <= expr < hi` that every iteration of the enclosing loops
// satisfies is dropped, an If left with no guard gives its statements to
// the block around it, and an If with a guard no iteration satisfies goes
// with its statements. Sinking nests (loop/sink_nests.h) and the
// lowerings' padding tests leave many such guards: a convolution's
// first-iteration test over a loop of one iteration.
#pragma once

#include "kiln/loop/loop_ir.h"

namespace kiln::cgen {

// Returns how many guards and Ifs it removed.
int simplify_guards(loop::Program& program);

}  // namespace kiln::cgen

// Seed 001 §4.4: the loops the schedule runs in parallel become OpenMP
// parallel loops (`#pragma omp parallel for`), which Bambu maps onto
// parallel hardware. In kiln's schedule a loop with an Unroll directive
// (a factor or full) is the parallel one; it is marked only when its
// iterations are independent, so the C computes the same on any number of
// threads.
#pragma once

#include <set>
#include <utility>

#include "kiln/loop/loop_ir.h"

namespace kiln::cgen {

// Whether the iterations of loop statement `loop` (a For of `kernel`) may
// run in any order or at once: every buffer the body stores to is accessed
// in the body at one index only, and a dimension of that index moves with
// the loop and with no loop inside it, so two iterations never touch the
// same element.
bool iterations_independent(const loop::Program& program, const loop::Kernel& kernel,
                            const loop::Stmt& loop);

// The (kernel, loop) pairs that are marked parallel: unrolled by the
// schedule over more than one iteration, independent, and inside no other such loop.
std::set<std::pair<int, int>> parallel_loops(const loop::Program& program);

}  // namespace kiln::cgen

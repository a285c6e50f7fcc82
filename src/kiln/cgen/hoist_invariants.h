// A clean-up before printing C (seed 001 §4.3.2): loop invariants hoisted as
// far out as they go. A Let that is a statement of a loop's body (not under
// an If of it: a guarded load may be out of range when the guard fails)
// moves before the loop when it does not change with the loop: its operands
// are defined outside the loop, and, for a load, its index uses no variable
// of the loop or the loops inside it and nothing inside the loop stores to
// its buffer. Moved Lets keep their order, and a Let moved out of an inner
// loop may move on out of the outer one. What the program computes does not
// change (every value hoisted is the one each iteration computed), only how
// often it is computed.
#pragma once

#include "kiln/loop/loop_ir.h"

namespace kiln::cgen {

// Returns how many times a Let moved out of a loop.
int hoist_invariants(loop::Program& program);

}  // namespace kiln::cgen

// Making loop nests perfect (code sinking), so that a plan can keep the loops
// inside a layer's pixel loop as loops (dfg::split_at_loop's flatten) and run
// a window's products over several iterations on the multipliers it is given
// (issue 26). In the body of a loop (or of an If), the loop that does the
// most work becomes the only statement:
//  - an If around one loop goes inside it (its conditions do not depend on
//    that loop's variable): the padding test of a convolution's window;
//  - a Let before the loop that the loop uses (the input element of a
//    convolution's channel) moves into its body, computed in every iteration:
//    a value is the same wherever it is computed, unless it loads a buffer
//    that the statements around or the loop write;
//  - the other statements before the loop move into its body under a guard
//    that holds in its first iteration, those after it under one that holds
//    in its last (zeroing and writing out a pixel's accumulators).
// Then the same one level down. The kernel computes what it did, in the same
// order; where every loop of an iteration unrolls, the guards are decided
// statically and the unrolled graph is the one it was.
#pragma once

#include "kiln/loop/loop_ir.h"

namespace kiln::loop {

// Sinks every nest of kernel `kernel` that can be sunk; returns how many
// bodies it rewrote. A body stays as it is where a value a moved statement
// defines would be used outside the statements moved with it.
int sink_nests(Program& program, int kernel);

}  // namespace kiln::loop

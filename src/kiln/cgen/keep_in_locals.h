// Seed 001's "load/store pair on one index kept in a local variable": a
// buffer element a loop reads and writes at one index that does not move
// with the loop (an accumulator, a running maximum) is loaded once before
// the loop into a one-element local, used there, and stored back after it.
// The printer makes such a local a variable of the filter, so the loop's
// reads and writes stay in a register instead of memory.
#pragma once

#include "kiln/loop/loop_ir.h"

namespace kiln::cgen {

// Applies it at the outermost loop where it holds: every access of the
// buffer's storage in the loop is through one buffer at one index, that
// index uses no variable of the loop or of the loops inside it, the loop
// both loads and stores it, and one access is under no guard of the loop's
// (so the index is in range whenever the loop runs). One-element locals are
// variables already and are left alone. Returns how many elements it kept.
int keep_in_locals(loop::Program& program);

}  // namespace kiln::cgen

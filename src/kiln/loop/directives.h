// The config's Loop.<name> and Buffer.<name> blocks (as the layer model
// carries them, hls/rtl_settings.h) applied to a Loop IR
// program: each name must be one of the program's (a loop as `kiln rtl
// --list-loops` names it, a buffer by its Loop IR name), each value must fit
// what it names. Every problem is kiln::Error(InvalidModel) at the block's
// `where`, listing the valid choices.
#pragma once

#include <map>
#include <string>

#include "kiln/hls/rtl_settings.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::loop {

// The rules: a loop's Unroll divides its trip count (the valid factors are
// listed) and Pipeline is >= 1 or off; a buffer's Factor is given exactly
// for cyclic and block partitions, between 2 and the partitioned dimension's
// size; Dim is 0 (all) or a dimension of the buffer (1-based); Factor and
// Dim need a Partition.
// A block replaces the named loop's or buffer's directives (normalized: an
// Unroll of the whole trip count is full unrolling, 0; a block that sets
// nothing, Pipeline off alone, unrolls the loop fully as every loop nothing
// keeps).
void apply_directives(Program& program, const hls::ConfiguredDirectives& directives);

// The factors of `trip` (the valid Unroll values besides full), ascending.
std::vector<int64_t> unroll_factors(int64_t trip);

}  // namespace kiln::loop

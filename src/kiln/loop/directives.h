// The config's Loop.<name> and Buffer.<name> blocks applied to a Loop IR
// program: each name must be one of the program's (a loop as `kiln rtl
// --list-loops` names it, a buffer by its Loop IR name), each value must fit
// what it names. Every problem is kiln::Error(InvalidModel) at the block's
// `where`, listing the valid choices.
#pragma once

#include <map>
#include <string>

#include "kiln/hls/config.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::loop {

// The rules: a loop's Unroll divides its trip count (the valid factors are
// listed) and Pipeline is >= 1 or off; a buffer's Factor is given exactly
// for cyclic and block partitions, between 2 and the partitioned dimension's
// size; Dim is 0 (all) or a dimension of the buffer (1-based); Factor and
// Dim need a Partition.
void apply_directives(Program& program, const std::map<std::string, hls::LoopConfig>& loops,
                      const std::map<std::string, hls::BufferConfig>& buffers);

// The factors of `trip` (the valid Unroll values besides full), ascending.
std::vector<int64_t> unroll_factors(int64_t trip);

}  // namespace kiln::loop

// The registers a scheduled stage needs: how long each value outlives its own
// cycle, and, one sample at a time, which values of one width share a
// register (left edge).
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/dfg/graph.h"

namespace kiln::rtl {

struct Lifetimes {
  std::vector<int> hold;                // per node: the cycles it must outlive its own (0: none)
  std::vector<bool> read_in_own_cycle;  // per node: a consumer reads it in its cycle
};

// `start` per node; `output_at` per graph output: the cycle it is taken;
// `stable` (may be empty) the nodes that hold their value anyway (a loop's
// state). Constants never need registers.
Lifetimes lifetimes(const dfg::Graph& g, const std::vector<int>& start,
                    const std::vector<int>& output_at, const std::vector<bool>& stable);

struct SharedRegisters {
  std::vector<int> reg_of;  // per node: its register, or -1
  std::vector<int> width;   // per register
  int64_t bits = 0;
};

// One sample at a time: a value lives in a register from the end of its cycle
// to its last use. Values of one width whose lifetimes do not overlap share a
// register (left edge: by start, the first register free).
SharedRegisters share_registers(const dfg::Graph& g, const std::vector<int>& start,
                                const std::vector<int>& hold);

// Checks a sharing independently: every held value has a register of its
// width, and no two values on one register overlap. Throws Internal.
void verify_sharing(const dfg::Graph& g, const std::vector<int>& start,
                    const std::vector<int>& hold, const SharedRegisters& shared);

}  // namespace kiln::rtl

// Which buffers a layer's kept loop holds in memories (LUTRAM or block RAM)
// rather than registers: its own scratch that only the loop's body reads and
// writes, at elements that move with the loop (a line-buffered
// convolution's line buffers). Each bank of such a buffer is a simple
// dual-port memory, one write and one registered read per cycle, which
// Yosys maps to distributed or block RAM; the modulo problem counts those
// ports (loop_schedule.h) and the loop's Verilog builds them (loop_stage.h)
// from the same answer.
#pragma once

#include <set>

#include "kiln/dfg/unroll.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::rtl {

// Banks shallower than this stay registers unless the buffer's Storage asks
// for a memory: a few flip-flops cost less than a memory and its ports.
inline constexpr int64_t kMinMemoryDepth = 8;

// The storage buffers of `split`'s kernel kept in memories. A buffer
// qualifies when it is a Local, every access to it is a port of the loop's
// body (no fixed element read or written before, in or after the loop), each
// access stays in one bank, a flattened nest's accesses move with its inner
// variable only, and its banks are at least kMinMemoryDepth deep (or its
// Storage is Lutram or Bram); Storage Registers keeps it out. A buffer
// without a Partition directive whose accesses move by a step s > 1 (the
// body unrolled s times) is partitioned cyclically by s in `program`, so that
// each copy of the body has a bank of its own.
std::set<int> plan_memories(const dfg::SplitKernel& split, loop::Program& program);

}  // namespace kiln::rtl

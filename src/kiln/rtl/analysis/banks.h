// The memory banks of a buffer under its Buffer.<name> partition directive
// (Vitis's ARRAY_PARTITION): which bank an access of a kept loop reaches, and
// where in that bank. The modulo problem counts each bank's ports
// (loop_schedule.h) and the loop's Verilog builds one memory per bank
// (loop_stage.h) from the same answers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/dfg/unroll.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::rtl {

// The bank an access reaches: its part per partitioned dimension, or "any"
// when the loop moves it across parts. Registers have no ports.
struct Bank {
  bool registers = false;
  bool any = false;
  std::vector<int64_t> part;
  bool operator<(const Bank& o) const { return part < o.part; }
};

Bank bank_of(const dfg::PortAccess& access, const loop::Program& program);

// "@w[3]": the buffer's bank as reports name it.
std::string bank_name(const loop::Buffer& buffer, const Bank& bank);

// An address that moves with the loop: base + step[i] x the i-th kept
// variable (LoopBody::values: the iteration for one loop kept, each loop's
// for a flattened nest).
struct Linear {
  std::vector<int64_t> step;
  int64_t base = 0;
};

// The access's address inside its bank (row-major over the bank's shape), for
// an access whose bank is fixed (not `any`, not registers), in `body`'s kept
// variables.
Linear bank_address(const dfg::PortAccess& access, const loop::Program& program,
                    const dfg::LoopBody& body);

// The depth of every bank of buffer `accessed`: bank_elements(...).size().
int64_t bank_depth(const loop::Program& program, int accessed);

// Bank `part` of buffer `accessed` (the buffer as the access names it): the
// buffer's element (row-major) at each bank address.
std::vector<int64_t> bank_elements(const loop::Program& program, int accessed,
                                   const std::vector<int64_t>& part);

}  // namespace kiln::rtl

// Seed 001's FIFO detection between filters: a tensor that one kernel
// writes and one other kernel reads, each element once and in the same
// order, can be a queue instead of an array. The producer's one store and
// the consumer's one load must each be under no guard and run their loop
// nest's iterations in row-major order of the tensor (the flat index of the
// access equals the iteration's count over the loops around it), so the
// k-th element written is the k-th read. Seed 001 asks for matching loop
// nests and indices; this asks only that both orders be the tensor's.
#pragma once

#include <vector>

#include "kiln/loop/loop_ir.h"

namespace kiln::cgen {

struct Fifo {
  int buffer = -1;    // the tensor (a storage buffer, viewed by no other)
  int producer = -1;  // the kernel that writes it
  int consumer = -1;  // the kernel that reads it
  bool operator==(const Fifo&) const = default;
};

std::vector<Fifo> find_fifos(const loop::Program& program);

// Whether an access at `index` of `buffer` inside the loops `nest` (outermost
// first) visits the buffer's elements in row-major order, once each.
bool in_row_major_order(const loop::Program& program, const loop::Kernel& kernel, int buffer,
                        const std::vector<loop::Affine>& index, const std::vector<int>& nest);

}  // namespace kiln::cgen

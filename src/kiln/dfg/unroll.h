// Symbolic unrolling: runs each Loop IR kernel with buffers as tables of
// graph nodes instead of numbers, so every loop disappears, a load of what a
// store wrote is the stored node (store-to-load forwarding for free), weights
// become constants and the builder's folding and hash-consing apply. Each
// kernel becomes one Stage: a graph whose inputs are the elements it reads
// from program buffers and whose outputs are the elements it writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/dfg/graph.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::dfg {

// The most operations (loop::dynamic_ops) one layer may unroll to. It admits
// a 3x3 convolution over a 128x128 image (about 0.9 million) with room to
// spare; a larger layer is refused (exit 3) unless a plan keeps one of its
// loops (split_at_loop).
inline constexpr int64_t kMaxUnrolledOps = 4'000'000;

struct Stage {
  std::string name;       // the kernel's (layer's) name
  std::string onnx_name;  // for messages
  int64_t loop_ops = 0;   // operations before unrolling (dynamic_ops)
  Graph graph;
};

struct UnrollOptions {
  int64_t max_ops = kMaxUnrolledOps;
  bool balance = true;  // regroup modular sums into balanced trees
};

// ---- A kernel around one loop kept as a loop (issue 10) ----------------------
//
// A pipelined loop's hardware runs one iteration's dataflow graph per
// initiation, its variable counted by a controller. split_at_loop() cuts a
// kernel into the statements before the loop, one iteration of the loop and
// the statements after it. Loops inside the iteration unroll fully, as seed
// 003's rule has it. In the iteration's graph:
// - an Input node at element e >= 0 is state at the iteration's start (a
//   fixed element of a buffer: a register when it is written too, a
//   loop-invariant value when it is only read);
// - an Input node at element -1 - r is the value of reads[r]: an element that
//   moves with the loop's variable, a read port of that buffer's memory;
// - an output at element e >= 0 is state at the iteration's end, one at
//   element -1 - w is writes[w] (a write port);
// - the Input node at {kIterationBuffer, 0}, if any, is the iteration's index
//   v (unsigned): conditions on the loop's variable (a convolution's
//   padding) are computed from it, a store to a fixed element under them
//   keeps the old value where they fail (a select), and a read they guard may
//   reach past the buffer's ends, where its value is never used;
// - a write to moving elements under such conditions (a line-buffered
//   convolution's output, written once its window is full) has an output at
//   {kWriteEnableBuffer, w}: its 1-bit enable, and the access keeps the
//   conditions (PortAccess::guards) so that what it reaches is known
//   iteration by iteration.
// Before and after are unrolled graphs over the same state: their inputs and
// outputs include locals, since a loop's accumulators live across the cut.

// An element of storage buffer `buffer` whose row-major index is an affine
// expression of the loop's variable.
inline constexpr int kIterationBuffer = -1;
// The enable of a predicated port write (graph outputs only).
inline constexpr int kWriteEnableBuffer = -2;

struct PortAccess {
  int buffer = -1;
  loop::Affine element;
  // The buffer as the Loop IR named it (a view's own name and shape) and its
  // index per dimension, for partitioning; not part of the identity.
  int accessed = -1;
  std::vector<loop::Affine> index;
  // The conditions on the kept variables under which the access happens
  // (all must hold; none: every iteration). A read's may be looser than its
  // uses' (one port serves every load of an element); a write's are exact.
  std::vector<loop::Guard> guards;
  bool operator==(const PortAccess& o) const { return buffer == o.buffer && element == o.element; }
};

// How far an element moves per iteration of a loop kept alone: the sum of its
// coefficients (callers with a flattened nest use LoopBody::coefficients).
inline int64_t step_of(const loop::Affine& element) {
  int64_t c = 0;
  for (const auto& term : element.terms) c += term.second;
  return c;
}

struct LoopBody {
  std::string name;  // "<kernel>/<var>"
  int loop = -1;     // index in Kernel::loops of the outermost kept loop
  // The kept loops, outermost first (kept[0] == loop): one, or a flattened
  // perfect nest, each loop's body being the next one. Iteration k runs them
  // in mixed radix: the innermost variable k % extents.back(), and so on out.
  std::vector<int> kept;
  // Iterations of each kept loop: its trip count, the innermost's / unroll.
  std::vector<int64_t> extents;
  int64_t trip = 0;  // iterations in all: the product of the extents
  // Copies of the innermost kept loop's body in one iteration (that loop's
  // variable being unroll x its iteration + copy).
  int64_t unroll = 1;
  Graph graph;
  std::vector<PortAccess> reads, writes;

  // A flattened nest: more than one loop kept.
  bool flat() const { return kept.size() > 1; }
  int depth() const { return static_cast<int>(kept.size()); }
  // Where `loop` is among the kept loops, or -1.
  int position(int loop) const {
    for (std::size_t i = 0; i < kept.size(); ++i)
      if (kept[i] == loop) return static_cast<int>(i);
    return -1;
  }
  // An affine expression of the kept variables as one coefficient per kept
  // loop, outermost first (a body's accesses have terms of kept loops only).
  std::vector<int64_t> coefficients(const loop::Affine& a) const {
    std::vector<int64_t> c(kept.size(), 0);
    for (const auto& [term, v] : a.terms)
      if (const int at = position(term); at >= 0) c[static_cast<std::size_t>(at)] += v;
    return c;
  }
  // Each kept variable's value (its iteration, 0 .. extent - 1) in iteration
  // k, outermost first.
  std::vector<int64_t> values(int64_t k) const {
    std::vector<int64_t> v(kept.size(), 0);
    for (std::size_t i = kept.size(); i-- > 0;) {
      v[i] = i == 0 ? k : k % extents[i];
      k /= extents[i];
    }
    return v;
  }
  // The same as {loop, value} pairs.
  std::vector<std::pair<int, int64_t>> variables(int64_t k) const {
    const std::vector<int64_t> v = values(k);
    std::vector<std::pair<int, int64_t>> out;
    for (std::size_t i = 0; i < kept.size(); ++i) out.emplace_back(kept[i], v[i]);
    return out;
  }
  // The value an affine expression of the kept variables has in iteration k
  // (an element index, a guard's expression).
  int64_t element_at(const loop::Affine& element, int64_t k) const {
    int64_t e = element.constant;
    if (!flat()) {
      for (const auto& term : element.terms) e += term.second * k;
      return e;
    }
    const std::vector<int64_t> v = values(k);
    for (const auto& [term, c] : element.terms)
      if (const int at = position(term); at >= 0) e += c * v[static_cast<std::size_t>(at)];
    return e;
  }
  // Whether an access happens in iteration k.
  bool happens(const PortAccess& access, int64_t k) const {
    for (const loop::Guard& g : access.guards) {
      const int64_t x = element_at(g.expr, k);
      if (x < g.lo || x >= g.hi) return false;
    }
    return true;
  }
};

// Whether two indices move alike with the loop variables (the same
// coefficient of each), so they differ by a constant in every iteration.
bool same_motion(const loop::Affine& a, const loop::Affine& b);

struct SplitKernel {
  Graph before;
  LoopBody body;
  Graph after;
};

// Throws kiln::Error(Unsupported) naming the loop when it is not one of the
// kernel's top-level statements, or when its iteration accesses a buffer in
// ways whose order one iteration's graph cannot keep (fixed and moving
// elements of one buffer; one moving element written under two different
// conditions).
// With `unroll` > 1 (a factor of the trip count; InvalidModel otherwise), one
// iteration holds that many copies of the body, the loop's variable being
// unroll * v + copy, and ports index by v. With `flatten` = n > 0, the loop
// and the n loops below it, each the one statement of the one above (a
// perfect nest: perfect_nest(); Unsupported otherwise), are kept as one loop
// of the product of their trip counts / unroll iterations, the Inputs
// {kIterationBuffer, i} being the i-th kept loop's variable (the innermost's
// v); `unroll` then copies the innermost kept loop's body (and must divide
// its trip count): neighbouring pixels of a convolution in one iteration.
SplitKernel split_at_loop(const loop::Program& program, int kernel, int loop, int64_t unroll = 1,
                          int flatten = 0);

// The loop a flattened split of `loop` would keep inside it: the one For
// statement its body is, or -1 when it is not a perfect nest.
int perfect_inner_loop(const loop::Kernel& kernel, int loop);
// The loops below `loop` that a flatten may keep with it, outermost first:
// its perfect inner loop, that loop's, and so on (empty: not a perfect nest).
std::vector<int> perfect_nest(const loop::Kernel& kernel, int loop);

// The kernel's statements with loops of one iteration (a batch of 1) opened:
// the For statements here are the loops split_at_loop can keep.
std::vector<loop::Stmt> top_level(const loop::Kernel& kernel);

// Throws kiln::Error(Unsupported) naming the layer and its operation count
// when a kernel is over `max_ops`; Internal when a kernel reads a local
// element before writing it.
std::vector<Stage> unroll(const loop::Program& program, const UnrollOptions& options = {});
// The same for kernel `kernel` alone.
Stage unroll_kernel(const loop::Program& program, int kernel, const UnrollOptions& options = {});

}  // namespace kiln::dfg

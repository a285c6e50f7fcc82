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

// How far an element moves per iteration: the loop variable's coefficient
// (a port's element depends on that one variable only; a flattened nest's
// ports move with two, and callers that need one step check `flat`).
inline int64_t step_of(const loop::Affine& element) {
  int64_t c = 0;
  for (const auto& term : element.terms) c += term.second;
  return c;
}

struct LoopBody {
  std::string name;  // "<kernel>/<var>"
  int loop = -1;     // index in Kernel::loops
  // Iterations: the loop's trip count / unroll; flattened, its trip count x
  // the inner's / unroll.
  int64_t trip = 0;
  // Copies of the innermost kept loop's body in one iteration (the kept
  // loop's, or the flattened inner loop's).
  int64_t unroll = 1;
  // A flattened perfect nest: the inner loop (index in Kernel::loops) and its
  // iterations (its trip count / unroll); iteration k runs the outer variable
  // k / inner_trip and the inner one k % inner_trip (the inner loop's variable
  // being unroll x that + copy). -1 when the body is one loop's.
  int inner = -1;
  int64_t inner_trip = 1;
  Graph graph;
  std::vector<PortAccess> reads, writes;

  bool flat() const { return inner >= 0; }
  // The value of each kept variable in iteration k: {loop, value} pairs.
  std::vector<std::pair<int, int64_t>> variables(int64_t k) const {
    if (!flat()) return {{loop, k}};
    return {{loop, k / inner_trip}, {inner, k % inner_trip}};
  }
  // The value an affine expression of the kept variables has in iteration k
  // (an element index, a guard's expression).
  int64_t element_at(const loop::Affine& element, int64_t k) const {
    // variables(k) without a vector: a price walks every iteration's accesses.
    const int64_t outer = flat() ? k / inner_trip : k;
    int64_t e = element.constant;
    for (const auto& [term, c] : element.terms)
      if (term == loop)
        e += c * outer;
      else if (flat() && term == inner)
        e += c * (k % inner_trip);
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
// unroll * v + copy, and ports index by v. With `flatten`, the loop and the
// one loop its body is (a perfect nest; Unsupported otherwise) are kept as
// one loop of trip x inner trip / unroll iterations, the iteration index
// Inputs {kIterationBuffer, 0} and {kIterationBuffer, 1} being the outer
// variable and the inner one's v; `unroll` then copies the inner loop's body
// (and must divide the inner loop's trip count): neighbouring pixels of a
// convolution in one iteration.
SplitKernel split_at_loop(const loop::Program& program, int kernel, int loop, int64_t unroll = 1,
                          bool flatten = false);

// The loop a flattened split of `loop` would keep inside it: the one For
// statement its body is, or -1 when it is not a perfect nest.
int perfect_inner_loop(const loop::Kernel& kernel, int loop);

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

// C99 from the loop IR (docs/cflow.md): one function per kernel (a filter,
// seed 001's word) taking the buffers it reads and writes, the weights as
// static const arrays, and a top function that runs the filters in the
// program's order over static intermediate tensors. In C99, arithmetic is
// on raw values in int64_t with the fraction bits the loop IR's types give
// each value (c_runtime.h); the Vitis C++ computes on ap_fixed types (its
// header's KILN_FX macros). Either way the C computes exactly what
// loop::interpret computes: the same exact sums and products, the same
// quantizations.
//
// The printer writes the program as it is; the clean-ups seed 001 makes
// before printing (elementary operations, hoisting, accumulators in locals,
// FIFOs between filters) are passes over the loop IR in front of it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kiln/loop/loop_ir.h"

namespace kiln::cgen {

// C99 for Bambu and gcc, or C++ for Vitis HLS: the same code, with each
// loop labelled by its loop IR name and the directives (pipeline II, unroll
// factor, flatten, array partition, storage) as pragmas (KILN_PRAGMA, a
// no-op outside Vitis).
enum class Dialect : uint8_t { C99, VitisCpp };

struct CProgram {
  std::string header;  // <top>.h: the top function's prototype and the sizes
  std::string source;  // <top>.c: includes <top>.h and kiln_fixed_c.h
  // With weight files: each weight array's file name (<array>.dat) and text,
  // its raw values whitespace-separated, which <top>_load_weights(DIR) reads.
  std::vector<std::pair<std::string, std::string>> weight_files;
  // Loops marked `#pragma omp parallel for` (parallel_loops.h; C99 only).
  int parallel_loops = 0;
};

struct PrintOptions {
  Dialect dialect = Dialect::C99;
  // The weights in .dat files that a generated <top>_load_weights(DIR) reads
  // into static arrays (seed 001 §4.5: swapped without recompiling), not
  // static const arrays in the source.
  bool weight_files = false;
};

// `top` names the top function and the files. Throws kiln::Error
// (Unsupported, naming the kernel and value) for a value or buffer wider
// than 63 bits, which int64_t raw arithmetic cannot hold exactly.
CProgram print_c(const loop::Program& program, const std::string& top,
                 const PrintOptions& options = {});

// A main() for tests: reads samples from the file its first argument names
// (stdin without one), each every input's raw
// values in order (whitespace-separated integers), and prints for each one
// line of every output's raw values; stops at the end of input.
// In the Vitis dialect it converts the raw values to and from the ports'
// ap_fixed types.
std::string print_c_raw_main(const loop::Program& program, const std::string& top,
                             Dialect dialect = Dialect::C99);

// The Vitis dialect's C++ type of a value of format `t` (KILN_FX(W, I),
// KILN_UFX(W, I): ap_fixed under Vitis HLS, kiln_fixed.h elsewhere), and of
// a quantization's target, its modes included (KILN_FXM(W, I, Q, O)).
std::string vitis_type(const loop::ScalarType& t);
std::string vitis_type(const numeric::FixedType& t);

// The C storage type of a buffer of type `t`: the narrowest of int8_t ..
// int64_t (uint8_t .. for unsigned types) that holds its raw values.
std::string c_storage_type(const loop::ScalarType& t);

}  // namespace kiln::cgen

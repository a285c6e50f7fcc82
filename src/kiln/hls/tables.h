// Lookup tables of the table-driven layers (docs/numerics.md "Lookup tables",
// "Softmax"): the entries, quantized to the table's format. Both the emitter
// (which writes them into projects) and the emulator (which reads them) take
// them from here, so a table is data shared by both sides, never arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/hls/model.h"

namespace kiln::hls {

enum class TableKind : uint8_t {
  Sigmoid,     // 1 / (1 + exp(-x)) over [-R, R), bin midpoints
  Tanh,        // tanh(x) over [-R, R), bin midpoints
  Exp,         // exp(x) over [-R, R), bin midpoints (also Elu and Selu)
  SoftmaxExp,  // exp(-d) over [0, R), left bin edges
  SoftmaxInv,  // 1 / s over [0, R2), bin midpoints
  SoftmaxLog,  // log(s) over [0, R2), bin midpoints (LogSoftmax)
};

// The table an activation reads: Sigmoid, Tanh, Exp, Elu/Selu (Exp); none for
// the others.
std::optional<TableKind> table_kind(ActKind kind);

// A table of `size` = 2^k entries over a range of width `range` (symmetric
// tables: [-range, range)); an input's bin is floor(x * 2^shift).
struct TableGeometry {
  int64_t size = 0;
  double range = 0;
  int shift = 0;
};

// The table a Softmax layer indexes with its exp sum (the reciprocal, or the
// log for LogSoftmax), and the Precision field of its entries. Its geometry
// comes from inv_table_size and inv_table_range either way.
TableKind softmax_sum_table(const SoftmaxParams& p);
const FixedType& softmax_sum_table_type(const SoftmaxParams& p, const Precision& precision);

// Validates the layer's TableConfig for `kind` and derives the geometry.
// `row_length` (Softmax) sets the sum table's range (reciprocal or log) when
// inv_table_range is 0: the smallest power of two >= row_length. Throws
// kiln::Error InvalidModel naming `layer` when a size or range is not a power
// of two or out of bounds.
TableGeometry table_geometry(TableKind kind, const TableConfig& config, int64_t row_length,
                             const std::string& layer);

// The entries as raw values of `entry_type`, quantized with its own rounding
// and overflow modes.
std::vector<int64_t> make_table(TableKind kind, const TableGeometry& geometry,
                                const FixedType& entry_type);

// The format of activation parameters (alpha, gamma, clip bounds):
// ap_fixed<24,8,AP_RND,AP_SAT>, kiln::param_t in the library.
FixedType param_type();

}  // namespace kiln::hls

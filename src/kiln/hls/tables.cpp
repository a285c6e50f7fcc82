#include "kiln/hls/tables.h"

#include <cmath>
#include <cstdio>

#include "kiln/support/error.h"

namespace kiln::hls {

namespace {

// Sizes beyond this are a config mistake, not a table anyone can afford.
constexpr int64_t kMaxTableSize = int64_t{1} << 24;

bool is_power_of_two(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

int log2_exact(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v) ++k;
  return k;
}

// log2 of a power-of-two double, or nullopt.
std::optional<int> log2_of(double r) {
  if (!std::isfinite(r) || r <= 0) return std::nullopt;
  int e = 0;
  const double m = std::frexp(r, &e);  // r = m * 2^e, m in [0.5, 1)
  if (m != 0.5) return std::nullopt;
  if (e - 1 < -32 || e - 1 > 32) return std::nullopt;
  return e - 1;
}

[[noreturn]] void bad(const std::string& layer, const std::string& what, const std::string& hint) {
  throw_error(ErrorKind::InvalidModel, "layer '" + layer + "'", what, hint);
}

std::string fmt_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::optional<TableKind> table_kind(ActKind kind) {
  switch (kind) {
    case ActKind::Sigmoid: return TableKind::Sigmoid;
    case ActKind::Tanh: return TableKind::Tanh;
    case ActKind::Exp:
    case ActKind::Elu:
    case ActKind::Selu: return TableKind::Exp;
    case ActKind::None:
    case ActKind::Relu:
    case ActKind::LeakyRelu:
    case ActKind::PRelu:
    case ActKind::Clip:
    case ActKind::HardSigmoid:
    case ActKind::HardSwish: return std::nullopt;
  }
  return std::nullopt;
}

TableKind softmax_sum_table(const SoftmaxParams& p) {
  return p.log ? TableKind::SoftmaxLog : TableKind::SoftmaxInv;
}

const FixedType& softmax_sum_table_type(const SoftmaxParams& p, const Precision& precision) {
  return p.log ? precision.log_table : precision.inv_table;
}

TableGeometry table_geometry(TableKind kind, const TableConfig& config, int64_t row_length,
                             const std::string& layer) {
  // The reciprocal and log tables of a Softmax sum share one geometry.
  const bool inv = kind == TableKind::SoftmaxInv || kind == TableKind::SoftmaxLog;
  const char* size_key = inv ? "inv_table_size" : "table_size";
  const char* range_key = inv ? "inv_table_range" : "table_range";
  TableGeometry g;
  g.size = inv ? config.inv_table_size : config.table_size;
  if (!is_power_of_two(g.size) || g.size < 2 || g.size > kMaxTableSize) {
    bad(layer,
        std::string(size_key) + " " + std::to_string(g.size) +
            " is not a power of two in [2, 2^24]",
        "use e.g. 1024");
  }
  g.range = inv ? config.inv_table_range : config.table_range;
  if (inv && g.range == 0) {
    if (row_length < 1) bad(layer, "softmax row length " + std::to_string(row_length), "");
    g.range = std::ldexp(1.0, log2_exact(row_length));
  }
  const std::optional<int> log_range = log2_of(g.range);
  if (!log_range) {
    bad(layer,
        std::string(range_key) + " " + fmt_double(g.range) +
            " is not a power of two in [2^-32, 2^32]",
        "use e.g. 8");
  }
  // Symmetric tables span 2R, so N / (2R) = 2^shift; softmax tables span R.
  const bool symmetric =
      kind == TableKind::Sigmoid || kind == TableKind::Tanh || kind == TableKind::Exp;
  g.shift = log2_exact(g.size) - *log_range - (symmetric ? 1 : 0);
  return g;
}

std::vector<int64_t> make_table(TableKind kind, const TableGeometry& g,
                                const FixedType& entry_type) {
  std::vector<int64_t> raw(static_cast<std::size_t>(g.size));
  const double bin = std::ldexp(1.0, -g.shift);  // width of one bin, exact
  for (int64_t i = 0; i < g.size; ++i) {
    const double idx = static_cast<double>(i);
    double v = 0;
    switch (kind) {
      case TableKind::Sigmoid: v = 1.0 / (1.0 + std::exp(-(-g.range + (idx + 0.5) * bin))); break;
      case TableKind::Tanh: v = std::tanh(-g.range + (idx + 0.5) * bin); break;
      case TableKind::Exp: v = std::exp(-g.range + (idx + 0.5) * bin); break;
      case TableKind::SoftmaxExp: v = std::exp(-idx * bin); break;
      case TableKind::SoftmaxInv: v = 1.0 / ((idx + 0.5) * bin); break;
      case TableKind::SoftmaxLog: v = std::log((idx + 0.5) * bin); break;
    }
    raw[static_cast<std::size_t>(i)] = numeric::quantize(v, entry_type);
  }
  return raw;
}

FixedType param_type() {
  return FixedType{24, 8, true, numeric::QuantMode::Rnd, numeric::OverflowMode::Sat};
}

}  // namespace kiln::hls

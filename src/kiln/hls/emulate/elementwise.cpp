// Emulator kernels of the activation, softmax, merge and data-movement
// layers, written from docs/numerics.md with numeric/fixed.h arithmetic only
// (independent of the shipped headers; only the table data is shared).
#include <algorithm>
#include <cstddef>
#include <string>

#include "kiln/hls/emulate/kernels.h"
#include "kiln/hls/tables.h"
#include "kiln/numeric/fixed.h"
#include "kiln/support/error.h"

namespace kiln::hls {

namespace {

using numeric::Exact;
using numeric::int128;
using numeric::OverflowEvent;

bool non_negative(const Exact& v) {
  return v.raw >= 0;
}
bool less(const Exact& a, const Exact& b) {
  return numeric::exact_sub(a, b).raw < 0;
}

// A parameter as kiln writes it: quantized to param_t.
Exact param(double v) {
  const FixedType p = param_type();
  return numeric::to_exact(numeric::quantize(v, p), p);
}

int64_t clamp(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

void check_inputs(const Layer& layer, const std::vector<const FixedTensor*>& in, std::size_t n) {
  KILN_ASSERT(in.size() == n, "layer " + layer.name + ": wrong input count");
}

void check_numel(const Layer& layer, const FixedTensor& t, int64_t n) {
  KILN_ASSERT(static_cast<int64_t>(t.raw.size()) == n,
              "layer " + layer.name + ": tensor has " + std::to_string(t.raw.size()) +
                  " values, expected " + std::to_string(n));
}

void activation_kernel(const Layer& layer, const FixedTensor& x, FixedTensor& out,
                       OverflowCounts& counts) {
  const auto& p = layer.as<ActivationParams>();
  const FixedType& rt = out.type;
  const std::size_t n = x.raw.size();
  out.raw.assign(n, 0);
  const Exact one{1, 0};
  std::optional<SymTable> table;
  if (auto kind = table_kind(p.act.kind)) table = load_table(layer, *kind);
  const Exact alpha = param(p.act.alpha);
  const Exact beta = param(p.act.beta);  // Selu gamma, Clip hi, HardSigmoid beta
  const Exact zero{0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    const Exact v = exact_of(x, i);
    Exact y = v;
    switch (p.act.kind) {
      case ActKind::None: break;
      case ActKind::Relu: y = non_negative(v) ? v : zero; break;
      case ActKind::LeakyRelu:
        if (!non_negative(v)) y = numeric::exact_mul(v, alpha);
        break;
      case ActKind::PRelu: {
        KILN_ASSERT(p.channels > 0, "PRelu without channels");
        const std::size_t c = i % static_cast<std::size_t>(p.channels);
        KILN_ASSERT(c < layer.weights.size(), "PRelu slope missing");
        if (!non_negative(v)) {
          y = numeric::exact_mul(v, numeric::to_exact(layer.weights[c], layer.precision.weight));
        }
        break;
      }
      case ActKind::Clip: {
        const Exact m = less(v, alpha) ? alpha : v;  // max(x, lo)
        y = less(beta, m) ? beta : m;                // min(., hi)
        break;
      }
      case ActKind::Elu:
        if (!non_negative(v)) {
          y = numeric::exact_mul(alpha, numeric::exact_sub(table->lookup(v), one));
        }
        break;
      case ActKind::Selu:
        if (!non_negative(v)) {
          y = numeric::exact_mul(alpha, numeric::exact_sub(table->lookup(v), one));
        }
        y = numeric::exact_mul(beta, y);
        break;
      case ActKind::Sigmoid:
      case ActKind::Tanh:
      case ActKind::Exp: y = table->lookup(v); break;
      case ActKind::HardSigmoid:
      case ActKind::HardSwish: {
        // h = min(max(alpha * x + beta, 0), 1), exact; HardSwish then x * h.
        Exact h = numeric::exact_add(numeric::exact_mul(alpha, v), beta);
        if (!non_negative(h)) h = zero;
        if (less(one, h)) h = one;
        y = p.act.kind == ActKind::HardSigmoid ? h : numeric::exact_mul(v, h);
        break;
      }
    }
    out.raw[i] = assign(y, rt, counts);
  }
}

// Softmax, or LogSoftmax (p.log): the same max, exp lookups and sum; then
// y_i = Q_result(e_i * V[j]), or y_i = Q_result((x_i - m) - G[j]) with G the
// log table, j the sum's bin.
void softmax_kernel(const Layer& layer, const FixedTensor& x, FixedTensor& out,
                    OverflowCounts& counts) {
  const auto& p = layer.as<SoftmaxParams>();
  check_numel(layer, x, p.rows * p.length);
  const TableKind sum_kind = softmax_sum_table(p);
  const TableGeometry eg =
      table_geometry(TableKind::SoftmaxExp, layer.tables, p.length, layer.name);
  const TableGeometry sg = table_geometry(sum_kind, layer.tables, p.length, layer.name);
  const FixedType& tt = layer.precision.table;
  const FixedType& st = softmax_sum_table_type(p, layer.precision);
  const FixedType& at = layer.precision.accum;
  const std::vector<int64_t> exp_table = make_table(TableKind::SoftmaxExp, eg, tt);
  const std::vector<int64_t> sum_table = make_table(sum_kind, sg, st);
  out.raw.assign(x.raw.size(), 0);
  const std::size_t len = static_cast<std::size_t>(p.length);
  std::vector<Exact> e(len);
  for (int64_t r = 0; r < p.rows; ++r) {
    const std::size_t base = static_cast<std::size_t>(r) * len;
    Exact m = exact_of(x, base);
    for (std::size_t i = 1; i < len; ++i) {
      if (less(m, exact_of(x, base + i))) m = exact_of(x, base + i);
    }
    int64_t sum = 0;  // raw in accum
    for (std::size_t i = 0; i < len; ++i) {
      const Exact d = numeric::exact_sub(m, exact_of(x, base + i));
      const int64_t idx = clamp(numeric::floor_scaled(d, eg.shift), 0, eg.size - 1);
      e[i] = numeric::to_exact(exp_table[static_cast<std::size_t>(idx)], tt);
      sum = assign(numeric::exact_add(numeric::to_exact(sum, at), e[i]), at, counts);
    }
    const int64_t j =
        clamp(numeric::floor_scaled(numeric::to_exact(sum, at), sg.shift), 0, sg.size - 1);
    const Exact v = numeric::to_exact(sum_table[static_cast<std::size_t>(j)], st);
    for (std::size_t i = 0; i < len; ++i) {
      const Exact y = p.log ? numeric::exact_sub(numeric::exact_sub(exact_of(x, base + i), m), v)
                            : numeric::exact_mul(e[i], v);
      out.raw[base + i] = assign(y, out.type, counts);
    }
  }
}

void batchnorm_kernel(const Layer& layer, const FixedTensor& x, FixedTensor& out,
                      OverflowCounts& counts) {
  const auto& p = layer.as<BatchNormParams>();
  KILN_ASSERT(p.channels > 0 && layer.weights.size() == static_cast<std::size_t>(p.channels) &&
                  layer.bias.size() == static_cast<std::size_t>(p.channels),
              "batchnorm " + layer.name + ": scale/bias size");
  out.raw.assign(x.raw.size(), 0);
  for (std::size_t i = 0; i < x.raw.size(); ++i) {
    const std::size_t c = i % static_cast<std::size_t>(p.channels);
    const Exact s = numeric::to_exact(layer.weights[c], layer.precision.weight);
    const Exact b = numeric::to_exact(layer.bias[c], layer.precision.bias);
    out.raw[i] =
        assign(numeric::exact_add(numeric::exact_mul(exact_of(x, i), s), b), out.type, counts);
  }
}

// Where output element i reads the second operand (BinaryParams::broadcast).
std::size_t broadcast_index(const BinaryParams& p, std::size_t i) {
  const auto channels = static_cast<std::size_t>(p.channels);
  switch (p.broadcast) {
    case BinaryBroadcast::None: return i;
    case BinaryBroadcast::PerChannel: return i % channels;
    case BinaryBroadcast::PerPixel: return i / channels;
  }
  return i;
}

// docs/numerics.md "Binary": y = Q_result(a op b), b broadcast as the params say.
void binary_kernel(const Layer& layer, const FixedTensor& a, const FixedTensor& b, FixedTensor& out,
                   OverflowCounts& counts) {
  const auto& p = layer.as<BinaryParams>();
  KILN_ASSERT(p.channels > 0 && a.raw.size() == static_cast<std::size_t>(p.n),
              "binary " + layer.name + ": operand size is not n");
  out.raw.assign(a.raw.size(), 0);
  for (std::size_t i = 0; i < a.raw.size(); ++i) {
    const std::size_t j = broadcast_index(p, i);
    KILN_ASSERT(j < b.raw.size(), "binary " + layer.name + ": second operand too small");
    const Exact x = exact_of(a, i), y = exact_of(b, j);
    Exact r;
    switch (p.op) {
      case BinaryOp::Add: r = numeric::exact_add(x, y); break;
      case BinaryOp::Sub: r = numeric::exact_sub(x, y); break;
      case BinaryOp::Mul: r = numeric::exact_mul(x, y); break;
      case BinaryOp::ReverseSub: r = numeric::exact_sub(y, x); break;
    }
    out.raw[i] = assign(r, out.type, counts);
  }
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void concat_kernel(const Layer& layer, const std::vector<const FixedTensor*>& in, FixedTensor& out,
                   OverflowCounts& counts) {
  const auto& p = layer.as<ConcatParams>();
  KILN_ASSERT(p.axis >= 0 && p.axis < static_cast<int>(out.shape.size()),
              "concat " + layer.name + ": axis out of range");
  int64_t outer = 1;
  for (int a = 0; a < p.axis; ++a) outer *= out.shape[static_cast<std::size_t>(a)];
  out.raw.assign(static_cast<std::size_t>(numel(out.shape)), 0);
  std::size_t o_pos = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (const FixedTensor* t : in) {
      const int64_t inner = static_cast<int64_t>(t->raw.size()) / outer;
      for (int64_t j = 0; j < inner; ++j) {
        const std::size_t src = static_cast<std::size_t>(o * inner + j);
        out.raw[o_pos++] = assign(exact_of(*t, src), out.type, counts);
      }
    }
  }
  KILN_ASSERT(o_pos == out.raw.size(), "concat " + layer.name + ": sizes do not add up");
}

void transpose_kernel(const Layer& layer, const FixedTensor& x, FixedTensor& out,
                      OverflowCounts& counts) {
  const auto& p = layer.as<TransposeParams>();
  const std::size_t rank = x.shape.size();
  KILN_ASSERT(p.perm.size() == rank && out.shape.size() == rank,
              "transpose " + layer.name + ": rank mismatch");
  std::vector<int64_t> in_stride(rank, 1);
  for (std::size_t a = rank; a-- > 1;) in_stride[a - 1] = in_stride[a] * x.shape[a];
  out.raw.assign(x.raw.size(), 0);
  std::vector<int64_t> pos(rank, 0);  // output coordinates, row-major counter
  for (std::size_t i = 0; i < out.raw.size(); ++i) {
    int64_t src = 0;
    for (std::size_t a = 0; a < rank; ++a) {
      src += pos[a] * in_stride[static_cast<std::size_t>(p.perm[a])];
    }
    out.raw[i] = assign(exact_of(x, static_cast<std::size_t>(src)), out.type, counts);
    for (std::size_t a = rank; a-- > 0;) {
      if (++pos[a] < out.shape[a]) break;
      pos[a] = 0;
    }
  }
}

void matmul_kernel(const Layer& layer, const FixedTensor& a, const FixedTensor& b, FixedTensor& out,
                   OverflowCounts& counts) {
  const auto& p = layer.as<MatMulParams>();
  check_numel(layer, a, p.batch * p.m * p.k);
  check_numel(layer, b, p.batch * p.k * p.n);
  const FixedType& at = layer.precision.accum;
  out.raw.assign(static_cast<std::size_t>(p.batch * p.m * p.n), 0);
  for (int64_t t = 0; t < p.batch; ++t) {
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        int64_t acc = 0;
        for (int64_t q = 0; q < p.k; ++q) {
          const Exact prod =
              numeric::exact_mul(exact_of(a, static_cast<std::size_t>((t * p.m + i) * p.k + q)),
                                 exact_of(b, static_cast<std::size_t>((t * p.k + q) * p.n + j)));
          acc = assign(numeric::exact_add(numeric::to_exact(acc, at), prod), at, counts);
        }
        out.raw[static_cast<std::size_t>((t * p.m + i) * p.n + j)] =
            assign(numeric::to_exact(acc, at), out.type, counts);
      }
    }
  }
}

void copy_kernel(const FixedTensor& x, FixedTensor& out, OverflowCounts& counts) {
  out.raw.assign(x.raw.size(), 0);
  for (std::size_t i = 0; i < x.raw.size(); ++i)
    out.raw[i] = assign(exact_of(x, i), out.type, counts);
}

}  // namespace

Exact SymTable::lookup(const Exact& x) const {
  const int64_t idx = clamp(numeric::floor_scaled(x, g.shift) + g.size / 2, 0, g.size - 1);
  return numeric::to_exact(raw[static_cast<std::size_t>(idx)], type);
}

SymTable load_table(const Layer& layer, TableKind kind) {
  SymTable t;
  t.g = table_geometry(kind, layer.tables, 0, layer.name);
  t.type = layer.precision.table;
  t.raw = make_table(kind, t.g, t.type);
  return t;
}

void emulate_activation(LayerRun& run) {
  check_inputs(run.layer, run.in, 1);
  activation_kernel(run.layer, run.x(), run.y(), run.counts);
}

void emulate_softmax(LayerRun& run) {
  check_inputs(run.layer, run.in, 1);
  softmax_kernel(run.layer, run.x(), run.y(), run.counts);
}

void emulate_batchnorm(LayerRun& run) {
  check_inputs(run.layer, run.in, 1);
  batchnorm_kernel(run.layer, run.x(), run.y(), run.counts);
}

void emulate_binary(LayerRun& run) {
  check_inputs(run.layer, run.in, 2);
  binary_kernel(run.layer, run.x(0), run.x(1), run.y(), run.counts);
}

void emulate_concat(LayerRun& run) {
  KILN_ASSERT(!run.in.empty(), "concat without inputs");
  concat_kernel(run.layer, run.in, run.y(), run.counts);
}

// docs/numerics.md "Quantize": y = clamp(Q_type(x), min, max).
void emulate_quantize(LayerRun& run) {
  check_inputs(run.layer, run.in, 1);
  const auto& p = run.layer.as<QuantizeParams>();
  const FixedTensor& x = run.x();
  FixedTensor& out = run.y();
  out.raw.assign(x.raw.size(), 0);
  for (std::size_t i = 0; i < x.raw.size(); ++i)
    out.raw[i] =
        p.bipolar ? (x.raw[i] >= 0 ? p.max_raw : p.min_raw)
                  : std::clamp(assign(exact_of(x, i), p.format, run.counts), p.min_raw, p.max_raw);
}

void emulate_transpose(LayerRun& run) {
  check_inputs(run.layer, run.in, 1);
  transpose_kernel(run.layer, run.x(), run.y(), run.counts);
}

void emulate_matmul(LayerRun& run) {
  check_inputs(run.layer, run.in, 2);
  matmul_kernel(run.layer, run.x(0), run.x(1), run.y(), run.counts);
}

void emulate_copy(LayerRun& run) {
  check_inputs(run.layer, run.in, 1);
  for (FixedTensor* out : run.out) copy_kernel(run.x(), *out, run.counts);
}

}  // namespace kiln::hls

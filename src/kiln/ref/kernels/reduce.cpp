// Reduce* over a sorted list of axes, and ArgMax / ArgMin along one axis.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

// Accumulator per output element: double for float sums (closer to numpy's
// pairwise sums than a float running sum), the element type otherwise.
template <class T>
using SumAcc = std::conditional_t<std::is_floating_point_v<T>, double, T>;

// Visits the input in row-major order as runs along the innermost merged dim;
// f(in_off, out_off, n, out_step) with out_step 0 (reduced) or 1.
template <class F>
void for_each_reduce_run(const BroadcastPlan& p, F&& f) {
  if (p.numel == 0) return;
  const std::size_t rank = p.dims.size();
  const int64_t inner = p.dims[rank - 1];
  const int64_t outer = p.numel / inner;
  std::vector<int64_t> idx(rank, 0);
  int64_t in_off = 0, out_off = 0;
  for (int64_t o = 0; o < outer; ++o) {
    f(in_off, out_off, inner, p.strides[1][rank - 1]);
    // Odometer over the outer dims.
    for (std::size_t d = rank - 1; d-- > 0;) {
      in_off += p.strides[0][d];
      out_off += p.strides[1][d];
      if (++idx[d] < p.dims[d]) break;
      in_off -= p.strides[0][d] * p.dims[d];
      out_off -= p.strides[1][d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

// Integer arithmetic that wraps instead of overflowing (undefined for signed types).
template <class T>
using WrapT = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
template <class A>
A plus(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<WrapT<A>>(a) + static_cast<WrapT<A>>(b));
  else
    return a + b;
}
template <class A>
A times(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<WrapT<A>>(a) * static_cast<WrapT<A>>(b));
  else
    return a * b;
}

// ReduceMax / ReduceMin into out; NaN propagates, as in numpy.
template <class T>
void extreme(const BroadcastPlan& plan, const T* in, T* out, int64_t out_n, bool is_max) {
  using L = std::numeric_limits<T>;
  const T worst = is_max ? (L::has_infinity ? -L::infinity() : L::lowest())
                         : (L::has_infinity ? L::infinity() : L::max());
  std::fill(out, out + out_n, worst);
  auto take = [is_max](T& acc, T v) {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(v)) {
        acc = v;
        return;
      }
    if (is_max ? v > acc : v < acc) acc = v;
  };
  for_each_reduce_run(plan, [&](int64_t io, int64_t oo, int64_t n, int64_t step) {
    for (int64_t i = 0; i < n; ++i) take(out[oo + i * step], in[io + i]);
  });
}

// acc[o] = combine(acc[o], term(x, o)) over the elements x reduced into o.
template <class A, class T, class Term, class Combine>
void accumulate(const BroadcastPlan& plan, const T* in, std::vector<A>& acc, Term term,
                Combine combine) {
  for_each_reduce_run(plan, [&](int64_t io, int64_t oo, int64_t n, int64_t step) {
    if (step == 0) {
      A s = acc[oo];
      for (int64_t i = 0; i < n; ++i) s = combine(s, term(in[io + i], oo));
      acc[oo] = s;
    } else {
      for (int64_t i = 0; i < n; ++i) acc[oo + i] = combine(acc[oo + i], term(in[io + i], oo + i));
    }
  });
}

template <class T>
void reduce_typed(ReduceOp op, const Tensor& x, const Shape& kept, Tensor& y) {
  const Shape shapes[2] = {x.shape(), kept};
  const BroadcastPlan plan = make_broadcast_plan(x.shape(), shapes);
  const T* in = x.data<T>().data();
  T* out = y.data<T>().data();
  const int64_t out_n = y.numel();
  if (op == ReduceOp::Max || op == ReduceOp::Min) {
    extreme(plan, in, out, out_n, op == ReduceOp::Max);
    return;
  }
  using A = SumAcc<T>;
  const auto n_out = static_cast<std::size_t>(out_n);
  std::vector<A> acc(n_out, op == ReduceOp::Prod ? A{1} : A{0});
  auto add = [](A a, A v) { return plus(a, v); };
  auto value = [](T v, int64_t) { return static_cast<A>(v); };
  switch (op) {
    case ReduceOp::Max:
    case ReduceOp::Min: break;  // above
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::LogSum: accumulate(plan, in, acc, value, add); break;
    case ReduceOp::Prod:
      accumulate(plan, in, acc, value, [](A a, A v) { return times(a, v); });
      break;
    case ReduceOp::L1:
      accumulate(
          plan, in, acc,
          [](T v, int64_t) -> A {
            if constexpr (std::is_unsigned_v<T>) {
              return static_cast<A>(v);
            } else {
              return v < T{0} ? times(static_cast<A>(v), static_cast<A>(-1)) : static_cast<A>(v);
            }
          },
          add);
      break;
    case ReduceOp::L2:
    case ReduceOp::SumSquare:
      accumulate(
          plan, in, acc, [](T v, int64_t) { return times(static_cast<A>(v), static_cast<A>(v)); },
          add);
      break;
    case ReduceOp::LogSumExp: {
      // e^x summed relative to the per-output max, so large x cannot overflow.
      std::vector<T> top(n_out);
      extreme(plan, in, top.data(), out_n, true);
      std::vector<A> shift(n_out);
      for (std::size_t i = 0; i < n_out; ++i)
        shift[i] = std::isfinite(top[i]) ? static_cast<A>(top[i]) : A{0};
      accumulate(
          plan, in, acc,
          [&](T v, int64_t o) {
            return static_cast<A>(std::exp(static_cast<A>(v) - shift[static_cast<std::size_t>(o)]));
          },
          add);
      for (std::size_t i = 0; i < n_out; ++i) acc[i] = std::log(acc[i]) + shift[i];
      break;
    }
  }
  const int64_t count = out_n == 0 ? 0 : x.numel() / out_n;
  for (std::size_t i = 0; i < n_out; ++i) {
    A r = acc[i];
    if (op == ReduceOp::Mean) r = r / static_cast<A>(count);
    if constexpr (std::is_floating_point_v<A>) {
      if (op == ReduceOp::L2) r = std::sqrt(r);
      if (op == ReduceOp::LogSum) r = std::log(r);
    }
    out[i] = static_cast<T>(r);
  }
}

// ArgMax / ArgMin along one axis; the first (or last) extreme wins, NaN beats
// every number (numpy's argmax/argmin).
template <class T>
void arg_typed(const Tensor& x, const ArgAttrs& a, bool is_max, Tensor& y) {
  const Shape& s = x.shape();
  const auto ax = static_cast<std::size_t>(a.axis);
  const int64_t outer = dims_product(s, 0, ax), n = s[ax],
                inner = dims_product(s, ax + 1, s.size());
  const T* in = x.data<T>().data();
  int64_t* out = y.data<int64_t>().data();
  auto better = [&](T v, T best) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(best)) return a.select_last_index && std::isnan(v);
      if (std::isnan(v)) return true;
    }
    if (a.select_last_index) return is_max ? v >= best : v <= best;
    return is_max ? v > best : v < best;
  };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* p = in + o * n * inner + i;
      int64_t best_k = 0;
      T best = p[0];
      for (int64_t k = 1; k < n; ++k) {
        if (better(p[k * inner], best)) {
          best = p[k * inner];
          best_k = k;
        }
      }
      out[o * inner + i] = best_k;
    }
  }
}

}  // namespace

Tensor reduce(ReduceOp op, const Tensor& x, const ReduceAttrs& attrs, const TensorType& out,
              const std::string& where) {
  Shape kept = x.shape();
  for (int64_t a : attrs.axes) {
    if (a < 0 || a >= x.rank())
      throw_error(
          ErrorKind::InvalidModel, where,
          "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(x.rank()));
    kept[static_cast<std::size_t>(a)] = 1;
  }
  if (shape_numel(kept) != out.numel())
    throw_error(ErrorKind::Internal, where,
                "reduced shape [" + shape_to_string(kept) + "] does not match output type " +
                    out.to_string());
  Tensor y(out);
  auto run = [&](auto v) { reduce_typed<decltype(v)>(op, x, kept, y); };
  if (op == ReduceOp::Mean || op == ReduceOp::L2 || op == ReduceOp::LogSum ||
      op == ReduceOp::LogSumExp)
    visit_float_dtype(x.dtype(), where, run);
  else
    visit_numeric_dtype(x.dtype(), where, run);
  return y;
}

Tensor arg_reduce(bool is_max, const Tensor& x, const ArgAttrs& attrs, const TensorType& out,
                  const std::string& where) {
  if (attrs.axis < 0 || attrs.axis >= x.rank() ||
      x.shape()[static_cast<std::size_t>(attrs.axis)] == 0)
    throw_error(ErrorKind::InvalidModel, where,
                "axis " + std::to_string(attrs.axis) + " is out of range or empty for [" +
                    shape_to_string(x.shape()) + "]");
  Tensor y(out);
  KILN_ASSERT(y.numel() * x.shape()[static_cast<std::size_t>(attrs.axis)] == x.numel(),
              "ArgMax/ArgMin output type does not match the input: " + where);
  visit_numeric_dtype(x.dtype(), where,
                      [&](auto v) { arg_typed<decltype(v)>(x, attrs, is_max, y); });
  return y;
}

}  // namespace kiln::ref::kernels

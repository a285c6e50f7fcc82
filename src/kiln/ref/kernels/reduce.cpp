// ReduceMean, ReduceSum, ReduceMax over a sorted list of axes.
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

template <class T>
void reduce_typed(OpKind kind, const Tensor& x, const Shape& kept, Tensor& y) {
  const Shape shapes[2] = {x.shape(), kept};
  const BroadcastPlan plan = make_broadcast_plan(x.shape(), shapes);
  const T* in = x.data<T>().data();
  T* out = y.data<T>().data();
  const int64_t out_n = y.numel();
  if (kind == OpKind::ReduceMax) {
    using L = std::numeric_limits<T>;
    std::fill(out, out + out_n, L::has_infinity ? -L::infinity() : L::lowest());
    auto take = [](T& acc, T v) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(v) || v > acc) acc = v;  // NaN propagates, as in numpy
      } else {
        if (v > acc) acc = v;
      }
    };
    for_each_reduce_run(plan, [&](int64_t io, int64_t oo, int64_t n, int64_t step) {
      for (int64_t i = 0; i < n; ++i) take(out[oo + i * step], in[io + i]);
    });
    return;
  }
  using A = SumAcc<T>;
  std::vector<A> acc(static_cast<std::size_t>(out_n), A{0});
  auto add = [](A a, T v) -> A {
    if constexpr (std::is_integral_v<T>) {
      using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(v));  // wraps, no UB
    } else {
      return a + static_cast<A>(v);
    }
  };
  for_each_reduce_run(plan, [&](int64_t io, int64_t oo, int64_t n, int64_t step) {
    if (step == 0) {
      A s = acc[oo];
      for (int64_t i = 0; i < n; ++i) s = add(s, in[io + i]);
      acc[oo] = s;
    } else {
      for (int64_t i = 0; i < n; ++i) acc[oo + i] = add(acc[oo + i], in[io + i]);
    }
  });
  const int64_t count = out_n == 0 ? 0 : x.numel() / out_n;
  for (int64_t i = 0; i < out_n; ++i) {
    if (kind == OpKind::ReduceMean)
      out[i] = static_cast<T>(acc[i] / static_cast<A>(count));
    else
      out[i] = static_cast<T>(acc[i]);
  }
}

}  // namespace

Tensor reduce(OpKind kind, const Tensor& x, const ReduceAttrs& attrs, const TensorType& out,
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
  auto run = [&](auto v) { reduce_typed<decltype(v)>(kind, x, kept, y); };
  if (kind == OpKind::ReduceMean)
    visit_float_dtype(x.dtype(), where, run);
  else
    visit_numeric_dtype(x.dtype(), where, run);
  return y;
}

}  // namespace kiln::ref::kernels

// Elementwise kernels over a scalar functor (scalar_ops.h): unary maps,
// broadcasting binary maps, comparisons, logical ops and variadic folds. The
// functor is the op; these only choose the element types and walk the data.
#pragma once

#include <string>
#include <type_traits>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

// y = op(x), float32 or float64.
template <class Op>
Tensor map_float(const Op& op, const Tensor& x, const std::string& where) {
  Tensor y(x.type());
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    map_elements(x.data<T>().data(), y.data<T>().data(), x.numel(), [&](T a) { return op(a); });
  });
  return y;
}

// y = op(x), any numeric type.
template <class Op>
Tensor map_numeric(const Op& op, const Tensor& x, const std::string& where) {
  Tensor y(x.type());
  visit_numeric_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    map_elements(x.data<T>().data(), y.data<T>().data(), x.numel(), [&](T a) { return op(a); });
  });
  return y;
}

// y = op(x), bool.
template <class Op>
Tensor map_bool(const Op& op, const Tensor& x, const std::string& where) {
  if (x.dtype() != DType::Bool)
    throw_error(ErrorKind::InvalidModel, where, "this op needs a bool input");
  Tensor y(x.type());
  map_elements(x.data<bool>().data(), y.data<bool>().data(), x.numel(),
               [&](bool b) { return op(b); });
  return y;
}

// bool y = op(x), float32 or float64.
template <class Op>
Tensor map_predicate(const Op& op, const Tensor& x, const TensorType& out,
                     const std::string& where) {
  Tensor y(out);
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    map_elements(x.data<T>().data(), y.data<bool>().data(), x.numel(), [&](T a) { return op(a); });
  });
  return y;
}

inline void check_same_dtype(const Tensor& a, const Tensor& b, const std::string& where) {
  if (a.dtype() != b.dtype())
    throw_error(ErrorKind::InvalidModel, where,
                std::string("operand types differ: ") + dtype_name(a.dtype()) + " and " +
                    dtype_name(b.dtype()));
}

template <class Op>
constexpr bool needs_nonzero_divisor() {
  if constexpr (requires { Op::kNeedsNonzeroDivisor; })
    return Op::kNeedsNonzeroDivisor;
  else
    return false;
}

// y = op(a, b) with multidirectional broadcasting, a and b of one numeric type.
template <class Op>
Tensor binary_numeric(const Op& op, const Tensor& a, const Tensor& b, const TensorType& out,
                      const std::string& where) {
  check_same_dtype(a, b, where);
  Tensor y(out);
  visit_numeric_dtype(a.dtype(), where, [&](auto v) {
    using T = decltype(v);
    if constexpr (needs_nonzero_divisor<Op>() && std::is_integral_v<T>) {
      for (T d : b.data<T>())
        if (d == T{0})
          throw_error(ErrorKind::InvalidModel, where, "integer division by zero",
                      "the divisor tensor contains 0");
    }
    const Shape shapes[2] = {a.shape(), b.shape()};
    broadcast_apply(make_broadcast_plan(y.shape(), shapes), a.data<T>().data(), b.data<T>().data(),
                    y.data<T>().data(), [&](T p, T q) { return op(p, q); });
  });
  return y;
}

// bool y = op(a, b), broadcasting, a and b of one numeric type (or bool for
// ops that declare kAcceptsBool, Equal).
template <class Op>
Tensor compare(const Op& op, const Tensor& a, const Tensor& b, const TensorType& out,
               const std::string& where) {
  check_same_dtype(a, b, where);
  Tensor y(out);
  const Shape shapes[2] = {a.shape(), b.shape()};
  const BroadcastPlan plan = make_broadcast_plan(y.shape(), shapes);
  auto run = [&](auto v) {
    using T = decltype(v);
    broadcast_apply(plan, a.data<T>().data(), b.data<T>().data(), y.data<bool>().data(),
                    [&](T p, T q) { return op(p, q); });
  };
  constexpr bool accepts_bool = requires {
    Op::kAcceptsBool;
  };
  if (accepts_bool && a.dtype() == DType::Bool)
    run(bool{});
  else
    visit_numeric_dtype(a.dtype(), where, run);
  return y;
}

// bool y = op(a, b), broadcasting, bool operands.
template <class Op>
Tensor logical(const Op& op, const Tensor& a, const Tensor& b, const TensorType& out,
               const std::string& where) {
  if (a.dtype() != DType::Bool || b.dtype() != DType::Bool)
    throw_error(ErrorKind::InvalidModel, where, "logical ops need bool operands");
  Tensor y(out);
  const Shape shapes[2] = {a.shape(), b.shape()};
  broadcast_apply(make_broadcast_plan(y.shape(), shapes), a.data<bool>().data(),
                  b.data<bool>().data(), y.data<bool>().data(),
                  [&](bool p, bool q) { return op(p, q); });
  return y;
}

// Folds op over any number of inputs pairwise with broadcasting; with `mean`
// the result is divided by the input count. A single input (or inputs
// narrower than `out`) is broadcast up to `out`.
template <class Op>
Tensor variadic(const Op& op, std::span<const Tensor* const> inputs, const TensorType& out,
                bool mean, const std::string& where) {
  if (inputs.empty() || inputs[0] == nullptr)
    throw_error(ErrorKind::InvalidModel, where, "needs at least one input");
  for (const Tensor* t : inputs) {
    if (t == nullptr) throw_error(ErrorKind::InvalidModel, where, "an input is missing");
    check_same_dtype(*inputs[0], *t, where);
  }
  Tensor acc = *inputs[0];
  for (std::size_t i = 1; i < inputs.size(); ++i)
    acc = binary_numeric(
        op, acc, *inputs[i],
        TensorType{out.dtype, broadcast_two(acc.shape(), inputs[i]->shape(), where)}, where);
  if (mean && inputs.size() > 1) {
    visit_numeric_dtype(acc.dtype(), where, [&](auto v) {
      using T = decltype(v);
      const T n = static_cast<T>(inputs.size());
      for (T& x : acc.data<T>()) x = static_cast<T>(x / n);
    });
  }
  if (acc.shape() == out.shape) return acc;
  Tensor y(out);
  visit_numeric_dtype(acc.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const Shape shapes[2] = {acc.shape(), Shape{}};
    const T zero{0};
    broadcast_apply(make_broadcast_plan(out.shape, shapes), acc.data<T>().data(), &zero,
                    y.data<T>().data(), [](T x, T) { return x; });
  });
  return y;
}

}  // namespace kiln::ref::kernels

// Broadcasting binary and variadic ops, unary math, and the broadcast helpers.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

Shape broadcast_two(const Shape& a, const Shape& b, const std::string& where) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw_error(
          ErrorKind::InvalidModel, where,
          "shapes [" + shape_to_string(a) + "] and [" + shape_to_string(b) + "] do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

BroadcastPlan make_broadcast_plan(const Shape& out, std::span<const Shape> operands) {
  const std::size_t rank = out.size(), k = operands.size();
  BroadcastPlan p;
  p.numel = shape_numel(out);
  p.strides.resize(k);
  // Per output dim, each operand's element stride (0 where it broadcasts).
  std::vector<std::vector<int64_t>> full(k, std::vector<int64_t>(rank, 0));
  for (std::size_t j = 0; j < k; ++j) {
    const Shape& s = operands[j];
    KILN_ASSERT(s.size() <= rank, "operand rank exceeds broadcast rank");
    int64_t stride = 1;
    for (std::size_t i = rank; i-- > rank - s.size();) {
      const int64_t d = s[i - (rank - s.size())];
      KILN_ASSERT(d == out[i] || d == 1, "operand does not broadcast to output");
      full[j][i] = d == 1 ? 0 : stride;
      stride *= d;
    }
  }
  for (std::size_t i = 0; i < rank; ++i) {
    if (out[i] == 1) continue;  // contributes nothing to any offset
    bool merge = !p.dims.empty();
    for (std::size_t j = 0; j < k && merge; ++j) merge = p.strides[j].back() == full[j][i] * out[i];
    if (merge) {
      p.dims.back() *= out[i];
      for (std::size_t j = 0; j < k; ++j) p.strides[j].back() = full[j][i];
    } else {
      p.dims.push_back(out[i]);
      for (std::size_t j = 0; j < k; ++j) p.strides[j].push_back(full[j][i]);
    }
  }
  if (p.dims.empty()) {
    p.dims.push_back(1);
    for (auto& s : p.strides) s.push_back(0);
  }
  return p;
}

void expect_rank(const Tensor& t, std::size_t rank, const char* operand, const std::string& where) {
  if (t.shape().size() != rank)
    throw_error(ErrorKind::InvalidModel, where,
                std::string(operand) + " has rank " + std::to_string(t.shape().size()) +
                    ", expected " + std::to_string(rank));
}

namespace {

// Integer arithmetic that wraps like two's complement hardware instead of
// overflowing (which is undefined for signed C++ integers). Types narrower than
// 32 bits compute in uint32_t so that promotion to int cannot overflow either.
template <class T>
using WrapT = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <class T>
T add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<WrapT<T>>(a) + static_cast<WrapT<T>>(b));
  else
    return a + b;
}
template <class T>
T sub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<WrapT<T>>(a) - static_cast<WrapT<T>>(b));
  else
    return a - b;
}
template <class T>
T mul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<WrapT<T>>(a) * static_cast<WrapT<T>>(b));
  else
    return a * b;
}
template <class T>
T neg(T a) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(WrapT<T>{0} - static_cast<WrapT<T>>(a));
  else
    return -a;
}
// C division: truncates toward zero. The divisor was checked for 0; MIN / -1
// wraps to MIN rather than trapping.
template <class T>
T div(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    if (b == T{-1}) return neg(a);
    return static_cast<T>(a / b);
  } else {
    return static_cast<T>(a / b);
  }
}
// numpy maximum/minimum: NaN wins.
template <class T>
T max_of(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(b)) return b;
  return a < b ? b : a;
}
template <class T>
T min_of(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(b)) return b;
  return b < a ? b : a;
}

template <class T>
void check_no_zero_divisor(const Tensor& b, const std::string& where) {
  if constexpr (std::is_integral_v<T>) {
    for (T v : b.data<T>())
      if (v == T{0})
        throw_error(ErrorKind::InvalidModel, where, "integer division by zero",
                    "the divisor tensor contains 0");
  }
}

template <class T>
void binary_typed(OpKind kind, const Tensor& a, const Tensor& b, Tensor& out,
                  const std::string& where) {
  const Shape shapes[2] = {a.shape(), b.shape()};
  const BroadcastPlan plan = make_broadcast_plan(out.shape(), shapes);
  const T* pa = a.data<T>().data();
  const T* pb = b.data<T>().data();
  T* po = out.data<T>().data();
  switch (kind) {
    case OpKind::Add: broadcast_apply(plan, pa, pb, po, [](T x, T y) { return add(x, y); }); return;
    case OpKind::Sub: broadcast_apply(plan, pa, pb, po, [](T x, T y) { return sub(x, y); }); return;
    case OpKind::Mul: broadcast_apply(plan, pa, pb, po, [](T x, T y) { return mul(x, y); }); return;
    case OpKind::Div:
      check_no_zero_divisor<T>(b, where);
      broadcast_apply(plan, pa, pb, po, [](T x, T y) { return div(x, y); });
      return;
    case OpKind::Max:
      broadcast_apply(plan, pa, pb, po, [](T x, T y) { return max_of(x, y); });
      return;
    case OpKind::Min:
      broadcast_apply(plan, pa, pb, po, [](T x, T y) { return min_of(x, y); });
      return;
    default: break;
  }
  KILN_ASSERT(false, "not a binary op: " + where);
}

void check_same_dtype(const Tensor& a, const Tensor& b, const std::string& where) {
  if (a.dtype() != b.dtype())
    throw_error(ErrorKind::InvalidModel, where,
                std::string("operand types differ: ") + dtype_name(a.dtype()) + " and " +
                    dtype_name(b.dtype()));
}

}  // namespace

Tensor binary(OpKind kind, const Tensor& a, const Tensor& b, const TensorType& out,
              const std::string& where) {
  check_same_dtype(a, b, where);
  Tensor y(out);
  visit_numeric_dtype(a.dtype(), where,
                      [&](auto v) { binary_typed<decltype(v)>(kind, a, b, y, where); });
  return y;
}

Tensor variadic(OpKind kind, std::span<const Tensor* const> inputs, const TensorType& out,
                const std::string& where) {
  if (inputs.empty() || inputs[0] == nullptr)
    throw_error(ErrorKind::InvalidModel, where, "needs at least one input");
  for (const Tensor* t : inputs) {
    if (t == nullptr) throw_error(ErrorKind::InvalidModel, where, "an input is missing");
    check_same_dtype(*inputs[0], *t, where);
  }
  const OpKind step = kind == OpKind::Sum || kind == OpKind::Mean ? OpKind::Add : kind;
  Tensor acc;
  if (inputs.size() == 1) {
    acc = *inputs[0];
  } else {
    acc = binary(
        step, *inputs[0], *inputs[1],
        TensorType{out.dtype, broadcast_two(inputs[0]->shape(), inputs[1]->shape(), where)}, where);
    for (std::size_t i = 2; i < inputs.size(); ++i)
      acc = binary(step, acc, *inputs[i],
                   TensorType{out.dtype, broadcast_two(acc.shape(), inputs[i]->shape(), where)},
                   where);
  }
  if (kind == OpKind::Mean && inputs.size() > 1) {
    visit_numeric_dtype(acc.dtype(), where, [&](auto v) {
      using T = decltype(v);
      const T n = static_cast<T>(inputs.size());
      for (T& x : acc.data<T>()) x = static_cast<T>(x / n);
    });
  }
  if (acc.shape() != out.shape) {
    // A single input (or inputs narrower than the declared output) broadcast up.
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
  return acc;
}

Tensor unary_math(OpKind kind, const Tensor& x, const std::string& where) {
  Tensor y(x.type());
  const int64_t n = x.numel();
  if (kind == OpKind::Abs || kind == OpKind::Neg) {
    visit_numeric_dtype(x.dtype(), where, [&](auto v) {
      using T = decltype(v);
      const T* in = x.data<T>().data();
      T* out = y.data<T>().data();
      if (kind == OpKind::Neg) {
        map_elements(in, out, n, [](T a) { return neg(a); });
      } else {
        map_elements(in, out, n, [](T a) -> T {
          if constexpr (std::is_unsigned_v<T>) {
            return a;
          } else if constexpr (std::is_integral_v<T>) {
            return a < 0 ? neg(a) : a;
          } else {
            return std::fabs(a);
          }
        });
      }
    });
    return y;
  }
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const T* in = x.data<T>().data();
    T* out = y.data<T>().data();
    switch (kind) {
      case OpKind::Exp: map_elements(in, out, n, [](T a) { return std::exp(a); }); return;
      case OpKind::Log: map_elements(in, out, n, [](T a) { return std::log(a); }); return;
      case OpKind::Sqrt: map_elements(in, out, n, [](T a) { return std::sqrt(a); }); return;
      case OpKind::Reciprocal: map_elements(in, out, n, [](T a) { return T{1} / a; }); return;
      default: break;
    }
    KILN_ASSERT(false, "not a unary math op: " + where);
  });
  return y;
}

}  // namespace kiln::ref::kernels

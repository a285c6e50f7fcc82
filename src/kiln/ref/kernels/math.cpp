// Unary math (Floor ... Atanh, Sign, Not), activations with attributes
// (ThresholdedRelu, Celu, HardSwish, Shrink), predicates (IsNaN, IsInf), the
// broadcasting binary ops beyond arithmetic (Pow, Mod, BitShift, logical and
// comparison ops) and Where.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

// Wrapping integer helpers (signed overflow is undefined in C++).
template <class T>
using WrapT = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
template <class T>
T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<WrapT<T>>(a) * static_cast<WrapT<T>>(b));
}

template <class T>
T softplus(T x) {
  // log(1 + e^x) without overflow for large x.
  return x > T{0} ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

template <class T>
void float_unary(const Node& node, const T* in, T* out, int64_t n) {
  switch (node.kind) {
    case OpKind::Floor: map_elements(in, out, n, [](T x) { return std::floor(x); }); return;
    case OpKind::Ceil: map_elements(in, out, n, [](T x) { return std::ceil(x); }); return;
    // nearbyint rounds half to even in the default rounding mode.
    case OpKind::Round: map_elements(in, out, n, [](T x) { return std::nearbyint(x); }); return;
    case OpKind::Erf: map_elements(in, out, n, [](T x) { return std::erf(x); }); return;
    case OpKind::Softplus: map_elements(in, out, n, [](T x) { return softplus(x); }); return;
    case OpKind::Softsign:
      map_elements(in, out, n, [](T x) { return x / (T{1} + std::fabs(x)); });
      return;
    case OpKind::Sin: map_elements(in, out, n, [](T x) { return std::sin(x); }); return;
    case OpKind::Cos: map_elements(in, out, n, [](T x) { return std::cos(x); }); return;
    case OpKind::Tan: map_elements(in, out, n, [](T x) { return std::tan(x); }); return;
    case OpKind::Asin: map_elements(in, out, n, [](T x) { return std::asin(x); }); return;
    case OpKind::Acos: map_elements(in, out, n, [](T x) { return std::acos(x); }); return;
    case OpKind::Atan: map_elements(in, out, n, [](T x) { return std::atan(x); }); return;
    case OpKind::Sinh: map_elements(in, out, n, [](T x) { return std::sinh(x); }); return;
    case OpKind::Cosh: map_elements(in, out, n, [](T x) { return std::cosh(x); }); return;
    case OpKind::Asinh: map_elements(in, out, n, [](T x) { return std::asinh(x); }); return;
    case OpKind::Acosh: map_elements(in, out, n, [](T x) { return std::acosh(x); }); return;
    case OpKind::Atanh: map_elements(in, out, n, [](T x) { return std::atanh(x); }); return;
    case OpKind::ThresholdedRelu: {
      const T alpha = static_cast<T>(node.attr<ThresholdedReluAttrs>().alpha);
      map_elements(in, out, n, [=](T x) { return x > alpha ? x : T{0}; });
      return;
    }
    case OpKind::Celu: {
      const T alpha = static_cast<T>(node.attr<CeluAttrs>().alpha);
      map_elements(in, out, n, [=](T x) {
        return std::max(T{0}, x) + std::min(T{0}, alpha * std::expm1(x / alpha));
      });
      return;
    }
    case OpKind::HardSwish:
      // x * HardSigmoid(x) with alpha 1/6, beta 0.5.
      map_elements(in, out, n,
                   [](T x) { return x * std::max(T{0}, std::min(T{1}, x / T{6} + T{0.5})); });
      return;
    default: break;
  }
  KILN_ASSERT(false, "not a float unary op: " + node.describe());
}

}  // namespace

Tensor unary_more(const Node& node, const Tensor& x, const TensorType& out,
                  const std::string& where) {
  Tensor y(out);
  const int64_t n = x.numel();
  switch (node.kind) {
    case OpKind::Not: {
      if (x.dtype() != DType::Bool)
        throw_error(ErrorKind::InvalidModel, where, "Not needs a bool input");
      map_elements(x.data<bool>().data(), y.data<bool>().data(), n, [](bool b) { return !b; });
      return y;
    }
    case OpKind::Sign:
      visit_numeric_dtype(x.dtype(), where, [&](auto v) {
        using T = decltype(v);
        map_elements(x.data<T>().data(), y.data<T>().data(), n, [](T a) -> T {
          if constexpr (std::is_floating_point_v<T>)
            if (std::isnan(a)) return a;
          if constexpr (std::is_unsigned_v<T>) {
            return a > T{0} ? T{1} : T{0};
          } else {
            return a > T{0} ? T{1} : (a < T{0} ? T{-1} : T{0});
          }
        });
      });
      return y;
    case OpKind::Shrink: {
      const auto& a = node.attr<ShrinkAttrs>();
      visit_numeric_dtype(x.dtype(), where, [&](auto v) {
        using T = decltype(v);
        const double bias = a.bias, lambd = a.lambd;
        map_elements(x.data<T>().data(), y.data<T>().data(), n, [=](T e) -> T {
          const double d = static_cast<double>(e);
          if (d < -lambd) return static_cast<T>(d + bias);
          if (d > lambd) return static_cast<T>(d - bias);
          return T{0};
        });
      });
      return y;
    }
    case OpKind::IsNaN:
    case OpKind::IsInf: {
      const bool nan = node.kind == OpKind::IsNaN;
      IsInfAttrs a;
      if (!nan) a = node.attr<IsInfAttrs>();
      visit_float_dtype(x.dtype(), where, [&](auto v) {
        using T = decltype(v);
        map_elements(x.data<T>().data(), y.data<bool>().data(), n, [=](T e) {
          if (nan) return std::isnan(e);
          return std::isinf(e) && ((e > 0 && a.detect_positive) || (e < 0 && a.detect_negative));
        });
      });
      return y;
    }
    default: break;
  }
  visit_float_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    float_unary<T>(node, x.data<T>().data(), y.data<T>().data(), n);
  });
  return y;
}

namespace {

// base ** exponent; integers raised to non-negative integer powers are exact
// (wrapping like numpy), everything else goes through double.
template <class T, class U>
T power(T base, U exponent) {
  if constexpr (std::is_integral_v<T> && std::is_integral_v<U>) {
    if (exponent >= U{0}) {
      T result{1}, b = base;
      for (auto e = static_cast<uint64_t>(exponent); e != 0; e >>= 1) {
        if (e & 1) result = wrap_mul(result, b);
        b = wrap_mul(b, b);
      }
      return result;
    }
  }
  const double r = std::pow(static_cast<double>(base), static_cast<double>(exponent));
  if constexpr (std::is_integral_v<T>) {
    // Out-of-range conversions are undefined; saturate NaN/inf cases to 0.
    if (!std::isfinite(r) || r < static_cast<double>(std::numeric_limits<T>::lowest()) ||
        r > static_cast<double>(std::numeric_limits<T>::max()))
      return T{0};
  }
  return static_cast<T>(r);
}

// Mod: fmod takes the dividend's sign, the integer form the divisor's.
template <class T>
T remainder_of(T a, T b, bool fmod) {
  if constexpr (std::is_floating_point_v<T>) {
    const T r = std::fmod(a, b);
    if (fmod || r == T{0} || (r < 0) == (b < 0)) return r;
    return r + b;
  } else {
    if constexpr (std::is_signed_v<T>)
      if (b == T{-1}) return T{0};  // MIN % -1 traps on x86
    const T r = static_cast<T>(a % b);
    if constexpr (std::is_signed_v<T>)
      if (!fmod && r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
    return r;
  }
}

template <class T>
void check_nonzero(const Tensor& b, const std::string& where) {
  if constexpr (std::is_integral_v<T>) {
    for (T v : b.data<T>())
      if (v == T{0})
        throw_error(ErrorKind::InvalidModel, where, "integer Mod by zero",
                    "the divisor tensor contains 0");
  }
}

template <class T>
BroadcastPlan plan_for(const Tensor& a, const Tensor& b, const Tensor& y) {
  const Shape shapes[2] = {a.shape(), b.shape()};
  return make_broadcast_plan(y.shape(), shapes);
}

template <class T>
void compare(OpKind kind, const Tensor& a, const Tensor& b, Tensor& y) {
  const BroadcastPlan p = plan_for<T>(a, b, y);
  const T* pa = a.data<T>().data();
  const T* pb = b.data<T>().data();
  bool* po = y.data<bool>().data();
  switch (kind) {
    case OpKind::Equal: broadcast_apply(p, pa, pb, po, [](T x, T z) { return x == z; }); return;
    case OpKind::Less: broadcast_apply(p, pa, pb, po, [](T x, T z) { return x < z; }); return;
    case OpKind::LessOrEqual:
      broadcast_apply(p, pa, pb, po, [](T x, T z) { return x <= z; });
      return;
    case OpKind::Greater: broadcast_apply(p, pa, pb, po, [](T x, T z) { return x > z; }); return;
    case OpKind::GreaterOrEqual:
      broadcast_apply(p, pa, pb, po, [](T x, T z) { return x >= z; });
      return;
    default: break;
  }
  KILN_ASSERT(false, "not a comparison");
}

}  // namespace

Tensor binary_more(const Node& node, const Tensor& a, const Tensor& b, const TensorType& out,
                   const std::string& where) {
  const OpKind kind = node.kind;
  if (kind != OpKind::Pow && a.dtype() != b.dtype())
    throw_error(ErrorKind::InvalidModel, where,
                std::string("operand types differ: ") + dtype_name(a.dtype()) + " and " +
                    dtype_name(b.dtype()));
  Tensor y(out);
  if (is_comparison(kind)) {
    if (kind == OpKind::Equal && a.dtype() == DType::Bool) {
      compare<bool>(kind, a, b, y);
    } else {
      visit_numeric_dtype(a.dtype(), where, [&](auto v) { compare<decltype(v)>(kind, a, b, y); });
    }
    return y;
  }
  if (is_logical(kind)) {
    if (a.dtype() != DType::Bool)
      throw_error(ErrorKind::InvalidModel, where, "logical ops need bool operands");
    const BroadcastPlan p = plan_for<bool>(a, b, y);
    const bool* pa = a.data<bool>().data();
    const bool* pb = b.data<bool>().data();
    bool* po = y.data<bool>().data();
    if (kind == OpKind::And) broadcast_apply(p, pa, pb, po, [](bool x, bool z) { return x && z; });
    if (kind == OpKind::Or) broadcast_apply(p, pa, pb, po, [](bool x, bool z) { return x || z; });
    if (kind == OpKind::Xor) broadcast_apply(p, pa, pb, po, [](bool x, bool z) { return x != z; });
    return y;
  }
  switch (kind) {
    case OpKind::Pow:
      visit_numeric_dtype(a.dtype(), where, [&](auto va) {
        using T = decltype(va);
        visit_numeric_dtype(b.dtype(), where, [&](auto vb) {
          using U = decltype(vb);
          broadcast_apply(plan_for<T>(a, b, y), a.data<T>().data(), b.data<U>().data(),
                          y.data<T>().data(), [](T x, U e) { return power(x, e); });
        });
      });
      return y;
    case OpKind::Mod: {
      const bool fmod = node.attr<ModAttrs>().fmod;
      visit_numeric_dtype(a.dtype(), where, [&](auto v) {
        using T = decltype(v);
        check_nonzero<T>(b, where);
        broadcast_apply(plan_for<T>(a, b, y), a.data<T>().data(), b.data<T>().data(),
                        y.data<T>().data(), [=](T x, T z) { return remainder_of(x, z, fmod); });
      });
      return y;
    }
    case OpKind::BitShift: {
      const bool left = node.attr<BitShiftAttrs>().left;
      visit_numeric_dtype(a.dtype(), where, [&](auto v) {
        using T = decltype(v);
        if constexpr (std::is_unsigned_v<T>) {
          constexpr T bits = static_cast<T>(sizeof(T) * 8);
          // Shifting by the width or more is undefined in C++; the bits are all gone.
          broadcast_apply(plan_for<T>(a, b, y), a.data<T>().data(), b.data<T>().data(),
                          y.data<T>().data(), [=](T x, T s) -> T {
                            if (s >= bits) return T{0};
                            return static_cast<T>(left ? x << s : x >> s);
                          });
        } else {
          throw_error(ErrorKind::Unsupported, where, "BitShift needs unsigned integers");
        }
      });
      return y;
    }
    default: break;
  }
  KILN_ASSERT(false, "not a binary op: " + where);
  return y;
}

Tensor where_select(const Tensor& cond, const Tensor& x, const Tensor& y_in, const TensorType& out,
                    const std::string& where) {
  if (cond.dtype() != DType::Bool || x.dtype() != y_in.dtype())
    throw_error(ErrorKind::InvalidModel, where,
                "Where needs a bool condition and X, Y of one type");
  Tensor y(out);
  const Shape shapes[3] = {cond.shape(), x.shape(), y_in.shape()};
  const BroadcastPlan p = make_broadcast_plan(out.shape, shapes);
  if (p.numel == 0) return y;
  const bool* c = cond.data<bool>().data();
  visit_element_size(dtype_size(x.dtype()), [&](auto u) {
    using U = decltype(u);
    const U* px = reinterpret_cast<const U*>(x.raw().data());
    const U* py = reinterpret_cast<const U*>(y_in.raw().data());
    U* po = reinterpret_cast<U*>(y.raw().data());
    const std::size_t rank = p.dims.size();
    std::vector<int64_t> idx(rank, 0), off(3, 0);
    for (int64_t i = 0; i < p.numel; ++i) {
      po[i] = c[off[0]] ? px[off[1]] : py[off[2]];
      // Odometer over the merged dims, innermost first.
      for (std::size_t d = rank; d-- > 0;) {
        for (std::size_t j = 0; j < 3; ++j) off[j] += p.strides[j][d];
        if (++idx[d] < p.dims[d]) break;
        for (std::size_t j = 0; j < 3; ++j) off[j] -= p.strides[j][d] * p.dims[d];
        idx[d] = 0;
      }
    }
  });
  return y;
}

}  // namespace kiln::ref::kernels

// The broadcasting binary ops whose operands differ in kind or that take
// attributes (Pow, Mod, BitShift), and Where.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kiln/ref/kernels/map.h"
#include "kiln/ref/kernels/scalar_ops.h"

namespace kiln::ref::kernels {

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

}  // namespace

Tensor pow(const Tensor& a, const Tensor& b, const TensorType& out, const std::string& where) {
  Tensor y(out);
  visit_numeric_dtype(a.dtype(), where, [&](auto va) {
    using T = decltype(va);
    visit_numeric_dtype(b.dtype(), where, [&](auto vb) {
      using U = decltype(vb);
      broadcast_apply(plan_for<T>(a, b, y), a.data<T>().data(), b.data<U>().data(),
                      y.data<T>().data(), [](T x, U e) { return power(x, e); });
    });
  });
  return y;
}

Tensor mod(const Tensor& a, const Tensor& b, bool fmod, const TensorType& out,
           const std::string& where) {
  check_same_dtype(a, b, where);
  Tensor y(out);
  visit_numeric_dtype(a.dtype(), where, [&](auto v) {
    using T = decltype(v);
    check_nonzero<T>(b, where);
    broadcast_apply(plan_for<T>(a, b, y), a.data<T>().data(), b.data<T>().data(),
                    y.data<T>().data(), [=](T x, T z) { return remainder_of(x, z, fmod); });
  });
  return y;
}

Tensor bit_shift(const Tensor& a, const Tensor& b, bool left, const TensorType& out,
                 const std::string& where) {
  check_same_dtype(a, b, where);
  Tensor y(out);
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

// The scalar function of every elementwise op, one functor per op kind.
//
// evaluate.cpp's table pairs each kind with a map kernel (kernels.h) and its
// functor here, e.g. {OpKind::Floor} -> map_float<Floor>. Functors whose op
// has attributes take the node in their constructor. Integer arithmetic wraps
// like two's complement hardware instead of overflowing (undefined for signed
// C++ integers); types narrower than 32 bits compute in uint32_t so that
// promotion to int cannot overflow either.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kiln/graph/graph.h"

namespace kiln::ref::kernels {

template <class T>
using WrapT = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <class T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<WrapT<T>>(a) + static_cast<WrapT<T>>(b));
  else
    return a + b;
}
template <class T>
T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<WrapT<T>>(a) - static_cast<WrapT<T>>(b));
  else
    return a - b;
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<WrapT<T>>(a) * static_cast<WrapT<T>>(b));
  else
    return a * b;
}
template <class T>
T wrap_neg(T a) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(WrapT<T>{0} - static_cast<WrapT<T>>(a));
  else
    return -a;
}

// ---- float -> float ---------------------------------------------------------

struct Exp {
  template <class T>
  T operator()(T x) const {
    return std::exp(x);
  }
};
struct Log {
  template <class T>
  T operator()(T x) const {
    return std::log(x);
  }
};
struct Sqrt {
  template <class T>
  T operator()(T x) const {
    return std::sqrt(x);
  }
};
struct Reciprocal {
  template <class T>
  T operator()(T x) const {
    return T{1} / x;
  }
};
struct Floor {
  template <class T>
  T operator()(T x) const {
    return std::floor(x);
  }
};
struct Ceil {
  template <class T>
  T operator()(T x) const {
    return std::ceil(x);
  }
};
// Half to even: nearbyint in the default rounding mode.
struct Round {
  template <class T>
  T operator()(T x) const {
    return std::nearbyint(x);
  }
};
struct Erf {
  template <class T>
  T operator()(T x) const {
    return std::erf(x);
  }
};
// log(1 + e^x) without overflow for large x.
struct Softplus {
  template <class T>
  T operator()(T x) const {
    return x > T{0} ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};
struct Softsign {
  template <class T>
  T operator()(T x) const {
    return x / (T{1} + std::fabs(x));
  }
};
struct Sin {
  template <class T>
  T operator()(T x) const {
    return std::sin(x);
  }
};
struct Cos {
  template <class T>
  T operator()(T x) const {
    return std::cos(x);
  }
};
struct Tan {
  template <class T>
  T operator()(T x) const {
    return std::tan(x);
  }
};
struct Asin {
  template <class T>
  T operator()(T x) const {
    return std::asin(x);
  }
};
struct Acos {
  template <class T>
  T operator()(T x) const {
    return std::acos(x);
  }
};
struct Atan {
  template <class T>
  T operator()(T x) const {
    return std::atan(x);
  }
};
struct Sinh {
  template <class T>
  T operator()(T x) const {
    return std::sinh(x);
  }
};
struct Cosh {
  template <class T>
  T operator()(T x) const {
    return std::cosh(x);
  }
};
struct Asinh {
  template <class T>
  T operator()(T x) const {
    return std::asinh(x);
  }
};
struct Acosh {
  template <class T>
  T operator()(T x) const {
    return std::acosh(x);
  }
};
struct Atanh {
  template <class T>
  T operator()(T x) const {
    return std::atanh(x);
  }
};
struct Tanh {
  template <class T>
  T operator()(T x) const {
    return std::tanh(x);
  }
};
// 1 / (1 + e^-x) without overflow: for x < 0, e^x / (1 + e^x).
struct Sigmoid {
  template <class T>
  T operator()(T x) const {
    if (x >= T{0}) return T{1} / (T{1} + std::exp(-x));
    const T e = std::exp(x);
    return e / (T{1} + e);
  }
};
struct LeakyRelu {
  float alpha;
  explicit LeakyRelu(const Node& n) : alpha(n.attr<LeakyReluAttrs>().alpha) {}
  template <class T>
  T operator()(T x) const {
    return x < T{0} ? static_cast<T>(alpha) * x : x;
  }
};
struct Elu {
  float alpha;
  explicit Elu(const Node& n) : alpha(n.attr<EluAttrs>().alpha) {}
  template <class T>
  T operator()(T x) const {
    return x < T{0} ? static_cast<T>(alpha) * std::expm1(x) : x;
  }
};
struct Selu {
  float alpha, gamma;
  explicit Selu(const Node& n)
      : alpha(n.attr<SeluAttrs>().alpha), gamma(n.attr<SeluAttrs>().gamma) {}
  template <class T>
  T operator()(T x) const {
    const T a = static_cast<T>(alpha), g = static_cast<T>(gamma);
    return x <= T{0} ? g * a * std::expm1(x) : g * x;
  }
};
struct HardSigmoid {
  float alpha, beta;
  explicit HardSigmoid(const Node& n)
      : alpha(n.attr<HardSigmoidAttrs>().alpha), beta(n.attr<HardSigmoidAttrs>().beta) {}
  template <class T>
  T operator()(T x) const {
    return std::max(T{0}, std::min(T{1}, static_cast<T>(alpha) * x + static_cast<T>(beta)));
  }
};
struct ThresholdedRelu {
  float alpha;
  explicit ThresholdedRelu(const Node& n) : alpha(n.attr<ThresholdedReluAttrs>().alpha) {}
  template <class T>
  T operator()(T x) const {
    return x > static_cast<T>(alpha) ? x : T{0};
  }
};
struct Celu {
  float alpha;
  explicit Celu(const Node& n) : alpha(n.attr<CeluAttrs>().alpha) {}
  template <class T>
  T operator()(T x) const {
    const T a = static_cast<T>(alpha);
    return std::max(T{0}, x) + std::min(T{0}, a * std::expm1(x / a));
  }
};
// x * HardSigmoid(x) with alpha 1/6, beta 0.5.
struct HardSwish {
  template <class T>
  T operator()(T x) const {
    return x * std::max(T{0}, std::min(T{1}, x / T{6} + T{0.5}));
  }
};

// ---- numeric -> numeric -------------------------------------------------------

// NaN stays NaN (x < 0 is false), as in PyTorch.
struct Relu {
  template <class T>
  T operator()(T x) const {
    return x < T{0} ? T{0} : x;
  }
};
struct Abs {
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>)
      return x;
    else if constexpr (std::is_integral_v<T>)
      return x < 0 ? wrap_neg(x) : x;
    else
      return std::fabs(x);
  }
};
struct Neg {
  template <class T>
  T operator()(T x) const {
    return wrap_neg(x);
  }
};
struct Sign {
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(x)) return x;
    if constexpr (std::is_unsigned_v<T>)
      return x > T{0} ? T{1} : T{0};
    else
      return x > T{0} ? T{1} : (x < T{0} ? T{-1} : T{0});
  }
};
struct Shrink {
  double bias, lambd;
  explicit Shrink(const Node& n)
      : bias(n.attr<ShrinkAttrs>().bias), lambd(n.attr<ShrinkAttrs>().lambd) {}
  template <class T>
  T operator()(T e) const {
    const double d = static_cast<double>(e);
    if (d < -lambd) return static_cast<T>(d + bias);
    if (d > lambd) return static_cast<T>(d - bias);
    return T{0};
  }
};

// ---- bool -> bool, float -> bool --------------------------------------------------

struct Not {
  bool operator()(bool b) const { return !b; }
};
struct IsNaN {
  template <class T>
  bool operator()(T x) const {
    return std::isnan(x);
  }
};
struct IsInf {
  bool positive, negative;
  explicit IsInf(const Node& n)
      : positive(n.attr<IsInfAttrs>().detect_positive),
        negative(n.attr<IsInfAttrs>().detect_negative) {}
  template <class T>
  bool operator()(T x) const {
    return std::isinf(x) && ((x > 0 && positive) || (x < 0 && negative));
  }
};

// ---- binary ------------------------------------------------------------------------

struct Add {
  template <class T>
  T operator()(T a, T b) const {
    return wrap_add(a, b);
  }
};
struct Sub {
  template <class T>
  T operator()(T a, T b) const {
    return wrap_sub(a, b);
  }
};
struct Mul {
  template <class T>
  T operator()(T a, T b) const {
    return wrap_mul(a, b);
  }
};
// C division: truncates toward zero. The kernel checks integer divisors for 0
// first (kNeedsNonzeroDivisor); MIN / -1 wraps to MIN rather than trapping.
struct Div {
  static constexpr bool kNeedsNonzeroDivisor = true;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
      if (b == T{-1}) return wrap_neg(a);
    return static_cast<T>(a / b);
  }
};
// numpy maximum/minimum: NaN wins.
struct Max {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(b)) return b;
    return a < b ? b : a;
  }
};
struct Min {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(b)) return b;
    return b < a ? b : a;
  }
};

struct Equal {
  static constexpr bool kAcceptsBool = true;
  template <class T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};
struct Less {
  template <class T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct LessOrEqual {
  template <class T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct Greater {
  template <class T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};
struct GreaterOrEqual {
  template <class T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};

struct And {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct Or {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct Xor {
  bool operator()(bool a, bool b) const { return a != b; }
};

}  // namespace kiln::ref::kernels

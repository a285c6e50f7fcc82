// kiln's own layer forms made by the graph passes: Dense, fused activations
// and the layout moves that run channels-last nodes on the channels-first
// kernels.
#include <algorithm>
#include <cmath>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

template <class T>
void apply_activation_typed(T* y, int64_t n, const FusedActivation& act) {
  switch (act.kind) {
    case FusedActivation::Kind::None: return;
    // Same expressions as the stand-alone Relu, LeakyRelu and Clip kernels,
    // so fusing changes no result.
    case FusedActivation::Kind::Relu:
      map_elements(y, y, n, [](T x) { return x < T{0} ? T{0} : x; });
      return;
    case FusedActivation::Kind::LeakyRelu: {
      const T alpha = static_cast<T>(act.alpha);
      map_elements(y, y, n, [=](T x) { return x < T{0} ? alpha * x : x; });
      return;
    }
    case FusedActivation::Kind::Clip: {
      const T lo = static_cast<T>(act.lo), hi = static_cast<T>(act.hi);
      map_elements(y, y, n, [=](T x) {
        const T r = x < lo ? lo : x;
        return r > hi ? hi : r;
      });
      return;
    }
  }
}

}  // namespace

void apply_activation(Tensor& y, const FusedActivation& act, const std::string& where) {
  if (act.kind == FusedActivation::Kind::None) return;
  visit_float_dtype(y.dtype(), where, [&](auto v) {
    using T = decltype(v);
    apply_activation_typed(y.data<T>().data(), y.numel(), act);
  });
}

Tensor dense(const Tensor& x, const Tensor& w, const Tensor& bias, const DenseAttrs& attrs,
             const TensorType& out, const std::string& where) {
  if (w.rank() != 2 || bias.rank() != 1 || x.rank() < 1 || x.shape().back() != w.shape()[0] ||
      bias.shape()[0] != w.shape()[1])
    throw_error(ErrorKind::InvalidModel, where,
                "Dense operands do not fit: X [" + shape_to_string(x.shape()) + "], W [" +
                    shape_to_string(w.shape()) + "], bias [" + shape_to_string(bias.shape()) + "]");
  if (bias.dtype() != x.dtype())
    throw_error(ErrorKind::InvalidModel, where, "bias type differs from X");
  Tensor y = matmul(x, w, out, where);
  visit_float_dtype(y.dtype(), where, [&](auto v) {
    using T = decltype(v);
    const int64_t n = w.shape()[1];
    const T* b = bias.data<T>().data();
    T* out_data = y.data<T>().data();
    const int64_t rows = n == 0 ? 0 : y.numel() / n;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) out_data[r * n + j] += b[j];
    apply_activation_typed(out_data, y.numel(), attrs.activation);
  });
  return y;
}

Shape channels_first_shape(const Shape& s) {
  if (s.size() < 3) return s;
  Shape r = {s[0], s.back()};
  r.insert(r.end(), s.begin() + 1, s.end() - 1);
  return r;
}

Shape channels_last_shape(const Shape& s) {
  if (s.size() < 3) return s;
  Shape r = {s[0]};
  r.insert(r.end(), s.begin() + 2, s.end());
  r.push_back(s[1]);
  return r;
}

Tensor move_channels(const Tensor& x, bool to_last, const std::string& where) {
  const std::size_t r = x.shape().size();
  if (r < 3) return x;
  TransposeAttrs t;
  t.perm.push_back(0);
  if (to_last) {  // [N, C, s...] -> [N, s..., C]
    for (std::size_t i = 2; i < r; ++i) t.perm.push_back(static_cast<int64_t>(i));
    t.perm.push_back(1);
  } else {  // [N, s..., C] -> [N, C, s...]
    t.perm.push_back(static_cast<int64_t>(r - 1));
    for (std::size_t i = 1; i + 1 < r; ++i) t.perm.push_back(static_cast<int64_t>(i));
  }
  const TensorType out{x.dtype(),
                       to_last ? channels_last_shape(x.shape()) : channels_first_shape(x.shape())};
  return transpose(x, t, out, where);
}

}  // namespace kiln::ref::kernels

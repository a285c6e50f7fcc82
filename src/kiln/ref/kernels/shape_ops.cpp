// Shape-ish ops, mostly folded at import: Split, Expand, Tile,
// ConstantOfShape, Range, EyeLike, Trilu, DepthToSpace, SpaceToDepth,
// GatherElements, CumSum, OneHot, MaxUnpool.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

// Visits every index of `dims` in row-major order: f(flat_index, multi_index).
template <class F>
void for_each_index(const Shape& dims, F&& f) {
  const int64_t n = shape_numel(dims);
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(i, idx);
    for (std::size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
}

// CumSum accumulator: double for floats, a wrapping unsigned type for integers.
template <class T, bool = std::is_floating_point_v<T>>
struct CumAcc {
  using type = double;
};
template <class T>
struct CumAcc<T, false> {
  using type = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
};

}  // namespace

std::vector<Tensor> split(const Tensor& x, const SplitAttrs& attrs, std::span<const TensorType> out,
                          const std::string& where) {
  const auto ax = static_cast<std::size_t>(attrs.axis);
  if (attrs.axis < 0 || attrs.axis >= x.rank() || attrs.split.size() != out.size())
    throw_error(ErrorKind::InvalidModel, where, "split attributes do not match the input");
  const std::size_t esize = dtype_size(x.dtype());
  const int64_t outer = dims_product(x.shape(), 0, ax);
  const int64_t inner = dims_product(x.shape(), ax + 1, x.shape().size());
  const int64_t dim = x.shape()[ax];
  std::vector<Tensor> ys;
  int64_t begin = 0;
  for (std::size_t k = 0; k < out.size(); ++k) {
    Tensor y(out[k]);
    const int64_t len = attrs.split[k];
    KILN_ASSERT(begin + len <= dim && y.numel() == outer * len * inner,
                "Split output does not match the input: " + where);
    const std::size_t chunk = static_cast<std::size_t>(len * inner) * esize;
    for (int64_t o = 0; o < outer; ++o)
      copy_bytes(y.raw().data() + static_cast<std::size_t>(o) * chunk,
                 x.raw().data() + static_cast<std::size_t>((o * dim + begin) * inner) * esize,
                 chunk);
    begin += len;
    ys.push_back(std::move(y));
  }
  return ys;
}

Tensor expand(const Tensor& x, const TensorType& out, const std::string& where) {
  if (broadcast_two(x.shape(), out.shape, where) != out.shape)
    throw_error(ErrorKind::InvalidModel, where, "input does not broadcast to the output");
  Tensor y(out);
  const Shape shapes[2] = {x.shape(), Shape{}};
  const BroadcastPlan p = make_broadcast_plan(out.shape, shapes);
  visit_element_size(dtype_size(x.dtype()), [&](auto u) {
    using U = decltype(u);
    const U zero{0};
    broadcast_apply(p, reinterpret_cast<const U*>(x.raw().data()), &zero,
                    reinterpret_cast<U*>(y.raw().data()), [](U a, U) { return a; });
  });
  return y;
}

Tensor tile(const Tensor& x, const TensorType& out, const std::string& where) {
  if (out.shape.size() != x.shape().size())
    throw_error(ErrorKind::InvalidModel, where, "Tile output rank differs from the input");
  Tensor y(out);
  if (y.numel() == 0) return y;
  const std::vector<int64_t> st = shape_strides(x.shape());
  visit_element_size(dtype_size(x.dtype()), [&](auto u) {
    using U = decltype(u);
    const U* in = reinterpret_cast<const U*>(x.raw().data());
    U* o = reinterpret_cast<U*>(y.raw().data());
    for_each_index(out.shape, [&](int64_t i, const std::vector<int64_t>& idx) {
      int64_t off = 0;
      for (std::size_t d = 0; d < idx.size(); ++d) off += (idx[d] % x.shape()[d]) * st[d];
      o[i] = in[off];
    });
  });
  return y;
}

Tensor constant_of_shape(const ConstantOfShapeAttrs& attrs, const TensorType& out) {
  Tensor y(out);
  visit_dtype(out.dtype, [&](auto v) {
    using T = decltype(v);
    const T value = static_cast<T>(attrs.value);
    for (T& e : y.data<T>()) e = value;
  });
  return y;
}

Tensor range(const RangeAttrs& attrs, const TensorType& out, const std::string& where) {
  Tensor y(out);
  visit_numeric_dtype(out.dtype, where, [&](auto v) {
    using T = decltype(v);
    auto d = y.data<T>();
    // Integer ranges step exactly; float ones as start + i * delta in T.
    const T start = static_cast<T>(attrs.start), delta = static_cast<T>(attrs.delta);
    for (std::size_t i = 0; i < d.size(); ++i)
      d[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  });
  return y;
}

Tensor eye_like(const EyeLikeAttrs& attrs, const TensorType& out) {
  Tensor y(out);
  const int64_t rows = out.shape[0], cols = out.shape[1];
  visit_dtype(out.dtype, [&](auto v) {
    using T = decltype(v);
    auto d = y.data<T>();
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t j = i + attrs.k;
      if (j >= 0 && j < cols) d[static_cast<std::size_t>(i * cols + j)] = static_cast<T>(1);
    }
  });
  return y;
}

Tensor trilu(const Tensor& x, const TriluAttrs& attrs, const std::string& where) {
  if (x.rank() < 2) throw_error(ErrorKind::InvalidModel, where, "Trilu needs rank >= 2");
  Tensor y(x.type());  // zero-initialized
  const int64_t rows = x.shape()[x.shape().size() - 2], cols = x.shape().back();
  const int64_t mats = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  const std::size_t esize = dtype_size(x.dtype());
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const bool keep = attrs.upper ? j - i >= attrs.k : j - i <= attrs.k;
        if (!keep) continue;
        const auto off = static_cast<std::size_t>((m * rows + i) * cols + j) * esize;
        copy_bytes(y.raw().data() + off, x.raw().data() + off, esize);
      }
  return y;
}

Tensor depth_space(bool to_space, const Tensor& x, const BlockAttrs& attrs, const TensorType& out,
                   const std::string& where) {
  expect_rank(x, 4, "input", where);
  if (shape_numel(out.shape) == 0 || x.numel() == 0) return Tensor(out);
  const int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
  const int64_t b = attrs.blocksize;
  // Both ops are a reshape to 6-D, a transpose and a reshape back.
  Shape six;
  TransposeAttrs perm;
  if (to_space) {
    if (b < 1 || c % (b * b) != 0)
      throw_error(ErrorKind::InvalidModel, where, "channels not divisible by blocksize^2");
    if (attrs.crd) {
      six = {n, c / (b * b), b, b, h, w};
      perm.perm = {0, 1, 4, 2, 5, 3};
    } else {
      six = {n, b, b, c / (b * b), h, w};
      perm.perm = {0, 3, 4, 1, 5, 2};
    }
  } else {
    if (b < 1 || h % b != 0 || w % b != 0)
      throw_error(ErrorKind::InvalidModel, where, "spatial size not divisible by blocksize");
    six = {n, c, h / b, b, w / b, b};
    perm.perm = {0, 3, 5, 1, 2, 4};
  }
  const Tensor x6 = x.reshaped(six);
  Shape t6(6);
  for (std::size_t i = 0; i < 6; ++i) t6[i] = six[static_cast<std::size_t>(perm.perm[i])];
  return transpose(x6, perm, TensorType{x.dtype(), t6}, where).reshaped(out.shape);
}

Tensor gather_elements(const Tensor& data, const Tensor& indices, int64_t axis,
                       const TensorType& out, const std::string& where) {
  if (axis < 0 || axis >= data.rank() || indices.rank() != data.rank() ||
      !is_integer(indices.dtype()))
    throw_error(ErrorKind::InvalidModel, where, "bad axis or indices for GatherElements");
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t dim = data.shape()[ax];
  const std::vector<int64_t> st = shape_strides(data.shape());
  Tensor y(out);
  visit_element_size(dtype_size(data.dtype()), [&](auto u) {
    using U = decltype(u);
    const U* in = reinterpret_cast<const U*>(data.raw().data());
    U* o = reinterpret_cast<U*>(y.raw().data());
    for_each_index(indices.shape(), [&](int64_t i, const std::vector<int64_t>& idx) {
      int64_t k = indices.as_int64(i);
      if (k < -dim || k >= dim)
        throw_error(ErrorKind::InvalidModel, where,
                    "index " + std::to_string(k) + " is out of range for axis " +
                        std::to_string(axis) + " of size " + std::to_string(dim));
      if (k < 0) k += dim;
      int64_t off = 0;
      for (std::size_t d = 0; d < idx.size(); ++d) {
        const int64_t at = d == ax ? k : idx[d];
        if (at >= data.shape()[d])
          throw_error(ErrorKind::InvalidModel, where, "indices are larger than data");
        off += at * st[d];
      }
      o[i] = in[off];
    });
  });
  return y;
}

Tensor cum_sum(const Tensor& x, const CumSumAttrs& attrs, const std::string& where) {
  if (attrs.axis < 0 || attrs.axis >= x.rank())
    throw_error(ErrorKind::InvalidModel, where, "CumSum axis out of range");
  const auto ax = static_cast<std::size_t>(attrs.axis);
  const int64_t outer = dims_product(x.shape(), 0, ax), n = x.shape()[ax];
  const int64_t inner = dims_product(x.shape(), ax + 1, x.shape().size());
  Tensor y(x.type());
  visit_numeric_dtype(x.dtype(), where, [&](auto v) {
    using T = decltype(v);
    // Wrapping integer sums; double accumulation for floats.
    using A = typename CumAcc<T>::type;
    const T* in = x.data<T>().data();
    T* out = y.data<T>().data();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        A acc{0};
        for (int64_t s = 0; s < n; ++s) {
          const int64_t k = attrs.reverse ? n - 1 - s : s;
          const int64_t off = (o * n + k) * inner + i;
          if (attrs.exclusive) {
            out[off] = static_cast<T>(acc);
            acc = static_cast<A>(acc + static_cast<A>(in[off]));
          } else {
            acc = static_cast<A>(acc + static_cast<A>(in[off]));
            out[off] = static_cast<T>(acc);
          }
        }
      }
  });
  return y;
}

Tensor one_hot(const Tensor& indices, const Tensor& values, const OneHotAttrs& attrs,
               const TensorType& out, const std::string& where) {
  if (values.numel() != 2 || attrs.axis < 0 || attrs.axis > indices.rank())
    throw_error(ErrorKind::InvalidModel, where, "OneHot needs values [off, on] and a valid axis");
  const auto ax = static_cast<std::size_t>(attrs.axis);
  const int64_t outer = dims_product(indices.shape(), 0, ax);
  const int64_t inner = dims_product(indices.shape(), ax, indices.shape().size());
  const int64_t depth = attrs.depth;
  Tensor y(out);
  visit_dtype(values.dtype(), [&](auto v) {
    using T = decltype(v);
    const T off = values.data<T>()[0], on = values.data<T>()[1];
    T* o = y.data<T>().data();
    for (T& e : y.data<T>()) e = off;
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t i = 0; i < inner; ++i) {
        // Non-integer indices truncate; negative ones count from the end.
        const double raw = indices.as_double(a * inner + i);
        if (!(std::fabs(raw) < static_cast<double>(depth) + 1.0)) continue;  // NaN, huge: off
        int64_t k = static_cast<int64_t>(raw);
        if (k < 0) k += depth;
        if (k < 0 || k >= depth) continue;  // out of range: all "off"
        o[(a * depth + k) * inner + i] = on;
      }
  });
  return y;
}

Tensor max_unpool(const Tensor& x, const Tensor& indices, const MaxUnpoolAttrs& attrs,
                  const TensorType& out, const std::string& where) {
  const std::size_t rank = x.shape().size(), nsp = rank - 2;
  if (rank < 3 || indices.shape() != x.shape() || indices.dtype() != DType::Int64 ||
      out.shape.size() != rank || attrs.kernel_shape.size() != nsp || attrs.strides.size() != nsp ||
      attrs.pads.size() != 2 * nsp)
    throw_error(ErrorKind::InvalidModel, where, "MaxUnpool operands do not match");
  // Indices address the unpooled shape the window attributes give; a
  // different output_shape holds that shape at its beginning (cropped or
  // zero-extended at the end of each dimension).
  Shape natural = {x.shape()[0], x.shape()[1]};
  for (std::size_t i = 0; i < nsp; ++i)
    natural.push_back(std::max<int64_t>(0, (x.shape()[2 + i] - 1) * attrs.strides[i] +
                                               attrs.kernel_shape[i] - attrs.pads[i] -
                                               attrs.pads[nsp + i]));
  check_shape_sane(natural, where);
  Tensor full(x.dtype(), natural);
  const int64_t n = full.numel();
  const std::size_t esize = dtype_size(x.dtype());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t at = indices.data<int64_t>()[static_cast<std::size_t>(i)];
    if (at < 0 || at >= n)
      throw_error(ErrorKind::InvalidModel, where,
                  "index " + std::to_string(at) + " is outside the unpooled tensor [" +
                      shape_to_string(natural) + "]");
    copy_bytes(full.raw().data() + static_cast<std::size_t>(at) * esize,
               x.raw().data() + static_cast<std::size_t>(i) * esize, esize);
  }
  if (natural == out.shape) return full;
  Tensor y(out);
  if (y.numel() == 0 || n == 0) return y;
  const std::vector<int64_t> src_st = shape_strides(natural);
  visit_element_size(esize, [&](auto u) {
    using U = decltype(u);
    const U* src = reinterpret_cast<const U*>(full.raw().data());
    U* dst = reinterpret_cast<U*>(y.raw().data());
    for_each_index(out.shape, [&](int64_t i, const std::vector<int64_t>& idx) {
      int64_t off = 0;
      for (std::size_t d = 0; d < rank; ++d) {
        if (idx[d] >= natural[d]) return;  // zero padding
        off += idx[d] * src_st[d];
      }
      dst[i] = src[off];
    });
  });
  return y;
}

}  // namespace kiln::ref::kernels

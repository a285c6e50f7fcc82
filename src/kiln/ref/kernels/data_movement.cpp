// Data movement: Concat, Slice, Transpose, Pad, Gather, Shape and the
// reshaping family. Elements are moved by size, so every DType works.
#include <cstring>

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref::kernels {

namespace {

void check_attr_count(std::size_t got, std::size_t want, const char* what,
                      const std::string& where) {
  if (got != want)
    throw_error(ErrorKind::InvalidModel, where,
                std::string(what) + " has " + std::to_string(got) + " entries, expected " +
                    std::to_string(want));
}

// Advances a row-major multi-index over dims [0, rank-1) (the last dim is the
// inner loop of the caller); returns false after the last position.
bool next_outer(std::vector<int64_t>& idx, const Shape& dims) {
  for (std::size_t d = dims.size() - 1; d-- > 0;) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

}  // namespace

Tensor concat(std::span<const Tensor* const> inputs, int64_t axis, const TensorType& out,
              const std::string& where) {
  Tensor y(out);
  const std::size_t esize = dtype_size(out.dtype);
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t outer = dims_product(out.shape, 0, ax);
  std::size_t total = 0;
  for (const Tensor* t : inputs) {
    if (t == nullptr || t->dtype() != out.dtype || t->shape().size() != out.shape.size() ||
        axis < 0 || axis >= t->rank())
      throw_error(ErrorKind::InvalidModel, where, "inputs differ in type or rank, or bad axis");
    total += t->byte_size();
  }
  KILN_ASSERT(total == y.byte_size(), "Concat output type does not match inputs: " + where);
  std::byte* dst = y.raw().data();
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor* t : inputs) {
      const std::size_t chunk =
          static_cast<std::size_t>(dims_product(t->shape(), ax, t->shape().size())) * esize;
      copy_bytes(dst, t->raw().data() + static_cast<std::size_t>(o) * chunk, chunk);
      dst += chunk;
    }
  }
  return y;
}

Tensor slice(const Tensor& x, const SliceAttrs& attrs, const TensorType& out,
             const std::string& where) {
  const std::size_t rank = x.shape().size();
  check_attr_count(attrs.starts.size(), rank, "starts", where);
  check_attr_count(attrs.steps.size(), rank, "steps", where);
  check_attr_count(out.shape.size(), rank, "output shape", where);
  Tensor y(out);
  if (y.numel() == 0) return y;
  if (rank == 0) return x;
  const Shape& od = out.shape;
  // The output extent comes from shape inference; make sure it stays inside x.
  for (std::size_t d = 0; d < rank; ++d) {
    const int64_t first = attrs.starts[d], last = first + (od[d] - 1) * attrs.steps[d];
    if (first < 0 || first >= x.shape()[d] || last < 0 || last >= x.shape()[d])
      throw_error(ErrorKind::Internal, where,
                  "slice of dim " + std::to_string(d) + " reads outside the input");
  }
  const std::vector<int64_t> st = shape_strides(x.shape());
  visit_element_size(dtype_size(x.dtype()), [&](auto u) {
    using U = decltype(u);
    const U* in = reinterpret_cast<const U*>(x.raw().data());
    U* o = reinterpret_cast<U*>(y.raw().data());
    const int64_t inner = od[rank - 1];
    const int64_t step = attrs.steps[rank - 1] * st[rank - 1];
    std::vector<int64_t> idx(rank, 0);
    do {
      int64_t off = attrs.starts[rank - 1] * st[rank - 1];
      for (std::size_t d = 0; d + 1 < rank; ++d)
        off += (attrs.starts[d] + idx[d] * attrs.steps[d]) * st[d];
      for (int64_t i = 0; i < inner; ++i) o[i] = in[off + i * step];
      o += inner;
    } while (next_outer(idx, od));
  });
  return y;
}

Tensor transpose(const Tensor& x, const TransposeAttrs& attrs, const TensorType& out,
                 const std::string& where) {
  const std::size_t rank = x.shape().size();
  check_attr_count(attrs.perm.size(), rank, "perm", where);
  check_attr_count(out.shape.size(), rank, "output shape", where);
  for (std::size_t j = 0; j < rank; ++j)
    if (attrs.perm[j] < 0 || attrs.perm[j] >= x.rank() ||
        out.shape[j] != x.shape()[static_cast<std::size_t>(attrs.perm[j])])
      throw_error(ErrorKind::InvalidModel, where, "perm does not match the output shape");
  Tensor y(out);
  if (y.numel() == 0) return y;
  if (rank == 0) return x;
  const std::vector<int64_t> st = shape_strides(x.shape());
  // Input stride of each output dim.
  std::vector<int64_t> ost(rank);
  for (std::size_t j = 0; j < rank; ++j) ost[j] = st[static_cast<std::size_t>(attrs.perm[j])];
  const Shape& od = out.shape;
  visit_element_size(dtype_size(x.dtype()), [&](auto u) {
    using U = decltype(u);
    const U* in = reinterpret_cast<const U*>(x.raw().data());
    U* o = reinterpret_cast<U*>(y.raw().data());
    const int64_t inner = od[rank - 1], step = ost[rank - 1];
    std::vector<int64_t> idx(rank, 0);
    do {
      int64_t off = 0;
      for (std::size_t d = 0; d + 1 < rank; ++d) off += idx[d] * ost[d];
      for (int64_t i = 0; i < inner; ++i) o[i] = in[off + i * step];
      o += inner;
    } while (next_outer(idx, od));
  });
  return y;
}

Tensor pad(const Tensor& x, const PadAttrs& attrs, const TensorType& out,
           const std::string& where) {
  const std::size_t rank = x.shape().size();
  check_attr_count(attrs.pads.size(), 2 * rank, "pads", where);
  check_attr_count(out.shape.size(), rank, "output shape", where);
  Tensor y(out);
  if (y.numel() == 0) return y;
  if (rank == 0) return x;
  // Per dim: output coordinate -> input coordinate, or -1 for the constant.
  std::vector<std::vector<int64_t>> map(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const int64_t n = x.shape()[d], begin = attrs.pads[d];
    if (n == 0 && attrs.mode != PadMode::Constant && out.shape[d] > 0)
      throw_error(ErrorKind::InvalidModel, where,
                  "cannot reflect or extend an empty dimension " + std::to_string(d));
    map[d].resize(static_cast<std::size_t>(out.shape[d]));
    for (int64_t o = 0; o < out.shape[d]; ++o) {
      int64_t i = o - begin;  // negative begin pads crop: the shift goes the other way
      if (i < 0 || i >= n) {
        if (attrs.mode == PadMode::Constant) {
          i = -1;
        } else if (attrs.mode == PadMode::Edge) {
          i = i < 0 ? 0 : n - 1;
        } else {
          // Reflect without repeating the edge: period 2(n-1).
          const int64_t period = 2 * (n - 1);
          if (period == 0) {
            i = 0;
          } else {
            i = ((i % period) + period) % period;
            if (i >= n) i = period - i;
          }
        }
      }
      map[d][static_cast<std::size_t>(o)] = i;
    }
  }
  const std::vector<int64_t> st = shape_strides(x.shape());
  const Shape& od = out.shape;
  visit_dtype(x.dtype(), [&](auto v) {
    using T = decltype(v);
    const T value = static_cast<T>(attrs.value);
    const T* in = x.data<T>().data();
    T* o = y.data<T>().data();
    const int64_t inner = od[rank - 1];
    const std::vector<int64_t>& last = map[rank - 1];
    std::vector<int64_t> idx(rank, 0);
    do {
      int64_t off = 0;
      bool constant_row = false;
      for (std::size_t d = 0; d + 1 < rank; ++d) {
        const int64_t i = map[d][static_cast<std::size_t>(idx[d])];
        if (i < 0) constant_row = true;
        off += i * st[d];
      }
      for (int64_t j = 0; j < inner; ++j) {
        const int64_t i = last[static_cast<std::size_t>(j)];
        o[j] = constant_row || i < 0 ? value : in[off + i];
      }
      o += inner;
    } while (next_outer(idx, od));
  });
  return y;
}

Tensor gather(const Tensor& data, const Tensor& indices, int64_t axis, const TensorType& out,
              const std::string& where) {
  const Shape& ds = data.shape();
  if (axis < 0 || axis >= data.rank())
    throw_error(ErrorKind::InvalidModel, where,
                "axis " + std::to_string(axis) + " is out of range for rank " +
                    std::to_string(data.rank()));
  if (!is_integer(indices.dtype()))
    throw_error(ErrorKind::InvalidModel, where,
                std::string("indices must be integers, got ") + dtype_name(indices.dtype()));
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t outer = dims_product(ds, 0, ax), n = ds[ax];
  const std::size_t chunk =
      static_cast<std::size_t>(dims_product(ds, ax + 1, ds.size())) * dtype_size(data.dtype());
  // Resolve every index first: an out-of-range one is a model/input error, not a crash.
  std::vector<int64_t> idx(static_cast<std::size_t>(indices.numel()));
  for (std::size_t i = 0; i < idx.size(); ++i) {
    int64_t k = indices.as_int64(static_cast<int64_t>(i));
    if (k < -n || k >= n)
      throw_error(ErrorKind::InvalidModel, where,
                  "index " + std::to_string(k) + " is out of range for axis " +
                      std::to_string(axis) + " of size " + std::to_string(n));
    idx[i] = k < 0 ? k + n : k;
  }
  Tensor y(out);
  KILN_ASSERT(y.byte_size() == static_cast<std::size_t>(outer) * idx.size() * chunk,
              "Gather output type does not match its inputs: " + where);
  const std::byte* src = data.raw().data();
  std::byte* dst = y.raw().data();
  for (int64_t o = 0; o < outer; ++o) {
    const std::byte* base = src + static_cast<std::size_t>(o * n) * chunk;
    for (int64_t k : idx) {
      copy_bytes(dst, base + static_cast<std::size_t>(k) * chunk, chunk);
      dst += chunk;
    }
  }
  return y;
}

Tensor shape_of(const Tensor& x, const ShapeAttrs& attrs) {
  std::vector<int64_t> dims;
  for (int64_t i = std::max<int64_t>(attrs.start, 0); i < attrs.end && i < x.rank(); ++i)
    dims.push_back(x.shape()[static_cast<std::size_t>(i)]);
  const auto n = static_cast<int64_t>(dims.size());
  return Tensor::from_vector<int64_t>({n}, dims);
}

Tensor reshape_to(const Tensor& x, const TensorType& out, const std::string& where) {
  if (out.numel() != x.numel() || out.dtype != x.dtype())
    throw_error(ErrorKind::InvalidModel, where,
                "cannot view " + x.type().to_string() + " as " + out.to_string());
  return x.reshaped(out.shape);
}

}  // namespace kiln::ref::kernels

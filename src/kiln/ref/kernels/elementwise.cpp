// The broadcast helpers of the elementwise kernels (kernels.h, map.h).
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

}  // namespace kiln::ref::kernels

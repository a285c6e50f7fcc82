#include "kiln/rtl/analysis/banks.h"

#include <fmt/format.h>

#include <algorithm>

#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {

using loop::Partition;

// Whether dimension `dim` of `b` is partitioned.
bool partitioned(const loop::Buffer& b, std::size_t dim) {
  const loop::BufferDirectives& d = b.directives;
  if (d.partition == Partition::None) return false;
  return d.dim == 0 || b.shape.size() == 1 || static_cast<int>(dim) == d.dim - 1 ||
         std::find(d.more_dims.begin(), d.more_dims.end(), static_cast<int>(dim) + 1) !=
             d.more_dims.end();
}

// How dimension `dim` is partitioned: the directives' partition, or
// completely for one of the further dimensions (more_dims).
Partition kind_of(const loop::Buffer& b, std::size_t dim) {
  const loop::BufferDirectives& d = b.directives;
  return std::find(d.more_dims.begin(), d.more_dims.end(), static_cast<int>(dim) + 1) !=
                 d.more_dims.end()
             ? Partition::Complete
             : d.partition;
}

// The parts dimension `dim` is cut into, and each part's size.
std::pair<int64_t, int64_t> parts_of(const loop::Buffer& b, std::size_t dim) {
  const int64_t n = b.shape[dim];
  const loop::BufferDirectives& d = b.directives;
  switch (kind_of(b, dim)) {
    case Partition::Complete: return {n, 1};
    case Partition::Cyclic: return {d.factor, (n + d.factor - 1) / d.factor};
    case Partition::Block: return {d.factor, (n + d.factor - 1) / d.factor};
    case Partition::None: break;
  }
  return {1, n};
}

// Index i of dimension `dim`: (its part, its index inside the part).
std::pair<int64_t, int64_t> split(const loop::Buffer& b, std::size_t dim, int64_t i) {
  if (!partitioned(b, dim)) return {0, i};
  const auto [parts, size] = parts_of(b, dim);
  if (kind_of(b, dim) == Partition::Block) return {i / size, i % size};
  return {i % parts, i / parts};  // cyclic; complete is cyclic by n
}

const loop::Buffer& accessed_buffer(const dfg::PortAccess& pa, const loop::Program& p) {
  return p.buffers[static_cast<std::size_t>(pa.accessed >= 0 ? pa.accessed : pa.buffer)];
}

}  // namespace

Bank bank_of(const dfg::PortAccess& pa, const loop::Program& p) {
  const loop::Buffer& b = accessed_buffer(pa, p);
  const loop::BufferDirectives& d = b.directives;
  Bank bank;
  if (d.storage == loop::Storage::Registers) {
    bank.registers = true;
    return bank;
  }
  if (d.partition == Partition::None || pa.index.size() != b.shape.size()) return bank;
  const bool all = d.dim == 0 || b.shape.size() == 1;
  if (d.partition == Partition::Complete && all) {
    bank.registers = true;  // every element its own register
    return bank;
  }
  for (std::size_t dim = 0; dim < b.shape.size(); ++dim) {
    if (!partitioned(b, dim)) continue;
    const loop::Affine& i = pa.index[dim];
    const bool moving = !i.terms.empty();
    switch (kind_of(b, dim)) {
      case Partition::Complete:
        if (moving) bank.any = true;
        bank.part.push_back(i.constant);
        break;
      case Partition::Cyclic:
        // Each variable must move it by whole turns of the parts.
        for (const auto& [loop, c] : i.terms)
          if (c % d.factor != 0) bank.any = true;
        bank.part.push_back(((i.constant % d.factor) + d.factor) % d.factor);
        break;
      case Partition::Block: {
        const int64_t size = parts_of(b, dim).second;
        if (moving) bank.any = true;
        bank.part.push_back(i.constant / size);
        break;
      }
      case Partition::None: break;
    }
  }
  return bank;
}

std::string bank_name(const loop::Buffer& b, const Bank& bank) {
  std::string s = "@" + b.name;
  if (bank.any) return s + "[any]";
  for (int64_t part : bank.part) s += fmt::format("[{}]", part);
  return s;
}

Linear bank_address(const dfg::PortAccess& pa, const loop::Program& p, const dfg::LoopBody& body) {
  const loop::Buffer& b = accessed_buffer(pa, p);
  KILN_ASSERT(pa.index.size() == b.shape.size(), "an access's index does not match its buffer");
  Linear a;
  a.step.assign(body.kept.size(), 0);
  for (std::size_t dim = 0; dim < b.shape.size(); ++dim) {
    const bool cut = partitioned(b, dim);
    const auto [parts, size] = cut ? parts_of(b, dim) : std::pair{int64_t{1}, b.shape[dim]};
    // Inside a fixed bank a moving cyclic index moves by step / parts, a
    // moving block index by step (bank_of makes the bank `any` otherwise).
    const std::vector<int64_t> step = body.coefficients(pa.index[dim]);
    for (std::size_t v = 0; v < step.size(); ++v)
      a.step[v] = a.step[v] * size +
                  (cut && kind_of(b, dim) != Partition::Block ? step[v] / parts : step[v]);
    a.base = a.base * size + split(b, dim, pa.index[dim].constant).second;
  }
  return a;
}

int64_t bank_depth(const loop::Program& p, int accessed) {
  const loop::Buffer& b = p.buffers[static_cast<std::size_t>(accessed)];
  int64_t depth = 1;
  for (std::size_t dim = 0; dim < b.shape.size(); ++dim)
    depth *= partitioned(b, dim) ? parts_of(b, dim).second : b.shape[dim];
  return depth;
}

std::vector<int64_t> bank_elements(const loop::Program& p, int accessed,
                                   const std::vector<int64_t>& part) {
  const loop::Buffer& b = p.buffers[static_cast<std::size_t>(accessed)];
  // Per dimension, the buffer index at each index inside the bank (-1 past
  // the end of a part the shape does not fill), so the walk is over the
  // bank's addresses only: a completely partitioned buffer has a bank per
  // element, and walking the whole buffer per bank was quadratic.
  std::vector<std::vector<int64_t>> at(b.shape.size());
  std::size_t next_part = 0;
  for (std::size_t dim = 0; dim < b.shape.size(); ++dim) {
    const bool cut = partitioned(b, dim);
    const auto [parts, size] = cut ? parts_of(b, dim) : std::pair{int64_t{1}, b.shape[dim]};
    const int64_t pt = cut ? part.at(next_part++) : 0;
    const bool block = cut && kind_of(b, dim) == Partition::Block;
    for (int64_t local = 0; local < size; ++local) {
      // Uncut: parts 1, part 0, so the index is `local`.
      const int64_t i = block ? pt * size + local : local * parts + pt;
      at[dim].push_back(i < b.shape[dim] ? i : -1);
    }
  }
  KILN_ASSERT(next_part == part.size(), "a bank's parts do not match its buffer's partition");
  std::vector<int64_t> elements(static_cast<std::size_t>(bank_depth(p, accessed)), -1);
  std::vector<std::size_t> local(b.shape.size(), 0);
  for (auto& element : elements) {
    int64_t e = 0;
    for (std::size_t dim = 0; dim < b.shape.size() && e >= 0; ++dim) {
      const int64_t i = at[dim][local[dim]];
      e = i < 0 ? -1 : e * b.shape[dim] + i;
    }
    element = e;
    for (std::size_t dim = b.shape.size(); dim-- > 0;) {  // row-major odometer
      if (++local[dim] < at[dim].size()) break;
      local[dim] = 0;
    }
  }
  return elements;
}

}  // namespace kiln::rtl

#include "kiln/cgen/find_fifos.h"

#include <map>

#include "kiln/cgen/accesses.h"

namespace kiln::cgen {

namespace {

using loop::Affine;
using loop::BufferRole;
using loop::Kernel;
using loop::Program;

// sum of coefficient per loop, zeros dropped.
std::map<int, int64_t> terms_of(const Affine& a) {
  std::map<int, int64_t> t;
  for (const auto& [loop, c] : a.terms) t[loop] += c;
  for (auto it = t.begin(); it != t.end();) it = it->second == 0 ? t.erase(it) : std::next(it);
  return t;
}

}  // namespace

bool in_row_major_order(const Program& p, const Kernel& k, int buffer,
                        const std::vector<Affine>& index, const std::vector<int>& nest) {
  const loop::Buffer& b = p.buffers[static_cast<std::size_t>(buffer)];
  if (index.size() != b.shape.size()) return false;
  Affine flat = Affine::of(0);
  for (std::size_t d = 0; d < index.size(); ++d) flat = flat * b.shape[d] + index[d];
  // The iteration count over the nest: sum of loop * (trips of the loops inside it).
  Affine count = Affine::of(0);
  int64_t iterations = 1;
  for (int l : nest) {
    const int64_t trip = k.loops[static_cast<std::size_t>(l)].trip;
    count = count * trip + Affine::var(l);
    iterations *= trip;
  }
  return flat.constant == count.constant && terms_of(flat) == terms_of(count) &&
         iterations == b.numel();
}

std::vector<Fifo> find_fifos(const Program& p) {
  // Per storage buffer, each kernel's accesses.
  std::map<int, std::map<int, std::vector<Access>>> by_buffer;
  for (std::size_t k = 0; k < p.kernels.size(); ++k)
    for (Access& a : accesses(p, p.kernels[k], p.kernels[k].body))
      by_buffer[a.storage][static_cast<int>(k)].push_back(std::move(a));
  std::vector<Fifo> out;
  for (const auto& [b, kernels] : by_buffer) {
    const loop::Buffer& buf = p.buffers[static_cast<std::size_t>(b)];
    if (buf.role != BufferRole::Tensor || kernels.size() != 2) continue;
    bool viewed = false;  // another buffer views its storage (a Reshape)
    for (const loop::Buffer& o : p.buffers) viewed = viewed || o.alias_of == b;
    if (viewed) continue;
    const auto& [k0, a0] = *kernels.begin();
    const auto& [k1, a1] = *std::next(kernels.begin());
    if (a0.size() != 1 || a1.size() != 1 || a0[0].guarded || a1[0].guarded ||
        a0[0].store == a1[0].store)
      continue;
    const int producer = a0[0].store ? k0 : k1, consumer = a0[0].store ? k1 : k0;
    if (producer > consumer) continue;  // written after it is read: not a queue
    const Access& w = a0[0].store ? a0[0] : a1[0];
    const Access& r = a0[0].store ? a1[0] : a0[0];
    if (in_row_major_order(p, p.kernels[static_cast<std::size_t>(producer)], b, w.index, w.nest) &&
        in_row_major_order(p, p.kernels[static_cast<std::size_t>(consumer)], b, r.index, r.nest))
      out.push_back({b, producer, consumer});
  }
  return out;
}

}  // namespace kiln::cgen

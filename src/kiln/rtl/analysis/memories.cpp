#include "kiln/rtl/analysis/memories.h"

#include <vector>

#include "kiln/rtl/analysis/banks.h"

namespace kiln::rtl {

namespace {

// Storage buffers a graph reads or writes at fixed elements.
void fixed_accesses(const dfg::Graph& g, std::set<int>& out) {
  for (uint32_t n = 0; n < g.size(); ++n)
    if (g.node(n).op == dfg::NodeOp::Input && g.input_of(n).element >= 0)
      out.insert(g.input_of(n).buffer);
  for (const dfg::Output& o : g.outputs())
    if (o.where.element >= 0) out.insert(o.where.buffer);
}

}  // namespace

std::set<int> plan_memories(const dfg::SplitKernel& sk, loop::Program& program) {
  const dfg::LoopBody& body = sk.body;
  std::set<int> fixed;
  for (const dfg::Graph* g : {&sk.before, &body.graph, &sk.after}) fixed_accesses(*g, fixed);
  std::vector<const dfg::PortAccess*> accesses;
  for (const dfg::PortAccess& pa : body.reads) accesses.push_back(&pa);
  for (const dfg::PortAccess& pa : body.writes) accesses.push_back(&pa);
  std::set<int> candidates;
  for (const dfg::PortAccess* pa : accesses) {
    const loop::Buffer& b = program.buffers[static_cast<std::size_t>(pa->buffer)];
    if (b.role == loop::BufferRole::Local && !fixed.count(pa->buffer) &&
        b.directives.storage != loop::Storage::Registers)
      candidates.insert(pa->buffer);
  }
  std::set<int> out;
  for (int b : candidates) {
    loop::Buffer& buf = program.buffers[static_cast<std::size_t>(b)];
    bool ok = true;
    int64_t step = 0;
    for (const dfg::PortAccess* pa : accesses) {
      if (pa->buffer != b) continue;
      // Through the buffer itself (a local has no views), moving with one
      // variable: the kept loop's, or a flattened nest's innermost one.
      ok = ok && (pa->accessed < 0 || pa->accessed == b) && pa->element.terms.size() == 1 &&
           pa->element.terms[0].first == body.kept.back();
      if (ok) step = dfg::step_of(pa->element);
    }
    if (!ok || step == 0) continue;
    loop::BufferDirectives& d = buf.directives;
    const loop::BufferDirectives configured = d;
    if (d.partition == loop::Partition::None && buf.shape.size() == 1 && step > 1 &&
        buf.numel() % step == 0) {
      d.partition = loop::Partition::Cyclic;
      d.factor = step;
      d.dim = 0;
      d.more_dims.clear();
    }
    int64_t banks = 1;
    for (const dfg::PortAccess* pa : accesses) {
      if (pa->buffer != b) continue;
      const Bank bank = bank_of(*pa, program);
      ok = ok && !bank.any && !bank.registers;
    }
    if (d.partition == loop::Partition::Cyclic || d.partition == loop::Partition::Block)
      banks = d.factor;
    const bool asked = d.storage == loop::Storage::Lutram || d.storage == loop::Storage::Bram;
    if (ok && (asked || buf.numel() / banks >= kMinMemoryDepth))
      out.insert(b);
    else
      d = configured;
  }
  return out;
}

}  // namespace kiln::rtl

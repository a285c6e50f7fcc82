#include "kiln/rtl/plan/price.h"

#include <algorithm>

#include "kiln/loop/lower_layers.h"
#include "kiln/loop/sink_nests.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

Pricer::Pricer(const loop::Program& program, const hls::Model& model,
               const dfg::UnrollOptions& unroll, const fpga::Device& device,
               std::set<std::string> configured_buffers, std::set<std::string> configured_forms,
               std::map<std::string, bool> configured_constants,
               std::map<std::string, bool> configured_least_depth)
    : base_(program),
      model_(model),
      unroll_(unroll),
      device_(device),
      configured_buffers_(std::move(configured_buffers)),
      configured_forms_(std::move(configured_forms)),
      configured_constants_(std::move(configured_constants)),
      configured_least_depth_(std::move(configured_least_depth)) {}

std::optional<bool> Pricer::configured_constants(int kernel) const {
  const auto it = configured_constants_.find(base_.kernels[static_cast<std::size_t>(kernel)].name);
  if (it == configured_constants_.end()) return std::nullopt;
  return it->second;
}

std::optional<bool> Pricer::configured_least_depth(int kernel) const {
  const auto it =
      configured_least_depth_.find(base_.kernels[static_cast<std::size_t>(kernel)].name);
  if (it == configured_least_depth_.end()) return std::nullopt;
  return it->second;
}

bool Pricer::may_line_buffer(int kernel) {
  const auto it = may_line_buffer_.find(kernel);
  if (it != may_line_buffer_.end()) return it->second;
  const loop::Kernel& k = base_.kernels[static_cast<std::size_t>(kernel)];
  const bool may = !k.line_buffered && !configured_forms_.count(k.name) &&
                   loop::can_line_buffer(base_, model_, kernel);
  return may_line_buffer_[kernel] = may;
}

const loop::Program& Pricer::program_for(int kernel, const LayerPlan& plan) {
  const loop::Kernel& base_kernel = base_.kernels[static_cast<std::size_t>(kernel)];
  if (plan.line_buffered == base_kernel.line_buffered && plan.weights == WeightPlace::Rom)
    return base_;
  // A banked plan's partition follows the loops it keeps and the unroll of
  // the innermost (a cyclic partition by it).
  const bool banked = plan.weights == WeightPlace::Banked;
  auto& slot = programs_[{kernel, plan.line_buffered, plan.weights, banked ? plan.loop : -1,
                          banked ? plan.flatten : 0, banked ? plan.unroll : 1}];
  if (slot) return *slot;
  auto p = std::make_unique<loop::Program>(base_);
  if (plan.line_buffered && !base_kernel.line_buffered) {
    KILN_ASSERT(may_line_buffer(kernel), "a line-buffered plan for " + base_kernel.name);
    loop::line_buffer(*p, model_, kernel);
    loop::sink_nests(*p, kernel);  // as design_program does for every kernel
  }
  // The plan's placement of the weights, but for those a Buffer block names.
  place_weights(*p, kernel, plan, configured_buffers_);
  slot = std::move(p);
  return *slot;
}

namespace {

std::size_t bytes_of(const LayerGraph& g) {
  std::size_t b = sizeof(LayerGraph);
  if (g.unrolled) b += g.unrolled->graph.bytes();
  if (g.split) b += g.split->before.bytes() + g.split->body.graph.bytes() + g.split->after.bytes();
  return b;
}

std::size_t bytes_of(const LoopMemories& m) {
  std::size_t b = sizeof(LoopMemories);
  for (const auto* accesses : {&m.elements.reads, &m.elements.writes})
    for (const std::vector<int64_t>& v : *accesses) b += v.capacity() * sizeof(int64_t);
  return b;
}

}  // namespace

void Pricer::weigh(CachedGraph& c) {
  std::size_t b = 0;
  const auto add = [&](const LayerGraph* g) {
    if (!g) return;
    b += bytes_of(*g);
    for (auto m = memories_.lower_bound({g, WeightPlace{}});
         m != memories_.end() && m->first.first == g; ++m)
      b += bytes_of(*m->second);
  };
  add(c.graph.get());
  for (const CachedGraph::Shared& sh : c.shared) add(sh.graph.get());
  graph_bytes_ = graph_bytes_ - c.bytes + b;
  c.bytes = b;
}

const LayerGraph* Pricer::graph_for(int kernel, const LayerPlan& plan, std::string* reason) {
  CachedGraph& c = graphs_[graph_key(kernel, plan)];
  c.used = ++tick_;
  if (!plan.constants_on_dsps) {
    const CachedGraph::Shared* s = shared_for(kernel, plan, reason);
    if (s && s->graph) return s->graph.get();
  }
  if (!c.graph && c.reason.empty()) {
    // The graph does not depend on the weights' storage.
    LayerPlan form;
    form.line_buffered = plan.line_buffered;
    try {
      c.graph = std::make_unique<LayerGraph>(
          layer_graph(program_for(kernel, form), kernel, plan, unroll_));
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Internal) throw;
      c.reason = e.what();  // over the unrolling bound, accesses a loop cannot order
    }
    weigh(c);
  }
  if (reason) *reason = c.reason;
  return c.graph.get();
}

Pricer::CachedGraph::Shared* Pricer::shared_for(int kernel, const LayerPlan& plan,
                                                std::string* reason) {
  LayerPlan base = plan;
  base.constants_on_dsps = true;  // the graph as unrolled
  const LayerGraph* unrolled = graph_for(kernel, base, reason);
  if (!unrolled) return nullptr;
  CachedGraph& c = graphs_[graph_key(kernel, plan)];
  CachedGraph::Shared& s = c.shared[plan.least_depth ? 1 : 0];
  if (s.done) return &s;
  s.done = true;
  ShareOptions o;
  o.least_depth = plan.least_depth;
  o.memo = &cmvm_memo_;
  auto g = std::make_unique<LayerGraph>(*unrolled);
  s.sums = share_layer_sums(*g, o);
  if (s.sums.roots > 0) s.graph = std::move(g);
  weigh(c);
  return &s;
}

const SharedSums* Pricer::shared_sums(int kernel, const LayerPlan& plan) {
  if (plan.constants_on_dsps) return nullptr;
  const CachedGraph::Shared* s = shared_for(kernel, plan, nullptr);
  return s ? &s->sums : nullptr;
}

Pricer::GraphKey Pricer::graph_key(int kernel, const LayerPlan& plan) {
  return {kernel, plan.line_buffered, plan.loop, plan.loop < 0 ? 1 : plan.unroll,
          plan.loop >= 0 ? plan.flatten : 0};
}

void Pricer::forget(int kernel, const std::vector<LayerPlan>& keep) {
  std::set<GraphKey> kept;
  for (const LayerPlan& p : keep) kept.insert(graph_key(kernel, p));
  for (auto it = graphs_.begin(); it != graphs_.end();) {
    const auto next = std::next(it);
    if (std::get<0>(it->first) == kernel && !kept.count(it->first)) drop(it);
    it = next;
  }
  // What was cached from the graphs kept goes too: a search that forgets a
  // layer is done pricing its plans.
  cache_.stages.clear();
  cache_.content_hashes.clear();
  cache_.schedules.clear();
}

void Pricer::drop(std::map<GraphKey, CachedGraph>::iterator it) {
  CachedGraph& c = it->second;
  std::set<const LayerGraph*> graphs;
  if (c.graph) graphs.insert(c.graph.get());
  for (const CachedGraph::Shared& s : c.shared)
    if (s.graph) graphs.insert(s.graph.get());
  // The stage cache's keys point into the graphs and their memories' programs.
  std::set<const dfg::Graph*> parts;
  std::set<const dfg::LoopBody*> bodies;
  std::set<const void*> memories;  // LoopMemories and their programs
  for (const LayerGraph* g : graphs) {
    if (g->unrolled) parts.insert(&g->unrolled->graph);
    if (g->split) {
      parts.insert(&g->split->before);
      parts.insert(&g->split->after);
      bodies.insert(&g->split->body);
    }
    for (auto m = memories_.lower_bound({g, WeightPlace{}});
         m != memories_.end() && m->first.first == g;) {
      memories.insert(m->second.get());
      memories.insert(&m->second->program);
      m = memories_.erase(m);
    }
  }
  std::erase_if(cache_.stages, [&](const auto& e) {
    return parts.count(e.second.graph) || memories.count(e.second.program);
  });
  std::erase_if(cache_.content_hashes, [&](const auto& e) { return parts.count(e.first); });
  std::erase_if(cache_.schedules, [&](const auto& e) {
    return bodies.count(std::get<0>(e.first)) || memories.count(std::get<1>(e.first));
  });
  graph_bytes_ -= c.bytes;
  graphs_.erase(it);
}

void Pricer::trim() {
  if (graph_budget_ == 0 || graph_bytes_ <= graph_budget_ || holds_ > 0) return;
  std::vector<std::pair<uint64_t, GraphKey>> by_use;
  for (const auto& [key, c] : graphs_) by_use.emplace_back(c.used, key);
  std::sort(by_use.begin(), by_use.end());
  for (const auto& [used, key] : by_use) {
    if (graph_bytes_ <= graph_budget_) break;
    drop(graphs_.find(key));
  }
}

const LoopMemories& Pricer::memories_for(int kernel, const LayerPlan& plan,
                                         const LayerGraph& graph) {
  auto& slot = memories_[{&graph, plan.weights}];
  if (!slot) {
    slot = std::make_unique<LoopMemories>(loop_memories(program_for(kernel, plan), *graph.split));
    weigh(graphs_[graph_key(kernel, plan)]);
  }
  return *slot;
}

PlanPrice Pricer::price(int kernel, const LayerPlan& plan, const StageOptions& options) {
  ++priced_;
  PlanPrice p;
  const LayerGraph* graph = graph_for(kernel, plan, &p.reason);
  if (!graph) {
    p.graph_refused = true;
    return p;
  }
  StageOptions o = options;
  o.emit = false;
  o.cache = &cache_;
  try {
    p.stage = build_layer_stage(program_for(kernel, plan), plan, *graph, o, "candidate",
                                graph->split ? &memories_for(kernel, plan, *graph) : nullptr);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) throw;
    p.reason = e.what();  // a schedule that cannot meet a constraint, a read kiln cannot bank
    return p;
  }
  const StageReport& r = p.stage.report;
  p.feasible = true;
  p.interval = r.interval_cycles;
  p.latency = r.latency_cycles;
  p.share = fpga::share(r, device_.capacity);
  p.on_multipliers = r.multipliers > 0 && r.const_multipliers == 0;
  return p;
}

}  // namespace kiln::rtl

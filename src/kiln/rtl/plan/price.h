// Pricing a layer's plan without building any hardware: its exact latency
// and interval (from its schedule), its resources (the operator library's
// estimate, fpga::Resources) and whether kiln can build it, with the reason
// when it cannot, as a value. The searches (search.h) price thousands of
// plans this way and build only the winners.
//
// A Pricer holds what plans of one design share: the program in each form a
// plan may take (a convolution direct or line-buffered, weights in ROM banks
// banked by copy, or registers; copies share the weights) and each layer's dataflow graph
// per (form, loop, unroll, flatten), which pipelining and weight storage do
// not change, each kept loop's memories and the elements its accesses reach
// per graph and storage, and a StageCache (stage_cache.h): the stages built
// from a graph alone, the loops' modulo schedules and the plans of products
// by constants, which the plans priced after reuse. A plan with products by
// constants in LUTs is priced on its graph with their sums shared
// (cmvm_pass.h), lean or at the least depth as the plan says, kept beside
// the graph (the answers in a memo by problem: a convolution's pixels and
// plans of one layer pose the same ones). Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>

#include "kiln/fpga/devices.h"
#include "kiln/hls/model.h"
#include "kiln/rtl/cmvm/cmvm_pass.h"
#include "kiln/rtl/plan/stage_cache.h"
#include "kiln/rtl/stage/layer_stage.h"

namespace kiln::rtl {

struct PlanPrice {
  bool feasible = false;
  std::string reason;  // why kiln cannot build it, when not feasible
  // Not feasible because its graph cannot be made (an access one iteration
  // cannot order, the unrolling bound): the plan's shape, not its operators.
  bool graph_refused = false;
  int interval = 0;  // cycles between samples the layer takes
  int latency = 0;   // cycles from its start to its results
  double share = 0;  // of the device (fpga::share): the searches' cost
  // Its products of two variables all run on DSP multipliers (none by
  // constants as shifts and adds): what folding onto a budget asks.
  bool on_multipliers = false;
  BuiltStage stage;  // the priced stage: its report and ports, no Verilog
};

class Pricer {
 public:
  // `program` has the config's directives applied and the convolutions the
  // config builds line-buffered in that form. Weights that
  // `configured_buffers` names keep the config's storage in every plan;
  // layers `configured_constants` names keep their products by constants
  // where it says (RtlOptions::constants_on_dsps).
  Pricer(const loop::Program& program, const hls::Model& model, const dfg::UnrollOptions& unroll,
         const fpga::Device& device, std::set<std::string> configured_buffers,
         std::set<std::string> configured_forms,
         std::map<std::string, bool> configured_constants = {},
         std::map<std::string, bool> configured_least_depth = {});

  // Where the config puts kernel `kernel`'s products by constants (true: on
  // DSPs); unset: the searches try both.
  std::optional<bool> configured_constants(int kernel) const;
  // Where the config sets kernel `kernel`'s AdderDepth (true: Least).
  std::optional<bool> configured_least_depth(int kernel) const;

  // Whether a plan may put kernel `kernel` in the line-buffered form (a
  // stride-1 convolution whose form the config leaves open).
  bool may_line_buffer(int kernel);
  // The program with kernel `kernel` in the plan's form and its weights'
  // storage; shared by every plan of that form.
  const loop::Program& program_for(int kernel, const LayerPlan& plan);
  // The plan's graph, or the reason kiln cannot make it.
  const LayerGraph* graph_for(int kernel, const LayerPlan& plan, std::string* reason);
  // What sharing the plan's sums did to its graph (nothing for products on
  // DSPs); null when kiln cannot make the graph.
  const SharedSums* shared_sums(int kernel, const LayerPlan& plan);
  // A kept loop's program with its memories (layer_stage.h), per graph and
  // weight storage.
  const LoopMemories& memories_for(int kernel, const LayerPlan& plan, const LayerGraph& graph);

  // Prices `plan` with `options` (clock, family, scheduler, the layer's
  // MultiplierLimit, and, when the search has them, the design's timing and
  // the channels the plan reads from its producers).
  PlanPrice price(int kernel, const LayerPlan& plan, const StageOptions& options);

  // Drops the graphs (and what was built from them) of kernel `kernel`'s
  // plans but `keep`'s, and every cached stage and schedule: the searches
  // call it once a layer's plans are chosen, so that memory holds one
  // layer's candidates at a time (ResNet-8's took 24 GB kept all together).
  // Pointers to a dropped graph must not be used after.
  void forget(int kernel, const std::vector<LayerPlan>& keep);

  // The most bytes the cached graphs (with what was built from them) may
  // hold after trim(); 0, the default: no limit.
  void set_graph_budget(std::size_t bytes) { graph_budget_ = bytes; }
  // Drops the least recently used graphs, of any kernel, until those left
  // fit the budget; a dropped graph is made again when a plan asks for it.
  // Call it where no pointer from graph_for, shared_sums or memories_for is
  // held: between plans, between designs placed. VGG-16's layers' graphs
  // kept all together would not fit in memory.
  void trim();
  // What the cached graphs hold now, in bytes.
  std::size_t graph_bytes() const { return graph_bytes_; }
  // While one lives, trim() drops nothing: a design being placed holds its
  // producers' graphs across the layers' plans.
  class Hold {
   public:
    explicit Hold(Pricer& pricer) : pricer_(pricer) { ++pricer_.holds_; }
    ~Hold() { --pricer_.holds_; }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    Pricer& pricer_;
  };

  int64_t priced() const { return priced_; }
  // The program as given (every kernel in its configured form).
  const loop::Program& program() const { return base_; }
  const fpga::Device& device() const { return device_; }

 private:
  const loop::Program& base_;
  const hls::Model& model_;
  dfg::UnrollOptions unroll_;
  fpga::Device device_;
  std::set<std::string> configured_buffers_, configured_forms_;
  std::map<std::string, bool> configured_constants_, configured_least_depth_;
  // (kernel, line_buffered, weights, and for banked weights the kept loop,
  // flatten and unroll: banked_partition follows all three) -> program
  std::map<std::tuple<int, bool, WeightPlace, int, int, int64_t>, std::unique_ptr<loop::Program>>
      programs_;
  // (kernel, line_buffered, loop, unroll, flatten) -> graph, or the reason it failed
  struct CachedGraph {
    std::unique_ptr<LayerGraph> graph;
    std::string reason;
    // The graph with its sums shared, lean [0] and at the least depth [1];
    // null where that changed nothing (`graph` serves).
    struct Shared {
      bool done = false;
      std::unique_ptr<LayerGraph> graph;
      SharedSums sums;
    };
    Shared shared[2];
    uint64_t used = 0;      // when last asked for (the Pricer's tick_)
    std::size_t bytes = 0;  // the graphs' and their memories' heap bytes
  };
  CachedGraph::Shared* shared_for(int kernel, const LayerPlan& plan, std::string* reason);
  using GraphKey = std::tuple<int, bool, int, int64_t, int>;
  static GraphKey graph_key(int kernel, const LayerPlan& plan);
  std::map<GraphKey, CachedGraph> graphs_;
  // Drops one cached graph with its memories and the stage cache's entries
  // that point into either.
  void drop(std::map<GraphKey, CachedGraph>::iterator it);
  void weigh(CachedGraph& c);  // c.bytes, graph_bytes_ updated
  uint64_t tick_ = 0;
  std::size_t graph_budget_ = 0, graph_bytes_ = 0;
  int holds_ = 0;
  std::map<std::pair<const LayerGraph*, WeightPlace>, std::unique_ptr<LoopMemories>> memories_;
  std::map<int, bool> may_line_buffer_;
  StageCache cache_;
  CmvmMemo cmvm_memo_;
  int64_t priced_ = 0;
};

}  // namespace kiln::rtl

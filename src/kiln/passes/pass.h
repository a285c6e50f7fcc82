// Graph passes that prepare an imported graph for the HLS backend.
//
// A pass is an object with a name whose run() rewrites the graph in place and
// says whether it changed anything; a pipeline is plain data (a list of
// passes) that runs them in order and checks the graph after each one.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/graph/graph.h"

namespace kiln::passes {

class Pass {
 public:
  virtual ~Pass() = default;
  // Short snake_case name ("fold_batchnorm").
  virtual std::string_view name() const = 0;
  // Rewrites `graph`; returns true if anything changed. Leaves the graph
  // topologically sorted with consistent value types.
  virtual bool run(Graph& graph) = 0;
};

// What one pass of a pipeline did.
struct PassRecord {
  std::string name;
  bool changed = false;
};

class PassPipeline {
 public:
  PassPipeline& add(std::unique_ptr<Pass> pass);
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

  // Runs every pass in order. After each one the graph is verified
  // (Graph::verify) and every stored value type is checked against shape
  // inference, so a faulty rewrite fails at the pass that made it (Internal).
  std::vector<PassRecord> run(Graph& graph);

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
};

struct HlsPipelineOptions {
  // Convert conv/pool/batch-norm regions to [N, spatial..., C], the layout of
  // both the io_parallel and io_stream flows.
  bool channels_last = true;
};

// remove_identity, form_dense, fold_batchnorm, fuse_activation, softmax_last_axis, then (with
// channels_last) channels_last, and simplify_layout.
PassPipeline make_hls_pipeline(const HlsPipelineOptions& options = {});
// Builds and runs that pipeline on `graph`.
std::vector<PassRecord> run_hls_pipeline(Graph& graph, const HlsPipelineOptions& options = {});

// Throws Internal naming the first node whose stored output types differ from
// what shape inference gives (the check PassPipeline runs after each pass).
void check_value_types(const Graph& graph, std::string_view after_pass);

}  // namespace kiln::passes

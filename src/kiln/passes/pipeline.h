// The graph passes by name, and the default pipelines as data.
//
// Every graph pass is registered once here (graph_passes()); `kiln opt
// --passes a,b,c` and the HLS flow build their pipelines from those names.
// support/pass.h has the generic pass, pipeline and registry machinery, which
// the HLS layer passes (hls/) use too.
#pragma once

#include <string>
#include <vector>

#include "kiln/graph/graph.h"
#include "kiln/support/pass.h"

namespace kiln::passes {

using GraphPass = Pass<Graph>;
using GraphPipeline = PassPipeline<Graph>;

// Every graph pass, by name.
const PassRegistry<Graph>& graph_passes();

struct HlsPipelineOptions {
  // Convert conv/pool/batch-norm regions to [N, spatial..., C], the layout of
  // both the io_parallel and io_stream flows.
  bool channels_last = true;
};

// The passes the HLS flow runs, in order: remove_identity, form_dense,
// fold_batchnorm, fuse_activation, softmax_last_axis, then (with
// channels_last) channels_last, and simplify_layout.
std::vector<std::string> hls_pipeline(const HlsPipelineOptions& options = {});
GraphPipeline make_hls_pipeline(const HlsPipelineOptions& options = {});
// Builds and runs that pipeline on `graph`.
std::vector<PassRecord> run_hls_pipeline(Graph& graph, const HlsPipelineOptions& options = {});

}  // namespace kiln::passes

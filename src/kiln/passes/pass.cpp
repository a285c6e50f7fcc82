#include "kiln/passes/pass.h"

#include "kiln/graph/shape_inference.h"
#include "kiln/passes/channels_last.h"
#include "kiln/passes/fold_batchnorm.h"
#include "kiln/passes/form_dense.h"
#include "kiln/passes/fuse_activation.h"
#include "kiln/passes/remove_identity.h"
#include "kiln/passes/simplify_layout.h"
#include "kiln/passes/softmax_last_axis.h"

namespace kiln::passes {

PassPipeline& PassPipeline::add(std::unique_ptr<Pass> pass) {
  passes_.push_back(std::move(pass));
  return *this;
}

std::vector<PassRecord> PassPipeline::run(Graph& graph) {
  std::vector<PassRecord> records;
  for (const auto& pass : passes_) {
    const bool changed = pass->run(graph);
    records.push_back(PassRecord{std::string(pass->name()), changed});
    graph.verify();
    check_value_types(graph, pass->name());
  }
  return records;
}

void check_value_types(const Graph& graph, std::string_view after_pass) {
  for (const Node& node : graph.nodes()) {
    const std::vector<TensorType> types = infer_node_types(graph, node);
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      if (!node.outputs[i].valid()) continue;
      const TensorType& stored = graph.value(node.outputs[i]).type;
      if (stored != types[i])
        throw_error(ErrorKind::Internal, node.describe(),
                    "after pass " + std::string(after_pass) + " output " + std::to_string(i) +
                        " is stored as " + stored.to_string() + " but infers as " +
                        types[i].to_string());
    }
  }
}

PassPipeline make_hls_pipeline(const HlsPipelineOptions& options) {
  PassPipeline p;
  p.add(std::make_unique<RemoveIdentityPass>());
  p.add(std::make_unique<FormDensePass>());
  p.add(std::make_unique<FoldBatchNormPass>());
  p.add(std::make_unique<FuseActivationPass>());
  p.add(std::make_unique<SoftmaxLastAxisPass>());
  if (options.channels_last) p.add(std::make_unique<ChannelsLastPass>());
  p.add(std::make_unique<SimplifyLayoutPass>());
  return p;
}

std::vector<PassRecord> run_hls_pipeline(Graph& graph, const HlsPipelineOptions& options) {
  return make_hls_pipeline(options).run(graph);
}

}  // namespace kiln::passes

#include "kiln/passes/pipeline.h"

#include "kiln/passes/channels_last.h"
#include "kiln/passes/fold_batchnorm.h"
#include "kiln/passes/fold_pad.h"
#include "kiln/passes/form_dense.h"
#include "kiln/passes/fuse_activation.h"
#include "kiln/passes/gather_as_slice.h"
#include "kiln/passes/global_pool.h"
#include "kiln/passes/recurrent_batch_first.h"
#include "kiln/passes/remove_identity.h"
#include "kiln/passes/simplify_layout.h"
#include "kiln/passes/softmax_last_axis.h"

namespace kiln::passes {

namespace {
template <class P>
PassRegistry<Graph>::Factory make() {
  return [] { return std::make_unique<P>(); };
}
}  // namespace

const PassRegistry<Graph>& graph_passes() {
  static const PassRegistry<Graph> registry = [] {
    PassRegistry<Graph> r;
    r.add("remove_identity", "drop Identity and inference-mode Dropout",
          make<RemoveIdentityPass>());
    r.add("fold_pad",
          "drop Pads of nothing; zero Pads on the spatial axes into the Conv or AveragePool after",
          make<FoldPadPass>());
    r.add("global_pool", "AveragePool or MaxPool over the whole map into the global pool",
          make<GlobalPoolPass>());
    r.add("gather_as_slice", "Gather of one constant index into Slice (+ Reshape)",
          make<GatherAsSlicePass>());
    r.add("recurrent_batch_first",
          "RNN/GRU/LSTM over one sequence to the batch-first layout, with free Reshapes",
          make<RecurrentBatchFirstPass>());
    r.add("form_dense", "Gemm, or MatMul with a constant weight (+ bias Add), into Dense",
          make<FormDensePass>());
    r.add("fold_batchnorm",
          "fold BatchNormalization, and Mul/Add/Sub by a per-channel constant, into the Conv or "
          "Dense before it",
          make<FoldBatchNormPass>());
    r.add("fuse_activation", "fuse Relu, LeakyRelu, Clip into the Conv or Dense before it",
          make<FuseActivationPass>());
    r.add("softmax_last_axis", "Softmax over an inner axis as transpose, last-axis softmax, back",
          make<SoftmaxLastAxisPass>());
    r.add("channels_last", "conv/pool/batch-norm regions to [N, spatial..., C]",
          make<ChannelsLastPass>());
    r.add("simplify_layout", "cancel and merge Transposes and reshapes",
          make<SimplifyLayoutPass>());
    return r;
  }();
  return registry;
}

std::vector<std::string> hls_pipeline(const HlsPipelineOptions& options) {
  std::vector<std::string> names = {
      "remove_identity",       "fold_pad",   "global_pool",    "gather_as_slice",
      "recurrent_batch_first", "form_dense", "fold_batchnorm", "fuse_activation",
      "softmax_last_axis"};
  if (options.channels_last) names.push_back("channels_last");
  names.push_back("simplify_layout");
  return names;
}

GraphPipeline make_hls_pipeline(const HlsPipelineOptions& options) {
  return graph_passes().pipeline(hls_pipeline(options));
}

std::vector<PassRecord> run_hls_pipeline(Graph& graph, const HlsPipelineOptions& options) {
  return make_hls_pipeline(options).run(graph);
}

}  // namespace kiln::passes

#include "kiln/hls/build_model.h"

#include "kiln/hls/layer_passes/pipeline.h"
#include "kiln/hls/lower_graph.h"
#include "kiln/hls/verify.h"

namespace kiln::hls {

Model build_model(const Graph& g, const Config& cfg, const Profile* profile,
                  const PassHooks<Model>& hooks) {
  Model m = lower_graph(g);
  verify_model(m, "lower_graph");
  const LayerPassContext context{&cfg, profile};
  layer_passes(context).pipeline(layer_pipeline()).run(m, hooks);
  return m;
}

}  // namespace kiln::hls

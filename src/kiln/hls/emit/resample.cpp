// Emits the layers that pick or interpolate positions of a tensor: Slice
// (include/kiln/slice.h) and Resize (include/kiln/resize.h).
#include <string>
#include <vector>

#include "kiln/hls/emit/config_writer.h"
#include "kiln/hls/emit/layer_code.h"
#include "kiln/support/error.h"

namespace kiln::hls {

using namespace emit_util;

LayerCode emit_slice(const Model& model, const Layer& layer, const EmitContext& ctx) {
  const auto& p = layer.as<SliceParams>();
  const TensorInfo& in = model.tensors.at(static_cast<std::size_t>(layer.inputs.at(0)));
  const TensorInfo& out = model.tensors.at(static_cast<std::size_t>(layer.output()));
  const std::size_t rank = in.shape.size();
  KILN_ASSERT(rank <= 4, "slice of rank > 4 (check_supported refuses it)");
  // Axes padded to 4 with leading axes of size 1.
  int64_t d[4] = {1, 1, 1, 1}, b[4] = {0, 0, 0, 0}, s[4] = {1, 1, 1, 1}, o[4] = {1, 1, 1, 1};
  for (std::size_t a = 0; a < rank; ++a) {
    const std::size_t k = 4 - rank + a;
    d[k] = in.shape[a];
    b[k] = p.begin.at(a);
    s[k] = p.step.at(a);
    o[k] = out.shape.at(a);
  }
  ConfigWriter cfg(layer.name);
  static const char* kD[] = {"d0", "d1", "d2", "d3"};
  static const char* kB[] = {"b0", "b1", "b2", "b3"};
  static const char* kS[] = {"s0", "s1", "s2", "s3"};
  static const char* kO[] = {"o0", "o1", "o2", "o3"};
  for (int a = 0; a < 4; ++a) cfg.value(kD[a], d[a]);
  for (int a = 0; a < 4; ++a) cfg.value(kB[a], b[a]);
  for (int a = 0; a < 4; ++a) cfg.value(kS[a], s[a]);
  for (int a = 0; a < 4; ++a) cfg.value(kO[a], o[a]);
  LayerCode code;
  code.includes.push_back("kiln/slice.h");
  code.config = cfg.text();
  code.call = call("kiln::slice", cfg.name(), {ctx.inputs.at(0), ctx.output()});
  return code;
}

LayerCode emit_resize(const Model&, const Layer& layer, const EmitContext& ctx) {
  const auto& p = layer.as<ResizeParams>();
  const bool linear = p.mode == ResizeKind::Linear;
  ConfigWriter cfg(layer.name);
  cfg.value("in_h", p.in_h);
  cfg.value("in_w", p.in_w);
  cfg.value("channels", p.channels);
  cfg.value("out_h", p.out_h);
  cfg.value("out_w", p.out_w);
  cfg.value("taps", p.taps());
  cfg.type("weight_t", layer.name + "_weight_t");
  cfg.type("accum_t", layer.name + "_accum_t");
  cfg.index_table("row", p.row_index);
  cfg.index_table("col", p.col_index);
  LayerCode code;
  code.includes.push_back("kiln/resize.h");
  code.config = cfg.text();
  if (linear) {
    code.arrays.push_back(
        table_array(layer, "_w", "_weight_t", layer.precision.weight, layer.weights));
    code.call = call("kiln::resize_linear", cfg.name(),
                     {ctx.inputs.at(0), layer.name + "_w", ctx.output()});
  } else {
    code.call = call("kiln::resize_nearest", cfg.name(), {ctx.inputs.at(0), ctx.output()});
  }
  return code;
}

}  // namespace kiln::hls

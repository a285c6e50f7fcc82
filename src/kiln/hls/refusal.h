// The hint of every HLS refusal (ErrorKind::Unsupported): the model itself is
// fine, the golden interpreter runs it; then the nearest supported form, if
// any, and where the layers are listed.
#pragma once

#include <string>

namespace kiln::hls {

inline std::string refusal_hint(const std::string& alternative = {}) {
  std::string hint = "`kiln run` and `kiln test-onnx` run this model in kiln's golden interpreter";
  if (!alternative.empty()) hint += "; for hardware, " + alternative;
  return hint + "; see docs/hls-layers.md for the layers kiln's HLS backend has";
}

}  // namespace kiln::hls

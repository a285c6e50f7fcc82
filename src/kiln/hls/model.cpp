// Small functions of the HLS layer model (model.h).
#include "kiln/hls/model.h"

#include <algorithm>

#include "kiln/support/error.h"

namespace kiln::hls {

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

const Layer& Model::producer(int tensor) const {
  for (const Layer& l : layers)
    if (std::find(l.outputs.begin(), l.outputs.end(), tensor) != l.outputs.end()) return l;
  KILN_ASSERT(false, "no layer produces tensor " + std::to_string(tensor));
  return layers.front();  // unreachable
}

}  // namespace kiln::hls

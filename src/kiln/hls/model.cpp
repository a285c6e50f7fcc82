// Small functions of the HLS layer model (model.h).
#include "kiln/hls/model.h"

#include "kiln/support/error.h"

namespace kiln::hls {

const char* layer_kind_name(LayerKind kind) {
  switch (kind) {
    case LayerKind::Input: return "Input";
    case LayerKind::Dense: return "Dense";
    case LayerKind::Conv: return "Conv";
    case LayerKind::Pool: return "Pool";
    case LayerKind::ZeroPad: return "ZeroPad";
    case LayerKind::BatchNorm: return "BatchNorm";
    case LayerKind::Activation: return "Activation";
    case LayerKind::Softmax: return "Softmax";
    case LayerKind::Binary: return "Binary";
    case LayerKind::Concat: return "Concat";
    case LayerKind::Transpose: return "Transpose";
    case LayerKind::MatMul: return "MatMul";
    case LayerKind::Reshape: return "Reshape";
  }
  return "?";
}

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

const Layer& Model::producer(int tensor) const {
  for (const Layer& l : layers)
    if (l.output == tensor) return l;
  KILN_ASSERT(false, "no layer produces tensor " + std::to_string(tensor));
  return layers.front();  // unreachable
}

// kiln's rule (docs/config.md "Valid reuse factors"): a layer with
// multipliers computes n_in * n_out products per kernel call; RF is valid iff
// 1 <= RF <= n_in * n_out and RF divides n_in * n_out, so every multiplier
// does the same number of products. Conv: n_in = kh * kw * c_in / groups,
// n_out = c_out (depthwise: kh * kw products per channel, all channels at
// once). MatMul: n_in = k, n_out = n.
std::vector<int64_t> valid_reuse_factors(const Layer& layer) {
  int64_t n_in = 0, n_out = 0;
  switch (layer.kind) {
    case LayerKind::Dense: {
      const auto& p = layer.as<DenseParams>();
      n_in = p.n_in;
      n_out = p.n_out;
      break;
    }
    case LayerKind::Conv: {
      const auto& p = layer.as<ConvParams>();
      n_in = p.kernel_h * p.kernel_w * (p.groups > 0 ? p.c_in / p.groups : p.c_in);
      n_out = p.c_out;
      break;
    }
    case LayerKind::MatMul: {
      const auto& p = layer.as<MatMulParams>();
      n_in = p.k;
      n_out = p.n;
      break;
    }
    default: return {1};
  }
  const int64_t total = n_in * n_out;
  if (total <= 0) return {1};
  std::vector<int64_t> small, large;  // divisors below and above sqrt(total)
  for (int64_t d = 1; d * d <= total; ++d) {
    if (total % d != 0) continue;
    small.push_back(d);
    if (d != total / d) large.push_back(total / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

}  // namespace kiln::hls

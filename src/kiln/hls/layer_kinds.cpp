#include "kiln/hls/layer_kinds.h"

#include "kiln/hls/tables.h"

namespace kiln::hls {

namespace {

#define KILN_LAYER_INFO(kind, params, multipliers, target_cycles, window, encoded) \
  LayerKindInfo{#kind, multipliers, target_cycles, window, encoded},
constexpr LayerKindInfo kInfo[] = {KILN_LAYER_KINDS(KILN_LAYER_INFO)};
#undef KILN_LAYER_INFO
static_assert(std::size(kInfo) == kNumLayerKinds);
static_assert(std::variant_size_v<LayerParams> == kNumLayerKinds);

bool activation_uses(ActKind act, PrecisionField f) {
  if (f == PrecisionField::Weight) return act == ActKind::PRelu;
  if (f == PrecisionField::Table) return table_kind(act).has_value();
  return false;
}

#define KILN_LAYER_DEFAULT(kind, params, ...) LayerParams{params{}},
const LayerParams kDefaultParams[] = {KILN_LAYER_KINDS(KILN_LAYER_DEFAULT)};
#undef KILN_LAYER_DEFAULT

}  // namespace

LayerParams default_params(LayerKind kind) {
  return kDefaultParams[static_cast<std::size_t>(kind)];
}

const LayerKindInfo& layer_kind_info(LayerKind kind) {
  return kInfo[static_cast<std::size_t>(kind)];
}

const char* layer_kind_name(LayerKind kind) {
  return layer_kind_info(kind).name.data();  // string literals: NUL-terminated
}

std::optional<LayerKind> layer_kind_from_name(std::string_view name) {
  return enum_from_name<LayerKind>(name);
}

bool has_implementation(LayerKind kind, ConvImpl impl) {
  return impl == ConvImpl::LineBuffer || layer_kind_info(kind).encoded;
}

bool kind_uses_field(LayerKind kind, PrecisionField f) {
  if (f == PrecisionField::Result) return true;
  switch (kind) {
    case LayerKind::Dense:
    case LayerKind::Conv:
      return f == PrecisionField::Weight || f == PrecisionField::Bias || f == PrecisionField::Accum;
    case LayerKind::BatchNorm: return f == PrecisionField::Weight || f == PrecisionField::Bias;
    case LayerKind::Activation: return f == PrecisionField::Weight || f == PrecisionField::Table;
    case LayerKind::Pool:
    case LayerKind::MatMul: return f == PrecisionField::Accum;
    case LayerKind::Resize: return f == PrecisionField::Weight || f == PrecisionField::Accum;
    case LayerKind::Recurrent:
      return f == PrecisionField::Weight || f == PrecisionField::Bias ||
             f == PrecisionField::Accum || f == PrecisionField::Table;
    case LayerKind::Softmax:
      return f == PrecisionField::Accum || f == PrecisionField::Table ||
             f == PrecisionField::InvTable || f == PrecisionField::LogTable;
    case LayerKind::Input:
    case LayerKind::ZeroPad:
    case LayerKind::Binary:
    case LayerKind::Concat:
    case LayerKind::Transpose:
    case LayerKind::Slice:
    case LayerKind::Quantize:
    case LayerKind::Reshape:
    case LayerKind::Clone: return false;
  }
  return false;
}

bool uses_field(const Layer& layer, PrecisionField f) {
  if (!kind_uses_field(layer.kind(), f)) return false;
  if (layer.kind() == LayerKind::Activation)
    return f == PrecisionField::Result || activation_uses(layer.as<ActivationParams>().act.kind, f);
  if (layer.kind() == LayerKind::Pool && f == PrecisionField::Accum)
    return layer.as<PoolParams>().kind == PoolKind::Average;
  if (layer.kind() == LayerKind::Softmax && f == PrecisionField::InvTable)
    return !layer.as<SoftmaxParams>().log;
  if (layer.kind() == LayerKind::Softmax && f == PrecisionField::LogTable)
    return layer.as<SoftmaxParams>().log;
  if (layer.kind() == LayerKind::Resize)  // nearest copies values
    return layer.as<ResizeParams>().mode == ResizeKind::Linear;
  return true;
}

}  // namespace kiln::hls

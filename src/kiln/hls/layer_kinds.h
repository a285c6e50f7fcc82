// Facts about each layer kind, from the KILN_LAYER_KINDS table (model.h), and
// the questions every module asks of a layer: which configuration keys apply
// to it and which Precision fields it uses.
#pragma once

#include <optional>
#include <string_view>

#include "kiln/hls/model.h"

namespace kiln::hls {

struct LayerKindInfo {
  std::string_view name;  // the LayerType name of the config file
  bool multipliers;       // ReuseFactor and Strategy apply
  bool target_cycles;     // TargetCycles chooses the reuse factor
  bool window;            // a sliding window over a feature map
  bool encoded;           // has the encoded window implementation
};

#define KILN_LAYER_COUNT(...) +1
inline constexpr int kNumLayerKinds = 0 KILN_LAYER_KINDS(KILN_LAYER_COUNT);
#undef KILN_LAYER_COUNT

const LayerKindInfo& layer_kind_info(LayerKind kind);
const char* layer_kind_name(LayerKind kind);
std::optional<LayerKind> layer_kind_from_name(std::string_view name);

// Default-constructed parameters of `kind` (the variant alternative for it).
LayerParams default_params(LayerKind kind);

// The implementations ConvImplementation can choose for a kind (LineBuffer
// for every kind; Encoded where the kind has it).
bool has_implementation(LayerKind kind, ConvImpl impl);

enum class PrecisionField : uint8_t { Weight, Bias, Result, Accum, Table, InvTable, LogTable };

// Whether `layer` reads a Precision field (what `kiln config` lists and
// "auto" fills): weights and biases of its constants, an accumulator where it
// sums, tables where its activation is a lookup.
bool uses_field(const Layer& layer, PrecisionField field);
// Whether some layer of `kind` can use it (for LayerType blocks).
bool kind_uses_field(LayerKind kind, PrecisionField field);

}  // namespace kiln::hls

// The HLS configuration: what a user writes in config.yaml (keys familiar to
// hls4ml users) and `--set KEY=VALUE` overrides, as typed data.
//
// Every field is optional at every level; build_model() resolves each field
// per layer with LayerName > LayerType > Model > kiln's defaults
// (docs/config.md). Parsing validates keys, value types and ranges; checks
// that need the model (layer names, reuse factors) happen in build_model().
// Every problem is a kiln::Error(InvalidModel) whose `where` names the file
// and key path ("config.yaml: LayerName.conv1.ReuseFactor").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/hls/layer_kinds.h"
#include "kiln/hls/model.h"
#include "kiln/hls/rtl_settings.h"
#include "kiln/support/strings.h"

namespace kiln::hls {

// One Precision field: a fixed-point type, or "auto" (filled from a profile;
// the width then comes from the next less specific level that names a type,
// or the default).
struct PrecisionSpec {
  bool automatic = false;
  FixedType type;  // unused when automatic
  bool operator==(const PrecisionSpec&) const = default;
};

struct LayerConfig {
  std::optional<PrecisionSpec> weight, bias, result, accum, table, inv_table, log_table;
  std::optional<int64_t> reuse_factor;
  std::optional<Strategy> strategy;
  std::optional<ConvImpl> conv_impl;
  std::optional<int64_t> target_cycles;
  std::optional<int64_t> table_size;  // also the Softmax reciprocal / LogSoftmax log table size
  std::optional<double> table_range;
  // RTL only (kiln rtl; the HLS flow ignores it): the most variable x
  // variable multipliers the layer may instantiate.
  std::optional<int64_t> multiplier_limit;
  // RTL only: where products by constants go (LUTs or DSPs).
  std::optional<ConstantProducts> constant_products;
  // RTL only: how sums of products by constants are shared.
  std::optional<AdderDepth> adder_depth;
  bool operator==(const LayerConfig&) const = default;
};

// kiln's defaults (docs/config.md).
inline constexpr const char* kDefaultPart = "xcvu9p-flga2104-2L-e";
inline constexpr double kDefaultClockPeriodNs = 5.0;
// Precision defaults: those of a default-constructed Precision (model.h).

struct Config {
  // Name used in error messages ("config.yaml"); set by load/parse.
  std::string source = "config";
  std::string part = kDefaultPart;
  double clock_period_ns = kDefaultClockPeriodNs;
  IOType io_type = IOType::Parallel;
  bool io_type_set = false;  // IOType written (kiln rtl chooses its inputs' form otherwise)
  Backend backend = Backend::Vitis;
  Style style = Style::Layers;
  LayerConfig model;
  std::optional<RtlScheduler> scheduler;  // Model.Scheduler
  std::optional<int64_t> latency_cycles;  // Model.LatencyCycles (kiln rtl)
  std::map<LayerKind, LayerConfig> by_type;
  // Keyed by the name as written (a layer name or an ONNX node name);
  // build_model() checks each against the model's layers.
  std::map<std::string, LayerConfig> by_name;
  // Where each by_name entry came from ("config.yaml: LayerName.fc1"), for
  // the unknown-layer error.
  std::map<std::string, std::string> by_name_where;
  // RTL only: Loop.<name> and Buffer.<name> blocks, parsed into the Loop
  // IR's directive types.
  ConfiguredDirectives directives;
};

// Reads and validates a YAML config. Io if unreadable, InvalidModel if bad.
Config load_config(const std::string& path);
// Same from text; `source_name` names it in messages.
Config parse_config(const std::string& text, const std::string& source_name);
// Merges a YAML document into `cfg` (later keys win), validating as parse_config.
void merge_config(Config& cfg, const std::string& text, const std::string& source_name);
// Applies one "KEY=VALUE" override (KEY a dotted path such as
// "Model.Precision.result" or "LayerName.fc1.ReuseFactor"; split on the
// first '='). Errors name "--set KEY".
void apply_set(Config& cfg, const std::string& assignment);

// Whether any Precision field at any level is "auto" (then build_model needs
// a profile).
bool uses_auto(const Config& cfg);

// Where a resolved field came from (more specific levels win).
enum class ConfigLevel : uint8_t { Default, Model, Type, Name };

// One layer's configuration after LayerName > LayerType > Model > defaults.
// Precision fields always carry a type; for an automatic field it is the
// type the width and modes come from.
struct ResolvedLayerConfig {
  PrecisionSpec weight, bias, result, accum, table, inv_table, log_table;
  int64_t reuse_factor = 1;
  ConfigLevel reuse_level = ConfigLevel::Default;
  std::optional<int64_t> target_cycles;
  ConfigLevel target_level = ConfigLevel::Default;
  Strategy strategy = Strategy::Latency;
  ConvImpl conv_impl = ConvImpl::LineBuffer;
  ConfigLevel conv_impl_level = ConfigLevel::Default;
  int64_t table_size = 1024;
  double table_range = 8.0;
  std::optional<int64_t> multiplier_limit;  // none: no limit
  ConfigLevel multiplier_limit_level = ConfigLevel::Default;
  std::optional<ConstantProducts> constant_products;  // none: kiln rtl searches
  std::optional<AdderDepth> adder_depth;              // none: kiln rtl searches
};
// by_name is looked up under `name`, then under `onnx_name` (name wins per field).
ResolvedLayerConfig resolve_layer_config(const Config& cfg, LayerKind kind, const std::string& name,
                                         const std::string& onnx_name);
ResolvedLayerConfig resolve_layer_config(const Config& cfg, const Layer& layer);

// The config key path a resolved field came from ("LayerName.fc1.ReuseFactor",
// "Model.ReuseFactor", "ReuseFactor (default)"), for messages.
std::string config_key_path(const Config& cfg, const Layer& layer, ConfigLevel level,
                            const std::string& key);

enum class Granularity : uint8_t { Model, Type, Name };
// A complete config a user can edit: top-level keys and a Model block with
// every key at its default; with Type also a LayerType block per layer kind
// in the model, with Name a LayerName block per layer (each with the keys
// that apply to that kind, at the values `model` resolved).
std::string default_config_yaml(const Model& model, Granularity granularity);

}  // namespace kiln::hls

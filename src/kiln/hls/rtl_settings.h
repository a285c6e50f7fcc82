// What a config asks of kiln rtl, as the layer model carries it once the
// config is resolved (layer_passes/resolve_config.cpp): the directive types
// the config's Loop and Buffer blocks are parsed into and the Loop IR keeps
// (loop/loop_ir.h uses these very types, and rtl/plan/plan.h reads plans from and
// writes them to them: one form of directives), the design-wide settings
// (scheduler, latency budget) and each layer's (multiplier limit, interval
// target, convolution form). kiln compile reads none of it; rtl/plan/options.h
// turns it into kiln rtl's options without looking at the config again.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/support/enum_table.h"

namespace kiln::hls {

// The scheduler of every stage (rtl/lower/design.h), set as Model.Scheduler.
enum class RtlScheduler : uint8_t { Asap, List, Sdc };
inline constexpr RtlScheduler kDefaultRtlScheduler = RtlScheduler::List;

// Where kiln rtl builds a layer's products by constants (its weights, where
// the plan unrolls them): shifts and adds in LUTs, or DSP slices (Vitis's
// bind_op impl=fabric / impl=dsp).
enum class ConstantProducts : uint8_t { Lut, Dsp };

// How kiln rtl shares a layer's sums of products by its weights (a constant
// matrix product, rtl/cmvm/cmvm_pass.h): with the fewest adders, or at the least
// adder depth its sums need (shallower, so faster, for some adders more).
enum class AdderDepth : uint8_t { Lean, Least };

// A loop's directives: what a Loop.<layer>/<loop> block says, what the Loop
// IR's loop carries and what a plan sets. An Unroll nobody set leaves the
// loop to the backend: kiln rtl unrolls it fully unless a plan keeps it, C
// would keep it a loop.
struct LoopDirectives {
  // 1: not unrolled (kept as a loop); 0: fully; else a factor of the trip
  // count; unset: the backend's default.
  std::optional<int64_t> unroll;
  std::optional<int> pipeline_ii;  // pipelined with this initiation interval
  bool flatten = false;            // kept together with the one loop its body is
  bool operator==(const LoopDirectives&) const = default;
  // Whether anything is set.
  bool any() const { return unroll || pipeline_ii || flatten; }
};

// How a buffer is stored and partitioned (Vitis's ARRAY_PARTITION and
// BIND_STORAGE): a Buffer.<name> block, and the Loop IR buffer's directives.
enum class BufferPartition : uint8_t { None, Complete, Cyclic, Block };
enum class BufferStorage : uint8_t { Auto, Registers, Lutram, Bram };
struct BufferDirectives {
  BufferPartition partition = BufferPartition::None;
  int64_t factor = 0;  // Cyclic/Block
  int dim = 0;         // the partitioned dimension, 1-based (0 = all, as Vitis's dim=0)
  BufferStorage storage = BufferStorage::Auto;
  // Further dimensions, each partitioned completely (Vitis: one more
  // ARRAY_PARTITION complete per dimension). Config `Dim: [3, 4]`: dim 3
  // takes the Partition (cyclic, block or complete), dim 4 is complete.
  std::vector<int> more_dims;
  bool operator==(const BufferDirectives&) const = default;
};

// The config's Loop.<layer>/<loop> and Buffer.<name> blocks by name (later
// keys win per field), checked against the Loop IR when they are applied
// (loop/directives.h), and where each block is ("config.yaml: Loop.fc/i
// (line 3)") for those checks.
struct ConfiguredDirectives {
  std::map<std::string, LoopDirectives> loops;
  std::map<std::string, BufferDirectives> buffers;
  std::map<std::string, std::string> loop_where, buffer_where;
  // Where the block of loop (buffer) `name` is, or "Loop.<name>" ("Buffer.<name>").
  std::string where_of_loop(const std::string& name) const {
    return where(loop_where, "Loop", name);
  }
  std::string where_of_buffer(const std::string& name) const {
    return where(buffer_where, "Buffer", name);
  }

 private:
  static std::string where(const std::map<std::string, std::string>& w, const char* block,
                           const std::string& name) {
    const auto it = w.find(name);
    return it != w.end() ? it->second : std::string(block) + "." + name;
  }
};

// The design-wide RTL settings.
struct ModelRtlSettings {
  std::optional<RtlScheduler> scheduler;  // Model.Scheduler
  std::optional<int64_t> latency_cycles;  // Model.LatencyCycles
  ConfiguredDirectives directives;
  // Whether the config sets a Strategy anywhere (kiln rtl says it ignores it).
  bool strategy_set = false;
  // Whether the config writes IOType: kiln rtl streams the model's inputs
  // as it says, and otherwise chooses (rtl/plan/options.h input_lanes).
  bool io_type_set = false;
};

// One layer's RTL settings, resolved LayerName > LayerType > Model.
struct LayerRtlSettings {
  // The interval kiln rtl aims at: TargetCycles where it is set at least as
  // specifically as ReuseFactor; else an explicit ReuseFactor (its II in kiln
  // compile's estimate); else none.
  std::optional<int64_t> target_cycles;
  std::optional<int64_t> reuse_factor;
  // The most variable x variable multipliers: the layer's own cap (LayerType
  // or LayerName) or, `shared`, the Model's budget the layers share.
  std::optional<int64_t> multiplier_limit;
  bool multiplier_limit_shared = false;
  // A convolution's form where the config sets ConvImplementation (LineBuffer:
  // streaming with line buffers; Encoded: direct); unset: searched.
  std::optional<bool> line_buffer;
  // Where the config sets ConstantProducts; unset: searched (LUTs when the
  // layer's plan is configured).
  std::optional<ConstantProducts> constant_products;
  // Where the config sets AdderDepth; unset: searched (Lean when the layer's
  // plan is configured).
  std::optional<AdderDepth> adder_depth;
};

}  // namespace kiln::hls

namespace kiln {
template <>
struct EnumNames<hls::BufferPartition> {
  static constexpr std::pair<hls::BufferPartition, std::string_view> kNames[] = {
      {hls::BufferPartition::None, "none"},
      {hls::BufferPartition::Complete, "complete"},
      {hls::BufferPartition::Cyclic, "cyclic"},
      {hls::BufferPartition::Block, "block"}};
};
template <>
struct EnumNames<hls::BufferStorage> {
  static constexpr std::pair<hls::BufferStorage, std::string_view> kNames[] = {
      {hls::BufferStorage::Auto, "auto"},
      {hls::BufferStorage::Registers, "registers"},
      {hls::BufferStorage::Lutram, "lutram"},
      {hls::BufferStorage::Bram, "bram"}};
};
template <>
struct EnumNames<hls::ConstantProducts> {
  static constexpr std::pair<hls::ConstantProducts, std::string_view> kNames[] = {
      {hls::ConstantProducts::Lut, "LUT"}, {hls::ConstantProducts::Dsp, "DSP"}};
};
template <>
struct EnumNames<hls::AdderDepth> {
  static constexpr std::pair<hls::AdderDepth, std::string_view> kNames[] = {
      {hls::AdderDepth::Lean, "Lean"}, {hls::AdderDepth::Least, "Least"}};
};
template <>
struct EnumNames<hls::RtlScheduler> {
  static constexpr std::pair<hls::RtlScheduler, std::string_view> kNames[] = {
      {hls::RtlScheduler::Asap, "asap"},
      {hls::RtlScheduler::List, "list"},
      {hls::RtlScheduler::Sdc, "sdc"}};
};
}  // namespace kiln

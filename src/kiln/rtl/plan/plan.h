// A layer's plan: how one layer (a Loop IR kernel) becomes hardware, as data
// that the searches enumerate and price (price.h), a config gives (the
// Loop/Buffer directives and ConvImplementation, docs/config.md), a design
// report prints, and `kiln rtl` writes back as a config (plans.yaml), so
// that any plan a search finds can be kept.
//
// A plan keeps at most one top-level loop of the kernel as a loop (with the
// loops of the perfect nest inside it when flattened); everything else
// unrolls. The innermost kept loop's body is copied `unroll` times per
// iteration, iterations overlap when it is pipelined, and the weights it reads
// sit in two-port ROM banks (as configured, or `banked`: one bank per copy)
// or in a table per read (`registers`).
// A convolution may be in its line-buffered form (lower_line_buffer.cpp),
// whose loops are that form's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "kiln/hls/model.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::rtl {

// Where a kept loop's weights are.
enum class WeightPlace : uint8_t {
  Rom,        // two-port ROM banks as the config partitions them (one, unless it does)
  Banked,     // ROM banks partitioned along the dimension the body's copies index
              // (banked_partition): each unrolled product reads a bank of its own, as
              // Vitis's array_partition on an unrolled loop's dimension does
  Registers,  // a table per read, indexed by the iteration
};

struct LayerPlan {
  bool line_buffered = false;  // the convolution's streaming form
  int loop = -1;               // the kept loop (index in Kernel::loops); -1: fully unrolled
  // How many loops of the perfect nest below it are kept with it (0: none;
  // 1: the one loop its body is; 2: that loop's too, ...).
  int flatten = 0;
  // Copies of the innermost kept loop's body per iteration (flattened:
  // neighbouring pixels); a factor of that loop's trip count.
  int64_t unroll = 1;
  // Pipelined, with this II asked for (the modulo schedule's floor, as a
  // Pipeline directive's); unset: not pipelined.
  std::optional<int> pipeline_ii;
  WeightPlace weights = WeightPlace::Rom;
  // Products by constants (the weights it unrolls) on DSP slices, not shifts
  // and adds (node_cost.h constant_on_dsp): the config's ConstantProducts.
  bool constants_on_dsps = false;
  // The most DSP multipliers (products of two variables) its products share,
  // 0 for all in LUTs: the config's MultiplierLimit at LayerName. Unset: the
  // config's limit, if any. The searches price a plan on few DSPs too where
  // its products are few (kFewMultipliers): a Softmax's ten on one DSP.
  std::optional<int> multipliers;
  // Its sums of products by constants (LUT products, cmvm_pass.h) shared at
  // the least adder depth they need, not with the fewest adders: the
  // config's AdderDepth. The searches price both where they differ.
  bool least_depth = false;
  bool operator==(const LayerPlan&) const = default;
};

// The canonical one-line text, against the kernel of the plan's form:
// "unrolled", or "loop=oh flatten unroll=4 pipeline=1 weights=registers
// form=line_buffer constants=dsp multipliers=2 depth=least" (weights=banked or
// weights=registers)
// (fields in that order, defaults left out; "flatten" keeps one loop inside,
// "flatten=2" two).
std::string plan_text(const loop::Kernel& kernel, const LayerPlan& plan);
// The inverse. Throws kiln::Error(InvalidModel) at `where` for text that is
// not a plan of `kernel` (an unknown word or loop, an unroll factor that
// does not divide the trip count).
LayerPlan parse_plan(const loop::Kernel& kernel, std::string_view text, const std::string& where);

// "<layer>:<plan text>": the plan's identity in caches and reports, and its
// 64-bit FNV-1a hash (stable across runs and machines).
std::string plan_key(const loop::Kernel& kernel, const LayerPlan& plan);
uint64_t plan_hash(std::string_view key);

// How many iterations the plan's kept loops run per sample (1 for a fully
// unrolled layer): the product of their trip counts over the unroll.
int64_t plan_iterations(const loop::Kernel& kernel, const LayerPlan& plan);
// The Loop IR operations the plan unrolls into hardware (loop::dynamic_ops):
// one iteration of its kept loops, and everything of the kernel outside them.
int64_t plan_unrolled_ops(const loop::Kernel& kernel, const LayerPlan& plan);

// "fully unrolled", "line-buffered, loop n_0_Conv/oh flattened with ow
// unrolled by 4, pipelined": the plan in words, for reports.
std::string describe(const loop::Kernel& kernel, const LayerPlan& plan);

// The plan as the config's directives: Loop.<layer>/<loop> blocks (Pipeline,
// Unroll, Flatten on the kept loop and on each kept loop of the nest but the
// innermost, Unroll on the innermost; a fully unrolled layer: Unroll 0 on its
// first top-level loop), Buffer.<weights> Storage: registers for the weights the kernel
// reads when the plan keeps them there, and the layer's ConvImplementation for a convolution that
// has both forms. `program` holds the kernel in the plan's form.
struct PlanConfig {
  hls::ConfiguredDirectives directives;
  std::optional<hls::ConvImpl> conv_impl;
  hls::ConstantProducts constant_products = hls::ConstantProducts::Lut;
  std::optional<int> multiplier_limit;  // LayerName.<layer>.MultiplierLimit
  hls::AdderDepth adder_depth = hls::AdderDepth::Lean;
};
PlanConfig plan_config(const loop::Program& program, int kernel, const LayerPlan& plan,
                       bool has_line_buffered_form);

// The plan the directives `program` carries give kernel `kernel` (the config
// applied by loop::apply_directives, or a plan applied by apply_plan): the
// converse of plan_config. Throws kiln::Error(Unsupported) at the
// directive's place when they keep more than one top-level loop.
LayerPlan configured_plan(const loop::Program& program, int kernel,
                          const std::map<std::string, std::string>& where = {});

// Sets kernel `kernel`'s loop directives and its weights' storage to `plan`
// (the kernel must be in the plan's form): configured_plan then gives `plan`.
void apply_plan(loop::Program& program, int kernel, const LayerPlan& plan);

// Sets the storage of the weights kernel `kernel` loads to the plan's
// WeightPlace (apply_plan's part for the weights), but for those `keep` names
// (the config's Buffer blocks).
void place_weights(loop::Program& program, int kernel, const LayerPlan& plan,
                   const std::set<std::string>& keep = {});

// The Const buffers kernel `kernel` loads (storage buffers), in order.
std::vector<int> weights_of(const loop::Program& program, int kernel);

// How a Banked plan partitions weight buffer `buffer` so that each of the
// body's unrolled copies reads a bank of its own. The dimensions to bank by
// are those that the kernel's loads index by loops the plan does not keep
// (the copies) and never by kept ones. When the last dimensions are all
// such (or of size 1), and two or more of them are longer than 1, each is
// partitioned completely (a convolution's input and output channels,
// [kh][kw][ci][co] with the window kept: a bank per (ci, co)); else the
// longest such dimension is. When the innermost kept loop is unrolled by u
// and alone indexes a dimension (coefficient 1), that dimension is
// partitioned cyclically by u first, the trailing ones completely (an
// input-channel loop unrolled by 4: a bank per copy and output channel).
// nullopt when there is none (every read moves with the loop).
std::optional<loop::BufferDirectives> banked_partition(const loop::Program& program, int kernel,
                                                       const LayerPlan& plan, int buffer);

// A YAML config fragment with every layer's plan (plan_config's blocks
// under LayerName, Loop and Buffer), headed by `comment` lines.
std::string plans_yaml(const std::vector<PlanConfig>& plans,
                       const std::vector<std::string>& layer_names, const std::string& comment);

}  // namespace kiln::rtl

// The HLS layer model as text: a printer and a parser that round-trip, for
// reading what the layer passes did (`kiln layers --print-after-all`) and
// for writing pass tests as text in, text out.
//
//   layers 1
//   model "lenet5" {io_type=io_stream part="xcvu9p-flga2104-2L-e" clock_period_ns=5}
//   %input: ap_fixed<16,6>[28x28x1] = Input() @input "input"
//   %c1: ap_fixed<16,6>[24x24x6] = Conv(%input) {in_h=28 ...} @conv1 "/conv1/Conv"
//       config {reuse_factor=5 strategy=Resource} constants {weights=[...] bias=[...]}
//   %a: ap_fixed<16,6>[8], %b: ap_fixed<16,6>[8] = Clone(%x) @x_clone
//   input %input "input": [1x1x28x28] perm=[1,2,0]
//   output %y "y": [1x10] perm=[0]
//
// (one line per layer; wrapped here). A layer defines its output tensors
// with their types (the layer's result precision) and shapes; {params} are
// the kind's fields that differ from their defaults (model.h), `config` the
// settings that differ from a default-constructed Layer, `constants` the raw
// (quantized) or float (before the quantize pass) weights and biases. Ports
// close the text in Model::inputs and Model::outputs order. docs/ir.md has
// the grammar.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "kiln/hls/model.h"

namespace kiln::hls {

struct LayerTextOptions {
  // Constant lists longer than this print as `elided` (a listing that cannot
  // be parsed back).
  int64_t inline_limit = std::numeric_limits<int64_t>::max();
};

std::string print_layers(const Model& model, const LayerTextOptions& options = {});
// For listings: constants longer than 16 values elided.
std::string print_layer_listing(const Model& model);

// Parses the text; every mistake is InvalidModel at FILE:LINE:COL (`source`
// names the text), and a model that parses but breaks verify_model()'s rules
// is InvalidModel naming the rule.
Model parse_layers(std::string_view text, const std::string& source);

}  // namespace kiln::hls

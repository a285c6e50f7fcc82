// What a layer's lowering is given (private to loop/): the layer, its
// input and output buffers, and helpers to add its constants and views.
#pragma once

#include <string>
#include <vector>

#include "kiln/hls/model.h"
#include "kiln/loop/builder.h"
#include "kiln/support/names.h"

namespace kiln::loop {

struct LowerContext {
  const hls::Model& model;
  const hls::Layer& layer;
  Program& program;
  NameTable& names;
  std::vector<int> in;   // the layer's input buffers
  std::vector<int> out;  // its output buffers

  // A const buffer named after the layer ("<layer>_<what>").
  int constant(const std::string& what, const FixedType& type, std::vector<int64_t> shape,
               std::vector<int64_t> data);
  // `buffer` seen with `shape` (itself when the shapes agree, else an alias).
  int view(int buffer, const std::vector<int64_t>& shape);
  const Buffer& buffer(int b) const { return program.buffers.at(static_cast<std::size_t>(b)); }
  // The layer's kernel, reading `in` (and its constants) and writing `out`.
  void finish(KernelBuilder& k);
  std::vector<int> consts;  // const buffers made for the layer
};

// y = Q_result(act(a)) for an accumulator value `a` (Dense and Conv fused
// activations: None, Relu, LeakyRelu, Clip).
int fused_activation(KernelBuilder& k, int a, const hls::Activation& act, const FixedType& result,
                     const std::string& layer);

void lower_dense(LowerContext& c);
void lower_conv(LowerContext& c);
void lower_pool(LowerContext& c);
void lower_zero_pad(LowerContext& c);
void lower_matmul(LowerContext& c);
void lower_batchnorm(LowerContext& c);
void lower_activation(LowerContext& c);
void lower_softmax(LowerContext& c);
void lower_binary(LowerContext& c);
void lower_quantize(LowerContext& c);
void lower_concat(LowerContext& c);
void lower_transpose(LowerContext& c);
void lower_slice(LowerContext& c);
void lower_copy(LowerContext& c);  // Reshape and Clone whose types change
void lower_resize(LowerContext& c);
void lower_recurrent(LowerContext& c);

}  // namespace kiln::loop

// The layer model's invariants, checked after every layer pass (support/pass.h).
#pragma once

#include <string>
#include <string_view>

#include "kiln/hls/model.h"
#include "kiln/support/pass.h"

namespace kiln::hls {

// Throws Internal naming the first rule `model` breaks (and `after_pass`):
//  - every tensor index of layers, inputs and outputs is in range, every
//    tensor is written by exactly one layer, tensors are numbered in the
//    order layers write them, and layers come after the producers of what
//    they read;
//  - Input layers are exactly the model's inputs, read nothing and write one
//    tensor; Clone layers write two or more copies of their input's shape and
//    type, every other layer exactly one tensor;
//  - ports: one per model input/output, perm a permutation with
//    tensor shape[i] = ONNX shape (batch dropped)[perm[i]];
//  - layer and tensor names are unique identifiers;
//  - each tensor's type is its producer's precision.result, and each layer's
//    reuse factor is one of valid_reuse_factors();
//  - a layer's parameters agree with its tensors' shapes, and its constants
//    (float before quantization, raw after) have the sizes its kind needs.
void verify_model(const Model& model, std::string_view after_pass);

}  // namespace kiln::hls

namespace kiln {
template <>
struct IrTraits<hls::Model> {
  static constexpr std::string_view kName = "HLS layer model";
  static void verify(const hls::Model& model, std::string_view after_pass) {
    hls::verify_model(model, after_pass);
  }
  static std::string print(const hls::Model& model);  // hls/model_text.h
};
}  // namespace kiln

// Small edits of the layer model that the layer passes share: who reads a
// tensor, adding and removing tensors and layers with every index kept right.
#pragma once

#include <string>
#include <vector>

#include "kiln/hls/model.h"

namespace kiln::hls {

// Indices of the layers reading `tensor`, once per input slot (a layer that
// reads it twice is listed twice), in layer order.
std::vector<int> readers(const Model& model, int tensor);
bool is_model_input(const Model& model, int tensor);
bool is_model_output(const Model& model, int tensor);
// The index of the layer writing `tensor`, or -1.
int producer_index(const Model& model, int tensor);

// Every layer input that reads `from` reads `to` (model outputs untouched).
void replace_reads(Model& model, int from, int to);

// Removes tensor `index` (nothing may refer to it any more); later tensors
// move down by one, and every index in the model follows.
void remove_tensor(Model& model, int index);
// Removes layer `index`.
void remove_layer(Model& model, int index);
// Inserts a tensor before position `index` (the end with index = size);
// indices from `index` on move up by one. Returns `index`.
int insert_tensor(Model& model, int index, TensorInfo tensor);

// A layer or tensor name not used yet in the model, from `base`
// ("x_clone", "x_clone_2", ...).
std::string unused_name(const Model& model, const std::string& base);

}  // namespace kiln::hls

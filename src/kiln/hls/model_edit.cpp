#include "kiln/hls/model_edit.h"

#include <algorithm>
#include <set>

#include "kiln/support/error.h"

namespace kiln::hls {

std::vector<int> readers(const Model& model, int tensor) {
  std::vector<int> out;
  for (std::size_t i = 0; i < model.layers.size(); ++i)
    for (int t : model.layers[i].inputs)
      if (t == tensor) out.push_back(static_cast<int>(i));
  return out;
}

bool is_model_input(const Model& model, int tensor) {
  return std::find(model.inputs.begin(), model.inputs.end(), tensor) != model.inputs.end();
}

bool is_model_output(const Model& model, int tensor) {
  return std::find(model.outputs.begin(), model.outputs.end(), tensor) != model.outputs.end();
}

int producer_index(const Model& model, int tensor) {
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const auto& outs = model.layers[i].outputs;
    if (std::find(outs.begin(), outs.end(), tensor) != outs.end()) return static_cast<int>(i);
  }
  return -1;
}

void replace_reads(Model& model, int from, int to) {
  for (Layer& l : model.layers)
    for (int& t : l.inputs)
      if (t == from) t = to;
}

namespace {
template <class F>
void for_each_index(Model& model, F&& f) {
  for (Layer& l : model.layers) {
    for (int& t : l.inputs) f(t);
    for (int& t : l.outputs) f(t);
  }
  for (int& t : model.inputs) f(t);
  for (int& t : model.outputs) f(t);
}
}  // namespace

void remove_tensor(Model& model, int index) {
  for_each_index(model, [&](int& t) {
    KILN_ASSERT(t != index, "removing tensor '" +
                                model.tensors[static_cast<std::size_t>(index)].name +
                                "', which is still referred to");
    if (t > index) --t;
  });
  model.tensors.erase(model.tensors.begin() + index);
}

void remove_layer(Model& model, int index) {
  model.layers.erase(model.layers.begin() + index);
}

int insert_tensor(Model& model, int index, TensorInfo tensor) {
  for_each_index(model, [&](int& t) {
    if (t >= index) ++t;
  });
  model.tensors.insert(model.tensors.begin() + index, std::move(tensor));
  return index;
}

std::string unused_name(const Model& model, const std::string& base) {
  std::set<std::string> used;
  for (const Layer& l : model.layers) used.insert(l.name);
  for (const TensorInfo& t : model.tensors) used.insert(t.name);
  std::string name = base;
  for (int n = 2; used.count(name) != 0; ++n) name = base + "_" + std::to_string(n);
  return name;
}

}  // namespace kiln::hls

#include "model_builder.h"

#include <unistd.h>

#include <fstream>

namespace kiln::testing {

namespace fs = std::filesystem;

void add_value_info(::onnx::ValueInfoProto* vi, const std::string& name,
                    const std::vector<int64_t>& dims, int elem_type) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

void add_float_initializer(::onnx::GraphProto* g, const std::string& name,
                           const std::vector<int64_t>& dims, float fill) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(fill * static_cast<float>(i % 7 - 3));
}

::onnx::ModelProto small_conv_model() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("kiln-tests");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("small_conv");
  add_value_info(g->add_input(), "x", {1, 1, 4, 4});
  add_value_info(g->add_output(), "y", {1, 2, 4, 4});
  add_float_initializer(g, "w", {2, 1, 3, 3});
  add_float_initializer(g, "b", {2});
  auto* conv = g->add_node();
  conv->set_op_type("Conv");
  conv->set_name("conv1");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_input("b");
  conv->add_output("c");
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(::onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu1");
  relu->add_input("c");
  relu->add_output("y");
  return m;
}

void save_model(const ::onnx::ModelProto& m, const fs::path& path) {
  std::ofstream f(path, std::ios::binary);
  m.SerializeToOstream(&f);
}

fs::path fresh_temp_dir(const std::string& tag) {
  static int counter = 0;
  fs::path p = fs::temp_directory_path() / ("kiln_test_" + tag + "_" + std::to_string(::getpid()) +
                                            "_" + std::to_string(counter++));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

}  // namespace kiln::testing

// Shape inference per op. Expected shapes are worked out by hand from the ONNX
// operator definitions (the arithmetic is in the comments).
#include "kiln/graph/shape_inference.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace kiln {
namespace {

constexpr DType F32 = DType::Float32;

ConvAttrs conv(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
               std::vector<int64_t> d, int64_t group = 1) {
  return ConvAttrs{std::move(k), std::move(s), std::move(p), std::move(d), group};
}

PoolAttrs pool(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
               bool ceil_mode = false) {
  PoolAttrs a;
  a.kernel_shape = std::move(k);
  a.strides = std::move(s);
  a.pads = std::move(p);
  a.dilations.assign(a.kernel_shape.size(), 1);
  a.ceil_mode = ceil_mode;
  return a;
}

class ShapeInference : public ::testing::Test {
 protected:
  ValueId in(Shape s, DType t = F32) { return g.add_value("x", TensorType{t, std::move(s)}); }
  ValueId cst(Tensor t) { return g.add_constant("c", std::move(t)); }

  // Adds node "n" with `num_outputs` fresh outputs (kNoValue where `unused`)
  // and returns the inferred output types.
  std::vector<TensorType> infer(OpKind kind, std::vector<ValueId> inputs, Attrs attrs = {},
                                int num_outputs = 1, std::vector<int> unused = {}) {
    std::vector<ValueId> outs;
    for (int i = 0; i < num_outputs; ++i) {
      bool skip = false;
      for (int u : unused) skip = skip || u == i;
      outs.push_back(skip ? kNoValue : g.add_value("y", TensorType{}));
    }
    const Node& n = g.add_node(kind, "n", std::move(inputs), std::move(outs), std::move(attrs));
    return infer_node_types(g, n);
  }
  Shape shape_of(OpKind kind, std::vector<ValueId> inputs, Attrs attrs = {}) {
    auto types = infer(kind, std::move(inputs), std::move(attrs));
    EXPECT_EQ(types.size(), 1u);
    return types.empty() ? Shape{-1} : types[0].shape;
  }

  // Expects inference to throw `kind` with a one-line message that starts with
  // the node ("Conv 'n': ...") and contains every fragment.
  void expect_error(OpKind op, std::vector<ValueId> inputs, Attrs attrs,
                    std::initializer_list<std::string> fragments, int num_outputs = 1,
                    ErrorKind kind = ErrorKind::InvalidModel) {
    try {
      infer(op, std::move(inputs), std::move(attrs), num_outputs);
      ADD_FAILURE() << "no error for " << op_name(op);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.message();
      const std::string prefix = std::string(op_name(op)) + " 'n': ";
      // Internal errors (importer bugs) are located in kiln's source instead.
      if (kind != ErrorKind::Internal) {
        EXPECT_EQ(e.message().rfind(prefix, 0), 0u) << e.message();
      }
      EXPECT_EQ(e.message().find('\n'), std::string::npos) << e.message();
      for (const std::string& f : fragments)
        EXPECT_NE(e.message().find(f), std::string::npos)
            << "'" << f << "' not in: " << e.message();
    }
  }

  Graph g;
};

// ---- window_output_size --------------------------------------------------------

TEST(WindowOutputSize, FloorMode) {
  EXPECT_EQ(window_output_size(32, 3, 1, 1, 1, 1, false), 32);  // (32+2-3)/1+1
  EXPECT_EQ(window_output_size(32, 3, 2, 0, 0, 1, false), 15);  // 29/2=14, +1
  EXPECT_EQ(window_output_size(10, 3, 1, 0, 0, 4, false), 2);   // effective kernel 9: 1/1+1
  EXPECT_EQ(window_output_size(5, 2, 2, 0, 0, 1, false), 2);    // 3/2=1, +1
}

TEST(WindowOutputSize, CeilModeAddsPartialWindow) {
  // span 3, ceil(3/2)=2, +1 = 3; last window starts at 4 < 5: kept.
  EXPECT_EQ(window_output_size(5, 2, 2, 0, 0, 1, true), 3);
}

TEST(WindowOutputSize, CeilModeDropsWindowStartingInEndPadding) {
  // in=4 k=2 s=2 pads 0,1: span 3 -> ceil 2 -> 3 windows, but the third starts
  // at 4 >= in + pad_begin = 4, i.e. only in the end padding: dropped -> 2.
  EXPECT_EQ(window_output_size(4, 2, 2, 0, 1, 1, true), 2);
  EXPECT_EQ(window_output_size(4, 2, 2, 0, 1, 1, false), 2);  // floor(3/2)+1
  // in=5 k=3 s=3 pads 1,1: span 4 -> ceil(4/3)=2 -> 3; start 6 >= 5+1: dropped -> 2.
  EXPECT_EQ(window_output_size(5, 3, 3, 1, 1, 1, true), 2);
  // in=6 k=2 s=2 pads 1,1: span 6 -> 3+1 = 4; last start 6 < 6+1: kept.
  EXPECT_EQ(window_output_size(6, 2, 2, 1, 1, 1, true), 4);
}

TEST(WindowOutputSize, WindowLargerThanPaddedInputGivesZero) {
  EXPECT_EQ(window_output_size(3, 5, 1, 0, 0, 1, false), 0);
  EXPECT_EQ(window_output_size(3, 5, 1, 1, 1, 1, false), 1);  // 3+2-5 = 0 -> one window
  EXPECT_EQ(window_output_size(3, 2, 1, 0, 0, 3, true), 0);   // effective kernel 4 > 3
}

// ---- Conv -----------------------------------------------------------------------

TEST_F(ShapeInference, ConvSamePadding) {
  ValueId x = in({1, 3, 32, 32});
  ValueId w = in({8, 3, 3, 3});
  ValueId b = in({8});
  EXPECT_EQ(shape_of(OpKind::Conv, {x, w, b}, conv({3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1})),
            (Shape{1, 8, 32, 32}));
}

TEST_F(ShapeInference, ConvStridesAsymmetricPadsDilations) {
  // H: 10 + 1 + 2 - 2*(3-1) - 1 = 8, /1 + 1 = 9.  W: 12 + 0 + 1 - 3*2 - 1 = 6, /2 + 1 = 4.
  ValueId x = in({2, 4, 10, 12});
  ValueId w = in({6, 4, 3, 3});
  EXPECT_EQ(shape_of(OpKind::Conv, {x, w}, conv({3, 3}, {1, 2}, {1, 0, 2, 1}, {2, 3})),
            (Shape{2, 6, 9, 4}));
}

TEST_F(ShapeInference, ConvGroupedAndDepthwise) {
  ValueId x = in({1, 4, 5, 5});
  ValueId w = in({6, 2, 3, 3});  // group 2: 4/2 = 2 channels per group
  EXPECT_EQ(shape_of(OpKind::Conv, {x, w}, conv({3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 2)),
            (Shape{1, 6, 3, 3}));
  // Depthwise, stride 2, pad 1: (7 + 2 - 3)/2 + 1 = 4.
  ValueId xd = in({1, 8, 7, 7});
  ValueId wd = in({8, 1, 3, 3});
  EXPECT_EQ(
      shape_of(OpKind::Conv, {xd, wd, kNoValue}, conv({3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 8)),
      (Shape{1, 8, 4, 4}));
}

TEST_F(ShapeInference, Conv1DAnd3D) {
  ValueId x = in({1, 2, 10});
  ValueId w = in({4, 2, 3});
  EXPECT_EQ(shape_of(OpKind::Conv, {x, w}, conv({3}, {1}, {0, 0}, {1})), (Shape{1, 4, 8}));
  // (10 + 2 - 3)/3 + 1 = 4
  EXPECT_EQ(shape_of(OpKind::Conv, {x, w}, conv({3}, {3}, {1, 1}, {1})), (Shape{1, 4, 4}));
  ValueId x3 = in({1, 1, 4, 5, 6});
  ValueId w3 = in({2, 1, 2, 2, 2});
  EXPECT_EQ(
      shape_of(OpKind::Conv, {x3, w3}, conv({2, 2, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1})),
      (Shape{1, 2, 3, 4, 5}));
}

TEST_F(ShapeInference, ConvKernelFitsOnlyWithPadding) {
  ValueId x = in({1, 1, 3, 3});
  ValueId w = in({1, 1, 5, 5});
  EXPECT_EQ(shape_of(OpKind::Conv, {x, w}, conv({5, 5}, {1, 1}, {1, 1, 1, 1}, {1, 1})),
            (Shape{1, 1, 1, 1}));
  expect_error(OpKind::Conv, {x, w}, conv({5, 5}, {1, 1}, {0, 0, 0, 0}, {1, 1}),
               {"larger than the padded input", "float32[1x1x3x3]"});
}

TEST_F(ShapeInference, ConvErrors) {
  ValueId x = in({1, 3, 5, 5});
  ValueId w = in({4, 3, 3, 3});
  const ConvAttrs ok = conv({3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1});
  // group does not divide the 3 input channels
  expect_error(OpKind::Conv, {x, in({4, 1, 3, 3})}, conv({3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 2),
               {"3 channels, not divisible by group 2"});
  // weight channels disagree with input channels
  expect_error(OpKind::Conv, {x, in({4, 2, 3, 3})}, ok,
               {"float32[4x2x3x3]", "2 input channels per group", "float32[1x3x5x5]"});
  // output channels not divisible by group
  expect_error(OpKind::Conv, {in({1, 4, 5, 5}), in({3, 2, 3, 3})},
               conv({3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 2), {"3 output channels"});
  expect_error(OpKind::Conv, {x, w}, conv({3, 3}, {1, 0}, {0, 0, 0, 0}, {1, 1}), {"strides 1,0"});
  expect_error(OpKind::Conv, {x, w}, conv({3, 3}, {1, 1}, {0, 0, 0, 0}, {0, 1}), {"dilations"});
  expect_error(OpKind::Conv, {x, w}, conv({3, 3}, {1, 1}, {0, -1, 0, 0}, {1, 1}), {"pads"});
  expect_error(OpKind::Conv, {x, w}, conv({3, 3}, {1}, {0, 0, 0, 0}, {1, 1}),
               {"strides has 1 entries", "2 spatial dimensions"});
  expect_error(OpKind::Conv, {x, w}, conv({3, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}),
               {"kernel_shape 3,2 does not match W float32[4x3x3x3]"});
  expect_error(OpKind::Conv, {x, w}, conv({3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 0), {"group 0"});
  expect_error(OpKind::Conv, {x, w, in({3})}, ok, {"B float32[3]", "[4]"});
  expect_error(OpKind::Conv, {in({3, 5}), in({4, 3})}, conv({}, {}, {}, {}), {"rank >= 3"});
  expect_error(OpKind::Conv, {x, in({4, 3, 3})}, ok, {"must have the rank of"});
  expect_error(OpKind::Conv, {in({1, 3, 5, 5}, DType::Int32), w}, ok, {"int32", "float32"});
  expect_error(OpKind::Conv, {x, in({4, 3, 3, 3}, DType::Float64)}, ok,
               {"different element types"});
  expect_error(OpKind::Conv, {x, kNoValue}, ok, {"required input 1 (W) is missing"});
  expect_error(OpKind::Conv, {x, w, kNoValue, x}, ok, {"expected 2 to 3 inputs, got 4"});
  expect_error(OpKind::Conv, {x, w}, ok, {"expected 1 output, got 2"}, 2);
}

// ---- Pooling --------------------------------------------------------------------

TEST_F(ShapeInference, MaxPoolFloorAndCeil) {
  ValueId x = in({1, 3, 5, 5});
  EXPECT_EQ(shape_of(OpKind::MaxPool, {x}, pool({2, 2}, {2, 2}, {0, 0, 0, 0})),
            (Shape{1, 3, 2, 2}));
  EXPECT_EQ(shape_of(OpKind::MaxPool, {x}, pool({2, 2}, {2, 2}, {0, 0, 0, 0}, true)),
            (Shape{1, 3, 3, 3}));
  // in=5 k=3 s=3 pads 1,1 ceil: 3 windows by the formula, the last starts in the end padding.
  EXPECT_EQ(shape_of(OpKind::AveragePool, {x}, pool({3, 3}, {3, 3}, {1, 1, 1, 1}, true)),
            (Shape{1, 3, 2, 2}));
}

TEST_F(ShapeInference, PoolCeilDropsLastWindowInEndPadding) {
  // in=4 k=2 s=2, end pads 1: ceil((4+1-2)/2)+1 = 3, third window starts at 4 = in: dropped.
  ValueId x = in({1, 1, 4, 4});
  EXPECT_EQ(shape_of(OpKind::MaxPool, {x}, pool({2, 2}, {2, 2}, {0, 0, 1, 1}, true)),
            (Shape{1, 1, 2, 2}));
  EXPECT_EQ(shape_of(OpKind::MaxPool, {x}, pool({2, 2}, {2, 2}, {0, 0, 1, 1}, false)),
            (Shape{1, 1, 2, 2}));
}

TEST_F(ShapeInference, Pool1DAndDilated) {
  EXPECT_EQ(shape_of(OpKind::AveragePool, {in({1, 2, 9})}, pool({3}, {2}, {0, 0})),
            (Shape{1, 2, 4}));  // (9-3)/2+1
  PoolAttrs a = pool({2, 2}, {1, 1}, {0, 0, 0, 0});
  a.dilations = {2, 2};  // effective kernel 3: 4-3+1 = 2
  EXPECT_EQ(shape_of(OpKind::MaxPool, {in({1, 1, 4, 4})}, a), (Shape{1, 1, 2, 2}));
}

TEST_F(ShapeInference, MaxPoolIndicesOutput) {
  auto types = infer(OpKind::MaxPool, {in({1, 2, 4, 4})}, pool({2, 2}, {2, 2}, {0, 0, 0, 0}), 2);
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0], (TensorType{F32, {1, 2, 2, 2}}));
  EXPECT_EQ(types[1], (TensorType{DType::Int64, {1, 2, 2, 2}}));
  // Inferred even when the model does not use the indices.
  types = infer(OpKind::MaxPool, {in({1, 2, 4, 4})}, pool({2, 2}, {2, 2}, {0, 0, 0, 0}), 2, {1});
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[1].dtype, DType::Int64);
}

TEST_F(ShapeInference, PoolErrors) {
  ValueId x = in({1, 3, 5, 5});
  expect_error(OpKind::AveragePool, {x}, pool({2, 2}, {2, 2}, {0, 0, 0, 0}),
               {"expected 1 output, got 2"}, 2);
  expect_error(OpKind::AveragePool, {in({1, 3, 5, 5}, DType::Int32)},
               pool({2, 2}, {2, 2}, {0, 0, 0, 0}), {"int32"});
  expect_error(OpKind::MaxPool, {x}, pool({2, 2}, {2, 2}, {2, 0, 0, 0}),
               {"pads 2,0,0,0", "kernel_shape 2,2"});
  expect_error(OpKind::MaxPool, {x}, pool({6, 6}, {1, 1}, {0, 0, 0, 0}),
               {"larger than the padded input"});
  expect_error(OpKind::MaxPool, {x}, pool({2, 2}, {0, 2}, {0, 0, 0, 0}), {"strides"});
  expect_error(OpKind::MaxPool, {in({3, 5})}, pool({2}, {1}, {0, 0}), {"rank >= 3"});
  // ONNX MaxPool accepts uint8.
  EXPECT_EQ(infer(OpKind::MaxPool, {in({1, 1, 4, 4}, DType::UInt8)},
                  pool({2, 2}, {2, 2}, {0, 0, 0, 0}))[0],
            (TensorType{DType::UInt8, {1, 1, 2, 2}}));
}

TEST_F(ShapeInference, GlobalPools) {
  EXPECT_EQ(shape_of(OpKind::GlobalAveragePool, {in({2, 3, 7, 5})}), (Shape{2, 3, 1, 1}));
  EXPECT_EQ(shape_of(OpKind::GlobalMaxPool, {in({1, 4, 2, 3, 4})}), (Shape{1, 4, 1, 1, 1}));
  expect_error(OpKind::GlobalMaxPool, {in({4, 2})}, {}, {"rank >= 3", "float32[4x2]"});
}

// ---- Gemm, MatMul, BatchNormalization -------------------------------------------

TEST_F(ShapeInference, Gemm) {
  ValueId a = in({4, 3});
  ValueId b = in({3, 5});
  EXPECT_EQ(shape_of(OpKind::Gemm, {a, b}, GemmAttrs{}), (Shape{4, 5}));
  for (Shape c : {Shape{5}, Shape{4, 1}, Shape{4, 5}, Shape{}, Shape{1, 5}})
    EXPECT_EQ(shape_of(OpKind::Gemm, {a, b, in(c)}, GemmAttrs{}), (Shape{4, 5}))
        << shape_to_string(c);
  GemmAttrs t;
  t.trans_a = true;
  t.trans_b = true;
  EXPECT_EQ(shape_of(OpKind::Gemm, {in({3, 4}), in({5, 3})}, t), (Shape{4, 5}));
}

TEST_F(ShapeInference, GemmErrors) {
  ValueId a = in({4, 3});
  ValueId b = in({3, 5});
  expect_error(OpKind::Gemm, {a, in({4, 5})}, GemmAttrs{},
               {"K=3", "K=4", "float32[4x3]", "float32[4x5]"});
  expect_error(OpKind::Gemm, {a, b, in({3, 5})}, GemmAttrs{},
               {"C float32[3x5] does not broadcast", "[4x5]"});
  expect_error(OpKind::Gemm, {a, b, in({1, 4, 5})}, GemmAttrs{}, {"does not broadcast"});
  expect_error(OpKind::Gemm, {in({2, 4, 3}), b}, GemmAttrs{}, {"rank 2"});
  expect_error(OpKind::Gemm, {in({4, 3}, DType::Bool), in({3, 5}, DType::Bool)}, GemmAttrs{},
               {"bool"});
}

TEST_F(ShapeInference, MatMul) {
  EXPECT_EQ(shape_of(OpKind::MatMul, {in({2, 3}), in({3, 4})}), (Shape{2, 4}));
  EXPECT_EQ(shape_of(OpKind::MatMul, {in({3}), in({3})}), (Shape{}));  // dot product
  EXPECT_EQ(shape_of(OpKind::MatMul, {in({3}), in({3, 4})}), (Shape{4}));
  EXPECT_EQ(shape_of(OpKind::MatMul, {in({2, 3}), in({3})}), (Shape{2}));
  EXPECT_EQ(shape_of(OpKind::MatMul, {in({3}), in({2, 3, 4})}), (Shape{2, 4}));
  EXPECT_EQ(shape_of(OpKind::MatMul, {in({2, 5, 3}), in({3})}), (Shape{2, 5}));
  // batch [2,1] with [5] -> [2,5]
  EXPECT_EQ(shape_of(OpKind::MatMul, {in({2, 1, 4, 3}), in({5, 3, 6})}), (Shape{2, 5, 4, 6}));
}

TEST_F(ShapeInference, MatMulErrors) {
  expect_error(OpKind::MatMul, {in({2, 3}), in({4, 5})}, {}, {"K=3", "K=4"});
  expect_error(OpKind::MatMul, {in({3}), in({4})}, {}, {"K=3", "K=4"});
  expect_error(OpKind::MatMul, {in({2, 4, 3}), in({3, 3, 5})}, {},
               {"batch dimensions", "float32[2x4x3]", "float32[3x3x5]"});
  expect_error(OpKind::MatMul, {in({}), in({3})}, {}, {"rank >= 1"});
}

TEST_F(ShapeInference, BatchNormalization) {
  ValueId x = in({1, 4, 5, 5});
  ValueId c = in({4});
  EXPECT_EQ(shape_of(OpKind::BatchNormalization, {x, c, c, c, c}, BatchNormAttrs{}),
            (Shape{1, 4, 5, 5}));
  // Unused training outputs are still typed ([C]).
  auto types = infer(OpKind::BatchNormalization, {x, c, c, c, c}, BatchNormAttrs{}, 3, {1, 2});
  ASSERT_EQ(types.size(), 3u);
  EXPECT_EQ(types[2], (TensorType{F32, {4}}));
  expect_error(OpKind::BatchNormalization, {x, c, c, in({3}), c}, BatchNormAttrs{},
               {"mean float32[3]", "[4]"});
  expect_error(OpKind::BatchNormalization, {x, c, c, c}, BatchNormAttrs{},
               {"expected 5 inputs, got 4"});
  // A used training output is an importer bug.
  expect_error(OpKind::BatchNormalization, {x, c, c, c, c}, BatchNormAttrs{}, {}, 2,
               ErrorKind::Internal);
}

// ---- Elementwise ----------------------------------------------------------------

TEST_F(ShapeInference, UnaryKeepsType) {
  EXPECT_EQ(infer(OpKind::Relu, {in({2, 3})})[0], (TensorType{F32, {2, 3}}));
  EXPECT_EQ(infer(OpKind::Relu, {in({2}, DType::Int32)})[0], (TensorType{DType::Int32, {2}}));
  EXPECT_EQ(infer(OpKind::Abs, {in({2}, DType::UInt8)})[0], (TensorType{DType::UInt8, {2}}));
  EXPECT_EQ(infer(OpKind::Sigmoid, {in({}, DType::Float64)})[0], (TensorType{DType::Float64, {}}));
  EXPECT_EQ(infer(OpKind::LeakyRelu, {in({1, 2})}, LeakyReluAttrs{})[0].shape, (Shape{1, 2}));
  expect_error(OpKind::Sigmoid, {in({2}, DType::Int32)}, {}, {"int32", "float32 or float64"});
  expect_error(OpKind::Exp, {in({2}, DType::Bool)}, {}, {"bool"});
  expect_error(OpKind::Relu, {in({2}), in({2})}, {}, {"expected 1 input, got 2"});
}

TEST_F(ShapeInference, PRelu) {
  ValueId x = in({1, 3, 4, 4});
  EXPECT_EQ(shape_of(OpKind::PRelu, {x, in({3, 1, 1})}), (Shape{1, 3, 4, 4}));
  EXPECT_EQ(shape_of(OpKind::PRelu, {x, in({1})}), (Shape{1, 3, 4, 4}));
  expect_error(OpKind::PRelu, {x, in({3})}, {}, {"slope float32[3] does not broadcast"});
  expect_error(OpKind::PRelu, {in({3}), in({1, 3})}, {}, {"does not broadcast"});
}

TEST_F(ShapeInference, Clip) {
  ValueId x = in({2, 3});
  EXPECT_EQ(shape_of(OpKind::Clip, {x, in({}), in({1})}), (Shape{2, 3}));
  EXPECT_EQ(shape_of(OpKind::Clip, {x, kNoValue, in({})}), (Shape{2, 3}));
  EXPECT_EQ(shape_of(OpKind::Clip, {x}), (Shape{2, 3}));
  EXPECT_EQ(infer(OpKind::Clip, {in({2}, DType::Int8), in({}, DType::Int8)})[0].dtype, DType::Int8);
  expect_error(OpKind::Clip, {x, in({2})}, {}, {"min float32[2] must be a scalar"});
  expect_error(OpKind::Clip, {x, in({}, DType::Int32)}, {}, {"different element types"});
  expect_error(OpKind::Clip, {x, in({}), in({}), in({})}, {}, {"expected 1 to 3 inputs"});
}

TEST_F(ShapeInference, Softmax) {
  EXPECT_EQ(shape_of(OpKind::Softmax, {in({2, 3, 4})}, SoftmaxAttrs{2, false}), (Shape{2, 3, 4}));
  EXPECT_EQ(shape_of(OpKind::LogSoftmax, {in({2, 3})}, SoftmaxAttrs{1, true}), (Shape{2, 3}));
  expect_error(OpKind::Softmax, {in({2, 3, 4})}, SoftmaxAttrs{3, false},
               {"axis 3 is out of range", "float32[2x3x4]"});
}

TEST_F(ShapeInference, BroadcastShapes) {
  EXPECT_EQ(broadcast_shapes({2, 1, 4}, {3, 1}, "w"), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({}, {2, 2}, "w"), (Shape{2, 2}));
  EXPECT_EQ(broadcast_shapes({5}, {1}, "w"), (Shape{5}));
  EXPECT_EQ(broadcast_shapes({0}, {1}, "w"), (Shape{0}));
  EXPECT_EQ(broadcast_shapes({1, 3}, {4, 1}, "w"), (Shape{4, 3}));
  try {
    broadcast_shapes({2, 3}, {4, 3}, "here");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
    EXPECT_EQ(e.message().rfind("here: cannot broadcast [2x3] with [4x3]", 0), 0u) << e.message();
  }
  EXPECT_THROW(broadcast_shapes({0}, {3}, "w"), Error);
}

TEST_F(ShapeInference, BinaryBroadcast) {
  EXPECT_EQ(shape_of(OpKind::Add, {in({2, 1, 4}), in({3, 1})}), (Shape{2, 3, 4}));
  EXPECT_EQ(shape_of(OpKind::Div, {in({}), in({2, 2})}), (Shape{2, 2}));
  EXPECT_EQ(infer(OpKind::Mul, {in({2}, DType::UInt8), in({2}, DType::UInt8)})[0].dtype,
            DType::UInt8);
  expect_error(OpKind::Sub, {in({2, 3}), in({4, 3})}, {},
               {"cannot broadcast A float32[2x3] with B float32[4x3]"});
  expect_error(OpKind::Add, {in({2}), in({2}, DType::Int64)}, {}, {"different element types"});
  expect_error(OpKind::Add, {in({2}, DType::Bool), in({2}, DType::Bool)}, {}, {"bool"});
  expect_error(OpKind::Add, {in({2})}, {}, {"expected 2 inputs, got 1"});
}

TEST_F(ShapeInference, VariadicBroadcast) {
  EXPECT_EQ(shape_of(OpKind::Sum, {in({3, 1}), in({1, 4}), in({2, 1, 1})}), (Shape{2, 3, 4}));
  EXPECT_EQ(shape_of(OpKind::Mean, {in({3})}), (Shape{3}));
  EXPECT_EQ(infer(OpKind::Max, {in({2}, DType::Int8), in({1}, DType::Int8)})[0],
            (TensorType{DType::Int8, {2}}));
  expect_error(OpKind::Min, {in({3}), in({4, 1}), in({5, 1})}, {},
               {"cannot broadcast [4x3] with input 2 float32[5x1]"});
  expect_error(OpKind::Mean, {in({2}, DType::Int32)}, {}, {"int32"});
  expect_error(OpKind::Sum, {}, {}, {"at least 1 input, got 0"});
}

// ---- Data movement --------------------------------------------------------------

TEST_F(ShapeInference, Concat) {
  EXPECT_EQ(shape_of(OpKind::Concat, {in({2, 3, 4}), in({2, 5, 4}), in({2, 1, 4})}, ConcatAttrs{1}),
            (Shape{2, 9, 4}));
  expect_error(OpKind::Concat, {in({2, 3, 4}), in({2, 5, 5})}, ConcatAttrs{1},
               {"float32[2x5x5] does not match input 0 float32[2x3x4]"});
  expect_error(OpKind::Concat, {in({2, 3}), in({2, 3, 1})}, ConcatAttrs{1}, {"does not match"});
  expect_error(OpKind::Concat, {in({2, 3})}, ConcatAttrs{2}, {"axis 2 is out of range"});
}

SliceAttrs slice(std::vector<int64_t> s, std::vector<int64_t> e, std::vector<int64_t> st) {
  return SliceAttrs{std::move(s), std::move(e), std::move(st)};
}

TEST_F(ShapeInference, Slice) {
  ValueId x = in({10, 6});
  // axis 0: 1,4,7 -> 3.  axis 1: 5,3,1 -> ceil((-1-5)/-2) = 3.
  EXPECT_EQ(shape_of(OpKind::Slice, {x}, slice({1, 5}, {8, -1}, {3, -2})), (Shape{3, 3}));
  // Full reverse: 9..0 -> 10; empty forward slice; one element with a huge step.
  EXPECT_EQ(shape_of(OpKind::Slice, {x}, slice({9, 5}, {-1, 2}, {-1, 1})), (Shape{10, 0}));
  EXPECT_EQ(shape_of(OpKind::Slice, {x}, slice({0, 2}, {10, 6}, {1, 1000})), (Shape{10, 1}));
  // ceil((0-5)/-3) = 2: indices 5, 2.
  EXPECT_EQ(shape_of(OpKind::Slice, {x}, slice({0, 5}, {10, 0}, {1, -3})), (Shape{10, 2}));
}

TEST_F(ShapeInference, SliceErrors) {
  ValueId x = in({10, 6});
  expect_error(OpKind::Slice, {x}, slice({0, 0}, {10, 6}, {1, 0}), {"step is 0", "axis 1"});
  expect_error(OpKind::Slice, {x}, slice({0, 0}, {20, 6}, {1, 1}), {"not clamped", "axis 0"});
  expect_error(OpKind::Slice, {x}, slice({0}, {10}, {1}), {"one entry per dimension"});
  // Backward slice starting at 6 == dim would read out of bounds.
  expect_error(OpKind::Slice, {x}, slice({0, 6}, {10, 0}, {1, -1}), {"reads outside"});
}

TEST_F(ShapeInference, Flatten) {
  ValueId x = in({2, 3, 4});
  EXPECT_EQ(shape_of(OpKind::Flatten, {x}, FlattenAttrs{0}), (Shape{1, 24}));
  EXPECT_EQ(shape_of(OpKind::Flatten, {x}, FlattenAttrs{2}), (Shape{6, 4}));
  EXPECT_EQ(shape_of(OpKind::Flatten, {x}, FlattenAttrs{3}), (Shape{24, 1}));
  EXPECT_EQ(shape_of(OpKind::Flatten, {in({})}, FlattenAttrs{0}), (Shape{1, 1}));
  expect_error(OpKind::Flatten, {x}, FlattenAttrs{4}, {"axis 4 is out of range"});
}

TEST_F(ShapeInference, Reshape) {
  ValueId x = in({2, 3, 4});
  EXPECT_EQ(shape_of(OpKind::Reshape, {x}, ReshapeAttrs{{6, 4}}), (Shape{6, 4}));
  EXPECT_EQ(shape_of(OpKind::Reshape, {in({1})}, ReshapeAttrs{{}}), (Shape{}));
  expect_error(OpKind::Reshape, {x}, ReshapeAttrs{{5, 5}},
               {"float32[2x3x4] (24 elements)", "[5x5] (25 elements)"});
  expect_error(OpKind::Reshape, {x}, ReshapeAttrs{{-1, 4}},
               {"target shape [-1x4] has a negative dimension"});
}

TEST_F(ShapeInference, Transpose) {
  EXPECT_EQ(shape_of(OpKind::Transpose, {in({2, 3, 4})}, TransposeAttrs{{2, 0, 1}}),
            (Shape{4, 2, 3}));
  expect_error(OpKind::Transpose, {in({2, 3, 4})}, TransposeAttrs{{0, 0, 1}},
               {"perm 0,0,1 is not a permutation"});
  expect_error(OpKind::Transpose, {in({2, 3, 4})}, TransposeAttrs{{1, 0}}, {"not a permutation"});
  expect_error(OpKind::Transpose, {in({2, 3})}, TransposeAttrs{{0, 2}}, {"not a permutation"});
}

TEST_F(ShapeInference, SqueezeUnsqueeze) {
  ValueId x = in({1, 3, 1, 5});
  EXPECT_EQ(shape_of(OpKind::Squeeze, {x}, AxesAttrs{{0, 2}}), (Shape{3, 5}));
  EXPECT_EQ(shape_of(OpKind::Squeeze, {x}, AxesAttrs{{2}}), (Shape{1, 3, 5}));
  EXPECT_EQ(shape_of(OpKind::Squeeze, {x}, AxesAttrs{}), (Shape{3, 5}));  // ONNX: all 1-dims
  expect_error(OpKind::Squeeze, {x}, AxesAttrs{{1}},
               {"cannot squeeze axis 1 of X float32[1x3x1x5]: its size is 3"});
  expect_error(OpKind::Squeeze, {x}, AxesAttrs{{4}}, {"axis 4 is out of range"});
  expect_error(OpKind::Squeeze, {x}, AxesAttrs{{2, 0}}, {"not sorted"});

  ValueId y = in({3, 4});
  EXPECT_EQ(shape_of(OpKind::Unsqueeze, {y}, AxesAttrs{{0, 3}}), (Shape{1, 3, 4, 1}));
  EXPECT_EQ(shape_of(OpKind::Unsqueeze, {y}, AxesAttrs{{1}}), (Shape{3, 1, 4}));
  EXPECT_EQ(shape_of(OpKind::Unsqueeze, {in({})}, AxesAttrs{{0}}), (Shape{1}));
  expect_error(OpKind::Unsqueeze, {y}, AxesAttrs{{3}}, {"out of range for the output of rank 3"});
  expect_error(OpKind::Unsqueeze, {y}, AxesAttrs{{1, 1}}, {"not sorted and unique"});
}

TEST_F(ShapeInference, Pad) {
  ValueId x = in({2, 3});
  // begins (1, 0), ends (2, -1): [2+1+2, 3+0-1]
  EXPECT_EQ(shape_of(OpKind::Pad, {x}, PadAttrs{{1, 0, 2, -1}}), (Shape{5, 2}));
  EXPECT_EQ(shape_of(OpKind::Pad, {x}, PadAttrs{{0, -3, 0, 0}}), (Shape{2, 0}));
  expect_error(OpKind::Pad, {x}, PadAttrs{{0, -2, 0, -2}}, {"crop more", "axis 1"});
  expect_error(OpKind::Pad, {x}, PadAttrs{{0, -4, 0, 5}}, {"crop more", "axis 1"});
  expect_error(OpKind::Pad, {x}, PadAttrs{{1, 1}}, {"2 entries per dimension"});
  PadAttrs reflect{{0, 3, 0, 0}, PadMode::Reflect, 0.0};
  expect_error(OpKind::Pad, {x}, reflect, {"reflect"}, 1, ErrorKind::Unsupported);
}

TEST_F(ShapeInference, Gather) {
  ValueId data = in({5, 4, 3});
  EXPECT_EQ(shape_of(OpKind::Gather, {data, in({2, 6}, DType::Int64)}, GatherAttrs{1}),
            (Shape{5, 2, 6, 3}));
  EXPECT_EQ(shape_of(OpKind::Gather, {data, in({}, DType::Int32)}, GatherAttrs{0}), (Shape{4, 3}));
  EXPECT_EQ(shape_of(OpKind::Gather, {data, cst(Tensor::from_vector<int64_t>({2}, {-5, 4}))},
                     GatherAttrs{0}),
            (Shape{2, 4, 3}));
  expect_error(OpKind::Gather, {data, cst(Tensor::from_vector<int64_t>({2}, {0, 5}))},
               GatherAttrs{0}, {"index 5 is out of range for axis 0"});
  expect_error(OpKind::Gather, {data, in({2})}, GatherAttrs{0}, {"indices float32[2]", "int64"});
  expect_error(OpKind::Gather, {data, in({2}, DType::Int64)}, GatherAttrs{3},
               {"axis 3 is out of range"});
}

TEST_F(ShapeInference, CastAndShape) {
  EXPECT_EQ(infer(OpKind::Cast, {in({2, 3})}, CastAttrs{DType::Int64})[0],
            (TensorType{DType::Int64, {2, 3}}));
  EXPECT_EQ(infer(OpKind::Shape, {in({1, 2, 3, 4})}, ShapeAttrs{1, 3})[0],
            (TensorType{DType::Int64, {2}}));
  EXPECT_EQ(infer(OpKind::Shape, {in({1, 2, 3, 4})}, ShapeAttrs{0, 4})[0],
            (TensorType{DType::Int64, {4}}));
  expect_error(OpKind::Shape, {in({1, 2})}, ShapeAttrs{0, 3}, {"not clamped"});
}

TEST_F(ShapeInference, Reductions) {
  ValueId x = in({2, 3, 4});
  EXPECT_EQ(shape_of(OpKind::ReduceMean, {x}, ReduceAttrs{{1}, true}), (Shape{2, 1, 4}));
  EXPECT_EQ(shape_of(OpKind::ReduceSum, {x}, ReduceAttrs{{0, 2}, false}), (Shape{3}));
  EXPECT_EQ(shape_of(OpKind::ReduceMax, {x}, ReduceAttrs{{0, 1, 2}, false}), (Shape{}));
  EXPECT_EQ(shape_of(OpKind::ReduceMax, {x}, ReduceAttrs{{0, 1, 2}, true}), (Shape{1, 1, 1}));
  expect_error(OpKind::ReduceSum, {x}, ReduceAttrs{{2, 0}, true}, {"not sorted"});
  expect_error(OpKind::ReduceSum, {x}, ReduceAttrs{{}, true}, {"no axes"});
  expect_error(OpKind::ReduceMean, {x}, ReduceAttrs{{3}, true}, {"axis 3 is out of range"});
}

TEST_F(ShapeInference, IdentityAndDropout) {
  EXPECT_EQ(infer(OpKind::Identity, {in({2}, DType::Bool)})[0], (TensorType{DType::Bool, {2}}));
  auto types = infer(OpKind::Dropout, {in({3, 4})}, {}, 2);
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0], (TensorType{F32, {3, 4}}));
  EXPECT_EQ(types[1], (TensorType{DType::Bool, {3, 4}}));
  types = infer(OpKind::Dropout, {in({3, 4}), in({})}, {}, 2, {1});
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[1], (TensorType{DType::Bool, {3, 4}}));
  expect_error(OpKind::Dropout, {in({3}), kNoValue, cst(Tensor::scalar<bool>(true))}, {},
               {"training_mode"}, 1, ErrorKind::Unsupported);
  expect_error(OpKind::Dropout, {in({3}), in({2})}, {}, {"ratio float32[2] must be a scalar"});
}

TEST_F(ShapeInference, AbsurdShapesAreRejected) {
  // A pad that would overflow int64 saturates and is reported as absurd.
  ValueId x = in({2});
  const int64_t huge = int64_t{1} << 62;
  expect_error(OpKind::Pad, {x}, PadAttrs{{huge, huge}}, {"inferred output: absurd shape"});
  expect_error(OpKind::Conv, {in({1, 1, 4}), in({1, 1, 2})}, conv({2}, {1}, {huge, huge}, {1}),
               {"inferred output: absurd shape"});
}

// ---- Whole graphs ---------------------------------------------------------------

TEST_F(ShapeInference, InferShapesWritesEveryOutput) {
  ValueId x = in({1, 3, 8, 8});
  g.inputs = {x};
  ValueId w = cst(Tensor(F32, {4, 3, 3, 3}));
  ValueId c = g.add_value("conv_out", {});
  ValueId r = g.add_value("relu_out", {});
  ValueId p = g.add_value("pool_out", {});
  ValueId f = g.add_value("flat", {});
  ValueId mask = g.add_value("mask", {});
  ValueId d = g.add_value("drop", {});
  g.add_node(OpKind::Conv, "conv", {x, w, kNoValue}, {c},
             conv({3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}));
  g.add_node(OpKind::Relu, "relu", {c}, {r});
  g.add_node(OpKind::MaxPool, "pool", {r}, {p, kNoValue}, pool({2, 2}, {2, 2}, {0, 0, 0, 0}));
  g.add_node(OpKind::Flatten, "flat", {p}, {f}, FlattenAttrs{1});
  g.add_node(OpKind::Dropout, "drop", {f}, {d, mask});
  g.outputs = {d};
  infer_shapes(g);
  EXPECT_EQ(g.value(c).type, (TensorType{F32, {1, 4, 6, 6}}));
  EXPECT_EQ(g.value(r).type, (TensorType{F32, {1, 4, 6, 6}}));
  EXPECT_EQ(g.value(p).type, (TensorType{F32, {1, 4, 3, 3}}));
  EXPECT_EQ(g.value(f).type, (TensorType{F32, {1, 36}}));
  EXPECT_EQ(g.value(d).type, (TensorType{F32, {1, 36}}));
  EXPECT_EQ(g.value(mask).type, (TensorType{DType::Bool, {1, 36}}));
}

TEST_F(ShapeInference, InferShapesReportsTheFailingNode) {
  ValueId x = in({2, 3});
  ValueId y = g.add_value("y", {});
  ValueId z = g.add_value("z", {});
  g.add_node(OpKind::Relu, "ok", {x}, {y});
  g.add_node(OpKind::Reshape, "bad_reshape", {y}, {z}, ReshapeAttrs{{7}});
  try {
    infer_shapes(g);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
    EXPECT_EQ(e.message().rfind("Reshape 'bad_reshape': cannot reshape", 0), 0u) << e.message();
  }
}

// ---- ops added for wider coverage ----------------------------------------------

TEST_F(ShapeInference, MoreUnaryOps) {
  EXPECT_EQ(infer(OpKind::Floor, {in({2, 3})})[0], (TensorType{F32, {2, 3}}));
  EXPECT_EQ(infer(OpKind::Sign, {in({2}, DType::Int16)})[0], (TensorType{DType::Int16, {2}}));
  EXPECT_EQ(infer(OpKind::Not, {in({4}, DType::Bool)})[0], (TensorType{DType::Bool, {4}}));
  EXPECT_EQ(infer(OpKind::Celu, {in({1})}, CeluAttrs{})[0], (TensorType{F32, {1}}));
  EXPECT_EQ(infer(OpKind::IsNaN, {in({2, 2})})[0], (TensorType{DType::Bool, {2, 2}}));
  EXPECT_EQ(infer(OpKind::IsInf, {in({3}, DType::Float64)}, IsInfAttrs{})[0],
            (TensorType{DType::Bool, {3}}));
  expect_error(OpKind::Not, {in({2})}, {}, {"float32", "requires bool"});
  expect_error(OpKind::Sin, {in({2}, DType::Int32)}, {}, {"int32", "float32 or float64"});
  expect_error(OpKind::IsNaN, {in({2}, DType::Int32)}, {}, {"int32"});
}

TEST_F(ShapeInference, ComparisonsLogicalAndPow) {
  EXPECT_EQ(infer(OpKind::Less, {in({2, 1}), in({3})})[0], (TensorType{DType::Bool, {2, 3}}));
  EXPECT_EQ(infer(OpKind::Equal, {in({2}, DType::Bool), in({2}, DType::Bool)})[0],
            (TensorType{DType::Bool, {2}}));
  EXPECT_EQ(infer(OpKind::And, {in({2}, DType::Bool), in({}, DType::Bool)})[0],
            (TensorType{DType::Bool, {2}}));
  // Pow keeps the base's type; the exponent may differ.
  EXPECT_EQ(infer(OpKind::Pow, {in({2}, DType::Int32), in({1})})[0],
            (TensorType{DType::Int32, {2}}));
  EXPECT_EQ(
      infer(OpKind::BitShift, {in({2}, DType::UInt8), in({2}, DType::UInt8)}, BitShiftAttrs{})[0],
      (TensorType{DType::UInt8, {2}}));
  expect_error(OpKind::Or, {in({2}), in({2})}, {}, {"requires bool"});
  expect_error(OpKind::Greater, {in({2}), in({2}, DType::Int32)}, {}, {"different element types"});
  expect_error(OpKind::BitShift, {in({2}, DType::Int8), in({2}, DType::Int8)}, BitShiftAttrs{},
               {"int8"});
  expect_error(OpKind::Mod, {in({2, 3}), in({3, 3})}, ModAttrs{true},
               {"cannot broadcast A float32[2x3] with B float32[3x3]"});
}

TEST_F(ShapeInference, Where) {
  // [2,1,1] x [3,1] x [4] -> [2,3,4], X's type.
  EXPECT_EQ(infer(OpKind::Where,
                  {in({2, 1, 1}, DType::Bool), in({3, 1}, DType::Int64), in({4}, DType::Int64)})[0],
            (TensorType{DType::Int64, {2, 3, 4}}));
  expect_error(OpKind::Where, {in({2}), in({2}), in({2})}, {}, {"condition float32[2]", "bool"});
  expect_error(OpKind::Where, {in({2}, DType::Bool), in({2}), in({2}, DType::Int32)}, {},
               {"different element types"});
  expect_error(OpKind::Where, {in({2}, DType::Bool), in({3}), in({3})}, {}, {"cannot broadcast"});
}

TEST_F(ShapeInference, MoreReductionsAndArgMax) {
  EXPECT_EQ(shape_of(OpKind::ReduceL2, {in({2, 3, 4})}, ReduceAttrs{{1}, false}), (Shape{2, 4}));
  EXPECT_EQ(infer(OpKind::ReduceMin, {in({2, 3}, DType::Int8)}, ReduceAttrs{{0, 1}, true})[0],
            (TensorType{DType::Int8, {1, 1}}));
  // A scalar input keeps empty axes.
  EXPECT_EQ(shape_of(OpKind::ReduceSumSquare, {in({})}, ReduceAttrs{{}, true}), (Shape{}));
  expect_error(OpKind::ReduceLogSum, {in({2})}, ReduceAttrs{{}, true}, {"no axes"});
  expect_error(OpKind::ReduceProd, {in({2}, DType::Int8)}, ReduceAttrs{{0}, true}, {"int8"});

  EXPECT_EQ(infer(OpKind::ArgMax, {in({2, 3, 4})}, ArgAttrs{1, true, false})[0],
            (TensorType{DType::Int64, {2, 1, 4}}));
  EXPECT_EQ(infer(OpKind::ArgMin, {in({2, 3, 4})}, ArgAttrs{2, false, false})[0],
            (TensorType{DType::Int64, {2, 3}}));
  expect_error(OpKind::ArgMax, {in({2, 3})}, ArgAttrs{2, true, false}, {"axis 2 is out of range"});
  expect_error(OpKind::ArgMax, {in({2, 0})}, ArgAttrs{1, true, false}, {"empty axis 1"});
}

TEST_F(ShapeInference, SplitOutputs) {
  auto types = infer(OpKind::Split, {in({2, 7})}, SplitAttrs{1, {3, 4}}, 2);
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0].shape, (Shape{2, 3}));
  EXPECT_EQ(types[1].shape, (Shape{2, 4}));
  expect_error(OpKind::Split, {in({2, 7})}, SplitAttrs{1, {3, 3}}, {"do not divide axis 1"}, 2);
  expect_error(OpKind::Split, {in({2, 7})}, SplitAttrs{1, {7}}, {"into 2 outputs"}, 2);
}

TEST_F(ShapeInference, ExpandTileAndConstants) {
  EXPECT_EQ(shape_of(OpKind::Expand, {in({3, 1})}, ExpandAttrs{{2, 3, 4}}), (Shape{2, 3, 4}));
  expect_error(OpKind::Expand, {in({3, 2})}, ExpandAttrs{{3, 4}}, {"does not broadcast"});
  EXPECT_EQ(shape_of(OpKind::Tile, {in({2, 3})}, TileAttrs{{3, 0}}), (Shape{6, 0}));
  expect_error(OpKind::Tile, {in({2, 3})}, TileAttrs{{3}}, {"one entry per dimension"});
  ConstantOfShapeAttrs c;
  c.shape = {2, 0, 3};
  c.dtype = DType::Int8;
  EXPECT_EQ(infer(OpKind::ConstantOfShape, {}, c)[0], (TensorType{DType::Int8, {2, 0, 3}}));
  // ceil((10 - 1) / 4) = 3; an empty range has 0 elements.
  EXPECT_EQ(infer(OpKind::Range, {}, RangeAttrs{1, 10, 4, DType::Int64})[0],
            (TensorType{DType::Int64, {3}}));
  EXPECT_EQ(shape_of(OpKind::Range, {}, RangeAttrs{5, 1, 1, DType::Float32}), (Shape{0}));
  expect_error(OpKind::Range, {}, RangeAttrs{0, 1, 0, DType::Float32}, {"finite range"});
  EXPECT_EQ(infer(OpKind::Size, {in({2, 3})})[0], (TensorType{DType::Int64, {}}));
}

TEST_F(ShapeInference, EyeLikeTriluBlocks) {
  EXPECT_EQ(infer(OpKind::EyeLike, {in({2, 3})}, EyeLikeAttrs{0, DType::Int32})[0],
            (TensorType{DType::Int32, {2, 3}}));
  expect_error(OpKind::EyeLike, {in({2})}, EyeLikeAttrs{}, {"must have rank 2"});
  expect_error(OpKind::Trilu, {in({4})}, TriluAttrs{}, {"rank >= 2"});
  // DepthToSpace: [1, 8, 2, 3] blocksize 2 -> [1, 2, 4, 6]; SpaceToDepth inverts it.
  EXPECT_EQ(shape_of(OpKind::DepthToSpace, {in({1, 8, 2, 3})}, BlockAttrs{2, true}),
            (Shape{1, 2, 4, 6}));
  EXPECT_EQ(shape_of(OpKind::SpaceToDepth, {in({1, 2, 4, 6})}, BlockAttrs{2, false}),
            (Shape{1, 8, 2, 3}));
  expect_error(OpKind::DepthToSpace, {in({1, 6, 2, 2})}, BlockAttrs{2, false},
               {"6 channels, not divisible by blocksize^2 4"});
  expect_error(OpKind::SpaceToDepth, {in({1, 1, 3, 4})}, BlockAttrs{2, false},
               {"not divisible by blocksize 2"});
}

TEST_F(ShapeInference, GatherElementsCumSumOneHot) {
  EXPECT_EQ(
      shape_of(OpKind::GatherElements, {in({3, 4}), in({2, 4}, DType::Int64)}, GatherAttrs{0}),
      (Shape{2, 4}));
  expect_error(OpKind::GatherElements, {in({3, 4}), in({4}, DType::Int64)}, GatherAttrs{0},
               {"indices int64[4] must have the rank of data float32[3x4]"});
  ValueId idx = cst(Tensor::from_vector<int64_t>({1, 1}, {3}));
  expect_error(OpKind::GatherElements, {in({3, 4}), idx}, GatherAttrs{0},
               {"index 3 is out of range"});
  EXPECT_EQ(shape_of(OpKind::CumSum, {in({2, 3})}, CumSumAttrs{1, true, false}), (Shape{2, 3}));
  expect_error(OpKind::CumSum, {in({2, 3})}, CumSumAttrs{2, false, false}, {"axis 2"});
  // indices [2, 3], depth 5, axis 1 -> [2, 5, 3] of the values' type.
  EXPECT_EQ(infer(OpKind::OneHot, {in({2, 3}, DType::Int64), in({2}, DType::Int32)},
                  OneHotAttrs{1, 5})[0],
            (TensorType{DType::Int32, {2, 5, 3}}));
  expect_error(OpKind::OneHot, {in({2}, DType::Int64), in({3})}, OneHotAttrs{0, 5}, {"two values"});
}

TEST_F(ShapeInference, NormalizationLayers) {
  // LayerNormalization axis 1 of [2, 3, 4]: statistics [2, 1, 1].
  auto types = infer(OpKind::LayerNormalization, {in({2, 3, 4}), in({3, 4}), in({4})},
                     LayerNormAttrs{1, 1e-5f}, 3);
  ASSERT_EQ(types.size(), 3u);
  EXPECT_EQ(types[0], (TensorType{F32, {2, 3, 4}}));
  EXPECT_EQ(types[1], (TensorType{F32, {2, 1, 1}}));
  EXPECT_EQ(types[2], (TensorType{F32, {2, 1, 1}}));
  expect_error(OpKind::LayerNormalization, {in({2, 3, 4}), in({3})}, LayerNormAttrs{1, 1e-5f},
               {"Scale float32[3] does not broadcast to the normalized shape [3x4]"});
  EXPECT_EQ(shape_of(OpKind::InstanceNormalization, {in({2, 3, 5}), in({3}), in({3})},
                     InstanceNormAttrs{}),
            (Shape{2, 3, 5}));
  expect_error(OpKind::InstanceNormalization, {in({2, 3, 5}), in({2}), in({3})},
               InstanceNormAttrs{}, {"scale float32[2] must have shape [3]"});
  EXPECT_EQ(shape_of(OpKind::LRN, {in({1, 5, 2, 2})}, LrnAttrs{}), (Shape{1, 5, 2, 2}));
  expect_error(OpKind::LRN, {in({5, 2})}, LrnAttrs{}, {"rank >= 3"});
}

TEST_F(ShapeInference, ConvTransposeOutputSize) {
  // H: 2 * (3 - 1) + 1 + (3 - 1) * 1 + 1 - 1 - 0 = 7; W: 1 * (4 - 1) + 0 + 2 * 2 + 1 - 0 - 0 = 8.
  ConvTransposeAttrs a{{3, 3}, {2, 1}, {1, 0, 0, 0}, {1, 0}, {1, 2}, 2};
  EXPECT_EQ(shape_of(OpKind::ConvTranspose, {in({1, 4, 3, 4}), in({4, 3, 3, 3}), in({6})}, a),
            (Shape{1, 6, 7, 8}));
  // Negative pads add output (output_shape larger than the natural size).
  ConvTransposeAttrs grow{{3}, {1}, {0, -2}, {0}, {1}, 1};
  EXPECT_EQ(shape_of(OpKind::ConvTranspose, {in({1, 1, 3}), in({1, 1, 3})}, grow),
            (Shape{1, 1, 7}));
  expect_error(OpKind::ConvTranspose, {in({1, 4, 3, 4}), in({3, 3, 3, 3})}, a,
               {"4 channels but W float32[3x3x3x3] expects 3"});
  expect_error(OpKind::ConvTranspose, {in({1, 4, 3, 4}), in({4, 3, 3, 3}), in({3})}, a,
               {"B float32[3] must have shape [6]"});
  ConvTransposeAttrs crop{{1}, {1}, {1, 1}, {0}, {1}, 1};
  expect_error(OpKind::ConvTranspose, {in({1, 1, 2}), in({1, 1, 1})}, crop, {"leave no output"});
}

TEST_F(ShapeInference, ResizeUsesResolvedSizes) {
  ResizeAttrs a;
  a.sizes = {1, 3, 8, 8};
  a.scales = {1, 1, 2, 2};
  EXPECT_EQ(shape_of(OpKind::Resize, {in({1, 3, 4, 4})}, a), (Shape{1, 3, 8, 8}));
  a.mode = ResizeMode::Linear;
  expect_error(OpKind::Resize, {in({1, 3, 4, 4}, DType::Int32)}, a, {"int32"});
  ResizeAttrs bad;
  bad.sizes = {8, 8};
  bad.scales = {2, 2};
  expect_error(OpKind::Resize, {in({1, 3, 4, 4})}, bad, {"one entry per dimension"});
}

TEST_F(ShapeInference, MaxUnpool) {
  const MaxUnpoolAttrs a{{2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 3, 5, 5}};
  ValueId x = in({1, 3, 2, 2});
  EXPECT_EQ(shape_of(OpKind::MaxUnpool, {x, in({1, 3, 2, 2}, DType::Int64)}, a),
            (Shape{1, 3, 5, 5}));
  expect_error(OpKind::MaxUnpool, {x, in({1, 3, 2, 2}, DType::Int32)}, a, {"I int32", "int64"});
  expect_error(OpKind::MaxUnpool, {x, in({1, 3, 2, 1}, DType::Int64)}, a,
               {"must have the shape of X"});
  const MaxUnpoolAttrs c{{2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 4, 5, 5}};
  expect_error(OpKind::MaxUnpool, {x, in({1, 3, 2, 2}, DType::Int64)}, c,
               {"keep the batch and channels"});
}

}  // namespace
}  // namespace kiln

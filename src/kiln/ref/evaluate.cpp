// Dispatch of one node to its reference kernel.
#include "kiln/ref/evaluate.h"

#include "kiln/ref/kernels/kernels.h"

namespace kiln::ref {

namespace {

// The node's operands, checked for presence where the op requires them.
class Operands {
 public:
  Operands(const Node& node, std::span<const Tensor* const> inputs, const std::string& where)
      : inputs_(inputs), where_(where) {
    KILN_ASSERT(inputs.size() == node.inputs.size(), "input count mismatch for " + where);
  }
  const Tensor& required(std::size_t i) const {
    if (i >= inputs_.size() || inputs_[i] == nullptr)
      throw_error(ErrorKind::InvalidModel, where_,
                  "required input " + std::to_string(i) + " is missing");
    return *inputs_[i];
  }
  const Tensor* optional(std::size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  std::span<const Tensor* const> all() const { return inputs_; }

 private:
  std::span<const Tensor* const> inputs_;
  const std::string& where_;
};

// True if the model uses output i of the node.
bool wants_output(const Node& node, std::size_t i) {
  return i < node.outputs.size() && node.outputs[i].valid();
}

// Runs a channels-last node on its channels-first kernel: `run` gets input 0
// and the output type in the channels-first layout and returns output 0 in it.
template <class Run>
Tensor channels_last_adapter(bool channels_last, const Tensor& x, const TensorType& out,
                             const std::string& where, Run&& run) {
  namespace k = kernels;
  if (!channels_last) return run(x, out);
  const Tensor x_first = k::move_channels(x, false, where);
  const TensorType out_first{out.dtype, k::channels_first_shape(out.shape)};
  return k::move_channels(run(x_first, out_first), true, where);
}

std::vector<Tensor> dispatch(const Node& node, const Operands& in, std::span<const TensorType> out,
                             const std::string& where) {
  namespace k = kernels;
  const TensorType& out0 = out[0];
  switch (node.kind) {
    case OpKind::Conv: {
      const auto& a = node.attr<ConvAttrs>();
      Tensor y = channels_last_adapter(
          a.channels_last, in.required(0), out0, where, [&](const Tensor& x, const TensorType& t) {
            return k::conv(x, in.required(1), in.optional(2), a, t, where);
          });
      k::apply_activation(y, a.activation, where);
      return {std::move(y)};
    }
    case OpKind::MaxPool: {
      const auto& a = node.attr<PoolAttrs>();
      if (!a.channels_last)
        return k::max_pool(in.required(0), a, out0, wants_output(node, 1), where);
      // Shape inference rejects Indices of a channels-last pool.
      return {channels_last_adapter(true, in.required(0), out0, where,
                                    [&](const Tensor& x, const TensorType& t) {
                                      return std::move(k::max_pool(x, a, t, false, where)[0]);
                                    })};
    }
    case OpKind::AveragePool: {
      const auto& a = node.attr<PoolAttrs>();
      return {channels_last_adapter(
          a.channels_last, in.required(0), out0, where,
          [&](const Tensor& x, const TensorType& t) { return k::average_pool(x, a, t, where); })};
    }
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool: {
      const auto* a = std::get_if<GlobalPoolAttrs>(&node.attrs);
      return {channels_last_adapter(a != nullptr && a->channels_last, in.required(0), out0, where,
                                    [&](const Tensor& x, const TensorType& t) {
                                      return k::global_pool(x, node.kind == OpKind::GlobalMaxPool,
                                                            t, where);
                                    })};
    }
    case OpKind::Dense:
      return {k::dense(in.required(0), in.required(1), in.required(2), node.attr<DenseAttrs>(),
                       out0, where)};
    case OpKind::Gemm:
      return {k::gemm(in.required(0), in.required(1), in.optional(2), node.attr<GemmAttrs>(), out0,
                      where)};
    case OpKind::MatMul: return {k::matmul(in.required(0), in.required(1), out0, where)};
    case OpKind::BatchNormalization: {
      const auto& a = node.attr<BatchNormAttrs>();
      return {channels_last_adapter(
          a.channels_last, in.required(0), out0, where, [&](const Tensor& x, const TensorType&) {
            return k::batch_norm(x, in.required(1), in.required(2), in.required(3), in.required(4),
                                 a, where);
          })};
    }

    case OpKind::Relu:
    case OpKind::LeakyRelu:
    case OpKind::Elu:
    case OpKind::Selu:
    case OpKind::Sigmoid:
    case OpKind::HardSigmoid:
    case OpKind::Tanh: return {k::activation(node, in.required(0), where)};
    case OpKind::PRelu: return {k::prelu(in.required(0), in.required(1), where)};
    case OpKind::Softmax:
    case OpKind::LogSoftmax:
      return {k::softmax(in.required(0), node.attr<SoftmaxAttrs>(), node.kind == OpKind::LogSoftmax,
                         where)};
    case OpKind::Clip: return {k::clip(in.required(0), in.optional(1), in.optional(2), where)};

    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Abs:
    case OpKind::Neg:
    case OpKind::Reciprocal: return {k::unary_math(node.kind, in.required(0), where)};

    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div: return {k::binary(node.kind, in.required(0), in.required(1), out0, where)};
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Sum:
    case OpKind::Mean: return {k::variadic(node.kind, in.all(), out0, where)};

    case OpKind::Concat:
      for (std::size_t i = 0; i < in.all().size(); ++i) in.required(i);
      return {k::concat(in.all(), node.attr<ConcatAttrs>().axis, out0, where)};
    case OpKind::Slice: return {k::slice(in.required(0), node.attr<SliceAttrs>(), out0, where)};
    case OpKind::Transpose:
      return {k::transpose(in.required(0), node.attr<TransposeAttrs>(), out0, where)};
    case OpKind::Pad: return {k::pad(in.required(0), node.attr<PadAttrs>(), out0, where)};
    case OpKind::Gather:
      return {
          k::gather(in.required(0), in.required(1), node.attr<GatherAttrs>().axis, out0, where)};
    case OpKind::Cast: return {in.required(0).cast(node.attr<CastAttrs>().to)};
    case OpKind::Shape: return {k::shape_of(in.required(0), node.attr<ShapeAttrs>())};
    case OpKind::Flatten:
    case OpKind::Reshape:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::Identity: return {k::reshape_to(in.required(0), out0, where)};
    case OpKind::Dropout: {
      // Inference mode: the data passes through and the mask is all true.
      std::vector<Tensor> r{k::reshape_to(in.required(0), out0, where)};
      if (wants_output(node, 1)) {
        Tensor mask(DType::Bool, out[1].shape);
        for (bool& b : mask.data<bool>()) b = true;
        r.push_back(std::move(mask));
      }
      return r;
    }

    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMin:
    case OpKind::ReduceProd:
    case OpKind::ReduceL1:
    case OpKind::ReduceL2:
    case OpKind::ReduceSumSquare:
    case OpKind::ReduceLogSum:
    case OpKind::ReduceLogSumExp:
      return {k::reduce(node.kind, in.required(0), node.attr<ReduceAttrs>(), out0, where)};
    case OpKind::ArgMax:
    case OpKind::ArgMin:
      return {k::arg_reduce(node.kind, in.required(0), node.attr<ArgAttrs>(), out0, where)};

    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::Round:
    case OpKind::Sign:
    case OpKind::Erf:
    case OpKind::Softplus:
    case OpKind::Softsign:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Tan:
    case OpKind::Asin:
    case OpKind::Acos:
    case OpKind::Atan:
    case OpKind::Sinh:
    case OpKind::Cosh:
    case OpKind::Asinh:
    case OpKind::Acosh:
    case OpKind::Atanh:
    case OpKind::Not:
    case OpKind::ThresholdedRelu:
    case OpKind::Celu:
    case OpKind::HardSwish:
    case OpKind::Shrink:
    case OpKind::IsNaN:
    case OpKind::IsInf: return {k::unary_more(node, in.required(0), out0, where)};
    case OpKind::Pow:
    case OpKind::Mod:
    case OpKind::BitShift:
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor:
    case OpKind::Equal:
    case OpKind::Less:
    case OpKind::LessOrEqual:
    case OpKind::Greater:
    case OpKind::GreaterOrEqual:
      return {k::binary_more(node, in.required(0), in.required(1), out0, where)};
    case OpKind::Where:
      return {k::where_select(in.required(0), in.required(1), in.required(2), out0, where)};

    case OpKind::Split: return k::split(in.required(0), node.attr<SplitAttrs>(), out, where);
    case OpKind::Expand: return {k::expand(in.required(0), out0, where)};
    case OpKind::Tile: return {k::tile(in.required(0), out0, where)};
    case OpKind::ConstantOfShape:
      return {k::constant_of_shape(node.attr<ConstantOfShapeAttrs>(), out0)};
    case OpKind::Range: return {k::range(node.attr<RangeAttrs>(), out0, where)};
    case OpKind::Size: return {Tensor::scalar<int64_t>(in.required(0).numel())};
    case OpKind::CastLike: return {in.required(0).cast(in.required(1).dtype())};
    case OpKind::EyeLike: return {k::eye_like(node.attr<EyeLikeAttrs>(), out0)};
    case OpKind::Trilu: return {k::trilu(in.required(0), node.attr<TriluAttrs>(), where)};
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      return {k::depth_space(node.kind, in.required(0), node.attr<BlockAttrs>(), out0, where)};
    case OpKind::GatherElements:
      return {k::gather_elements(in.required(0), in.required(1), node.attr<GatherAttrs>().axis,
                                 out0, where)};
    case OpKind::CumSum: return {k::cum_sum(in.required(0), node.attr<CumSumAttrs>(), where)};
    case OpKind::OneHot:
      return {k::one_hot(in.required(0), in.required(1), node.attr<OneHotAttrs>(), out0, where)};

    case OpKind::LayerNormalization:
      return k::layer_norm(in.required(0), in.required(1), in.optional(2),
                           node.attr<LayerNormAttrs>(), out, where);
    case OpKind::InstanceNormalization:
      return {k::instance_norm(in.required(0), in.required(1), in.required(2),
                               node.attr<InstanceNormAttrs>(), where)};
    case OpKind::LRN: return {k::lrn(in.required(0), node.attr<LrnAttrs>(), where)};
    case OpKind::ConvTranspose:
      return {k::conv_transpose(in.required(0), in.required(1), in.optional(2),
                                node.attr<ConvTransposeAttrs>(), out0, where)};
    case OpKind::Resize:
    case OpKind::Upsample:
      return {k::resize(in.required(0), node.attr<ResizeAttrs>(), out0, where)};
    case OpKind::MaxUnpool:
      return {
          k::max_unpool(in.required(0), in.required(1), node.attr<MaxUnpoolAttrs>(), out0, where)};
  }
  KILN_ASSERT(false, "unhandled op kind in " + where);
  return {};
}

}  // namespace

std::vector<Tensor> evaluate_node(const Node& node, std::span<const Tensor* const> inputs,
                                  std::span<const TensorType> output_types) {
  const std::string where = node.describe();
  KILN_ASSERT(!output_types.empty() && output_types.size() == node.outputs.size(),
              "output types do not match the outputs of " + where);
  std::vector<Tensor> results = dispatch(node, Operands(node, inputs, where), output_types, where);
  results.resize(node.outputs.size());
  // A kernel and shape inference disagreeing is a kiln bug; catch it here
  // rather than as a wrong answer downstream.
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!wants_output(node, i)) {
      results[i] = Tensor();
      continue;
    }
    if (results[i].type() != output_types[i])
      throw_error(ErrorKind::Internal, where,
                  "output " + std::to_string(i) + " is " + results[i].type().to_string() +
                      " but shape inference said " + output_types[i].to_string());
  }
  return results;
}

}  // namespace kiln::ref

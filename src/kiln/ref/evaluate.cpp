// Reference evaluation of every op kind: a table from kind to handler.
#include "kiln/ref/evaluate.h"

#include "kiln/ref/kernels/kernels.h"
#include "kiln/ref/kernels/map.h"
#include "kiln/ref/kernels/scalar_ops.h"
#include "kiln/support/enum_table.h"

namespace kiln::ref {

namespace {

namespace k = kernels;

// What a handler sees: the node, its operands (checked for presence where
// the op requires them) and the output types shape inference gave.
class Eval {
 public:
  Eval(const Node& node, std::span<const Tensor* const> inputs, std::span<const TensorType> out,
       const std::string& where)
      : node(node), out(out), where(where), inputs_(inputs) {
    KILN_ASSERT(inputs.size() == node.inputs.size(), "input count mismatch for " + where);
  }
  const Tensor& in(std::size_t i) const {
    if (i >= inputs_.size() || inputs_[i] == nullptr)
      throw_error(ErrorKind::InvalidModel, where,
                  "required input " + std::to_string(i) + " is missing");
    return *inputs_[i];
  }
  const Tensor* optional(std::size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  std::span<const Tensor* const> all() const { return inputs_; }
  const TensorType& out0() const { return out[0]; }
  // True if the model uses output i of the node.
  bool wants(std::size_t i) const { return i < node.outputs.size() && node.outputs[i].valid(); }
  template <class A>
  const A& attrs() const {
    return node.attr<A>();
  }

  const Node& node;
  std::span<const TensorType> out;
  const std::string& where;

 private:
  std::span<const Tensor* const> inputs_;
};

using Result = std::vector<Tensor>;
using EvalFn = Result (*)(const Eval&);

// A functor of scalar_ops.h, built from the node when its op has attributes.
template <class Op>
Op make_op(const Node& node) {
  if constexpr (std::is_constructible_v<Op, const Node&>)
    return Op(node);
  else
    return Op{};
}

template <class Op>
Result float_map(const Eval& e) {
  return {k::map_float(make_op<Op>(e.node), e.in(0), e.where)};
}
template <class Op>
Result numeric_map(const Eval& e) {
  return {k::map_numeric(make_op<Op>(e.node), e.in(0), e.where)};
}
template <class Op>
Result bool_map(const Eval& e) {
  return {k::map_bool(make_op<Op>(e.node), e.in(0), e.where)};
}
template <class Op>
Result predicate(const Eval& e) {
  return {k::map_predicate(make_op<Op>(e.node), e.in(0), e.out0(), e.where)};
}
template <class Op>
Result arithmetic(const Eval& e) {
  return {k::binary_numeric(Op{}, e.in(0), e.in(1), e.out0(), e.where)};
}
template <class Op>
Result comparison(const Eval& e) {
  return {k::compare(Op{}, e.in(0), e.in(1), e.out0(), e.where)};
}
template <class Op>
Result logical(const Eval& e) {
  return {k::logical(Op{}, e.in(0), e.in(1), e.out0(), e.where)};
}
// Sum, Mean, Max, Min: the pairwise step and whether to divide by the count.
template <class Op, bool kMean>
Result variadic(const Eval& e) {
  return {k::variadic(Op{}, e.all(), e.out0(), kMean, e.where)};
}
template <k::ReduceOp kOp>
Result reduce(const Eval& e) {
  return {k::reduce(kOp, e.in(0), e.attrs<ReduceAttrs>(), e.out0(), e.where)};
}
template <bool kMax>
Result arg_reduce(const Eval& e) {
  return {k::arg_reduce(kMax, e.in(0), e.attrs<ArgAttrs>(), e.out0(), e.where)};
}

// Runs a channels-last node on its channels-first kernel: `run` gets input 0
// and the output type in the channels-first layout and returns output 0 in it.
template <class Run>
Tensor channels_last_adapter(bool channels_last, const Tensor& x, const TensorType& out,
                             const std::string& where, Run&& run) {
  if (!channels_last) return run(x, out);
  const Tensor x_first = k::move_channels(x, false, where);
  const TensorType out_first{out.dtype, k::channels_first_shape(out.shape)};
  return k::move_channels(run(x_first, out_first), true, where);
}

Result conv(const Eval& e) {
  const auto& a = e.attrs<ConvAttrs>();
  Tensor y = channels_last_adapter(a.channels_last, e.in(0), e.out0(), e.where,
                                   [&](const Tensor& x, const TensorType& t) {
                                     return k::conv(x, e.in(1), e.optional(2), a, t, e.where);
                                   });
  k::apply_activation(y, a.activation, e.where);
  return {std::move(y)};
}

Result max_pool(const Eval& e) {
  const auto& a = e.attrs<PoolAttrs>();
  if (!a.channels_last) return k::max_pool(e.in(0), a, e.out0(), e.wants(1), e.where);
  // Shape inference rejects Indices of a channels-last pool.
  return {channels_last_adapter(true, e.in(0), e.out0(), e.where,
                                [&](const Tensor& x, const TensorType& t) {
                                  return std::move(k::max_pool(x, a, t, false, e.where)[0]);
                                })};
}

Result average_pool(const Eval& e) {
  const auto& a = e.attrs<PoolAttrs>();
  return {channels_last_adapter(
      a.channels_last, e.in(0), e.out0(), e.where,
      [&](const Tensor& x, const TensorType& t) { return k::average_pool(x, a, t, e.where); })};
}

template <bool kMax>
Result global_pool(const Eval& e) {
  return {channels_last_adapter(
      e.attrs<GlobalPoolAttrs>().channels_last, e.in(0), e.out0(), e.where,
      [&](const Tensor& x, const TensorType& t) { return k::global_pool(x, kMax, t, e.where); })};
}

Result dense(const Eval& e) {
  return {k::dense(e.in(0), e.in(1), e.in(2), e.attrs<DenseAttrs>(), e.out0(), e.where)};
}
Result gemm(const Eval& e) {
  return {k::gemm(e.in(0), e.in(1), e.optional(2), e.attrs<GemmAttrs>(), e.out0(), e.where)};
}
Result matmul(const Eval& e) {
  return {k::matmul(e.in(0), e.in(1), e.out0(), e.where)};
}
Result batch_norm(const Eval& e) {
  const auto& a = e.attrs<BatchNormAttrs>();
  return {channels_last_adapter(
      a.channels_last, e.in(0), e.out0(), e.where, [&](const Tensor& x, const TensorType&) {
        return k::batch_norm(x, e.in(1), e.in(2), e.in(3), e.in(4), a, e.where);
      })};
}
Result prelu(const Eval& e) {
  return {k::prelu(e.in(0), e.in(1), e.where)};
}
template <bool kLog>
Result softmax(const Eval& e) {
  return {k::softmax(e.in(0), e.attrs<SoftmaxAttrs>(), kLog, e.where)};
}
Result hardmax(const Eval& e) {
  return {k::hardmax(e.in(0), e.attrs<SoftmaxAttrs>(), e.where)};
}
Result clip(const Eval& e) {
  return {k::clip(e.in(0), e.optional(1), e.optional(2), e.where)};
}
Result pow(const Eval& e) {
  return {k::pow(e.in(0), e.in(1), e.out0(), e.where)};
}
Result mod(const Eval& e) {
  return {k::mod(e.in(0), e.in(1), e.attrs<ModAttrs>().fmod, e.out0(), e.where)};
}
Result bit_shift(const Eval& e) {
  return {k::bit_shift(e.in(0), e.in(1), e.attrs<BitShiftAttrs>().left, e.out0(), e.where)};
}
Result where(const Eval& e) {
  return {k::where_select(e.in(0), e.in(1), e.in(2), e.out0(), e.where)};
}
Result concat(const Eval& e) {
  for (std::size_t i = 0; i < e.all().size(); ++i) e.in(i);
  return {k::concat(e.all(), e.attrs<ConcatAttrs>().axis, e.out0(), e.where)};
}
Result slice(const Eval& e) {
  return {k::slice(e.in(0), e.attrs<SliceAttrs>(), e.out0(), e.where)};
}
Result transpose(const Eval& e) {
  return {k::transpose(e.in(0), e.attrs<TransposeAttrs>(), e.out0(), e.where)};
}
Result pad(const Eval& e) {
  return {k::pad(e.in(0), e.attrs<PadAttrs>(), e.out0(), e.where)};
}
Result gather(const Eval& e) {
  return {k::gather(e.in(0), e.in(1), e.attrs<GatherAttrs>().axis, e.out0(), e.where)};
}
Result cast(const Eval& e) {
  return {e.in(0).cast(e.attrs<CastAttrs>().to)};
}
Result shape(const Eval& e) {
  return {k::shape_of(e.in(0), e.attrs<ShapeAttrs>())};
}
Result quantize_linear(const Eval& e) {
  return {k::quantize_linear(e.in(0), e.in(1), e.optional(2), e.attrs<QuantAttrs>(), e.out0(),
                             e.where)};
}
Result dequantize_linear(const Eval& e) {
  return {k::dequantize_linear(e.in(0), e.in(1), e.optional(2), e.attrs<QuantAttrs>(), e.out0())};
}
Result int_quant(const Eval& e) {
  return {k::int_quant(e.in(0), e.in(1), e.in(2), e.attrs<IntQuantAttrs>(), e.where)};
}
Result bipolar_quant(const Eval& e) {
  return {k::bipolar_quant(e.in(0), e.in(1), e.where)};
}
Result trunc_quant(const Eval& e) {
  return {k::trunc_quant(e.in(0), e.in(1), e.in(2), e.optional(3), e.attrs<TruncAttrs>(), e.where)};
}
// Flatten, Reshape, Squeeze, Unsqueeze, Identity: the same data in the output's shape.
Result relabel(const Eval& e) {
  return {k::reshape_to(e.in(0), e.out0(), e.where)};
}
// Inference mode: the data passes through and the mask is all true.
Result dropout(const Eval& e) {
  Result r{k::reshape_to(e.in(0), e.out0(), e.where)};
  if (e.wants(1)) {
    Tensor mask(DType::Bool, e.out[1].shape);
    for (bool& b : mask.data<bool>()) b = true;
    r.push_back(std::move(mask));
  }
  return r;
}
Result split(const Eval& e) {
  return k::split(e.in(0), e.attrs<SplitAttrs>(), e.out, e.where);
}
Result expand(const Eval& e) {
  return {k::expand(e.in(0), e.out0(), e.where)};
}
Result tile(const Eval& e) {
  return {k::tile(e.in(0), e.out0(), e.where)};
}
Result constant_of_shape(const Eval& e) {
  return {k::constant_of_shape(e.attrs<ConstantOfShapeAttrs>(), e.out0())};
}
Result range(const Eval& e) {
  return {k::range(e.attrs<RangeAttrs>(), e.out0(), e.where)};
}
Result size(const Eval& e) {
  return {Tensor::scalar<int64_t>(e.in(0).numel())};
}
Result eye_like(const Eval& e) {
  return {k::eye_like(e.attrs<EyeLikeAttrs>(), e.out0())};
}
Result trilu(const Eval& e) {
  return {k::trilu(e.in(0), e.attrs<TriluAttrs>(), e.where)};
}
template <bool kToSpace>
Result depth_space(const Eval& e) {
  return {k::depth_space(kToSpace, e.in(0), e.attrs<BlockAttrs>(), e.out0(), e.where)};
}
Result gather_elements(const Eval& e) {
  return {k::gather_elements(e.in(0), e.in(1), e.attrs<GatherAttrs>().axis, e.out0(), e.where)};
}
Result cum_sum(const Eval& e) {
  return {k::cum_sum(e.in(0), e.attrs<CumSumAttrs>(), e.where)};
}
Result one_hot(const Eval& e) {
  return {k::one_hot(e.in(0), e.in(1), e.attrs<OneHotAttrs>(), e.out0(), e.where)};
}
Result layer_norm(const Eval& e) {
  return k::layer_norm(e.in(0), e.in(1), e.optional(2), e.attrs<LayerNormAttrs>(), e.out, e.where);
}
Result instance_norm(const Eval& e) {
  return {k::instance_norm(e.in(0), e.in(1), e.in(2), e.attrs<InstanceNormAttrs>(), e.where)};
}
Result lrn(const Eval& e) {
  return {k::lrn(e.in(0), e.attrs<LrnAttrs>(), e.where)};
}
Result conv_transpose(const Eval& e) {
  const auto& a = e.attrs<ConvTransposeAttrs>();
  return {channels_last_adapter(
      a.channels_last, e.in(0), e.out0(), e.where, [&](const Tensor& x, const TensorType& t) {
        return k::conv_transpose(x, e.in(1), e.optional(2), a, t, e.where);
      })};
}
Result resize(const Eval& e) {
  return {k::resize(e.in(0), e.attrs<ResizeAttrs>(), e.out0(), e.where)};
}
Result max_unpool(const Eval& e) {
  return {k::max_unpool(e.in(0), e.in(1), e.attrs<MaxUnpoolAttrs>(), e.out0(), e.where)};
}
// RNN, GRU, LSTM: X, W and R are required, the rest optional.
Result recurrent(const Eval& e) {
  for (std::size_t i = 0; i < 3; ++i) e.in(i);
  std::vector<bool> wanted;
  for (std::size_t i = 0; i < e.out.size(); ++i) wanted.push_back(e.wants(i));
  return k::recurrent(e.node.kind, e.all(), e.attrs<RecurrentAttrs>(), e.out, wanted, e.where);
}

// The reference semantics of every op kind; the build fails while a kind has no row.
constexpr auto kEvaluate = make_enum_table<OpKind, kNumOpKinds, EvalFn>({
    {{OpKind::Conv}, conv},
    {{OpKind::MaxPool}, max_pool},
    {{OpKind::AveragePool}, average_pool},
    {{OpKind::GlobalAveragePool}, global_pool<false>},
    {{OpKind::GlobalMaxPool}, global_pool<true>},
    {{OpKind::Gemm}, gemm},
    {{OpKind::MatMul}, matmul},
    {{OpKind::Dense}, dense},
    {{OpKind::BatchNormalization}, batch_norm},
    {{OpKind::Relu}, numeric_map<k::Relu>},
    {{OpKind::LeakyRelu}, float_map<k::LeakyRelu>},
    {{OpKind::PRelu}, prelu},
    {{OpKind::Elu}, float_map<k::Elu>},
    {{OpKind::Selu}, float_map<k::Selu>},
    {{OpKind::Sigmoid}, float_map<k::Sigmoid>},
    {{OpKind::HardSigmoid}, float_map<k::HardSigmoid>},
    {{OpKind::Tanh}, float_map<k::Tanh>},
    {{OpKind::Softmax}, softmax<false>},
    {{OpKind::LogSoftmax}, softmax<true>},
    {{OpKind::Hardmax}, hardmax},
    {{OpKind::Clip}, clip},
    {{OpKind::Exp}, float_map<k::Exp>},
    {{OpKind::Log}, float_map<k::Log>},
    {{OpKind::Sqrt}, float_map<k::Sqrt>},
    {{OpKind::Abs}, numeric_map<k::Abs>},
    {{OpKind::Neg}, numeric_map<k::Neg>},
    {{OpKind::Reciprocal}, float_map<k::Reciprocal>},
    {{OpKind::Add}, arithmetic<k::Add>},
    {{OpKind::Sub}, arithmetic<k::Sub>},
    {{OpKind::Mul}, arithmetic<k::Mul>},
    {{OpKind::Div}, arithmetic<k::Div>},
    {{OpKind::Max}, variadic<k::Max, false>},
    {{OpKind::Min}, variadic<k::Min, false>},
    {{OpKind::Sum}, variadic<k::Add, false>},
    {{OpKind::Mean}, variadic<k::Add, true>},
    {{OpKind::Concat}, concat},
    {{OpKind::Slice}, slice},
    {{OpKind::Flatten, OpKind::Reshape, OpKind::Squeeze, OpKind::Unsqueeze, OpKind::Identity},
     relabel},
    {{OpKind::Transpose}, transpose},
    {{OpKind::Pad}, pad},
    {{OpKind::Gather}, gather},
    {{OpKind::Cast}, cast},
    {{OpKind::QuantizeLinear}, quantize_linear},
    {{OpKind::DequantizeLinear}, dequantize_linear},
    {{OpKind::Quant}, int_quant},
    {{OpKind::BipolarQuant}, bipolar_quant},
    {{OpKind::Trunc}, trunc_quant},
    {{OpKind::Shape}, shape},
    {{OpKind::ReduceMean}, reduce<k::ReduceOp::Mean>},
    {{OpKind::ReduceSum}, reduce<k::ReduceOp::Sum>},
    {{OpKind::ReduceMax}, reduce<k::ReduceOp::Max>},
    {{OpKind::ReduceMin}, reduce<k::ReduceOp::Min>},
    {{OpKind::ReduceProd}, reduce<k::ReduceOp::Prod>},
    {{OpKind::ReduceL1}, reduce<k::ReduceOp::L1>},
    {{OpKind::ReduceL2}, reduce<k::ReduceOp::L2>},
    {{OpKind::ReduceSumSquare}, reduce<k::ReduceOp::SumSquare>},
    {{OpKind::ReduceLogSum}, reduce<k::ReduceOp::LogSum>},
    {{OpKind::ReduceLogSumExp}, reduce<k::ReduceOp::LogSumExp>},
    {{OpKind::ArgMax}, arg_reduce<true>},
    {{OpKind::ArgMin}, arg_reduce<false>},
    {{OpKind::Dropout}, dropout},
    {{OpKind::Floor}, float_map<k::Floor>},
    {{OpKind::Ceil}, float_map<k::Ceil>},
    {{OpKind::Round}, float_map<k::Round>},
    {{OpKind::Sign}, numeric_map<k::Sign>},
    {{OpKind::Erf}, float_map<k::Erf>},
    {{OpKind::Softplus}, float_map<k::Softplus>},
    {{OpKind::Softsign}, float_map<k::Softsign>},
    {{OpKind::Sin}, float_map<k::Sin>},
    {{OpKind::Cos}, float_map<k::Cos>},
    {{OpKind::Tan}, float_map<k::Tan>},
    {{OpKind::Asin}, float_map<k::Asin>},
    {{OpKind::Acos}, float_map<k::Acos>},
    {{OpKind::Atan}, float_map<k::Atan>},
    {{OpKind::Sinh}, float_map<k::Sinh>},
    {{OpKind::Cosh}, float_map<k::Cosh>},
    {{OpKind::Asinh}, float_map<k::Asinh>},
    {{OpKind::Acosh}, float_map<k::Acosh>},
    {{OpKind::Atanh}, float_map<k::Atanh>},
    {{OpKind::Not}, bool_map<k::Not>},
    {{OpKind::ThresholdedRelu}, float_map<k::ThresholdedRelu>},
    {{OpKind::Celu}, float_map<k::Celu>},
    {{OpKind::HardSwish}, float_map<k::HardSwish>},
    {{OpKind::Shrink}, numeric_map<k::Shrink>},
    {{OpKind::IsNaN}, predicate<k::IsNaN>},
    {{OpKind::IsInf}, predicate<k::IsInf>},
    {{OpKind::Pow}, pow},
    {{OpKind::Mod}, mod},
    {{OpKind::BitShift}, bit_shift},
    {{OpKind::And}, logical<k::And>},
    {{OpKind::Or}, logical<k::Or>},
    {{OpKind::Xor}, logical<k::Xor>},
    {{OpKind::Equal}, comparison<k::Equal>},
    {{OpKind::Less}, comparison<k::Less>},
    {{OpKind::LessOrEqual}, comparison<k::LessOrEqual>},
    {{OpKind::Greater}, comparison<k::Greater>},
    {{OpKind::GreaterOrEqual}, comparison<k::GreaterOrEqual>},
    {{OpKind::Where}, where},
    {{OpKind::Split}, split},
    {{OpKind::Expand}, expand},
    {{OpKind::Tile}, tile},
    {{OpKind::ConstantOfShape}, constant_of_shape},
    {{OpKind::Range}, range},
    {{OpKind::Size}, size},
    {{OpKind::EyeLike}, eye_like},
    {{OpKind::Trilu}, trilu},
    {{OpKind::DepthToSpace}, depth_space<true>},
    {{OpKind::SpaceToDepth}, depth_space<false>},
    {{OpKind::GatherElements}, gather_elements},
    {{OpKind::CumSum}, cum_sum},
    {{OpKind::OneHot}, one_hot},
    {{OpKind::LayerNormalization}, layer_norm},
    {{OpKind::InstanceNormalization}, instance_norm},
    {{OpKind::LRN}, lrn},
    {{OpKind::ConvTranspose}, conv_transpose},
    {{OpKind::Resize}, resize},
    {{OpKind::MaxUnpool}, max_unpool},
    {{OpKind::RNN, OpKind::GRU, OpKind::LSTM}, recurrent},
});

}  // namespace

std::vector<Tensor> evaluate_node(const Node& node, std::span<const Tensor* const> inputs,
                                  std::span<const TensorType> output_types) {
  const std::string where = node.describe();
  KILN_ASSERT(!output_types.empty() && output_types.size() == node.outputs.size(),
              "output types do not match the outputs of " + where);
  const Eval e(node, inputs, output_types, where);
  std::vector<Tensor> results = kEvaluate[node.kind](e);
  results.resize(node.outputs.size());
  // A kernel and shape inference disagreeing is a kiln bug; catch it here
  // rather than as a wrong answer downstream.
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!e.wants(i)) {
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

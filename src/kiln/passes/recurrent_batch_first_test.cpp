// recurrent_batch_first as IR text in, IR text out (with simplify_layout
// where the point is that PyTorch's transposes disappear).
#include "kiln/passes/recurrent_batch_first.h"

#include "kiln/passes/testing/pass_testing.h"

namespace kiln::passes {
namespace {

using testing::expect_passes;
using testing::expect_unchanged;

// A GRU of hidden size 2 over 3 steps of 2 inputs.
constexpr const char* kGruConstants = R"(
const %w: float32[1x6x2] = [0.5,-0.25,0.1,0.2,-0.3,0.4,0.6,-0.1,0.2,0.3,-0.5,0.25]
const %r: float32[1x6x2] = [0.1,0.2,-0.3,0.4,0.5,-0.6,0.7,0.1,-0.2,0.3,0.4,-0.1]
)";

TEST(RecurrentBatchFirst, SequenceFirstGruGetsReshapesAroundIt) {
  expect_passes(
      "recurrent_batch_first", R"(
input %x: float32[3x1x2]
)" + std::string(kGruConstants) + R"(
%y, %h = GRU(%x, %w, %r) {hidden_size=2 activations=[sigmoid,tanh]} @gru "gru"
output %y
output %h
)",
      R"(
input %x: float32[3x1x2]
)" + std::string(kGruConstants).substr(1) +
          R"(%gru_in0: float32[1x3x2] = Reshape(%x) {shape=[1,3,2]} @gru_batch_first_in "gru/batch_first_in"
%gru_out0: float32[1x3x1x2], %gru_out1: float32[1x1x2] = GRU(%gru_in0, %w, %r) {hidden_size=2 activations=[sigmoid,tanh] batch_first=true} @gru "gru"
%y: float32[3x1x1x2] = Reshape(%gru_out0) {shape=[3,1,1,2]} @gru_batch_first_out "gru/batch_first_out"
%h: float32[1x1x2] = Reshape(%gru_out1) {shape=[1,1,2]} @gru_batch_first_out_2 "gru/batch_first_out"
output %y
output %h
)");
}

TEST(RecurrentBatchFirst, PyTorchsTransposesCancel) {
  // nn.GRU(batch_first=True) exports Transpose -> GRU -> Squeeze -> Transpose.
  expect_passes(
      "recurrent_batch_first,simplify_layout", R"(
input %x: float32[1x3x2]
)" + std::string(kGruConstants) + R"(
%xt = Transpose(%x) {perm=[1,0,2]} @t0
%y, %h = GRU(%xt, %w, %r) {hidden_size=2 activations=[sigmoid,tanh]} @gru "gru"
%ys = Squeeze(%y) {axes=[1]} @sq
%yt = Transpose(%ys) {perm=[1,0,2]} @t1
output %yt
)",
      R"(
input %x: float32[1x3x2]
)" + std::string(kGruConstants).substr(1) +
          R"(%gru_out0: float32[1x3x1x2], %gru_out1: float32[1x1x2] = GRU(%x, %w, %r) {hidden_size=2 activations=[sigmoid,tanh] batch_first=true} @gru "gru"
%yt: float32[1x3x2] = Reshape(%gru_out0) {shape=[1,3,2]} @t1
output %yt
)");
}

TEST(RecurrentBatchFirst, ConstantInitialStatesAreReshapedConstants) {
  // Bidirectional: initial_h [2, 1, 2] becomes the constant [1, 2, 2].
  const std::string weights = R"(
const %w: float32[2x1x1] = [0.5,-0.25]
const %r: float32[2x1x1] = [0.1,0.2]
)";
  expect_passes("recurrent_batch_first", R"(
input %x: float32[3x1x1]
)" + weights.substr(1) + R"(const %h0: float32[2x1x1] = [0.5,-0.5]
%y, %h = RNN(%x, %w, %r, _, _, %h0) {direction=bidirectional hidden_size=1 activations=[tanh,tanh]} @rnn "rnn"
output %h
)",
                R"(
input %x: float32[3x1x1]
)" + weights.substr(1) +
                    R"(const %rnn_in5: float32[1x2x1] = [0.5,-0.5]
%rnn_in0: float32[1x3x1] = Reshape(%x) {shape=[1,3,1]} @rnn_batch_first_in "rnn/batch_first_in"
%rnn_out0: float32[1x3x2x1], %rnn_out1: float32[1x2x1] = RNN(%rnn_in0, %w, %r, _, _, %rnn_in5) {direction=bidirectional hidden_size=1 activations=[tanh,tanh] batch_first=true} @rnn "rnn"
%y: float32[3x2x1x1] = Reshape(%rnn_out0) {shape=[3,2,1,1]} @rnn_batch_first_out "rnn/batch_first_out"
%h: float32[2x1x1] = Reshape(%rnn_out1) {shape=[2,1,1]} @rnn_batch_first_out_2 "rnn/batch_first_out"
output %h
)");
}

TEST(RecurrentBatchFirst, BatchesAndBatchFirstAreLeftAlone) {
  expect_unchanged("recurrent_batch_first", std::string(kGruConstants) + R"(
input %x: float32[3x2x2]
%y, %h = GRU(%x, %w, %r) {hidden_size=2 activations=[sigmoid,tanh]} @gru "gru"
output %y
)");
  expect_unchanged("recurrent_batch_first", std::string(kGruConstants) + R"(
input %x: float32[1x3x2]
%y, %h = GRU(%x, %w, %r) {hidden_size=2 activations=[sigmoid,tanh] batch_first=true} @gru "gru"
output %y
)");
}

}  // namespace
}  // namespace kiln::passes

// RNN, GRU and LSTM in the golden interpreter, against the ONNX equations
// worked by hand on hidden_size 1 (and small batches), one feature per test.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/graph/shape_inference.h"
#include "kiln/ref/interpreter.h"
#include "kiln/ref/testing/ref_testing.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::ref {
namespace {

using testing::expect_values;
using testing::F;

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

RecurrentAttrs attrs(OpKind kind, RnnDirection dir = RnnDirection::Forward, int64_t hidden = 1) {
  RecurrentAttrs a;
  a.direction = dir;
  a.hidden_size = hidden;
  const int64_t dirs = dir == RnnDirection::Bidirectional ? 2 : 1;
  const std::vector<RnnActivation> defaults =
      kind == OpKind::RNN ? std::vector{RnnActivation::Tanh}
      : kind == OpKind::GRU
          ? std::vector{RnnActivation::Sigmoid, RnnActivation::Tanh}
          : std::vector{RnnActivation::Sigmoid, RnnActivation::Tanh, RnnActivation::Tanh};
  for (int64_t d = 0; d < dirs; ++d)
    for (RnnActivation k : defaults) a.activations.push_back({k, 0.0f, 0.0f});
  return a;
}

// Runs one node through shape inference and the interpreter's evaluator.
// inputs[i] == nullptr omits input i; `outputs` is how many outputs the node has.
std::vector<Tensor> run(OpKind kind, const RecurrentAttrs& a, std::vector<const Tensor*> inputs,
                        std::size_t outputs) {
  Graph g;
  std::vector<ValueId> ins;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    ins.push_back(inputs[i] ? g.add_constant("in" + std::to_string(i), *inputs[i]) : kNoValue);
  std::vector<ValueId> outs;
  for (std::size_t i = 0; i < outputs; ++i)
    outs.push_back(g.add_value("out" + std::to_string(i), TensorType{}));
  const Node& n = g.add_node(kind, "rnn", ins, outs, a);
  const std::vector<TensorType> types = infer_node_types(g, n);
  return evaluate_node(n, inputs, types);
}

Error run_error(OpKind kind, const RecurrentAttrs& a, std::vector<const Tensor*> inputs) {
  return kiln::testing::catch_error([&] { run(kind, a, std::move(inputs), 2); });
}

// ---- RNN

// Ht = tanh(w x_t + r H_t-1 + wb + rb) for hidden_size 1.
std::vector<double> rnn_steps(const std::vector<double>& xs, double w, double r, double b,
                              double h0 = 0.0) {
  std::vector<double> hs;
  double h = h0;
  for (double x : xs) hs.push_back(h = std::tanh(w * x + r * h + b));
  return hs;
}

TEST(Recurrent, RnnForwardWithBiasAndInitialState) {
  const Tensor x = F({3, 1, 1}, {1, 2, -1});
  const Tensor w = F({1, 1, 1}, {0.5f}), r = F({1, 1, 1}, {0.25f});
  const Tensor b = F({1, 2}, {0.1f, -0.3f}), h0 = F({1, 1, 1}, {0.4f});
  const auto out = run(OpKind::RNN, attrs(OpKind::RNN), {&x, &w, &r, &b, nullptr, &h0}, 2);
  const auto hs = rnn_steps({1, 2, -1}, 0.5, 0.25, -0.2, 0.4);
  expect_values(out[0], {3, 1, 1, 1}, hs);
  expect_values(out[1], {1, 1, 1}, {hs.back()});
}

TEST(Recurrent, RnnReverseWalksFromTheEnd) {
  const Tensor x = F({3, 1, 1}, {1, 2, -1});
  const Tensor w = F({1, 1, 1}, {0.5f}), r = F({1, 1, 1}, {0.25f});
  const auto out = run(OpKind::RNN, attrs(OpKind::RNN, RnnDirection::Reverse), {&x, &w, &r}, 2);
  // Steps -1, 2, 1; Y keeps each step at its own time index.
  const auto hs = rnn_steps({-1, 2, 1}, 0.5, 0.25, 0.0);
  expect_values(out[0], {3, 1, 1, 1}, {hs[2], hs[1], hs[0]});
  expect_values(out[1], {1, 1, 1}, {hs[2]});
}

TEST(Recurrent, RnnBidirectionalStacksBothDirections) {
  const Tensor x = F({2, 1, 1}, {1, -2});
  const Tensor w = F({2, 1, 1}, {0.5f, -0.75f}), r = F({2, 1, 1}, {0.25f, 0.5f});
  const Tensor b = F({2, 2}, {0.0f, 0.1f, 0.2f, 0.0f});
  const auto out =
      run(OpKind::RNN, attrs(OpKind::RNN, RnnDirection::Bidirectional), {&x, &w, &r, &b}, 2);
  const auto fw = rnn_steps({1, -2}, 0.5, 0.25, 0.1);
  const auto bw = rnn_steps({-2, 1}, -0.75, 0.5, 0.2);
  // Y [seq, num_directions, batch, hidden]
  expect_values(out[0], {2, 2, 1, 1}, {fw[0], bw[1], fw[1], bw[0]});
  expect_values(out[1], {2, 1, 1}, {fw[1], bw[1]});
}

TEST(Recurrent, SequenceLensZeroPaddingAndLastValidState) {
  // Batch 2 of lengths 3 and 1, both directions.
  const Tensor x = F({3, 2, 1}, {1, 5, 2, 6, -1, 7});
  const Tensor w = F({2, 1, 1}, {0.5f, 0.5f}), r = F({2, 1, 1}, {0.25f, 0.25f});
  const Tensor lens = Tensor::from_vector<int32_t>({2}, {3, 1});
  const auto out = run(OpKind::RNN, attrs(OpKind::RNN, RnnDirection::Bidirectional),
                       {&x, &w, &r, nullptr, &lens}, 2);
  const auto f0 = rnn_steps({1, 2, -1}, 0.5, 0.25, 0), b0 = rnn_steps({-1, 2, 1}, 0.5, 0.25, 0);
  // The short sequence is x = [5] in both directions: its reverse pass starts at t = 0.
  const double s = std::tanh(0.5 * 5);
  // Y [t][dir][batch]
  expect_values(out[0], {3, 2, 2, 1}, {f0[0], s, b0[2], s, f0[1], 0, b0[1], 0, f0[2], 0, b0[0], 0});
  expect_values(out[1], {2, 2, 1}, {f0[2], s, b0[2], s});
  // Length 0 leaves Y zero and Y_h at the initial state.
  const Tensor zero = Tensor::from_vector<int32_t>({2}, {0, 1});
  const Tensor h0 = F({2, 2, 1}, {0.3f, 0, -0.3f, 0});
  const auto empty = run(OpKind::RNN, attrs(OpKind::RNN, RnnDirection::Bidirectional),
                         {&x, &w, &r, nullptr, &zero, &h0}, 2);
  EXPECT_EQ(empty[0].as_double(0), 0.0);
  EXPECT_NEAR(empty[1].as_double(0), 0.3, 1e-7);
  EXPECT_NEAR(empty[1].as_double(2), -0.3, 1e-7);
}

TEST(Recurrent, SequenceLensOutOfRangeIsInvalid) {
  const Tensor x = F({2, 1, 1}, {1, 2});
  const Tensor w = F({1, 1, 1}, {1}), r = F({1, 1, 1}, {1});
  const Tensor lens = Tensor::from_vector<int32_t>({1}, {3});
  const Error e = run_error(OpKind::RNN, attrs(OpKind::RNN), {&x, &w, &r, nullptr, &lens});
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_NE(std::string(e.what()).find("sequence_lens[0] = 3"), std::string::npos) << e.what();
}

TEST(Recurrent, BatchFirstLayoutTransposesXYAndStates) {
  // Batch 2, seq 3, hidden 2, bidirectional: layout 1 must give layout 0's
  // numbers with the batch and sequence (and direction) axes swapped.
  const int64_t S = 3, N = 2, H = 2;
  std::vector<float> xs(S * N);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = 0.3f * static_cast<float>(i) - 0.7f;
  const Tensor x_sb = F({S, N, 1}, xs);
  std::vector<float> xt(S * N);
  for (int64_t t = 0; t < S; ++t)
    for (int64_t b = 0; b < N; ++b) xt[b * S + t] = xs[t * N + b];
  const Tensor x_bs = F({N, S, 1}, xt);
  const Tensor w = F({2, H, 1}, {0.5f, -0.4f, 0.3f, 0.9f});
  const Tensor r = F({2, H, H}, {0.1f, 0.2f, -0.3f, 0.4f, 0.5f, -0.6f, 0.7f, 0.1f});
  const Tensor h0 = F({2, N, H}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f});
  std::vector<float> h0t(8);
  for (int64_t d = 0; d < 2; ++d)
    for (int64_t b = 0; b < N; ++b)
      for (int64_t j = 0; j < H; ++j)
        h0t[(b * 2 + d) * H + j] = h0.data<float>()[(d * N + b) * H + j];
  const Tensor h0_bs = F({N, 2, H}, h0t);
  RecurrentAttrs a = attrs(OpKind::RNN, RnnDirection::Bidirectional, H);
  const auto seq_first = run(OpKind::RNN, a, {&x_sb, &w, &r, nullptr, nullptr, &h0}, 2);
  a.batch_first = true;
  const auto batch_first = run(OpKind::RNN, a, {&x_bs, &w, &r, nullptr, nullptr, &h0_bs}, 2);
  ASSERT_EQ(batch_first[0].shape(), (Shape{N, S, 2, H}));
  ASSERT_EQ(batch_first[1].shape(), (Shape{N, 2, H}));
  for (int64_t t = 0; t < S; ++t)
    for (int64_t d = 0; d < 2; ++d)
      for (int64_t b = 0; b < N; ++b)
        for (int64_t j = 0; j < H; ++j)
          EXPECT_EQ(batch_first[0].as_double(((b * S + t) * 2 + d) * H + j),
                    seq_first[0].as_double(((t * 2 + d) * N + b) * H + j));
  for (int64_t d = 0; d < 2; ++d)
    for (int64_t b = 0; b < N; ++b)
      for (int64_t j = 0; j < H; ++j)
        EXPECT_EQ(batch_first[1].as_double((b * 2 + d) * H + j),
                  seq_first[1].as_double((d * N + b) * H + j));
}

TEST(Recurrent, ClipBoundsTheActivationInput) {
  // Affine(x) = x makes the clip visible: h = clamp(2 x, -0.5, 0.5).
  const Tensor x = F({3, 1, 1}, {0.1f, 1, -3});
  const Tensor w = F({1, 1, 1}, {2}), r = F({1, 1, 1}, {0});
  RecurrentAttrs a = attrs(OpKind::RNN);
  a.activations = {{RnnActivation::Affine, 1.0f, 0.0f}};
  a.clip = 0.5f;
  expect_values(run(OpKind::RNN, a, {&x, &w, &r}, 1)[0], {3, 1, 1, 1}, {0.2, 0.5, -0.5});
}

TEST(Recurrent, EveryActivationFollowsTheOnnxList) {
  // W = 1, R = 0: Y holds f(x) for each x.
  const std::vector<float> xs = {-2.0f, -0.5f, 0.0f, 0.75f, 3.0f};
  const Tensor x = F({5, 1, 1}, xs);
  const Tensor w = F({1, 1, 1}, {1}), r = F({1, 1, 1}, {0});
  struct Case {
    RnnActivationFn fn;
    double (*ref)(double x, double alpha, double beta);
  };
  const Case cases[] = {
      {{RnnActivation::Relu}, [](double x, double, double) { return std::max(x, 0.0); }},
      {{RnnActivation::Tanh}, [](double x, double, double) { return std::tanh(x); }},
      {{RnnActivation::Sigmoid}, [](double x, double, double) { return sigmoid(x); }},
      {{RnnActivation::Affine, 1.5f, -0.25f},
       [](double x, double a, double b) { return a * x + b; }},
      {{RnnActivation::LeakyRelu, 0.1f},
       [](double x, double a, double) { return x >= 0 ? x : a * x; }},
      {{RnnActivation::ThresholdedRelu, 0.75f},
       [](double x, double a, double) { return x >= a ? x : 0.0; }},
      {{RnnActivation::ScaledTanh, 2.0f, 0.5f},
       [](double x, double a, double b) { return a * std::tanh(b * x); }},
      {{RnnActivation::HardSigmoid, 0.2f, 0.5f},
       [](double x, double a, double b) { return std::min(std::max(a * x + b, 0.0), 1.0); }},
      {{RnnActivation::Elu, 0.5f},
       [](double x, double a, double) { return x >= 0 ? x : a * (std::exp(x) - 1); }},
      {{RnnActivation::Softsign}, [](double x, double, double) { return x / (1 + std::fabs(x)); }},
      {{RnnActivation::Softplus}, [](double x, double, double) { return std::log1p(std::exp(x)); }},
  };
  for (const Case& c : cases) {
    RecurrentAttrs a = attrs(OpKind::RNN);
    a.activations = {c.fn};
    std::vector<double> want;
    for (float v : xs) want.push_back(c.ref(v, c.fn.alpha, c.fn.beta));
    SCOPED_TRACE(std::string(enum_name(c.fn.kind)));
    expect_values(run(OpKind::RNN, a, {&x, &w, &r}, 1)[0], {5, 1, 1, 1}, want);
  }
}

TEST(Recurrent, WrongWeightShapesAreInvalidModels) {
  const Tensor x = F({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor w = F({1, 2, 3}, {1, 2, 3, 4, 5, 6}), r = F({1, 2, 2}, {1, 2, 3, 4});
  // hidden_size 1 against weights for 2.
  const Error e = run_error(OpKind::RNN, attrs(OpKind::RNN), {&x, &w, &r});
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_NE(std::string(e.what()).find("hidden_size 1"), std::string::npos) << e.what();
  // A GRU needs three gate blocks in W.
  EXPECT_EQ(
      run_error(OpKind::GRU, attrs(OpKind::GRU, RnnDirection::Forward, 2), {&x, &w, &r}).kind(),
      ErrorKind::InvalidModel);
  // The activation list must cover every direction.
  RecurrentAttrs a = attrs(OpKind::RNN, RnnDirection::Forward, 2);
  a.direction = RnnDirection::Bidirectional;
  EXPECT_EQ(run_error(OpKind::RNN, a, {&x, &w, &r}).kind(), ErrorKind::InvalidModel);
}

// ---- GRU

// One GRU step of hidden_size 1 with gate weights w[z,r,h], r[z,r,h] and
// biases wb, rb, by the ONNX equations.
double gru_step(double x, double h, const double w[3], const double r[3], const double wb[3],
                const double rb[3], bool linear_before_reset) {
  const double z = sigmoid(w[0] * x + r[0] * h + wb[0] + rb[0]);
  const double rg = sigmoid(w[1] * x + r[1] * h + wb[1] + rb[1]);
  const double cand = linear_before_reset ? std::tanh(w[2] * x + rg * (r[2] * h + rb[2]) + wb[2])
                                          : std::tanh(w[2] * x + r[2] * (rg * h) + rb[2] + wb[2]);
  return (1 - z) * cand + z * h;
}

TEST(Recurrent, GruBothResetPlacements) {
  const double w[3] = {0.5, -0.25, 0.75}, r[3] = {0.3, 0.6, -0.9};
  const double wb[3] = {0.1, 0.2, -0.1}, rb[3] = {-0.2, 0.05, 0.4};
  const Tensor x = F({3, 1, 1}, {1, -2, 0.5f});
  const Tensor tw = F({1, 3, 1}, {0.5f, -0.25f, 0.75f}), tr = F({1, 3, 1}, {0.3f, 0.6f, -0.9f});
  const Tensor tb = F({1, 6}, {0.1f, 0.2f, -0.1f, -0.2f, 0.05f, 0.4f});
  const Tensor h0 = F({1, 1, 1}, {0.5f});
  std::vector<double> ys[2];
  for (bool lbr : {false, true}) {
    double h = 0.5;
    std::vector<double> want;
    for (double xv : {1.0, -2.0, 0.5}) want.push_back(h = gru_step(xv, h, w, r, wb, rb, lbr));
    RecurrentAttrs a = attrs(OpKind::GRU);
    a.linear_before_reset = lbr;
    const auto out = run(OpKind::GRU, a, {&x, &tw, &tr, &tb, nullptr, &h0}, 2);
    SCOPED_TRACE(lbr ? "linear_before_reset=1" : "linear_before_reset=0");
    expect_values(out[0], {3, 1, 1, 1}, want);
    expect_values(out[1], {1, 1, 1}, {want.back()});
    ys[lbr] = want;
  }
  // The two placements differ on these numbers, so each check above is specific.
  EXPECT_GT(std::fabs(ys[0].back() - ys[1].back()), 1e-3);
}

// ---- LSTM

struct LstmState {
  double h, c;
};
// One LSTM step of hidden_size 1; w, r in gate order i, o, f, c; p = {pi, po, pf}.
LstmState lstm_step(double x, LstmState s, const double w[4], const double r[4], const double p[3],
                    bool input_forget) {
  const double i = sigmoid(w[0] * x + r[0] * s.h + p[0] * s.c);
  const double f = input_forget ? 1 - i : sigmoid(w[2] * x + r[2] * s.h + p[2] * s.c);
  const double cand = std::tanh(w[3] * x + r[3] * s.h);
  const double c = f * s.c + i * cand;
  const double o = sigmoid(w[1] * x + r[1] * s.h + p[1] * c);
  return {o * std::tanh(c), c};
}

TEST(Recurrent, LstmPeepholesInitialStatesAndInputForget) {
  const double w[4] = {0.5, -0.3, 0.8, 1.2}, r[4] = {0.2, 0.4, -0.6, 0.7};
  const double p[3] = {0.3, -0.5, 0.9};
  const Tensor x = F({3, 1, 1}, {1, -1, 2});
  const Tensor tw = F({1, 4, 1}, {0.5f, -0.3f, 0.8f, 1.2f});
  const Tensor tr = F({1, 4, 1}, {0.2f, 0.4f, -0.6f, 0.7f});
  const Tensor tp = F({1, 3}, {0.3f, -0.5f, 0.9f});
  const Tensor h0 = F({1, 1, 1}, {0.25f}), c0 = F({1, 1, 1}, {-0.5f});
  for (bool coupled : {false, true}) {
    LstmState s{0.25, -0.5};
    std::vector<double> hs;
    for (double xv : {1.0, -1.0, 2.0}) {
      s = lstm_step(xv, s, w, r, p, coupled);
      hs.push_back(s.h);
    }
    RecurrentAttrs a = attrs(OpKind::LSTM);
    a.input_forget = coupled;
    const auto out = run(OpKind::LSTM, a, {&x, &tw, &tr, nullptr, nullptr, &h0, &c0, &tp}, 3);
    SCOPED_TRACE(coupled ? "input_forget=1" : "input_forget=0");
    expect_values(out[0], {3, 1, 1, 1}, hs);
    expect_values(out[1], {1, 1, 1}, {s.h});
    expect_values(out[2], {1, 1, 1}, {s.c});
  }
  // Without P the peepholes are zero: a different answer.
  const double p0[3] = {0, 0, 0};
  LstmState s{0.25, -0.5};
  for (double xv : {1.0, -1.0, 2.0}) s = lstm_step(xv, s, w, r, p0, false);
  const auto out =
      run(OpKind::LSTM, attrs(OpKind::LSTM), {&x, &tw, &tr, nullptr, nullptr, &h0, &c0}, 3);
  expect_values(out[2], {1, 1, 1}, {s.c});
}

TEST(Recurrent, OmittedOutputsAreNotRequired) {
  // Only Y_c used, through the interpreter (which gives omitted outputs no type).
  const Tensor x = F({2, 1, 1}, {1, 0.5f});
  const Tensor w = F({1, 4, 1}, {1, 1, 1, 1}), r = F({1, 4, 1}, {0, 0, 0, 0});
  Graph g;
  std::vector<ValueId> ins;
  for (const Tensor* t : {&x, &w, &r}) ins.push_back(g.add_constant("c", *t));
  const ValueId yc = g.add_value("yc", TensorType{});
  g.add_node(OpKind::LSTM, "l", ins, {kNoValue, kNoValue, yc}, attrs(OpKind::LSTM));
  g.outputs = {yc};
  infer_shapes(g);
  const auto out = Interpreter(g).run({});
  // c1 = sigmoid(1) tanh(1); c2 = sigmoid(0.5) c1 + sigmoid(0.5) tanh(0.5).
  const double c1 = sigmoid(1) * std::tanh(1);
  expect_values(out.at(0), {1, 1, 1}, {sigmoid(0.5) * (c1 + std::tanh(0.5))});
}

}  // namespace
}  // namespace kiln::ref

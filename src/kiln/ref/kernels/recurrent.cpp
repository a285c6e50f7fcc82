// RNN, GRU and LSTM as the ONNX operators define them (opsets 7-22): every
// direction walks each batch entry's own sequence (its sequence_lens entry),
// the reverse direction from that sequence's last valid step. Y is zero past a
// sequence's end; Y_h and Y_c hold the state after its last valid step.
//
// One cell function per op on a shared step driver; the activations come
// resolved from the importer (RecurrentAttrs), clip bounds every activation's
// input. Arithmetic in the tensor's type (float32 for float32 models).
#include <algorithm>
#include <cmath>

#include "kiln/ref/kernels/kernels.h"
#include "kiln/ref/kernels/scalar_ops.h"

namespace kiln::ref::kernels {

namespace {

// One activation of the layer, with the layer's clip applied to its input.
template <class T>
struct Activation {
  RnnActivationFn fn;
  T clip = 0;  // 0: none

  T operator()(T x) const {
    if (clip > 0) x = std::clamp(x, -clip, clip);
    const T alpha = static_cast<T>(fn.alpha), beta = static_cast<T>(fn.beta);
    switch (fn.kind) {
      case RnnActivation::Relu: return std::max(x, T{0});
      case RnnActivation::Tanh: return Tanh{}(x);
      case RnnActivation::Sigmoid: return Sigmoid{}(x);
      case RnnActivation::Affine: return alpha * x + beta;
      case RnnActivation::LeakyRelu: return x >= 0 ? x : alpha * x;
      case RnnActivation::ThresholdedRelu: return x >= alpha ? x : T{0};
      case RnnActivation::ScaledTanh: return alpha * std::tanh(beta * x);
      case RnnActivation::HardSigmoid: return std::clamp(alpha * x + beta, T{0}, T{1});
      case RnnActivation::Elu: return x >= 0 ? x : alpha * std::expm1(x);
      case RnnActivation::Softsign: return Softsign{}(x);
      case RnnActivation::Softplus: return Softplus{}(x);
    }
    return x;
  }
};

// The operands of one direction, as row-major pointers into the inputs.
template <class T>
struct Direction {
  const T* w = nullptr;            // [G*H, I]
  const T* r = nullptr;            // [G*H, H]
  const T* wb = nullptr;           // [G*H], null without B
  const T* rb = nullptr;           // [G*H]
  const T* p = nullptr;            // LSTM peepholes [3*H] (i, o, f), null without P
  std::vector<Activation<T>> act;  // f, g, h as the op has them
};

// y[j] = bias[j] + sum_k m[j, k] * v[k] for the rows [row0, row0 + rows).
template <class T>
void affine_rows(const T* m, const T* v, const T* bias, int64_t row0, int64_t rows, int64_t cols,
                 T* y) {
  for (int64_t j = 0; j < rows; ++j) {
    const T* row = m + (row0 + j) * cols;
    T s = bias ? bias[row0 + j] : T{0};
    for (int64_t k = 0; k < cols; ++k) s += row[k] * v[k];
    y[j] = s;
  }
}

// One time step of one batch entry: updates h (and c for LSTM) in place.
// xw = W x + Wb and hr = R h + Rb, both [G*H], are computed by the driver.
template <class T>
struct Cell {
  OpKind kind;
  int64_t hidden;
  bool linear_before_reset, input_forget;

  void step(const Direction<T>& d, const T* xw, const T* hr, std::vector<T>& h, std::vector<T>& c,
            std::vector<T>& scratch) const {
    const int64_t H = hidden;
    switch (kind) {
      case OpKind::RNN:  // Ht = f(Xt W^T + Ht-1 R^T + Wb + Rb)
        for (int64_t j = 0; j < H; ++j) h[j] = d.act[0](xw[j] + hr[j]);
        return;
      case OpKind::GRU: {  // gate blocks z, r, h
        scratch.resize(static_cast<std::size_t>(4 * H));
        T *z = scratch.data(), *r = z + H, *rec = r + H, *rh = rec + H;
        for (int64_t j = 0; j < H; ++j) {
          z[j] = d.act[0](xw[j] + hr[j]);
          r[j] = d.act[0](xw[H + j] + hr[H + j]);
        }
        // The candidate's recurrent term: r (.) (Ht-1 Rh^T + Rbh) with
        // linear_before_reset, else (r (.) Ht-1) Rh^T + Rbh.
        if (linear_before_reset) {
          for (int64_t j = 0; j < H; ++j) rec[j] = r[j] * hr[2 * H + j];
        } else {
          for (int64_t j = 0; j < H; ++j) rh[j] = r[j] * h[j];
          affine_rows(d.r, rh, d.rb, 2 * H, H, H, rec);
        }
        for (int64_t j = 0; j < H; ++j) {
          const T cand = d.act[1](xw[2 * H + j] + rec[j]);
          h[j] = (T{1} - z[j]) * cand + z[j] * h[j];
        }
        return;
      }
      case OpKind::LSTM:  // gate blocks i, o, f, c; peepholes i, o, f
        for (int64_t j = 0; j < H; ++j) {
          const T pi = d.p ? d.p[j] : T{0}, po = d.p ? d.p[H + j] : T{0};
          const T pf = d.p ? d.p[2 * H + j] : T{0};
          const T i = d.act[0](xw[j] + hr[j] + pi * c[j]);
          // input_forget couples the gates: what is let in is forgotten.
          const T f = input_forget ? T{1} - i : d.act[0](xw[2 * H + j] + hr[2 * H + j] + pf * c[j]);
          const T cand = d.act[1](xw[3 * H + j] + hr[3 * H + j]);
          c[j] = f * c[j] + i * cand;
          const T o = d.act[0](xw[H + j] + hr[H + j] + po * c[j]);
          h[j] = o * d.act[2](c[j]);
        }
        return;
      default: KILN_ASSERT(false, "not a recurrent op");
    }
  }
};

const Tensor* input_at(std::span<const Tensor* const> inputs, std::size_t i) {
  return i < inputs.size() ? inputs[i] : nullptr;
}

template <class T>
std::vector<Tensor> run_recurrent(OpKind kind, std::span<const Tensor* const> inputs,
                                  const RecurrentAttrs& a, std::span<const TensorType> out,
                                  const std::vector<bool>& wanted, const std::string& where) {
  const Tensor& x = *inputs[0];
  const int64_t seq = x.shape()[a.batch_first ? 1 : 0];
  const int64_t batch = x.shape()[a.batch_first ? 0 : 1];
  const int64_t I = x.shape()[2], H = a.hidden_size, G = rnn_gate_count(kind);
  const int64_t dirs = rnn_num_directions(a), per_dir = rnn_activation_count(kind);

  // Validated here because sequence_lens may be a runtime input.
  std::vector<int64_t> lens(static_cast<std::size_t>(batch), seq);
  if (const Tensor* sl = input_at(inputs, 4)) {
    for (int64_t b = 0; b < batch; ++b) {
      lens[b] = sl->as_int64(b);
      if (lens[b] < 0 || lens[b] > seq)
        throw_error(ErrorKind::InvalidModel, where,
                    "sequence_lens[" + std::to_string(b) + "] = " + std::to_string(lens[b]) +
                        " is outside 0.." + std::to_string(seq),
                    "give every sequence a length between 0 and X's sequence length");
    }
  }
  auto data = [&](std::size_t i) -> const T* {
    const Tensor* t = input_at(inputs, i);
    return t ? t->data<T>().data() : nullptr;
  };
  const T *w = data(1), *r = data(2), *bias = data(3), *h0 = data(5), *c0 = data(6), *p = data(7);

  // Zeros: Y past each sequence's end. Outputs the model omits stay empty.
  std::vector<Tensor> results(out.size());
  auto output = [&](std::size_t i) -> T* {
    if (i >= out.size() || !wanted[i]) return nullptr;
    results[i] = Tensor(out[i]);
    return results[i].data<T>().data();
  };
  T *y = output(0), *yh = output(1), *yc = output(2);

  auto x_at = [&](int64_t t, int64_t b) {
    return x.data<T>().data() + (a.batch_first ? b * seq + t : t * batch + b) * I;
  };
  auto y_at = [&](int64_t t, int64_t d, int64_t b) {
    return y + (a.batch_first ? (b * seq + t) * dirs + d : (t * dirs + d) * batch + b) * H;
  };
  auto state_offset = [&](int64_t d, int64_t b) {
    return (a.batch_first ? b * dirs + d : d * batch + b) * H;
  };

  const Cell<T> cell{kind, H, a.linear_before_reset, a.input_forget};
  const T clip = static_cast<T>(a.clip);
  for (int64_t d = 0; d < dirs; ++d) {
    Direction<T> dir;
    dir.w = w + d * G * H * I;
    dir.r = r + d * G * H * H;
    if (bias) dir.wb = bias + d * 2 * G * H, dir.rb = dir.wb + G * H;
    if (p) dir.p = p + d * 3 * H;
    for (int64_t k = 0; k < per_dir; ++k)
      dir.act.push_back({a.activations[static_cast<std::size_t>(d * per_dir + k)], clip});
    const bool reverse = a.direction == RnnDirection::Reverse || d == 1;

    std::vector<T> h(static_cast<std::size_t>(H)), c(static_cast<std::size_t>(H));
    std::vector<T> xw(static_cast<std::size_t>(G * H)), hr(xw.size()), scratch;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t s0 = state_offset(d, b);
      for (int64_t j = 0; j < H; ++j) {
        h[j] = h0 ? h0[s0 + j] : T{0};
        c[j] = c0 ? c0[s0 + j] : T{0};
      }
      for (int64_t s = 0; s < lens[b]; ++s) {
        const int64_t t = reverse ? lens[b] - 1 - s : s;
        affine_rows(dir.w, x_at(t, b), dir.wb, 0, G * H, I, xw.data());
        affine_rows(dir.r, h.data(), dir.rb, 0, G * H, H, hr.data());
        cell.step(dir, xw.data(), hr.data(), h, c, scratch);
        if (y) std::copy(h.begin(), h.end(), y_at(t, d, b));
      }
      if (yh) std::copy(h.begin(), h.end(), yh + s0);
      if (yc) std::copy(c.begin(), c.end(), yc + s0);
    }
  }
  return results;
}

}  // namespace

std::vector<Tensor> recurrent(OpKind kind, std::span<const Tensor* const> inputs,
                              const RecurrentAttrs& attrs, std::span<const TensorType> out,
                              const std::vector<bool>& wanted, const std::string& where) {
  std::vector<Tensor> results;
  visit_float_dtype(inputs[0]->dtype(), where, [&](auto v) {
    results = run_recurrent<decltype(v)>(kind, inputs, attrs, out, wanted, where);
  });
  return results;
}

}  // namespace kiln::ref::kernels

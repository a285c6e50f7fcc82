// kiln layer library: standalone activation layers. Shipped into each project.
//
// Arithmetic (docs/numerics.md "Activation layer", "Lookup tables"): the
// activation is computed exactly on the input value and assigned once to the
// result type:
//   linear  y = x
//   relu    y = max(x, 0)
//   leaky   y = x >= 0 ? x : x * alpha            (alpha in param_t)
//   elu     y = x >= 0 ? x : alpha * (T[idx] - 1)  (T the exp table)
//   selu    y = gamma * (x >= 0 ? x : alpha * (T[idx] - 1))
//   prelu   y = x >= 0 ? x : x * slope[c]          (slope per channel)
//   clip    y = min(max(x, lo), hi)                (lo, hi in param_t)
//   hard_sigmoid  y = h = min(max(alpha * x + beta, 0), 1)  (alpha, beta in param_t)
//   hard_swish    y = x * h                                 (the same h)
//   table   y = T[idx], idx = clamp(floor(x * 2^table_shift) + table_size/2,
//           0, table_size - 1): sigmoid, tanh and exp, whose tables kiln
//           computes (bin midpoints) and writes into the project.
//
// CONFIG carries:
//   n (elements), channels (last-axis size: the io_stream element width and
//   the PRelu slope index), and as the function needs them alpha()/gamma()/
//   lo()/hi()/beta() (doubles exact in param_t), table_size, table_shift, typedef
//   table_t (table entries) or weight_t (PRelu slopes).
// io_parallel functions take arrays of n values; io_stream functions take
// streams of kiln::array<T, channels>, n / channels elements. C++14.
#ifndef KILN_ACTIVATION_H_
#define KILN_ACTIVATION_H_

#include "kiln_common.h"

namespace kiln {
namespace elementwise_detail {

template <bool B>
struct bool_tag {};

// The sign test of the contract (x >= 0), exact for every format.
template <class T>
inline bool non_negative(const T& x) {
  return raw_bits(x) >= 0;
}

// Index of x in a symmetric table of N = 2^k entries: the bin of width
// 2^-S that holds x, counted from -N/2 bins, clamped to the table.
template <int S, unsigned N, class T>
inline unsigned table_index(const T& x) {
  KILN_PRAGMA(HLS INLINE)
  long long k = floor_scaled<S>(x) + static_cast<long long>(N / 2);
  if (k < 0) k = 0;
  if (k > static_cast<long long>(N - 1)) k = N - 1;
  return static_cast<unsigned>(k);
}

// One element of each activation: apply(x, y, c, aux) with c the channel and
// aux the table or slope array (unused by the others).
struct Linear {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned, const A*) {
    y = x;
  }
};

struct Relu {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned, const A*) {
    if (non_negative(x)) {
      y = x;
    } else {
      y = 0;
    }
  }
};

struct LeakyRelu {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned, const A*) {
    const param_t alpha = CONFIG::alpha();
    if (non_negative(x)) {
      y = x;
    } else {
      y = x * alpha;  // exact product, one rounding
    }
  }
};

struct PRelu {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned c, const A* slope) {
    if (non_negative(x)) {
      y = x;
    } else {
      y = x * slope[c];
    }
  }
};

struct Clip {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned, const A*) {
    const param_t lo = CONFIG::lo();
    const param_t hi = CONFIG::hi();
    // min(max(x, lo), hi) literally: hi wins when lo > hi.
    if (exact_less(x, lo)) {
      if (hi < lo) {
        y = hi;
      } else {
        y = lo;
      }
    } else if (exact_less(hi, x)) {
      y = hi;
    } else {
      y = x;
    }
  }
};

// h = min(max(alpha * x + beta, 0), 1), exact: a full-precision product and
// sum, clamped into a type with the sum's fraction bits that holds [0, 1].
template <class T>
struct hard_sigmoid_type {
  static const int frac = fixed_traits<T>::frac + fixed_traits<param_t>::frac;
  typedef typename signed_fixed<(frac + 2 > 1 ? frac + 2 : 1), 2>::type type;
};

template <class CONFIG, class T>
inline typename hard_sigmoid_type<T>::type hard_sigmoid_exact(const T& x) {
  KILN_PRAGMA(HLS INLINE)
  typedef typename hard_sigmoid_type<T>::type H;
  const param_t alpha = CONFIG::alpha();
  const param_t beta = CONFIG::beta();
  const param_t one = 1;
  const auto s = x * alpha + beta;
  if (!non_negative(s)) return H(0);
  if (exact_less(one, s)) return H(one);
  return H(s);
}

struct HardSigmoid {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned, const A*) {
    y = hard_sigmoid_exact<CONFIG>(x);
  }
};

struct HardSwish {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned, const A*) {
    y = x * hard_sigmoid_exact<CONFIG>(x);  // exact product, one rounding
  }
};

struct Elu {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned, const A* table) {
    if (non_negative(x)) {
      y = x;
    } else {
      const param_t alpha = CONFIG::alpha();
      const param_t one = 1;
      const unsigned k = table_index<CONFIG::table_shift, CONFIG::table_size>(x);
      y = alpha * (table[k] - one);
    }
  }
};

struct Selu {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned, const A* table) {
    const param_t gamma = CONFIG::gamma();
    if (non_negative(x)) {
      y = gamma * x;
    } else {
      const param_t alpha = CONFIG::alpha();
      const param_t one = 1;
      const unsigned k = table_index<CONFIG::table_shift, CONFIG::table_size>(x);
      y = gamma * (alpha * (table[k] - one));
    }
  }
};

struct Table {
  template <class CONFIG, class T, class R, class A>
  static void apply(const T& x, R& y, unsigned, const A* table) {
    y = table[table_index<CONFIG::table_shift, CONFIG::table_size>(x)];
  }
};

template <class CONFIG, class OP, class data_T, class res_T, class A>
void map_array(const data_T in[CONFIG::n], res_T out[CONFIG::n], const A* aux) {
  KILN_PRAGMA(HLS INLINE)
  for (unsigned i = 0; i < CONFIG::n; i++) {
    KILN_PRAGMA(HLS UNROLL)
    OP::template apply<CONFIG>(in[i], out[i], i % CONFIG::channels, aux);
  }
}

template <class CONFIG, class OP, class data_T, class res_T, class A>
void map_stream(stream<data_T>& in, stream<res_T>& out, const A* aux) {
  KILN_PRAGMA(HLS INLINE)
  for (unsigned p = 0; p < CONFIG::n / CONFIG::channels; p++) {
    KILN_PRAGMA(HLS PIPELINE II = 1)
    const data_T x = in.read();
    res_T y;
    for (unsigned c = 0; c < res_T::size; c++) {
      KILN_PRAGMA(HLS UNROLL)
      OP::template apply<CONFIG>(x[c], y[c], c, aux);
    }
    out.write(y);
  }
}

// A null aux pointer for activations without a table.
inline const param_t* no_aux() {
  return 0;
}

}  // namespace elementwise_detail

// ---- io_parallel ----------------------------------------------------------

template <class CONFIG, class data_T, class res_T>
void linear(const data_T in[CONFIG::n], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  elementwise_detail::map_array<CONFIG, elementwise_detail::Linear>(in, out,
                                                                    elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void relu(const data_T in[CONFIG::n], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  elementwise_detail::map_array<CONFIG, elementwise_detail::Relu>(in, out,
                                                                  elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void leaky_relu(const data_T in[CONFIG::n], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  elementwise_detail::map_array<CONFIG, elementwise_detail::LeakyRelu>(
      in, out, elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void clip(const data_T in[CONFIG::n], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  elementwise_detail::map_array<CONFIG, elementwise_detail::Clip>(in, out,
                                                                  elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void hard_sigmoid(const data_T in[CONFIG::n], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  elementwise_detail::map_array<CONFIG, elementwise_detail::HardSigmoid>(
      in, out, elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void hard_swish(const data_T in[CONFIG::n], res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  elementwise_detail::map_array<CONFIG, elementwise_detail::HardSwish>(
      in, out, elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void prelu(const data_T in[CONFIG::n], const typename CONFIG::weight_t slope[CONFIG::channels],
           res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = slope complete)
  elementwise_detail::map_array<CONFIG, elementwise_detail::PRelu>(in, out, slope);
}

template <class CONFIG, class data_T, class res_T>
void elu(const data_T in[CONFIG::n], const typename CONFIG::table_t table[CONFIG::table_size],
         res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  elementwise_detail::map_array<CONFIG, elementwise_detail::Elu>(in, out, table);
}

template <class CONFIG, class data_T, class res_T>
void selu(const data_T in[CONFIG::n], const typename CONFIG::table_t table[CONFIG::table_size],
          res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  elementwise_detail::map_array<CONFIG, elementwise_detail::Selu>(in, out, table);
}

// Sigmoid, tanh and exp differ only in the table kiln writes.
template <class CONFIG, class data_T, class res_T>
void table_activation(const data_T in[CONFIG::n],
                      const typename CONFIG::table_t table[CONFIG::table_size],
                      res_T out[CONFIG::n]) {
  KILN_PRAGMA(HLS PIPELINE)
  elementwise_detail::map_array<CONFIG, elementwise_detail::Table>(in, out, table);
}

// ---- io_stream ------------------------------------------------------------

template <class CONFIG, class data_T, class res_T>
void linear(stream<data_T>& in, stream<res_T>& out) {
  elementwise_detail::map_stream<CONFIG, elementwise_detail::Linear>(in, out,
                                                                     elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void relu(stream<data_T>& in, stream<res_T>& out) {
  elementwise_detail::map_stream<CONFIG, elementwise_detail::Relu>(in, out,
                                                                   elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void leaky_relu(stream<data_T>& in, stream<res_T>& out) {
  elementwise_detail::map_stream<CONFIG, elementwise_detail::LeakyRelu>(
      in, out, elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void clip(stream<data_T>& in, stream<res_T>& out) {
  elementwise_detail::map_stream<CONFIG, elementwise_detail::Clip>(in, out,
                                                                   elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void hard_sigmoid(stream<data_T>& in, stream<res_T>& out) {
  elementwise_detail::map_stream<CONFIG, elementwise_detail::HardSigmoid>(
      in, out, elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void hard_swish(stream<data_T>& in, stream<res_T>& out) {
  elementwise_detail::map_stream<CONFIG, elementwise_detail::HardSwish>(
      in, out, elementwise_detail::no_aux());
}

template <class CONFIG, class data_T, class res_T>
void prelu(stream<data_T>& in, const typename CONFIG::weight_t slope[CONFIG::channels],
           stream<res_T>& out) {
  KILN_PRAGMA(HLS ARRAY_PARTITION variable = slope complete)
  elementwise_detail::map_stream<CONFIG, elementwise_detail::PRelu>(in, out, slope);
}

template <class CONFIG, class data_T, class res_T>
void elu(stream<data_T>& in, const typename CONFIG::table_t table[CONFIG::table_size],
         stream<res_T>& out) {
  elementwise_detail::map_stream<CONFIG, elementwise_detail::Elu>(in, out, table);
}

template <class CONFIG, class data_T, class res_T>
void selu(stream<data_T>& in, const typename CONFIG::table_t table[CONFIG::table_size],
          stream<res_T>& out) {
  elementwise_detail::map_stream<CONFIG, elementwise_detail::Selu>(in, out, table);
}

template <class CONFIG, class data_T, class res_T>
void table_activation(stream<data_T>& in, const typename CONFIG::table_t table[CONFIG::table_size],
                      stream<res_T>& out) {
  elementwise_detail::map_stream<CONFIG, elementwise_detail::Table>(in, out, table);
}

// hls4ml spellings of the three table activations (same code, other table).
template <class CONFIG, class IN, class OUT>
void sigmoid(IN& in, const typename CONFIG::table_t table[CONFIG::table_size], OUT& out) {
  table_activation<CONFIG>(in, table, out);
}
template <class CONFIG, class IN, class OUT>
void tanh(IN& in, const typename CONFIG::table_t table[CONFIG::table_size], OUT& out) {
  table_activation<CONFIG>(in, table, out);
}
template <class CONFIG, class IN, class OUT>
void exp(IN& in, const typename CONFIG::table_t table[CONFIG::table_size], OUT& out) {
  table_activation<CONFIG>(in, table, out);
}

}  // namespace kiln

#endif  // KILN_ACTIVATION_H_

#include "kiln/rtl/cmvm/fixed_values.h"

#include <algorithm>

#include "kiln/sched/operator_library.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

using netlist::Op;
using numeric::int128;

netlist::Bits bits_of(int128 v, int width) {
  netlist::Bits b(width);
  for (int i = 0; i < width; ++i) b.set_bit(i, ((i < 127 ? (v >> i) : (v >> 127)) & 1) != 0);
  return b;
}

ValueId FixedValues::lit(int128 v, int width) {
  netlist::Bits b = bits_of(v, width);
  std::vector<uint64_t> words(b.data(), b.data() + b.words());
  auto [it, fresh] = constants_.try_emplace({width, std::move(words)}, netlist::kNoValue);
  if (fresh) it->second = m_.constant(b);
  return it->second;
}

ValueId FixedValues::aligned_literal(int64_t raw, const loop::ScalarType& type, int width,
                                     int frac) {
  const int s = frac - type.frac;
  int128 v = raw;
  if (s >= 0) {
    KILN_ASSERT(s < 120, "constant shifted too far");
    v = v * (int128{1} << s);
  } else {
    KILN_ASSERT(-s < 120 && v % (int128{1} << -s) == 0, "a constant is off the grid it is used on");
    v = v / (int128{1} << -s);
  }
  return lit(v, width);
}

ValueId FixedValues::align(ValueId v, const loop::ScalarType& from, int width, int frac) {
  const int s = frac - from.frac;
  KILN_ASSERT(s >= 0, "aligning would drop fraction bits");
  const int keep = std::min(from.width, width - s);  // bits of v kept
  if (keep <= 0) return lit(0, width);
  ValueId x = keep < from.width ? m_.slice(v, 0, keep) : v;
  // Extension only when all of v is kept: a cut value is modular.
  if (width - s > keep) x = from.is_signed ? m_.sext(x, width - s) : m_.zext(x, width - s);
  if (s > 0) {
    const ValueId parts[] = {x, lit(0, s)};
    x = m_.concat(parts);
  }
  return x;
}

ValueId FixedValues::floor_bits(ValueId x, const loop::ScalarType& t, int d, int width) {
  if (t.width <= d) {
    // Only the sign is left.
    if (!t.is_signed) return lit(0, width);
    return m_.sext(bit(x, t.width - 1), width);
  }
  const ValueId kept = m_.slice(x, d, t.width - d);
  if (t.width - d == width) return kept;
  if (t.width - d > width) return m_.slice(kept, 0, width);
  return t.is_signed ? m_.sext(kept, width) : m_.zext(kept, width);
}

ValueId FixedValues::low(ValueId v, int width) {
  const int w = m_.width(v);
  if (w == width) return v;
  return w > width ? m_.slice(v, 0, width) : m_.zext(v, width);
}

ValueId FixedValues::shl(ValueId v, int k) {
  if (k == 0) return v;
  return m_.op(Op::Shl, m_.width(v), {v}, k);
}

ValueId FixedValues::eq(ValueId v, int64_t c) {
  return m_.op(Op::Eq, 1, {v, lit(c, m_.width(v))});
}

ValueId FixedValues::ne(ValueId v, int64_t c) {
  return m_.op(Op::Ne, 1, {v, lit(c, m_.width(v))});
}

ValueId FixedValues::op2(Op op, ValueId a, ValueId b) {
  const bool compare = op == Op::Eq || op == Op::Ne || op == Op::Ult || op == Op::Ule ||
                       op == Op::Slt || op == Op::Sle;
  return m_.op(op, compare ? 1 : m_.width(a), {a, b});
}

ValueId FixedValues::not1(ValueId a) {
  return m_.op(Op::Not, m_.width(a), {a});
}

ValueId FixedValues::any(const std::vector<ValueId>& bits) {
  if (bits.empty()) return lit(0, 1);
  ValueId v = bits[0];
  for (std::size_t i = 1; i < bits.size(); ++i) v = or2(v, bits[i]);
  return v;
}

ValueId FixedValues::select(ValueId selector, const std::vector<std::pair<int64_t, ValueId>>& cases,
                            ValueId otherwise) {
  KILN_ASSERT(!cases.empty(), "a selection of nothing");
  const int sw = m_.width(selector);
  std::vector<std::pair<netlist::Bits, ValueId>> keyed;
  for (const auto& [key, value] : cases) keyed.emplace_back(bits_of(key, sw), value);
  return m_.case_of(selector, keyed, otherwise);
}

ValueId FixedValues::modular_sum(int bits, int64_t constant,
                                 const std::vector<std::pair<ValueId, int64_t>>& terms,
                                 ValueId extra) {
  const int64_t size = int64_t{1} << std::min(bits, 62);
  ValueId e = lit(((constant % size) + size) % size, bits);
  for (const auto& [var, c] : terms) {
    const ValueId v = low(var, bits);
    for (const auto& [digit, shift] : sched::csd_digits(c))
      e = digit > 0 ? m_.add(e, shl(v, shift)) : m_.sub(e, shl(v, shift));
  }
  if (extra != netlist::kNoValue) e = m_.add(e, extra);
  return e;
}

}  // namespace kiln::rtl

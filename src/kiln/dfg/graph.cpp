#include "kiln/dfg/graph.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <sstream>

#include "kiln/support/error.h"

namespace kiln::dfg {

namespace {

using numeric::Exact;
using numeric::int128;

bool commutative(NodeOp op) {
  return op == NodeOp::Add || op == NodeOp::Mul || op == NodeOp::Max || op == NodeOp::Min ||
         op == NodeOp::AddMod;
}

// The smallest and largest values of a type, exactly.
Exact type_min(const ScalarType& t) {
  KILN_ASSERT(t.width < 120, "type too wide");
  return {t.is_signed ? -(int128{1} << (t.width - 1)) : 0, t.frac};
}
Exact type_max(const ScalarType& t) {
  KILN_ASSERT(t.width < 120, "type too wide");
  return {(int128{1} << (t.width - (t.is_signed ? 1 : 0))) - 1, t.frac};
}

// Every value of `a` is a value of `t`: assigning one to the other is exact.
bool exact_fit(const ScalarType& a, const ScalarType& t) {
  return a.frac <= t.frac && numeric::exact_compare(type_min(a), type_min(t)) >= 0 &&
         numeric::exact_compare(type_max(a), type_max(t)) <= 0;
}

// Assigning any value of `a` to `target` leaves it as it is: it is on the
// target's grid and inside the range its overflow mode keeps. A symmetric
// saturation (AP_SAT_SYM) maps the most negative value to -max, so that one
// is not kept (found by the RTL fuzz tier: -1.0 into ap_fixed<8,1,..,AP_SAT_SYM>).
bool assignment_exact(const ScalarType& a, const FixedType& target) {
  const ScalarType t = loop::scalar_of(target);
  if (!exact_fit(a, t)) return false;
  if (target.overflow != numeric::OverflowMode::SatSym || !t.is_signed || t.width < 2) return true;
  return numeric::exact_compare(type_min(a), type_min(t)) > 0;
}

FixedType wrap_type(const ScalarType& t) {
  FixedType f = loop::fixed_of(t);
  f.overflow = numeric::OverflowMode::Wrap;
  return f;
}

}  // namespace

std::size_t Graph::KeyHash::operator()(const Key& k) const {
  uint64_t h = static_cast<uint64_t>(k.op) * 0x9E3779B97F4A7C15ull;
  auto mix = [&](uint64_t v) { h = (h ^ v) * 0xBF58476D1CE4E5B9ull + (h >> 29); };
  mix(k.type);
  mix(k.a);
  mix(k.b);
  mix(k.c);
  mix(static_cast<uint64_t>(k.imm));
  return static_cast<std::size_t>(h ^ (h >> 31));
}

uint16_t Graph::type_id(const ScalarType& t) {
  const uint64_t key = (static_cast<uint64_t>(t.width) << 32) |
                       (static_cast<uint64_t>(static_cast<uint32_t>(t.frac + 65536)) << 1) |
                       (t.is_signed ? 1 : 0);
  if (const uint16_t* id = type_ids_.find(key)) return *id;
  KILN_ASSERT(types_.size() < 65535, "too many distinct types in one graph");
  types_.push_back(t);
  const auto id = static_cast<uint16_t>(types_.size() - 1);
  type_ids_.try_emplace(key, id);
  return id;
}

Graph::Key Graph::key_of(uint32_t n) const {
  const Node& node = nodes_[n];
  Key k{node.imm, UINT32_MAX, UINT32_MAX, UINT32_MAX, node.type, node.op};
  const uint32_t* a = args_.data() + node.first_arg;
  if (node.num_args > 0) k.a = a[0];
  if (node.num_args > 1) k.b = a[1];
  if (node.num_args > 2) k.c = a[2];
  return k;
}

uint32_t Graph::memo(const Key& k, uint32_t id) {
  if (2 * (memo_size_ + 1) > memo_.size()) {
    // Twice as large: each entry moves by its hash bits, no node read.
    std::vector<uint64_t> old(memo_.empty() ? 16 : 2 * memo_.size(), 0);
    old.swap(memo_);
    const std::size_t mask = memo_.size() - 1;
    for (uint64_t s : old) {
      if (s == 0) continue;
      std::size_t i = static_cast<std::size_t>(s >> 32) & mask;
      while (memo_[i] != 0) i = (i + 1) & mask;
      memo_[i] = s;
    }
  }
  const auto h = static_cast<uint32_t>(mix_hash(KeyHash{}(k)));
  const std::size_t mask = memo_.size() - 1;
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    const uint64_t s = memo_[i];
    if (s == 0) {
      memo_[i] = static_cast<uint64_t>(h) << 32 | (static_cast<uint64_t>(id) + 1);
      ++memo_size_;
      return id;
    }
    const auto node = static_cast<uint32_t>(s) - 1;
    if (static_cast<uint32_t>(s >> 32) == h && key_of(node) == k) return node;
  }
}

uint32_t Graph::make(NodeOp op, const ScalarType& type, std::initializer_list<uint32_t> args,
                     int64_t imm) {
  Key k{imm, UINT32_MAX, UINT32_MAX, UINT32_MAX, type_id(type), op};
  KILN_ASSERT(args.size() <= 3, "a node with more than three operands");
  uint32_t a[3] = {};  // no allocation: make() runs for every operation unrolled
  std::copy(args.begin(), args.end(), a);
  const std::size_t num_args = args.size();
  if (commutative(op) && num_args == 2 && a[1] < a[0]) std::swap(a[0], a[1]);
  if (num_args > 0) k.a = a[0];
  if (num_args > 1) k.b = a[1];
  if (num_args > 2) k.c = a[2];
  const auto id = static_cast<uint32_t>(nodes_.size());
  if (const uint32_t found = memo(k, id); found != id) return found;
  Node n;
  n.op = op;
  n.num_args = static_cast<uint8_t>(num_args);
  n.type = k.type;
  n.first_arg = static_cast<uint32_t>(args_.size());
  n.imm = imm;
  args_.insert(args_.end(), a, a + num_args);
  nodes_.push_back(n);
  return id;
}

uint32_t Graph::input(const Element& e, const ScalarType& type) {
  // One record per element.
  const uint64_t key = (static_cast<uint64_t>(e.buffer) << 40) ^ static_cast<uint64_t>(e.element);
  const auto [id, added] = input_ids_.try_emplace(key, static_cast<uint32_t>(inputs_.size()));
  if (added) inputs_.push_back(e);
  return make(NodeOp::Input, type, {}, static_cast<int64_t>(*id));
}

uint32_t Graph::constant(int64_t raw, const ScalarType& type) {
  // Canonical form: the fewest bits for the value, so equal values share a node.
  int frac = type.frac;
  if (raw == 0) frac = 0;
  while (raw != 0 && (raw & 1) == 0) {
    raw >>= 1;
    --frac;
  }
  return make(NodeOp::Const, loop::const_type(raw, frac), {}, raw);
}

namespace {
// A constant for an exact value, or false if it needs more than 64 bits.
bool fits_const(const Exact& v) {
  return v.raw >= INT64_MIN && v.raw <= INT64_MAX;
}
Exact exact_of_const(const Graph& g, uint32_t n) {
  return numeric::to_exact(g.node(n).imm, loop::fixed_of(g.type(n)));
}
}  // namespace

uint32_t Graph::add(uint32_t a, uint32_t b) {
  if (is_const(a) && is_const(b)) {
    const Exact v = numeric::exact_add(exact_of_const(*this, a), exact_of_const(*this, b));
    if (fits_const(v)) return constant(static_cast<int64_t>(v.raw), {64, v.frac, true});
  }
  if (is_const(b) && raw(b) == 0) return a;
  if (is_const(a) && raw(a) == 0) return b;
  return make(NodeOp::Add, loop::add_type(type(a), type(b)), {a, b});
}

uint32_t Graph::sub(uint32_t a, uint32_t b) {
  if (is_const(a) && is_const(b)) {
    const Exact v = numeric::exact_sub(exact_of_const(*this, a), exact_of_const(*this, b));
    if (fits_const(v)) return constant(static_cast<int64_t>(v.raw), {64, v.frac, true});
  }
  if (is_const(b) && raw(b) == 0) return a;
  if (is_const(a) && raw(a) == 0) return neg(b);
  if (a == b) return constant(0, {1, 0, false});
  return make(NodeOp::Sub, loop::sub_type(type(a), type(b)), {a, b});
}

uint32_t Graph::mul(uint32_t a, uint32_t b) {
  if (is_const(a) && is_const(b)) {
    const Exact v = numeric::exact_mul(exact_of_const(*this, a), exact_of_const(*this, b));
    if (fits_const(v)) return constant(static_cast<int64_t>(v.raw), {64, v.frac, true});
  }
  if (is_const(a)) std::swap(a, b);
  if (is_const(b)) {
    // A canonical constant is an odd raw times 2^-frac: +-1 raw is a power of two.
    const int64_t c = raw(b);
    const int k = -type(b).frac;  // the value is c * 2^k
    if (c == 0) return constant(0, {1, 0, false});
    if (c == 1) return shl(a, k);
    if (c == -1) return neg(shl(a, k));
  }
  return make(NodeOp::Mul, loop::mul_type(type(a), type(b)), {a, b});
}

uint32_t Graph::neg(uint32_t a) {
  if (is_const(a) && raw(a) != INT64_MIN) return constant(-raw(a), {64, type(a).frac, true});
  if (node(a).op == NodeOp::Neg) return args(a)[0];
  return make(NodeOp::Neg, loop::neg_type(type(a)), {a});
}

uint32_t Graph::shl(uint32_t a, int amount) {
  if (amount == 0) return a;
  if (is_const(a)) return constant(raw(a), {64, type(a).frac - amount, true});
  if (node(a).op == NodeOp::Shl) return shl(args(a)[0], amount + static_cast<int>(node(a).imm));
  ScalarType t = type(a);
  t.frac -= amount;
  return make(NodeOp::Shl, t, {a}, amount);
}

uint32_t Graph::quantize(uint32_t a, const FixedType& target) {
  const ScalarType tt = loop::scalar_of(target);
  if (is_const(a)) return constant(numeric::quantize(exact_of_const(*this, a), target), tt);
  // Exact and in range: the same value, no hardware.
  if (assignment_exact(type(a), target)) return a;
  // A wrap-around target on a grid that drops no bits: a modular sum. So is
  // one that truncates (toward minus infinity) a sum with one operand on
  // its grid: floor(x + y) = x + floor(y), floor(x - y) = floor(x) - y for
  // y on the grid; an accumulator plus a wider product becomes the
  // accumulator plus the product quantized alone, which regroups.
  const NodeOp op = node(a).op;  // a copy: quantizing the operands may grow nodes_
  if (target.overflow == numeric::OverflowMode::Wrap && (op == NodeOp::Add || op == NodeOp::Sub)) {
    const uint32_t x = args(a)[0], y = args(a)[1];
    const bool x_on = type(x).frac <= tt.frac, y_on = type(y).frac <= tt.frac;
    const bool floor = target.quant == numeric::QuantMode::Trn;
    if ((x_on && y_on) || (floor && y_on) || (floor && op == NodeOp::Add && x_on)) {
      const uint32_t qx = quantize(x, target), qy = quantize(y, target);
      return op == NodeOp::Add ? add_mod(qx, qy, tt) : sub_mod(qx, qy, tt);
    }
  }
  std::size_t t = 0;
  while (t < targets_.size() && !(targets_[t] == target)) ++t;
  if (t == targets_.size()) targets_.push_back(target);
  return make(NodeOp::Quantize, tt, {a}, static_cast<int64_t>(t));
}

ScalarType Graph::join_type(uint32_t a, uint32_t b) const {
  // A constant zero is on every grid; its canonical type (frac 0) would put
  // the join on a finer grid than the other operand's when that one's is
  // coarser than 1 (an accumulator of ap_ufixed<32,35>, initialized to a
  // bias that rounds to 0, stored back as a value on no grid of its own:
  // the fuzz tier's seed 1261).
  const auto zero = [&](uint32_t z, uint32_t other) {
    return is_const(z) && raw(z) == 0 && type(other).frac < 0;
  };
  if (zero(a, b)) return loop::union_type({1, type(b).frac, false}, type(b));
  if (zero(b, a)) return loop::union_type(type(a), {1, type(a).frac, false});
  return loop::union_type(type(a), type(b));
}

uint32_t Graph::max(uint32_t a, uint32_t b) {
  if (a == b) return a;
  if (is_const(a)) std::swap(a, b);
  if (is_const(b)) {
    const Exact c = exact_of_const(*this, b);
    if (is_const(a)) return numeric::exact_compare(exact_of_const(*this, a), c) >= 0 ? a : b;
    if (numeric::exact_compare(c, type_min(type(a))) <= 0) return a;
    if (numeric::exact_compare(c, type_max(type(a))) >= 0) return b;
  }
  return make(NodeOp::Max, join_type(a, b), {a, b});
}

uint32_t Graph::min(uint32_t a, uint32_t b) {
  if (a == b) return a;
  if (is_const(a)) std::swap(a, b);
  if (is_const(b)) {
    const Exact c = exact_of_const(*this, b);
    if (is_const(a)) return numeric::exact_compare(exact_of_const(*this, a), c) <= 0 ? a : b;
    if (numeric::exact_compare(c, type_max(type(a))) >= 0) return a;
    if (numeric::exact_compare(c, type_min(type(a))) <= 0) return b;
  }
  return make(NodeOp::Min, join_type(a, b), {a, b});
}

uint32_t Graph::lt(uint32_t a, uint32_t b) {
  if (is_const(a) && is_const(b))
    return constant(numeric::exact_compare(exact_of_const(*this, a), exact_of_const(*this, b)) < 0,
                    {1, 0, false});
  if (a == b) return constant(0, {1, 0, false});
  return make(NodeOp::Lt, {1, 0, false}, {a, b});
}

uint32_t Graph::select(uint32_t c, uint32_t a, uint32_t b) {
  if (is_const(c)) return raw(c) != 0 ? a : b;
  if (a == b) return a;
  return make(NodeOp::Select, join_type(a, b), {c, a, b});
}

uint32_t Graph::lookup(int table, uint32_t a, int shift, int64_t offset) {
  const Table& t = tables_.at(static_cast<std::size_t>(table));
  const auto size = static_cast<int64_t>(t.data.size());
  if (is_const(a)) {
    const int64_t idx = std::clamp(numeric::floor_scaled(exact_of_const(*this, a), shift) + offset,
                                   int64_t{0}, size - 1);
    return constant(t.data[static_cast<std::size_t>(idx)], t.type);
  }
  std::size_t i = 0;
  while (i < lookups_.size() && !(lookups_[i].table == table && lookups_[i].shift == shift &&
                                  lookups_[i].offset == offset))
    ++i;
  if (i == lookups_.size()) lookups_.push_back({table, shift, offset});
  return make(NodeOp::Lookup, t.type, {a}, static_cast<int64_t>(i));
}

uint32_t Graph::add_mod(uint32_t a, uint32_t b, const ScalarType& type) {
  if (is_const(a) && is_const(b)) {
    const Exact v = numeric::exact_add(exact_of_const(*this, a), exact_of_const(*this, b));
    return constant(numeric::quantize(v, wrap_type(type)), type);
  }
  if (is_const(b) && raw(b) == 0) return a;
  if (is_const(a) && raw(a) == 0) return b;
  return make(NodeOp::AddMod, type, {a, b});
}

uint32_t Graph::sub_mod(uint32_t a, uint32_t b, const ScalarType& type) {
  if (is_const(a) && is_const(b)) {
    const Exact v = numeric::exact_sub(exact_of_const(*this, a), exact_of_const(*this, b));
    return constant(numeric::quantize(v, wrap_type(type)), type);
  }
  if (is_const(b) && raw(b) == 0) return a;
  return make(NodeOp::SubMod, type, {a, b});
}

int Graph::add_table(Table t) {
  for (std::size_t i = 0; i < tables_.size(); ++i)
    if (tables_[i].name == t.name) return static_cast<int>(i);
  tables_.push_back(std::move(t));
  return static_cast<int>(tables_.size()) - 1;
}

// A guarded accumulation, select(c, a + p, a), is a + select(c, p, 0), and
// select(c, a, a + p) is a + select(c, 0, p), for modular adds of one type:
// a loop body's accumulations under a padding test (one per unrolled copy)
// become one chain of adds, which balance_sums regroups with the
// accumulator last, instead of a chain of adds and selects as long as the
// copies.
void Graph::fold_guarded_sums() {
  const auto before = static_cast<uint32_t>(nodes_.size());
  std::vector<uint32_t> repl(before);
  for (uint32_t i = 0; i < before; ++i) repl[i] = i;
  // The other operand of `sum` when it is a modular add of `kept` and it.
  const auto addend = [&](uint32_t sum, uint32_t kept) -> std::optional<uint32_t> {
    if (nodes_[sum].op != NodeOp::AddMod || nodes_[sum].type != nodes_[kept].type)
      return std::nullopt;
    const uint32_t a0 = args_[nodes_[sum].first_arg], a1 = args_[nodes_[sum].first_arg + 1];
    if (a0 == kept) return a1;
    if (a1 == kept) return a0;
    return std::nullopt;
  };
  for (uint32_t n = 0; n < before; ++n) {
    for (uint32_t i = 0; i < nodes_[n].num_args; ++i) {
      uint32_t& a = args_[nodes_[n].first_arg + i];
      if (a < before) a = repl[a];
    }
    if (nodes_[n].op != NodeOp::Select) continue;
    const uint32_t c = args_[nodes_[n].first_arg], x = args_[nodes_[n].first_arg + 1],
                   y = args_[nodes_[n].first_arg + 2];
    if (nodes_[x].type != nodes_[n].type || nodes_[y].type != nodes_[n].type) continue;
    const ScalarType t = types_[nodes_[n].type];
    // Types copied: building nodes may grow the tables they are in.
    if (const auto p = addend(x, y)) {
      const ScalarType pt = types_[nodes_[*p].type];
      const uint32_t zero = constant(0, pt);
      repl[n] = add_mod(y, select(c, *p, zero), t);
    } else if (const auto q = addend(y, x)) {
      const ScalarType qt = types_[nodes_[*q].type];
      const uint32_t zero = constant(0, qt);
      repl[n] = add_mod(x, select(c, zero, *q), t);
    }
  }
  for (Output& o : outputs_)
    if (o.node < before) o.node = repl[o.node];
}

// A chain that can be regrouped: exact adds (any order gives the same exact
// value), modular adds of one type (associative modulo 2^W), and maxima or
// minima (a softmax's max over its inputs, a max-pool window).
namespace {
bool regroups(NodeOp op) {
  return op == NodeOp::Add || op == NodeOp::AddMod || op == NodeOp::Max || op == NodeOp::Min;
}
bool same_sum(const Node& user, const Node& arg) {
  if (user.op == NodeOp::AddMod) return arg.op == NodeOp::AddMod && arg.type == user.type;
  return regroups(user.op) && user.op != NodeOp::AddMod && arg.op == user.op;
}
}  // namespace

void Graph::balance_sums(const std::function<bool(uint32_t)>& last) {
  fold_guarded_sums();
  // Uses by live nodes only: the builder leaves dead nodes behind (an exact
  // add that a quantization turned into a modular one).
  std::vector<bool> live(nodes_.size(), false);
  for (const Output& o : outputs_) live[o.node] = true;
  for (uint32_t n = static_cast<uint32_t>(nodes_.size()); n-- > 0;)
    if (live[n])
      for (uint32_t i = 0; i < nodes_[n].num_args; ++i) live[args_[nodes_[n].first_arg + i]] = true;
  std::vector<uint32_t> uses(nodes_.size(), 0);
  for (uint32_t n = 0; n < nodes_.size(); ++n)
    if (live[n])
      for (uint32_t i = 0; i < nodes_[n].num_args; ++i) ++uses[args_[nodes_[n].first_arg + i]];
  for (const Output& o : outputs_) uses[o.node] += 2;  // an output is always a root
  // A chain link: a sum used once, by a sum of its kind.
  std::vector<bool> inner(nodes_.size(), false);
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    const Node& node = nodes_[n];
    if (!live[n] || !regroups(node.op)) continue;
    for (uint32_t i = 0; i < 2; ++i) {
      const uint32_t a = args_[node.first_arg + i];
      if (same_sum(node, nodes_[a]) && uses[a] == 1) inner[a] = true;
    }
  }
  std::vector<uint32_t> repl(nodes_.size());
  for (uint32_t i = 0; i < repl.size(); ++i) repl[i] = i;
  const std::size_t original = nodes_.size();
  std::vector<uint32_t> leaves, stack, next;
  for (uint32_t r = 0; r < original; ++r) {
    const NodeOp op = nodes_[r].op;
    if (!live[r] || !regroups(op) || inner[r]) continue;
    leaves.clear();
    stack.assign({r});
    while (!stack.empty()) {
      const uint32_t n = stack.back();
      stack.pop_back();
      if (n == r || inner[n]) {
        // Right operand pushed first so leaves come out in the chain's order.
        stack.push_back(args_[nodes_[n].first_arg + 1]);
        stack.push_back(args_[nodes_[n].first_arg]);
      } else {
        leaves.push_back(repl[n]);
      }
    }
    if (leaves.size() < 3) continue;
    const ScalarType t = types_[nodes_[r].type];
    const auto sum = [&](uint32_t a, uint32_t b) {
      switch (op) {
        case NodeOp::AddMod: return add_mod(a, b, t);
        case NodeOp::Max: return max(a, b);
        case NodeOp::Min: return min(a, b);
        default: return add(a, b);
      }
    };
    std::vector<uint32_t> late;
    if (last) {
      const auto first_late =
          std::stable_partition(leaves.begin(), leaves.end(), [&](uint32_t n) { return !last(n); });
      late.assign(first_late, leaves.end());
      leaves.erase(first_late, leaves.end());
      if (leaves.empty()) leaves.swap(late);
    }
    while (leaves.size() > 1) {
      next.clear();
      for (std::size_t i = 0; i + 1 < leaves.size(); i += 2)
        next.push_back(sum(leaves[i], leaves[i + 1]));
      if (leaves.size() % 2) next.push_back(leaves.back());
      leaves.swap(next);
    }
    uint32_t root = leaves[0];
    for (uint32_t n : late) root = sum(root, n);
    repl[r] = root;
  }
  repl.resize(nodes_.size());
  for (uint32_t i = static_cast<uint32_t>(original); i < nodes_.size(); ++i) repl[i] = i;
  // A tree's exact type is narrower than the chain's: a quantization of it may
  // now provably change nothing (the sum can never reach the target's limits).
  for (uint32_t n = 0; n < original; ++n) {
    if (!live[n] || nodes_[n].op != NodeOp::Quantize) continue;
    const uint32_t a = repl[args_[nodes_[n].first_arg]];
    if (assignment_exact(types_[nodes_[a].type], targets_[nodes_[n].imm])) repl[n] = a;
  }
  for (uint32_t& a : args_) a = repl[a];
  for (Output& o : outputs_) o.node = repl[o.node];
  compact();
}

void Graph::replace(const std::vector<uint32_t>& repl) {
  KILN_ASSERT(repl.size() <= nodes_.size(), "a replacement for nodes that do not exist");
  const auto to = [&](uint32_t n) { return n < repl.size() ? repl[n] : n; };
  for (uint32_t& a : args_) a = to(a);
  for (Output& o : outputs_) o.node = to(o.node);
  compact();
}

void Graph::compact() {
  // Post-order from the outputs: operands before users, each node once.
  std::vector<uint32_t> order;
  std::vector<uint8_t> state(nodes_.size(), 0);  // 0 new, 1 open, 2 done
  std::vector<std::pair<uint32_t, uint32_t>> stack;
  for (const Output& o : outputs_) {
    if (state[o.node]) continue;
    stack.push_back({o.node, 0});
    state[o.node] = 1;
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      if (i < nodes_[n].num_args) {
        const uint32_t a = args_[nodes_[n].first_arg + i++];
        if (!state[a]) {
          state[a] = 1;
          stack.push_back({a, 0});
        }
      } else {
        state[n] = 2;
        order.push_back(n);
        stack.pop_back();
      }
    }
  }
  std::vector<uint32_t> new_id(nodes_.size(), UINT32_MAX);
  for (uint32_t i = 0; i < order.size(); ++i) new_id[order[i]] = i;
  std::vector<Node> nodes;
  std::vector<uint32_t> args;
  nodes.reserve(order.size());
  for (uint32_t old : order) {
    Node n = nodes_[old];
    const uint32_t first = n.first_arg;
    n.first_arg = static_cast<uint32_t>(args.size());
    for (uint32_t i = 0; i < n.num_args; ++i) args.push_back(new_id[args_[first + i]]);
    nodes.push_back(n);
  }
  for (Output& o : outputs_) o.node = new_id[o.node];
  nodes_.swap(nodes);
  args_.swap(args);
  // Types that follow from the operands are recomputed: a balanced tree is
  // narrower than the chain it replaced, and so are the nodes that use it.
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    const Node& node = nodes_[n];
    auto a = [&](int i) { return types_[nodes_[args_[node.first_arg + i]].type]; };
    auto arg = [&](int i) { return args_[node.first_arg + i]; };
    std::optional<ScalarType> t;
    switch (node.op) {
      case NodeOp::Add: t = loop::add_type(a(0), a(1)); break;
      case NodeOp::Sub: t = loop::sub_type(a(0), a(1)); break;
      case NodeOp::Mul: t = loop::mul_type(a(0), a(1)); break;
      case NodeOp::Neg: t = loop::neg_type(a(0)); break;
      case NodeOp::Shl: {
        ScalarType s = a(0);
        s.frac -= static_cast<int>(node.imm);
        t = s;
        break;
      }
      case NodeOp::Max:
      case NodeOp::Min: t = join_type(arg(0), arg(1)); break;
      case NodeOp::Select: t = join_type(arg(1), arg(2)); break;
      default: break;
    }
    if (t) nodes_[n].type = type_id(*t);
  }
  std::vector<uint64_t>().swap(memo_);
  memo_size_ = 0;
}

bool Graph::same_content(const Graph& o) const {
  const auto same_nodes = [](const Node& a, const Node& b) {
    return a.op == b.op && a.num_args == b.num_args && a.type == b.type &&
           a.first_arg == b.first_arg && a.imm == b.imm;
  };
  const auto same_lookups = [](const LookupInfo& a, const LookupInfo& b) {
    return a.table == b.table && a.shift == b.shift && a.offset == b.offset;
  };
  const auto same_tables = [](const Table& a, const Table& b) {
    return a.name == b.name && a.type == b.type && a.data == b.data;
  };
  const auto same_outputs = [](const Output& a, const Output& b) {
    return a.where == b.where && a.node == b.node;
  };
  return std::equal(nodes_.begin(), nodes_.end(), o.nodes_.begin(), o.nodes_.end(), same_nodes) &&
         args_ == o.args_ && types_ == o.types_ && inputs_ == o.inputs_ && targets_ == o.targets_ &&
         std::equal(lookups_.begin(), lookups_.end(), o.lookups_.begin(), o.lookups_.end(),
                    same_lookups) &&
         std::equal(tables_.begin(), tables_.end(), o.tables_.begin(), o.tables_.end(),
                    same_tables) &&
         std::equal(outputs_.begin(), outputs_.end(), o.outputs_.begin(), o.outputs_.end(),
                    same_outputs);
}

std::size_t Graph::bytes() const {
  const auto of = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  std::size_t b = sizeof(Graph) + name_.capacity() + of(nodes_) + of(args_) + of(types_) +
                  type_ids_.bytes() + of(inputs_) + input_ids_.bytes() + of(targets_) +
                  of(lookups_) + of(tables_) + of(outputs_) + of(memo_);
  for (const Table& t : tables_) b += t.name.capacity() + of(t.data);
  return b;
}

uint64_t Graph::content_hash() const {
  // The nodes, operands, inputs and outputs: equal graphs hash alike, and
  // graphs that differ mostly differ there.
  uint64_t h = mix_hash(nodes_.size()) ^ outputs_.size();
  const auto add = [&h](uint64_t v) { h = mix_hash(h ^ v); };
  for (const Node& n : nodes_) {
    add(static_cast<uint64_t>(n.op) | static_cast<uint64_t>(n.num_args) << 8 |
        static_cast<uint64_t>(n.type) << 16 | static_cast<uint64_t>(n.first_arg) << 32);
    add(static_cast<uint64_t>(n.imm));
  }
  for (uint32_t a : args_) add(a);
  for (const Element& e : inputs_)
    add(static_cast<uint64_t>(static_cast<uint32_t>(e.buffer)) ^ static_cast<uint64_t>(e.element)
                                                                     << 20);
  for (const Output& o : outputs_)
    add(static_cast<uint64_t>(static_cast<uint32_t>(o.where.buffer)) ^
        static_cast<uint64_t>(o.where.element) << 20 ^ static_cast<uint64_t>(o.node) << 44);
  return h;
}

std::vector<int64_t> Graph::op_counts() const {
  std::vector<int64_t> c(std::size(EnumNames<NodeOp>::kNames), 0);
  for (const Node& n : nodes_) ++c[static_cast<std::size_t>(n.op)];
  return c;
}

std::vector<Exact> evaluate(const Graph& g, const std::vector<int64_t>& input_raw) {
  std::vector<Exact> v(g.size());
  for (uint32_t n = 0; n < g.size(); ++n) {
    const Node& node = g.node(n);
    auto a = [&](std::size_t i) -> const Exact& { return v[g.args(n)[i]]; };
    const FixedType ft = g.type(n).width <= 64 ? loop::fixed_of(g.type(n)) : FixedType{};
    switch (node.op) {
      case NodeOp::Input: v[n] = numeric::to_exact(input_raw.at(n), ft); break;
      case NodeOp::Const: v[n] = numeric::to_exact(node.imm, ft); break;
      case NodeOp::Add: v[n] = numeric::exact_add(a(0), a(1)); break;
      case NodeOp::Sub: v[n] = numeric::exact_sub(a(0), a(1)); break;
      case NodeOp::Mul: v[n] = numeric::exact_mul(a(0), a(1)); break;
      case NodeOp::Neg: v[n] = numeric::exact_neg(a(0)); break;
      case NodeOp::Shl: v[n] = {a(0).raw, a(0).frac - static_cast<int>(node.imm)}; break;
      case NodeOp::Quantize: {
        const FixedType& t = g.quantize_target(n);
        v[n] = numeric::to_exact(numeric::quantize(a(0), t), t);
        break;
      }
      case NodeOp::Max: v[n] = numeric::exact_compare(a(0), a(1)) >= 0 ? a(0) : a(1); break;
      case NodeOp::Min: v[n] = numeric::exact_compare(a(0), a(1)) <= 0 ? a(0) : a(1); break;
      case NodeOp::Lt: v[n] = {numeric::exact_compare(a(0), a(1)) < 0 ? 1 : 0, 0}; break;
      case NodeOp::Select: v[n] = a(0).raw != 0 ? a(1) : a(2); break;
      case NodeOp::Lookup: {
        const LookupInfo& l = g.lookup_of(n);
        const Table& t = g.tables()[static_cast<std::size_t>(l.table)];
        const auto size = static_cast<int64_t>(t.data.size());
        const int64_t idx =
            std::clamp(numeric::floor_scaled(a(0), l.shift) + l.offset, int64_t{0}, size - 1);
        v[n] = numeric::to_exact(t.data[static_cast<std::size_t>(idx)], loop::fixed_of(t.type));
        break;
      }
      case NodeOp::AddMod:
      case NodeOp::SubMod: {
        const FixedType w = wrap_type(g.type(n));
        const Exact s = node.op == NodeOp::AddMod ? numeric::exact_add(a(0), a(1))
                                                  : numeric::exact_sub(a(0), a(1));
        v[n] = numeric::to_exact(numeric::quantize(s, w), w);
        break;
      }
    }
  }
  return v;
}

std::string print_graph(const Graph& g) {
  std::ostringstream out;
  out << "graph " << g.name() << "\n";
  for (uint32_t n = 0; n < g.size(); ++n) {
    const Node& node = g.node(n);
    out << "n" << n << " = " << enum_name(node.op);
    switch (node.op) {
      case NodeOp::Input: {
        const Element& e = g.input_of(n);
        out << " b" << e.buffer << "[" << e.element << "]";
        break;
      }
      case NodeOp::Const: out << " " << node.imm; break;
      case NodeOp::Shl: out << " n" << g.args(n)[0] << " " << node.imm; break;
      case NodeOp::Quantize:
        out << " n" << g.args(n)[0] << " to " << g.quantize_target(n).to_string();
        break;
      case NodeOp::Lookup: {
        const LookupInfo& l = g.lookup_of(n);
        out << " " << g.tables()[static_cast<std::size_t>(l.table)].name << "[n" << g.args(n)[0]
            << "] shift " << l.shift << " offset " << l.offset;
        break;
      }
      default: {
        bool first = true;
        for (uint32_t a : g.args(n)) {
          out << (first ? " n" : ", n") << a;
          first = false;
        }
      }
    }
    out << " : " << loop::to_string(g.type(n)) << "\n";
  }
  for (const Output& o : g.outputs())
    out << "output b" << o.where.buffer << "[" << o.where.element << "] = n" << o.node << "\n";
  return out.str();
}

}  // namespace kiln::dfg

// The interpreter: the hierarchy flattened into one graph of values, each
// at a word offset in one arena; the combinational values compiled once
// into a list of instructions in topological order; a cycle is that list
// evaluated (settle) and the state's update (clock). Values of at most 64
// bits, most of them, take a one-word fast path; wider ones (packed ports,
// register banks, concatenations) general word loops.
#include "kiln/netlist/interpret.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_map>

#include "kiln/netlist/verify.h"
#include "kiln/support/error.h"

namespace kiln::netlist {

namespace {

using Word = uint64_t;
__extension__ typedef unsigned __int128 Wide;

// An instruction code: an Op, or a copy of another value (a port crossing
// the hierarchy).
constexpr uint8_t kCopy = static_cast<uint8_t>(kNumOps);

uint8_t code(Op op) {
  return static_cast<uint8_t>(op);
}

Word mask(int w) {
  return w >= 64 ? ~Word{0} : (Word{1} << w) - 1;
}
int64_t sext64(Word v, int w) {
  return w >= 64 ? static_cast<int64_t>(v) : static_cast<int64_t>(v << (64 - w)) >> (64 - w);
}
uint32_t nwords(int w) {
  return static_cast<uint32_t>(words_for(w));
}
void mask_top(Word* d, int w) {
  if (w % 64) d[nwords(w) - 1] &= mask(w % 64);
}
bool top_bit(const Word* a, int w) {
  return (a[(w - 1) / 64] >> ((w - 1) % 64)) & 1;
}
// a (wa bits) extended to n words, sign- or zero-filled.
void extend_into(Word* d, uint32_t n, const Word* a, int wa, bool sign) {
  const uint32_t na = nwords(wa);
  const bool neg = sign && top_bit(a, wa);
  for (uint32_t i = 0; i < n; ++i) d[i] = i < na ? a[i] : (neg ? ~Word{0} : 0);
  if (neg && wa % 64 && na <= n) d[na - 1] |= ~mask(wa % 64);
}
// `n` bits of a from bit lsb into d (d has nwords(n) words; the top masked).
void extract(Word* d, const Word* a, int wa, int64_t lsb, int n) {
  const uint32_t nd = nwords(n);
  const auto first = static_cast<uint32_t>(lsb / 64);
  const int shift = static_cast<int>(lsb % 64);
  const uint32_t na = nwords(wa);
  for (uint32_t i = 0; i < nd; ++i) {
    const uint32_t k = first + i;
    Word v = k < na ? a[k] >> shift : 0;
    if (shift && k + 1 < na) v |= a[k + 1] << (64 - shift);
    d[i] = v;
  }
  mask_top(d, n);
}
// `n` bits of s deposited into d from bit lsb (d's bits there were zero).
void deposit(Word* d, int64_t lsb, const Word* s, int n) {
  const uint32_t ns = nwords(n);
  const auto first = static_cast<uint32_t>(lsb / 64);
  const int shift = static_cast<int>(lsb % 64);
  const uint32_t end = nwords(static_cast<int>(lsb) + n);  // words of d touched
  for (uint32_t i = 0; i < ns; ++i) {
    d[first + i] |= s[i] << shift;
    if (shift && first + i + 1 < end) d[first + i + 1] |= s[i] >> (64 - shift);
  }
}
// Unsigned compare of two values of one width: -1, 0, 1.
int compare(const Word* a, const Word* b, int w) {
  for (uint32_t i = nwords(w); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
// The value as an index, or -1 past `limit` (any word above the first set).
int64_t as_index(const Word* a, int w, int64_t limit) {
  for (uint32_t i = 1; i < nwords(w); ++i)
    if (a[i]) return -1;
  return a[0] < static_cast<Word>(limit) ? static_cast<int64_t>(a[0]) : -1;
}

struct Instr {
  uint8_t code = 0;
  bool narrow = false;           // result and every operand it reads in full within one word
  int32_t w = 0;                 // result width
  uint32_t dst = 0;              // word offset of the result
  uint32_t a = 0, b = 0, c = 0;  // word offsets of the first operands
  int32_t wa = 0, wb = 0;        // their widths
  int64_t imm = 0;
  uint32_t x = 0, n = 0;  // side data (operands, keys, tables, memories)
};

struct FlatMemory {
  int width = 1;
  uint32_t words = 1;  // per entry
  int64_t depth = 1;
  std::vector<Word> data;
};

// A register or a registered read: the clock edge's update into `next`.
struct Update {
  uint32_t dst = 0, n = 0;    // the state's words
  uint32_t d = 0;             // register: d's offset; read: the address's offset
  int32_t addr_width = 0;     // read only
  uint32_t en = UINT32_MAX;   // offset of the enable, if any
  uint32_t rst = UINT32_MAX;  // offset of the reset, if any
  uint32_t reset = 0;         // register: offset of the reset value in the pool
  int memory = -1;            // read: the flat memory
};

struct WriteOp {
  int memory = -1;
  uint32_t addr = 0, data = 0, en = UINT32_MAX;
  int32_t addr_width = 0;
};

// The flat design and its state.
struct Machine {
  std::vector<Word> arena;  // every value's words
  std::vector<Word> next;   // the state's next words, at the clock edge
  std::vector<Word> pool;   // constant words: case keys, table entries, reset values
  std::vector<Word> scratch_a, scratch_b, scratch_c;
  std::vector<Instr> program;
  std::vector<uint32_t> operands;  // concat: (offset, width) pairs; case: offsets
  std::vector<FlatMemory> memories;
  std::vector<Update> registers, reads;
  std::vector<WriteOp> writes;
  struct Port {
    std::string name;
    PortDirection direction;
    int width;
    uint32_t offset;
  };
  std::vector<Port> ports;
  int64_t cycles = 0;

  void eval(const Instr& i);
  void eval_wide(const Instr& i);
  void clock();
};

// ---- flattening ------------------------------------------------------------------

// One instance of a module in the flat design.
struct Frame {
  const Module* module = nullptr;
  uint32_t first = 0;              // flat id of its value 0
  int parent = -1, instance = -1;  // the frame and instance index it sits in
  std::vector<int> children;       // frame of each of its instances
  std::vector<int> memories;       // flat memory of each of its memories
};

class Flattener {
 public:
  explicit Flattener(const Design& d, Machine& s) : d_(d), s_(s) {}

  void run() {
    const Module* top = d_.find(d_.top);
    frame(*top, -1, -1);
    layout();
    order();
    compile();
    state();
    // An input port's value is its Input; an output's, its driver's.
    for (const Port& p : top->ports())
      s_.ports.push_back({p.name, p.direction, p.width, offset_[frames_[0].first + p.value]});
  }

 private:
  int frame(const Module& m, int parent, int instance) {
    const int f = static_cast<int>(frames_.size());
    frames_.push_back({&m, total_, parent, instance, {}, {}});
    total_ += static_cast<uint32_t>(m.size());
    for (const Memory& mem : m.memories()) {
      frames_[static_cast<std::size_t>(f)].memories.push_back(static_cast<int>(s_.memories.size()));
      FlatMemory fm;
      fm.width = mem.width;
      fm.words = nwords(mem.width);
      fm.depth = mem.depth;
      fm.data.assign(static_cast<std::size_t>(mem.depth) * fm.words, 0);
      for (std::size_t k = 0; k < mem.init.size(); ++k)
        std::copy_n(mem.init[k].data(), fm.words, fm.data.data() + k * fm.words);
      s_.memories.push_back(std::move(fm));
    }
    for (std::size_t i = 0; i < m.instances().size(); ++i) {
      const int child = frame(*d_.find(m.instances()[i].module), f, static_cast<int>(i));
      frames_[static_cast<std::size_t>(f)].children.push_back(child);
    }
    return f;
  }

  const Frame& frame_of(uint32_t id) const {
    // Frames are numbered in the order of their first ids.
    const auto it = std::upper_bound(frames_.begin(), frames_.end(), id,
                                     [](uint32_t x, const Frame& fr) { return x < fr.first; });
    return *(it - 1);
  }

  // What a flat value copies across the hierarchy (a child's input: the
  // parent's connection; a parent's instance output: the child's driver),
  // or UINT32_MAX.
  uint32_t source(const Frame& fr, ValueId v) const {
    const Module& m = *fr.module;
    const Value& val = m.value(v);
    if (val.op == Op::Input && fr.parent >= 0) {
      const Frame& parent = frames_[static_cast<std::size_t>(fr.parent)];
      const Instance& inst = parent.module->instances()[static_cast<std::size_t>(fr.instance)];
      const std::string& port = m.ports()[static_cast<std::size_t>(val.imm)].name;
      for (const auto& [p, value] : inst.inputs)
        if (p == port) return parent.first + value;
    }
    if (val.op == Op::InstanceOutput) {
      const InstanceOutput& io = m.instance_outputs()[static_cast<std::size_t>(val.imm)];
      const Frame& child =
          frames_[static_cast<std::size_t>(fr.children[static_cast<std::size_t>(io.instance)])];
      const Module& cm = *child.module;
      return child.first + cm.ports()[static_cast<std::size_t>(cm.find_port(io.port))].value;
    }
    return UINT32_MAX;
  }

  void layout() {
    offset_.resize(total_);
    uint32_t words = 0;
    for (const Frame& fr : frames_)
      for (ValueId v = 0; v < fr.module->size(); ++v) {
        offset_[fr.first + v] = words;
        words += nwords(fr.module->width(v));
      }
    s_.arena.assign(words, 0);
  }

  // Whether a flat value is computed within the cycle (else it is state,
  // an input of the top or a constant).
  bool combinational(const Frame& fr, ValueId v) const {
    const Value& val = fr.module->value(v);
    if (op_info(val.op).combinational || val.op == Op::InstanceOutput) return true;
    if (val.op == Op::Input) return fr.parent >= 0;
    if (val.op == Op::Read) {
      const Read& r = fr.module->reads()[static_cast<std::size_t>(val.imm)];
      return fr.module->memories()[static_cast<std::size_t>(r.memory)].read_latency == 0;
    }
    return false;
  }

  // The k-th flat value a combinational one reads within the cycle, or
  // UINT32_MAX past the last.
  uint32_t pred(const Frame& fr, ValueId v, uint32_t k) const {
    const Value& val = fr.module->value(v);
    if (val.op == Op::Input || val.op == Op::InstanceOutput)
      return k == 0 ? source(fr, v) : UINT32_MAX;
    if (val.op == Op::Read) return k == 0 ? fr.first + fr.module->args(v)[0] : UINT32_MAX;
    const std::span<const ValueId> args = fr.module->args(v);
    return k < args.size() ? fr.first + args[k] : UINT32_MAX;
  }

  // Depth first over what each combinational value reads: each after its
  // operands (verify() ruled out loops).
  void order() {
    std::vector<uint8_t> done(total_, 0);
    struct Entry {
      uint32_t id;
      ValueId v;  // in its frame
      uint32_t next;
      const Frame* frame;
    };
    std::vector<Entry> stack;
    for (const Frame& root_frame : frames_)
      for (ValueId rv = 0; rv < root_frame.module->size(); ++rv) {
        const uint32_t root = root_frame.first + rv;
        if (done[root]) continue;
        done[root] = 1;
        if (!combinational(root_frame, rv)) continue;
        stack.push_back({root, rv, 0, &root_frame});
        while (!stack.empty()) {
          Entry& e = stack.back();
          const uint32_t p = pred(*e.frame, e.v, e.next++);
          if (p == UINT32_MAX) {
            order_.push_back(e.id);
            stack.pop_back();
            continue;
          }
          if (done[p]) continue;
          done[p] = 1;
          const Frame& pf = frame_of(p);
          if (combinational(pf, p - pf.first)) stack.push_back({p, p - pf.first, 0, &pf});
        }
      }
  }

  uint32_t pool(const Bits& b, int width) {
    const auto at = static_cast<uint32_t>(s_.pool.size());
    const uint32_t n = nwords(width);
    for (uint32_t i = 0; i < n; ++i) s_.pool.push_back(i < b.words() ? b.word(i) : 0);
    return at;
  }

  void compile() {
    s_.program.reserve(order_.size());
    for (uint32_t id : order_) {
      const Frame& fr = frame_of(id);
      const ValueId v = id - fr.first;
      const Module& m = *fr.module;
      const Value& val = m.value(v);
      const std::span<const ValueId> args = m.args(v);
      Instr in;
      in.w = val.width;
      in.dst = offset_[id];
      in.imm = val.imm;
      bool operands_narrow = true;
      const auto operand = [&](std::size_t k) {
        const uint32_t a = fr.first + args[k];
        operands_narrow = operands_narrow && m.width(args[k]) <= 64;
        return a;
      };
      if (val.op == Op::Input || val.op == Op::InstanceOutput) {
        in.code = kCopy;
        in.a = offset_[source(fr, v)];
        in.narrow = in.w <= 64;
        s_.program.push_back(in);
        continue;
      }
      in.code = code(val.op);
      if (!args.empty()) {
        in.a = offset_[operand(0)];
        in.wa = m.width(args[0]);
      }
      if (args.size() > 1 && args[1] != kNoValue) {
        in.b = offset_[operand(1)];
        in.wb = m.width(args[1]);
      }
      if (args.size() > 2 && val.op == Op::Mux) in.c = offset_[operand(2)];
      switch (val.op) {
        case Op::Concat:
          in.x = static_cast<uint32_t>(s_.operands.size());
          in.n = static_cast<uint32_t>(args.size());
          for (std::size_t k = 0; k < args.size(); ++k) {
            s_.operands.push_back(offset_[operand(k)]);
            s_.operands.push_back(static_cast<uint32_t>(m.width(args[k])));
          }
          break;
        case Op::Case: {
          // Keys in the pool; the choices' offsets (then the default's).
          const CaseKeys& keys = m.cases()[static_cast<std::size_t>(val.imm)];
          in.x = static_cast<uint32_t>(s_.operands.size());
          in.n = static_cast<uint32_t>(keys.keys.size());
          in.imm = s_.pool.size();
          for (const Bits& k : keys.keys) pool(k, in.wa);
          for (std::size_t k = 1; k < args.size(); ++k) s_.operands.push_back(offset_[operand(k)]);
          break;
        }
        case Op::Lookup: {
          const Table& t = m.tables()[static_cast<std::size_t>(val.imm)];
          in.x = static_cast<uint32_t>(s_.pool.size());
          in.n = static_cast<uint32_t>(t.entries.size());
          for (const Bits& e : t.entries) pool(e, in.w);
          break;
        }
        case Op::Read:
          in.x = static_cast<uint32_t>(fr.memories[static_cast<std::size_t>(
              m.reads()[static_cast<std::size_t>(val.imm)].memory)]);
          break;
        default: break;
      }
      // Products and slices read only the low word or the bits they take.
      const bool partial = val.op == Op::MulS || val.op == Op::MulU || val.op == Op::Slice;
      in.narrow = in.w <= 64 && (operands_narrow || partial);
      s_.program.push_back(in);
    }
  }

  void state() {
    for (const Frame& fr : frames_) {
      const Module& m = *fr.module;
      const auto at = [&](ValueId v) { return v == kNoValue ? UINT32_MAX : offset_[fr.first + v]; };
      for (ValueId v = 0; v < m.size(); ++v) {
        const Value& val = m.value(v);
        const uint32_t dst = offset_[fr.first + v];
        const std::span<const ValueId> a = m.args(v);
        if (val.op == Op::Const) {
          const Bits& b = m.constant_of(v);
          std::copy_n(b.data(), b.words(), s_.arena.data() + dst);
        } else if (val.op == Op::Reg) {
          Update u;
          u.dst = dst;
          u.n = nwords(val.width);
          u.d = at(a[0]);
          u.en = at(a[1]);
          u.rst = at(a[2]);
          u.reset = pool(m.registers()[static_cast<std::size_t>(val.imm)].reset, val.width);
          s_.registers.push_back(u);
        } else if (val.op == Op::Read && !combinational(fr, v)) {
          Update u;
          u.dst = dst;
          u.n = nwords(val.width);
          u.d = at(a[0]);
          u.addr_width = m.width(a[0]);
          u.en = at(a[1]);
          u.memory = fr.memories[static_cast<std::size_t>(
              m.reads()[static_cast<std::size_t>(val.imm)].memory)];
          s_.reads.push_back(u);
        }
      }
      for (const Write& w : m.writes())
        s_.writes.push_back({fr.memories[static_cast<std::size_t>(w.memory)], at(w.addr),
                             at(w.data), at(w.en), m.width(w.addr)});
    }
    uint32_t next = 0;
    for (Update& u : s_.registers) next += u.n;
    for (Update& u : s_.reads) next += u.n;
    s_.next.assign(next, 0);
    uint32_t widest = 1;
    for (const Instr& i : s_.program)
      widest = std::max({widest, nwords(i.w), nwords(i.wa), nwords(i.wb)});
    s_.scratch_a.assign(widest + 1, 0);
    s_.scratch_b.assign(widest + 1, 0);
    s_.scratch_c.assign(widest + 1, 0);
  }

  const Design& d_;
  Machine& s_;
  std::vector<Frame> frames_;
  uint32_t total_ = 0;
  std::vector<uint32_t> offset_;  // word offset of each flat value
  std::vector<uint32_t> order_;   // combinational flat values, operands first
};

}  // namespace

struct Interpreter::State : Machine {};

// ---- evaluation ----------------------------------------------------------------

void Machine::eval(const Instr& i) {
  Word* ar = arena.data();
  if (!i.narrow) return eval_wide(i);
  const Word A = ar[i.a];
  const Word B = ar[i.b];
  Word r;
  switch (static_cast<Op>(i.code)) {
    case Op::Add: r = A + B; break;
    case Op::Sub: r = A - B; break;
    case Op::Neg: r = Word{0} - A; break;
    case Op::MulS:
      r = static_cast<Word>(sext64(A, i.wa)) * static_cast<Word>(sext64(B, i.wb));
      break;
    case Op::MulU: r = A * B; break;  // the low words: the low w bits are right
    case Op::Shl: r = i.imm >= i.w ? 0 : A << i.imm; break;
    case Op::Shr: r = i.imm >= i.w ? 0 : A >> i.imm; break;
    case Op::Sar: r = static_cast<Word>(sext64(A, i.w) >> std::min<int64_t>(i.imm, 63)); break;
    case Op::And: r = A & B; break;
    case Op::Or: r = A | B; break;
    case Op::Xor: r = A ^ B; break;
    case Op::Not: r = ~A; break;
    case Op::ReduceOr: r = A != 0; break;
    case Op::ReduceAnd: r = A == mask(i.wa); break;
    case Op::ReduceXor: r = std::popcount(A) & 1; break;
    case Op::Eq: r = A == B; break;
    case Op::Ne: r = A != B; break;
    case Op::Ult: r = A < B; break;
    case Op::Ule: r = A <= B; break;
    case Op::Slt: r = sext64(A, i.wa) < sext64(B, i.wa); break;
    case Op::Sle: r = sext64(A, i.wa) <= sext64(B, i.wa); break;
    case Op::Mux: r = (A & 1) ? B : ar[i.c]; break;
    case Op::Case: {
      const uint32_t* choice = operands.data() + i.x;
      const Word* keys = pool.data() + i.imm;
      uint32_t k = 0;
      while (k < i.n && keys[k] != A) ++k;
      r = ar[choice[k]];  // past the keys: the default
      break;
    }
    case Op::Concat: {
      r = 0;
      const uint32_t* op = operands.data() + i.x;
      for (uint32_t k = 0; k < i.n; ++k)
        r = (op[2 * k + 1] >= 64 ? 0 : r << op[2 * k + 1]) | ar[op[2 * k]];
      break;
    }
    case Op::Slice: {
      const auto first = static_cast<uint32_t>(i.imm / 64);
      const int shift = static_cast<int>(i.imm % 64);
      r = ar[i.a + first] >> shift;
      if (shift && shift + i.w > 64) r |= ar[i.a + first + 1] << (64 - shift);
      break;
    }
    case Op::Sext: r = static_cast<Word>(sext64(A, i.wa)); break;
    case Op::Zext: r = A; break;
    case Op::Lookup: {
      r = A < i.n ? pool[i.x + A] : 0;
      break;
    }
    case Op::Read: {
      const FlatMemory& mem = memories[i.x];
      r = A < static_cast<Word>(mem.depth) ? mem.data[A * mem.words] : 0;
      break;
    }
    default:
      if (i.code == kCopy) {
        r = A;
        break;
      }
      KILN_ASSERT(false, "an op the interpreter does not evaluate");
  }
  ar[i.dst] = r & mask(i.w);
}

void Machine::eval_wide(const Instr& i) {
  Word* ar = arena.data();
  Word* d = ar + i.dst;
  const Word* a = ar + i.a;
  const Word* b = ar + i.b;
  const uint32_t n = nwords(i.w);
  switch (static_cast<Op>(i.code)) {
    case Op::Add:
    case Op::Sub: {
      const bool sub = i.code == code(Op::Sub);
      unsigned carry = sub ? 1 : 0;
      for (uint32_t k = 0; k < n; ++k) {
        const Word y = sub ? ~b[k] : b[k];
        const Word s = a[k] + y;
        const unsigned c1 = s < a[k];
        d[k] = s + carry;
        carry = c1 | (d[k] < s);
      }
      break;
    }
    case Op::Neg: {
      unsigned carry = 1;
      for (uint32_t k = 0; k < n; ++k) {
        d[k] = ~a[k] + carry;
        carry = carry && d[k] == 0;
      }
      break;
    }
    case Op::MulS:
    case Op::MulU: {
      const bool sign = i.code == code(Op::MulS);
      Word* x = scratch_a.data();
      Word* y = scratch_b.data();
      // Operands wider than the result: their low words are enough.
      extend_into(x, n, a, std::min<int>(i.wa, static_cast<int>(n) * 64),
                  sign && i.wa <= static_cast<int>(n) * 64);
      extend_into(y, n, b, std::min<int>(i.wb, static_cast<int>(n) * 64),
                  sign && i.wb <= static_cast<int>(n) * 64);
      Word* p = scratch_c.data();
      std::fill_n(p, n, 0);
      for (uint32_t u = 0; u < n; ++u) {
        Wide carry = 0;
        for (uint32_t v = 0; u + v < n; ++v) {
          const Wide t = static_cast<Wide>(x[u]) * y[v] + p[u + v] + carry;
          p[u + v] = static_cast<Word>(t);
          carry = t >> 64;
        }
      }
      std::copy_n(p, n, d);
      break;
    }
    case Op::Shl: {
      std::fill_n(d, n, 0);
      if (i.imm < i.w) deposit(d, i.imm, a, static_cast<int>(i.w - i.imm));
      // deposit reads nwords(w - imm) words of a: its bits above w - imm
      // land past the width and are masked below.
      break;
    }
    case Op::Shr:
      if (i.imm >= i.w)
        std::fill_n(d, n, 0);
      else
        extract(d, a, i.w, i.imm, i.w);
      break;
    case Op::Sar: {
      const int64_t k = std::min<int64_t>(i.imm, i.w - 1);
      const bool neg = top_bit(a, i.w);
      std::fill_n(d, n, 0);  // extract() writes only the words of its width
      extract(d, a, i.w, k, static_cast<int>(i.w - k));
      if (neg) {
        // The vacated top k bits become ones.
        for (int64_t bit = i.w - k; bit < i.w; ++bit) d[bit / 64] |= Word{1} << (bit % 64);
      }
      break;
    }
    case Op::And:
      for (uint32_t k = 0; k < n; ++k) d[k] = a[k] & b[k];
      break;
    case Op::Or:
      for (uint32_t k = 0; k < n; ++k) d[k] = a[k] | b[k];
      break;
    case Op::Xor:
      for (uint32_t k = 0; k < n; ++k) d[k] = a[k] ^ b[k];
      break;
    case Op::Not:
      for (uint32_t k = 0; k < n; ++k) d[k] = ~a[k];
      break;
    case Op::ReduceOr:
    case Op::ReduceAnd:
    case Op::ReduceXor: {
      const uint32_t na = nwords(i.wa);
      Word any = 0, all = 1, parity = 0;
      for (uint32_t k = 0; k < na; ++k) {
        any |= a[k];
        all &= a[k] == (k + 1 == na ? mask(i.wa - 64 * static_cast<int>(k)) : ~Word{0});
        parity ^= std::popcount(a[k]) & 1;
      }
      d[0] = i.code == code(Op::ReduceOr) ? any != 0 : i.code == code(Op::ReduceAnd) ? all : parity;
      break;
    }
    case Op::Eq:
    case Op::Ne:
    case Op::Ult:
    case Op::Ule:
    case Op::Slt:
    case Op::Sle: {
      int c;
      const bool sa = top_bit(a, i.wa), sb = top_bit(b, i.wa);
      if ((i.code == code(Op::Slt) || i.code == code(Op::Sle)) && sa != sb)
        c = sa ? -1 : 1;  // the negative one is less
      else
        c = compare(a, b, i.wa);
      const Op op = static_cast<Op>(i.code);
      d[0] = op == Op::Eq                     ? c == 0
             : op == Op::Ne                   ? c != 0
             : op == Op::Ult || op == Op::Slt ? c < 0
                                              : c <= 0;
      break;
    }
    case Op::Mux: std::copy_n((a[0] & 1) ? b : ar + i.c, n, d); break;
    case Op::Case: {
      const uint32_t* choice = operands.data() + i.x;
      const uint32_t nk = nwords(i.wa);
      uint32_t k = 0;
      while (k < i.n && compare(pool.data() + i.imm + k * nk, a, i.wa) != 0) ++k;
      std::copy_n(ar + choice[k], n, d);
      break;
    }
    case Op::Concat: {
      std::fill_n(d, n, 0);
      const uint32_t* op = operands.data() + i.x;
      int64_t lsb = 0;
      for (uint32_t k = i.n; k-- > 0;) {
        deposit(d, lsb, ar + op[2 * k], static_cast<int>(op[2 * k + 1]));
        lsb += op[2 * k + 1];
      }
      break;
    }
    case Op::Slice: extract(d, a, i.wa, i.imm, i.w); break;
    case Op::Sext:
    case Op::Zext: extend_into(d, n, a, i.wa, i.code == code(Op::Sext)); break;
    case Op::Lookup: {
      const int64_t k = as_index(a, i.wa, i.n);
      if (k < 0)
        std::fill_n(d, n, 0);
      else
        std::copy_n(pool.data() + i.x + static_cast<uint32_t>(k) * n, n, d);
      break;
    }
    case Op::Read: {
      const FlatMemory& mem = memories[i.x];
      const int64_t k = as_index(a, i.wa, mem.depth);
      if (k < 0)
        std::fill_n(d, n, 0);
      else
        std::copy_n(mem.data.data() + k * mem.words, n, d);
      break;
    }
    default:
      if (i.code == kCopy) {
        std::copy_n(a, n, d);
        break;
      }
      KILN_ASSERT(false, "an op the interpreter does not evaluate");
  }
  mask_top(d, i.w);
}

void Machine::clock() {
  Word* ar = arena.data();
  // Every register's and registered read's next state, from the values
  // before the edge; then the writes; then the state takes its next value.
  uint32_t at = 0;
  for (const Update& u : registers) {
    const Word* from = ar + u.dst;  // kept
    if (u.rst != UINT32_MAX && (ar[u.rst] & 1))
      from = pool.data() + u.reset;
    else if (u.en == UINT32_MAX || (ar[u.en] & 1))
      from = ar + u.d;
    std::copy_n(from, u.n, next.data() + at);
    at += u.n;
  }
  for (const Update& u : reads) {
    Word* to = next.data() + at;
    if (u.en == UINT32_MAX || (ar[u.en] & 1)) {
      const FlatMemory& mem = memories[static_cast<std::size_t>(u.memory)];
      const int64_t k = as_index(ar + u.d, u.addr_width, mem.depth);
      if (k < 0)
        std::fill_n(to, u.n, 0);
      else
        std::copy_n(mem.data.data() + k * mem.words, u.n, to);
    } else {
      std::copy_n(ar + u.dst, u.n, to);
    }
    at += u.n;
  }
  for (const WriteOp& w : writes) {
    if (w.en != UINT32_MAX && !(ar[w.en] & 1)) continue;
    FlatMemory& mem = memories[static_cast<std::size_t>(w.memory)];
    const int64_t k = as_index(ar + w.addr, w.addr_width, mem.depth);
    if (k >= 0) std::copy_n(ar + w.data, mem.words, mem.data.data() + k * mem.words);
  }
  at = 0;
  for (const auto* list : {&registers, &reads})
    for (const Update& u : *list) {
      std::copy_n(next.data() + at, u.n, ar + u.dst);
      at += u.n;
    }
  ++cycles;
}

// ---- the interface ---------------------------------------------------------------

Interpreter::Interpreter(const Design& design) : s_(std::make_unique<State>()) {
  verify(design);
  Flattener(design, *s_).run();
}

Interpreter::~Interpreter() = default;
Interpreter::Interpreter(Interpreter&&) noexcept = default;
Interpreter& Interpreter::operator=(Interpreter&&) noexcept = default;

int Interpreter::port(std::string_view name) const {
  for (std::size_t p = 0; p < s_->ports.size(); ++p)
    if (s_->ports[p].name == name) return static_cast<int>(p);
  return -1;
}

void Interpreter::set_input(int port, const Bits& value) {
  KILN_ASSERT(port >= 0 && port < static_cast<int>(s_->ports.size()) &&
                  s_->ports[static_cast<std::size_t>(port)].direction == PortDirection::In,
              "set_input of port " + std::to_string(port) + ", not an input");
  const Machine::Port& p = s_->ports[static_cast<std::size_t>(port)];
  KILN_ASSERT(value.width() == p.width, "input " + p.name + " of " + std::to_string(p.width) +
                                            " bits set to " + std::to_string(value.width()));
  std::copy_n(value.data(), value.words(), s_->arena.data() + p.offset);
}

void Interpreter::set_input(int port, uint64_t value) {
  KILN_ASSERT(port >= 0 && port < static_cast<int>(s_->ports.size()) &&
                  s_->ports[static_cast<std::size_t>(port)].direction == PortDirection::In,
              "set_input of port " + std::to_string(port) + ", not an input");
  const Machine::Port& p = s_->ports[static_cast<std::size_t>(port)];
  KILN_ASSERT(p.width <= 64,
              "set_input(uint64_t) of " + p.name + ", " + std::to_string(p.width) + " bits");
  s_->arena[p.offset] = value & mask(p.width);
}

void Interpreter::settle() {
  for (const Instr& i : s_->program) s_->eval(i);
}

Bits Interpreter::output(int port) const {
  KILN_ASSERT(port >= 0 && port < static_cast<int>(s_->ports.size()),
              "no port " + std::to_string(port));
  const Machine::Port& p = s_->ports[static_cast<std::size_t>(port)];
  Bits b(p.width);
  std::copy_n(s_->arena.data() + p.offset, b.words(), b.data());
  return b;
}

uint64_t Interpreter::output_word(int port) const {
  KILN_ASSERT(port >= 0 && port < static_cast<int>(s_->ports.size()),
              "no port " + std::to_string(port));
  const Machine::Port& p = s_->ports[static_cast<std::size_t>(port)];
  KILN_ASSERT(p.width <= 64, "output_word of " + p.name + ", " + std::to_string(p.width) + " bits");
  return s_->arena[p.offset];
}

void Interpreter::clock() {
  s_->clock();
}

int64_t Interpreter::cycles() const {
  return s_->cycles;
}

}  // namespace kiln::netlist

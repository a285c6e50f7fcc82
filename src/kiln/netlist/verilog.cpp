// The Verilog of a netlist (docs/netlist.md, "Verilog"). Per module: the
// ports (clk first when the module has state or instances that need it),
// the table functions, the memories with their initial contents, one
// declaration per value in id order (operands come before their readers),
// the instances, the registers' one always block, the writes, the outputs'
// assigns and the sinks of bits nothing reads. Every expression has
// explicit widths, so `verilator --lint-only -Wall` is clean.
#include "kiln/netlist/verilog.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "kiln/support/error.h"

namespace kiln::netlist {

namespace {

std::string range(int width) {
  return width == 1 ? "" : fmt::format("[{}:0] ", width - 1);
}

std::string literal(const Bits& b) {
  return b.literal();
}
std::string zero(int width) {
  return fmt::format("{}'h0", width);
}

// Bits that address `depth` words (at least 1): the memory is declared with
// 2^k words, the words past the depth zero and never written, so a read
// there gives 0 as in the interpreter.
int address_bits(int64_t depth) {
  int b = 1;
  while (b < 62 && (int64_t{1} << b) < depth) ++b;
  return b;
}

const char* ram_style(Storage s) {
  switch (s) {
    case Storage::Auto: return nullptr;
    case Storage::Lutram: return "distributed";
    case Storage::Bram: return "block";
    case Storage::Registers: return "registers";
  }
  return nullptr;
}

// Signals nothing reads in full go to reductions of at most this many
// signals each (one reduction over all of them costs Icarus the whole list
// on every change; Verilator exempts *unused* names from its warnings).
constexpr std::size_t kSinkGroup = 64;

// A run of a value's bits as the printer forms them: `width` bits of `src`
// from bit `lsb`; `width` copies of its bit `lsb` (replicate); or, with no
// src, `width` zero bits. Bit-wiring ops (concatenations, slices,
// extensions, shifts by constants) and constants are runs of their operands'
// bits and have no name of their own: their readers read those bits.
struct Piece {
  ValueId src = kNoValue;
  int lsb = 0;
  int width = 0;
  bool replicate = false;
};
using Pieces = std::vector<Piece>;  // least significant first

// A wiring value of more runs than this keeps a name (a packed port's
// concatenation of 64 elements, read by every element's user).
constexpr std::size_t kMaxPieces = 6;
constexpr std::size_t kRunsPerLine = 256;

// How the printer reads each value, found by printing the module once
// without keeping the text: how many reads, and whether any read takes only
// part of it (a slice, a sign bit).
struct Reads {
  std::vector<int> count;
  std::vector<uint8_t> partial;
};

class ModulePrinter {
 public:
  // Compact (VerilogOptions::compact): wiring values and constants are runs
  // of their operands' bits, and with `reads` (a counting print's) values
  // read once and in full are printed inside their reader; without `reads`
  // the print only counts. Not compact: a wire per value.
  ModulePrinter(const Module& m, const std::unordered_map<std::string, const Module*>& modules,
                const std::unordered_map<std::string, bool>& needs_clk, bool compact,
                const Reads* reads)
      : m_(m), modules_(modules), needs_clk_(needs_clk), full_(m.size(), 0) {
    for (ValueId v = 0; v < m.size(); ++v) taken_.insert(m.value(v).name);
    for (const Port& p : m.ports()) taken_.insert(p.name);
    for (const Instance& i : m.instances()) taken_.insert(i.name);
    for (const Memory& mem : m.memories()) taken_.insert(mem.name);
    for (const Table& t : m.tables()) taken_.insert(t.name);
    taken_.insert("clk");
    if (!compact) return;
    runs_.assign(m.size(), {});
    wired_.assign(m.size(), 0);
    by_name_.assign(m.size(), 0);
    for (ValueId v = 0; v < m.size(); ++v)
      if (m.value(v).op == Op::Reg || m.value(v).op == Op::Read)
        for (ValueId x : m.args(v))
          if (x != kNoValue) by_name_[x] = 1;
    for (const Write& w : m.writes())
      for (ValueId x : {w.addr, w.data, w.en})
        if (x != kNoValue) by_name_[x] = 1;
    wiring();
    if (!reads) {
      counting_ = true;
      reads_.count.assign(m.size(), 0);
      reads_.partial.assign(m.size(), 0);
      return;
    }
    inline_.assign(m.size(), 0);
    expr_.assign(m.size(), {});
    for (ValueId v = 0; v < m.size(); ++v)
      inline_[v] =
          !wired(v) && expression_op(m.value(v).op) && reads->count[v] == 1 && !reads->partial[v];
  }

  // The reads a print makes (the text is not kept).
  Reads count(bool clk) {
    print(clk);
    return std::move(reads_);
  }

  std::string print(bool clk) {
    std::string body;
    body.reserve(m_.size() * 48);
    tables(body);
    memories(body);
    for (ValueId v = 0; v < m_.size(); ++v) value(v, body);
    instances(body);
    registers(body);
    writes(body);
    for (const Port& p : m_.ports())
      if (p.direction == PortDirection::Out)
        body += fmt::format("  assign {} = {};\n", p.name, full(p.value));
    sinks(body);

    std::string s;
    std::size_t start = 0;
    while (start < m_.doc().size()) {
      std::size_t end = m_.doc().find('\n', start);
      if (end == std::string::npos) end = m_.doc().size();
      s += "// " + m_.doc().substr(start, end - start) + "\n";
      start = end + 1;
    }
    std::vector<std::string> ports;
    if (clk) ports.push_back("  input clk");
    for (const Port& p : m_.ports())
      ports.push_back(fmt::format("  {} {}{}",
                                  p.direction == PortDirection::In ? "input" : "output",
                                  range(p.width), p.name));
    if (ports.empty()) {
      s += "module " + m_.name() + ";\n";
    } else {
      s += "module " + m_.name() + " (\n";
      for (std::size_t i = 0; i < ports.size(); ++i)
        s += ports[i] + (i + 1 < ports.size() ? ",\n" : "\n");
      s += ");\n";
    }
    // The builders do not fold constants, so a comparison (or an address
    // guard) may be constant once Verilator propagates them: not a fault of
    // the Verilog.
    bool compares = guards_;
    for (ValueId v = 0; v < m_.size() && !compares; ++v)
      compares = op_info(m_.value(v).op).rule == WidthRule::Compare;
    if (compares) s += "  /* verilator lint_off CMPCONST */\n  /* verilator lint_off UNSIGNED */\n";
    s += body;
    s += "endmodule\n";
    return s;
  }

 private:
  const std::string& name(ValueId v) const { return m_.value(v).name; }
  int width(ValueId v) const { return m_.width(v); }

  // A module-level name no one has, from `base`.
  std::string fresh(const std::string& base) {
    std::string n = base;
    for (int k = 1; taken_.count(n); ++k) n = base + "_" + std::to_string(k);
    taken_.insert(n);
    return n;
  }

  // ---- bit runs ----

  // Whether `v` is printed as runs of other values' bits (no name of its own).
  bool wired(ValueId v) const { return wired_.empty() ? false : wired_[v] != 0; }

  // `v`'s bits as runs: a wired value's, or all of `v`.
  Pieces pieces_of(ValueId v) const {
    if (wired(v)) return runs_[v];
    return {Piece{v, 0, width(v), false}};
  }
  static Pieces sub(const Pieces& p, int lsb, int w) {
    Pieces out;
    int at = 0;  // the first bit of the current run
    for (const Piece& x : p) {
      const int lo = std::max(lsb, at), hi = std::min(lsb + w, at + x.width);
      if (lo < hi) {
        Piece y = x;
        y.width = hi - lo;
        if (!x.replicate) y.lsb = x.lsb + (lo - at);
        append(out, y);
      }
      at += x.width;
    }
    return out;
  }
  // Adds run `y` after `out`'s, merged with the last where they continue.
  static void append(Pieces& out, const Piece& y) {
    if (y.width <= 0) return;
    if (!out.empty()) {
      Piece& l = out.back();
      const bool zeros = l.src == kNoValue && y.src == kNoValue;
      const bool run = !l.replicate && !y.replicate && l.src == y.src && y.src != kNoValue &&
                       l.lsb + l.width == y.lsb;
      const bool copies = l.replicate && y.replicate && l.src == y.src && l.lsb == y.lsb;
      if (zeros || run || copies) {
        l.width += y.width;
        return;
      }
    }
    out.push_back(y);
  }
  static void append(Pieces& out, const Pieces& more) {
    for (const Piece& y : more) append(out, y);
  }
  // `width` copies of bit `bit` of `p`.
  static Piece copies(const Pieces& p, int bit, int width) {
    Piece b = sub(p, bit, 1).at(0);
    if (b.src == kNoValue) return {kNoValue, 0, width, false};
    return {b.src, b.lsb, width, true};
  }

  // The runs of every wiring value and constant (runs_; empty for the
  // others): each in terms of its operands' runs.
  void wiring() {
    for (ValueId v = 0; v < m_.size(); ++v) {
      const Value& val = m_.value(v);
      const std::span<const ValueId> a = m_.args(v);
      const int w = val.width;
      Pieces p;
      switch (val.op) {
        case Op::Const: p = {{v, 0, w, false}}; break;
        case Op::Slice: p = sub(pieces_of(a[0]), static_cast<int>(val.imm), w); break;
        case Op::Concat:
          for (std::size_t i = a.size(); i-- > 0;) append(p, pieces_of(a[i]));  // msb first
          break;
        case Op::Zext:
        case Op::Sext: {
          const int wa = width(a[0]);
          p = pieces_of(a[0]);
          if (w > wa)
            append(p, val.op == Op::Zext ? Piece{kNoValue, 0, w - wa, false}
                                         : copies(p, wa - 1, w - wa));
          break;
        }
        case Op::Shl:
        case Op::Shr:
        case Op::Sar: {
          const int k = static_cast<int>(std::min<int64_t>(val.imm, w));
          const Pieces x = pieces_of(a[0]);
          if (val.op == Op::Shl) {
            append(p, Piece{kNoValue, 0, k, false});
            append(p, sub(x, 0, w - k));
          } else if (val.op == Op::Shr) {
            append(p, sub(x, k, w - k));
            append(p, Piece{kNoValue, 0, k, false});
          } else {
            const int s = std::min(k, w - 1);  // past the width every bit is the sign
            append(p, sub(x, s, w - s));
            append(p, copies(x, w - 1, s));
          }
          break;
        }
        default: break;
      }
      wired_[v] = !p.empty() && p.size() <= kMaxPieces && !by_name_[v];
      runs_[v] = std::move(p);
    }
  }

  // Bits lsb .. lsb + w - 1 of atom (non-wired) `v`: its whole value (its
  // name, or its expression where it is inlined) or a select of its name.
  std::string atom(ValueId v, int lsb, int w) {
    const bool whole = lsb == 0 && w == width(v);
    if (counting_) {
      ++reads_.count[v];
      reads_.partial[v] |= !whole;
    }
    if (whole) {
      full_[v] = 1;
      if (!inline_.empty() && inline_[v]) return std::move(expr_[v]);
      return name(v);
    }
    if (w == 1) return fmt::format("{}[{}]", name(v), lsb);
    return fmt::format("{}[{}:{}]", name(v), lsb + w - 1, lsb);
  }
  std::string piece(const Piece& p) {
    if (p.src == kNoValue) return zero(p.width);
    if (m_.value(p.src).op == Op::Const) {
      const Bits& c = m_.constant_of(p.src);
      Bits b(p.width);
      for (int i = 0; i < p.width; ++i) b.set_bit(i, c.bit(p.replicate ? p.lsb : p.lsb + i));
      return literal(b);
    }
    if (!p.replicate) return atom(p.src, p.lsb, p.width);
    const std::string bit = atom(p.src, p.lsb, 1);
    return p.width == 1 ? bit : fmt::format("{{{}{{{}}}}}", p.width, bit);
  }
  // Runs as one expression: a concatenation, most significant first.
  // (A line of Verilog takes at most 40,000 of Verilator's tokens: a long
  // concatenation breaks its line every kRunsPerLine runs.)
  std::string print_pieces(const Pieces& p) {
    if (p.size() == 1) return piece(p[0]);
    std::string s = "{";
    for (std::size_t i = p.size(); i-- > 0;) {
      s += piece(p[i]);
      if (i) s += (p.size() - i) % kRunsPerLine == 0 ? ",\n    " : ", ";
    }
    return s + "}";
  }

  // `v` by its name (bits lsb .. lsb + w - 1 of it), never inlined: what
  // processes and memory addresses read (by_name_). Icarus finds each name a
  // process reads by a linear search of the module's signals, temporaries
  // included: a register loading an inlined expression of hundreds of names
  // took minutes to compile.
  std::string named(ValueId v) { return named_bits(v, 0, width(v)); }
  std::string named_bits(ValueId v, int lsb, int w) {
    KILN_ASSERT(!wired(v), "a value read by name has no name");
    if (counting_) {
      ++reads_.count[v];
      reads_.partial[v] = 1;
    }
    if (lsb == 0 && w == width(v)) {
      full_[v] = 1;
      return name(v);
    }
    if (w == 1) return fmt::format("{}[{}]", name(v), lsb);
    return fmt::format("{}[{}:{}]", name(v), lsb + w - 1, lsb);
  }

  // `v` as an expression, read in full.
  std::string full(ValueId v) { return print_pieces(pieces_of(v)); }
  // Bits lsb .. lsb + w - 1 of `v`.
  std::string bits(ValueId v, int lsb, int w) { return print_pieces(sub(pieces_of(v), lsb, w)); }
  // `v` sign- or zero-extended to `w` bits (w >= its width).
  std::string extend(ValueId v, int w, bool sign) {
    const int wa = width(v);
    Pieces p = pieces_of(v);
    if (w > wa) append(p, sign ? copies(p, wa - 1, w - wa) : Piece{kNoValue, 0, w - wa, false});
    return print_pieces(p);
  }
  // A product operand as exactly `w` bits: the low w bits of the product
  // depend on the low w bits of the operands only.
  std::string product_operand(ValueId v, int w, bool sign) {
    return width(v) >= w ? bits(v, 0, w) : extend(v, w, sign);
  }

  // ---- inlining ----

  // Ops whose Verilog is an expression of their operands alone (no name of
  // their own to declare, no process, no function defined for them).
  static bool expression_op(Op op) {
    switch (op) {
      case Op::Input:
      case Op::Reg:
      case Op::Read:
      case Op::InstanceOutput:
      case Op::Case: return false;
      default: return true;
    }
  }
  // Ops whose expression is not a primary: in another expression it goes in
  // braces, a concatenation of one, so it keeps its own width (Verilog sizes
  // an operator by its context; a concatenation's operands by themselves).
  static bool needs_braces(Op op) {
    switch (op) {
      case Op::Const:
      case Op::Concat:
      case Op::Slice:
      case Op::Sext:
      case Op::Zext:
      case Op::Lookup: return false;
      default: return true;
    }
  }

  // ---- tables: one function each, called once per lookup ----

  void tables(std::string& out) {
    index_width_.assign(m_.tables().size(), 0);
    for (ValueId v = 0; v < m_.size(); ++v)
      if (m_.value(v).op == Op::Lookup) {
        int& iw = index_width_[static_cast<std::size_t>(m_.value(v).imm)];
        iw = std::max(iw, width(m_.args(v)[0]));
      }
    for (std::size_t t = 0; t < m_.tables().size(); ++t) {
      const int iw = index_width_[t];
      if (iw == 0) continue;  // no lookup
      const Table& tb = m_.tables()[t];
      const std::string arg = tb.name == "index" ? "index_" : "index";
      out += fmt::format("  // Table {}: {} entries.\n", tb.name, tb.entries.size());
      // Verilator would inline the case into every call; its metacomment
      // keeps one C++ function. Each call is its own ROM in Yosys (one array
      // read by every lookup would be a ROM of as many read ports, which
      // Yosys's memory mapping cannot handle).
      // (Verilator keeps no function returning more than 64 bits.)
      out += fmt::format("  function {}{}(input {}{});\n{}    case ({})\n", range(tb.width),
                         tb.name, range(iw), arg,
                         tb.width <= 64 ? "    /* verilator no_inline_task */\n" : "", arg);
      for (std::size_t e = 0; e < tb.entries.size(); ++e) {
        if (iw < 63 && e >= (uint64_t{1} << iw)) break;  // unreachable by the index
        out += fmt::format("      {}'h{:x}: {} = {};\n", iw, e, tb.name, literal(tb.entries[e]));
      }
      out += fmt::format("      default: {} = {};\n    endcase\n  endfunction\n", tb.name,
                         zero(tb.width));
    }
  }

  // ---- memories ----

  void memories(std::string& out) {
    std::vector<bool> read(m_.memories().size(), false);
    for (const Read& r : m_.reads()) read[static_cast<std::size_t>(r.memory)] = true;
    for (std::size_t i = 0; i < m_.memories().size(); ++i) {
      const Memory& mem = m_.memories()[i];
      const int k = address_bits(mem.depth);
      const int64_t words = int64_t{1} << k;
      out += fmt::format("  // Memory {}: {} {} words of {} bits{}.\n", mem.name,
                         mem.kind == MemoryKind::Rom ? "ROM," : "RAM,", mem.depth, mem.width,
                         mem.read_latency ? ", registered reads" : ", combinational reads");
      if (const char* style = ram_style(mem.storage))
        out += fmt::format("  (* ram_style = \"{}\" *)\n", style);
      out += fmt::format("  reg {}{} [0:{}];\n", range(mem.width), mem.name, words - 1);
      // Every word starts at its initial content or zero, as in the interpreter.
      const auto n = static_cast<int64_t>(mem.init.size());
      std::string init;
      for (int64_t w = 0; w < n; ++w)
        init += fmt::format("    {}[{}] = {};\n", mem.name, w,
                            literal(mem.init[static_cast<std::size_t>(w)]));
      if (n < words) {
        const std::string i = fresh(mem.name + "_i");
        out += fmt::format("  integer {};\n", i);
        init += fmt::format("    for ({0} = {1}; {0} < {2}; {0} = {0} + 1) {3}[{0}] = {4};\n", i, n,
                            words, mem.name, zero(mem.width));
      }
      out += "  initial begin\n" + init + "  end\n";
      if (!read[i]) unread_memories_.push_back(mem.name + "[0]");
    }
  }

  // mem[addr] as the memory's index, and the condition that addr is within
  // the depth ("" when it always is).
  std::pair<std::string, std::string> address(const Memory& mem, ValueId addr, bool writing) {
    const int k = address_bits(mem.depth);
    const int aw = width(addr);
    std::string guard;
    if (aw > k || (writing && mem.depth < (int64_t{1} << k))) {
      guard = fmt::format("{} < {}'h{:x}", named(addr), aw, mem.depth);
      guards_ = true;
    }
    return {aw > k ? named_bits(addr, 0, k) : named(addr), guard};
  }

  // ---- values ----

  // `v`'s declaration with its expression, or the expression kept for its
  // one reader where it is inlined.
  void declare(ValueId v, const std::string& expr, std::string& out) {
    const Value& val = m_.value(v);
    if (!inline_.empty() && inline_[v]) {
      expr_[v] = needs_braces(val.op) ? "{" + expr + "}" : expr;
      return;
    }
    out += "  wire ";
    out += range(val.width);
    out += val.name;
    out += " = ";
    out += expr;
    out += ";\n";
  }

  void value(ValueId v, std::string& out) {
    if (wired(v)) return;  // its readers read its runs
    const Value& val = m_.value(v);
    if (!runs_.empty() && !runs_[v].empty() && val.op != Op::Const) {
      // A wiring value of many runs (or read by name): a wire of its runs.
      declare(v, print_pieces(runs_[v]), out);
      return;
    }
    const std::span<const ValueId> a = m_.args(v);
    const int w = val.width;
    const auto wire = [&](const std::string& expr) { declare(v, expr, out); };
    const auto binary = [&](const char* op) { wire(full(a[0]) + " " + op + " " + full(a[1])); };
    const auto signed_binary = [&](const char* op) {
      wire(fmt::format("$signed({}) {} $signed({})", full(a[0]), op, full(a[1])));
    };
    switch (val.op) {
      case Op::Input: return;  // the port
      case Op::Const: wire(literal(m_.constant_of(v))); return;
      case Op::Add: binary("+"); return;
      case Op::Sub: binary("-"); return;
      case Op::Neg: wire("-" + full(a[0])); return;
      case Op::MulS:
        wire(fmt::format("$signed({}) * $signed({})", product_operand(a[0], w, true),
                         product_operand(a[1], w, true)));
        return;
      case Op::MulU:
        wire(product_operand(a[0], w, false) + " * " + product_operand(a[1], w, false));
        return;
      case Op::Shl:
      case Op::Shr:
        if (val.imm == 0)
          wire(full(a[0]));
        else if (val.imm >= w)
          wire(zero(w));  // every bit shifted out
        else
          wire(fmt::format("{} {} {}", full(a[0]), val.op == Op::Shl ? "<<" : ">>", val.imm));
        return;
      case Op::Sar: {
        // Past the width, every bit is the sign.
        const int64_t k = std::min<int64_t>(val.imm, w - 1);
        wire(k == 0 ? full(a[0]) : fmt::format("$signed({}) >>> {}", full(a[0]), k));
        return;
      }
      case Op::And: binary("&"); return;
      case Op::Or: binary("|"); return;
      case Op::Xor: binary("^"); return;
      case Op::Not: wire("~" + full(a[0])); return;
      case Op::ReduceOr: wire("|" + full(a[0])); return;
      case Op::ReduceAnd: wire("&" + full(a[0])); return;
      case Op::ReduceXor: wire("^" + full(a[0])); return;
      case Op::Eq: binary("=="); return;
      case Op::Ne: binary("!="); return;
      case Op::Ult: binary("<"); return;
      case Op::Ule: binary("<="); return;
      case Op::Slt: signed_binary("<"); return;
      case Op::Sle: signed_binary("<="); return;
      case Op::Mux: wire(fmt::format("{} ? {} : {}", full(a[0]), full(a[1]), full(a[2]))); return;
      case Op::Case: {
        // A function over a case statement (an `always @*` block would not
        // run at time 0 in Icarus when its inputs never change): synthesis
        // makes it a parallel multiplexer.
        const CaseKeys& keys = m_.cases()[static_cast<std::size_t>(val.imm)];
        const std::string f = fresh(val.name + "_case");
        out += fmt::format("  function {}{}(input {}sel", range(w), f, range(width(a[0])));
        for (std::size_t k = 0; k + 2 < a.size(); ++k)
          out += fmt::format(", input {}c{}", range(w), k);
        out += fmt::format(", input {}other);\n    case (sel)\n", range(w));
        for (std::size_t k = 0; k < keys.keys.size(); ++k)
          out += fmt::format("      {}: {} = c{};\n", literal(keys.keys[k]), f, k);
        out += fmt::format("      default: {} = other;\n    endcase\n  endfunction\n", f);
        std::string call = f + "(" + full(a[0]);
        for (std::size_t k = 1; k < a.size(); ++k) call += ", " + full(a[k]);
        wire(call + ")");
        return;
      }
      case Op::Concat: {
        std::string e = "{";
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (i) e += ", ";
          e += full(a[i]);
        }
        wire(e + "}");
        return;
      }
      case Op::Slice: wire(bits(a[0], static_cast<int>(val.imm), w)); return;
      case Op::Sext: wire(extend(a[0], w, true)); return;
      case Op::Zext: wire(extend(a[0], w, false)); return;
      case Op::Lookup: {
        const auto t = static_cast<std::size_t>(val.imm);
        wire(fmt::format("{}({})", m_.tables()[t].name, extend(a[0], index_width_[t], false)));
        return;
      }
      case Op::Reg:
        // Starts at zero, as in the interpreter; loaded in registers().
        out += fmt::format("  reg {}{} = {};\n", range(w), val.name, zero(w));
        return;
      case Op::Read: {
        const Read& r = m_.reads()[static_cast<std::size_t>(val.imm)];
        const Memory& mem = m_.memories()[static_cast<std::size_t>(r.memory)];
        const auto [index, guard] = address(mem, a[0], false);
        std::string word = fmt::format("{}[{}]", mem.name, index);
        if (!guard.empty()) word = fmt::format("({}) ? {} : {}", guard, word, zero(w));
        if (mem.read_latency == 0) {
          wire(word);
          return;
        }
        // Coded as Yosys infers a block RAM's registered read port (a read
        // in the cycle of a write sees the old word).
        out +=
            fmt::format("  reg {}{} = {};\n  always @(posedge clk) ", range(w), val.name, zero(w));
        if (a[1] != kNoValue) out += fmt::format("if ({}) ", named(a[1]));
        out += fmt::format("{} <= {};\n", val.name, word);
        return;
      }
      case Op::InstanceOutput: {
        const InstanceOutput& io = m_.instance_outputs()[static_cast<std::size_t>(val.imm)];
        const auto [it, first] = instance_output_.emplace(std::make_pair(io.instance, io.port), v);
        if (first)
          out += fmt::format("  wire {}{};\n", range(w), val.name);
        else
          wire(full(it->second));  // the port's second reader: a copy of the first
        return;
      }
    }
    KILN_ASSERT(false, "an op without Verilog");
  }

  // ---- instances ----

  void instances(std::string& out) {
    for (std::size_t i = 0; i < m_.instances().size(); ++i) {
      const Instance& inst = m_.instances()[i];
      const Module* sub = find_module(inst.module);
      std::vector<std::string> conn;
      const auto it = needs_clk_.find(inst.module);
      if (it != needs_clk_.end() && it->second) conn.push_back(".clk(clk)");
      for (const Port& p : sub->ports()) {
        if (p.direction == PortDirection::In) {
          for (const auto& [port, value] : inst.inputs)
            if (port == p.name) conn.push_back(fmt::format(".{}({})", p.name, full(value)));
          continue;
        }
        const auto o = instance_output_.find({static_cast<int>(i), p.name});
        if (o != instance_output_.end()) {
          conn.push_back(fmt::format(".{}({})", p.name, name(o->second)));
        } else {
          // An output nobody reads: a wire for the sinks.
          const std::string n = fresh(inst.name + "_" + p.name);
          out += fmt::format("  wire {}{};\n", range(p.width), n);
          unread_.push_back(n);
          conn.push_back(fmt::format(".{}({})", p.name, n));
        }
      }
      out += fmt::format("  {} {} (", inst.module, inst.name);
      for (std::size_t c = 0; c < conn.size(); ++c) out += (c ? ",\n    " : "\n    ") + conn[c];
      out += conn.empty() ? ");\n" : "\n  );\n";
    }
  }

  const Module* find_module(const std::string& name) const {
    const auto it = modules_.find(name);
    KILN_ASSERT(it != modules_.end(), "instance of an unknown module " + name);
    return it->second;
  }

  // ---- state ----

  void registers(std::string& out) {
    std::string seq;
    for (ValueId v = 0; v < m_.size(); ++v) {
      if (m_.value(v).op != Op::Reg) continue;
      const std::span<const ValueId> a = m_.args(v);
      const std::string& r = name(v);
      std::string load = fmt::format("{} <= {};", r, named(a[0]));
      if (a[1] != kNoValue) load = fmt::format("if ({}) {}", named(a[1]), load);
      if (a[2] != kNoValue) {
        const Bits& reset = m_.registers()[static_cast<std::size_t>(m_.value(v).imm)].reset;
        load = fmt::format("if ({}) {} <= {}; else {}", named(a[2]), r, literal(reset), load);
      }
      seq += "    " + load + "\n";
    }
    if (!seq.empty()) out += "  always @(posedge clk) begin\n" + seq + "  end\n";
  }

  void writes(std::string& out) {
    // One block per memory, its writes in order (a later one wins).
    std::vector<std::string> blocks(m_.memories().size());
    for (const Write& w : m_.writes()) {
      const Memory& mem = m_.memories()[static_cast<std::size_t>(w.memory)];
      const auto [index, guard] = address(mem, w.addr, true);
      std::string cond = w.en != kNoValue ? named(w.en) : "";
      if (!guard.empty()) cond = cond.empty() ? guard : cond + " && " + guard;
      blocks[static_cast<std::size_t>(w.memory)] +=
          fmt::format("    {}{}[{}] <= {};\n", cond.empty() ? "" : "if (" + cond + ") ", mem.name,
                      index, named(w.data));
    }
    for (const std::string& b : blocks)
      if (!b.empty()) out += "  always @(posedge clk) begin\n" + b + "  end\n";
  }

  // ---- sinks ----

  void sinks(std::string& out) {
    std::vector<std::string> ids;
    for (ValueId v = 0; v < m_.size(); ++v)
      if (!full_[v] && !wired(v)) ids.push_back(name(v));
    ids.insert(ids.end(), unread_.begin(), unread_.end());
    ids.insert(ids.end(), unread_memories_.begin(), unread_memories_.end());
    for (std::size_t g = 0; g < ids.size(); g += kSinkGroup) {
      std::string list;
      for (std::size_t i = g; i < std::min(ids.size(), g + kSinkGroup); ++i)
        list += (i > g ? ", " : "") + ids[i];
      out += fmt::format("  wire {} = ^{{{}}};\n",
                         fresh("unused_ok" + std::to_string(g / kSinkGroup)), list);
    }
  }

  const Module& m_;
  const std::unordered_map<std::string, const Module*>& modules_;
  const std::unordered_map<std::string, bool>& needs_clk_;
  std::vector<uint8_t> full_;  // read in full by something
  bool guards_ = false;        // an address is compared with a memory's depth
  std::unordered_set<std::string> taken_;
  std::vector<std::string> unread_, unread_memories_;
  std::vector<int> index_width_;  // per table: its function's index width (0: no lookup)
  std::vector<Pieces> runs_;      // per wiring value and constant: its runs (wiring)
  std::vector<uint8_t> wired_;    // per value: printed as its runs, without a name
  std::vector<uint8_t> by_name_;  // per value: read by a process or as an address (named)
  bool counting_ = false;         // a counting print: reads_ is kept, the text is not
  Reads reads_;
  std::vector<uint8_t> inline_;    // per value: printed in its one reader
  std::vector<std::string> expr_;  // per inlined value: its expression, until its reader takes it
  std::map<std::pair<int, std::string>, ValueId> instance_output_;
};

}  // namespace

std::vector<std::pair<std::string, std::string>> print_verilog(const Design& design,
                                                               const VerilogOptions& options) {
  std::unordered_map<std::string, bool> needs_clk;
  std::unordered_map<std::string, const Module*> modules;
  std::vector<std::pair<std::string, std::string>> files;
  for (const Module& m : design.modules) {
    bool clk = !m.writes().empty();
    for (ValueId v = 0; v < m.size() && !clk; ++v) {
      const Value& val = m.value(v);
      if (val.op == Op::Reg) clk = true;
      if (val.op == Op::Read &&
          m.memories()[static_cast<std::size_t>(
                           m.reads()[static_cast<std::size_t>(val.imm)].memory)]
                  .read_latency > 0)
        clk = true;
    }
    for (const Instance& i : m.instances()) {
      const auto it = needs_clk.find(i.module);
      clk = clk || (it != needs_clk.end() && it->second);
    }
    needs_clk[m.name()] = clk;
    modules[m.name()] = &m;
    std::optional<Reads> reads;
    if (options.compact) reads = ModulePrinter(m, modules, needs_clk, true, nullptr).count(clk);
    files.emplace_back(m.name() + ".v", ModulePrinter(m, modules, needs_clk, options.compact,
                                                      reads ? &*reads : nullptr)
                                            .print(clk));
  }
  return files;
}

}  // namespace kiln::netlist

// The netlist's rules (verify.h), checked in one pass per concern: values
// (references and widths), names, ports, instances, memories, then
// combinational loops, which need the combinational input-to-output paths
// of the instantiated modules.
#include "kiln/netlist/verify.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "kiln/support/error.h"
#include "kiln/support/names.h"

namespace kiln::netlist {

namespace {

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  const auto start = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!start(s[0])) return false;
  for (char c : s)
    if (!start(c) && !(c >= '0' && c <= '9') && c != '$') return false;
  return true;
}

// Bits needed to address `depth` words (at least 1).
int address_bits(int64_t depth) {
  int b = 1;
  while (b < 62 && (int64_t{1} << b) < depth) ++b;
  return b;
}

// For each output port of a module, the input ports it reaches through
// combinational logic only (empty for ports that are not outputs).
using CombPaths = std::vector<std::vector<int>>;

class Verifier {
 public:
  Verifier(const Module& m, const Design& d, std::map<const Module*, CombPaths>& paths)
      : m_(m), d_(d), paths_(paths) {}

  void run() {
    ports();
    values();
    names();
    instances();
    memories();
    loops();
  }

  // The module's combinational input-to-output paths (after run()).
  CombPaths comb_paths() const;

 private:
  [[noreturn]] void fail(const std::string& what_at, const std::string& what) const {
    throw_error(ErrorKind::Internal,
                "module " + m_.name() + (what_at.empty() ? "" : ", ") + what_at, what);
  }
  std::string at_value(ValueId v) const { return "value %" + m_.value(v).name; }
  [[noreturn]] void fail_value(ValueId v, const std::string& what) const {
    fail(at_value(v), what);
  }
  bool valid(ValueId v) const { return v < m_.size(); }
  std::string_view op_word(ValueId v) const { return op_name(m_.value(v).op); }

  // ---- ports ----

  void ports() {
    for (std::size_t p = 0; p < m_.ports().size(); ++p) {
      const Port& port = m_.ports()[p];
      const std::string at = "port " + port.name;
      if (port.width < 1)
        fail(at, "port of " + std::to_string(port.width) + " bits: every port has at least 1 bit");
      if (port.direction == PortDirection::Out) {
        if (port.value == kNoValue) fail(at, "output port is not driven");
        if (!valid(port.value))
          fail(at, "output port driven by value " + std::to_string(port.value) +
                       ", not a value of the module");
        if (m_.width(port.value) != port.width)
          fail(at, "output port of " + std::to_string(port.width) + " bits driven by %" +
                       m_.value(port.value).name + " of " + std::to_string(m_.width(port.value)));
      } else {
        if (!valid(port.value) || m_.value(port.value).op != Op::Input ||
            m_.value(port.value).imm != static_cast<int64_t>(p))
          fail(at, "input port without its input value");
      }
    }
  }

  // ---- values: references and widths ----

  void values() {
    for (ValueId v = 0; v < m_.size(); ++v) value(v);
  }

  std::string widths_of(std::span<const ValueId> args) const {
    std::string s;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (i) s += i + 1 == args.size() ? " and " : ", ";
      s += std::to_string(m_.width(args[i]));
    }
    return s + " bits";
  }

  void value(ValueId v) {
    const Value& val = m_.value(v);
    const OpInfo& info = op_info(val.op);
    const std::span<const ValueId> args = m_.args(v);
    const int w = val.width;
    const std::string op(op_word(v));
    if (w < 1)
      fail_value(v, op + " of " + std::to_string(w) + " bits: every value has at least 1 bit");
    const auto n = static_cast<int>(args.size());
    if (n < info.min_args || (info.max_args >= 0 && n > info.max_args))
      fail_value(
          v, op + " with " + std::to_string(n) + " operand(s): it takes " +
                 (info.min_args == info.max_args ? std::to_string(info.min_args)
                                                 : "at least " + std::to_string(info.min_args)));
    // References: operands of the module; those of combinational
    // operations (and reads) defined before the value.
    for (int i = 0; i < n; ++i) {
      const ValueId a = args[static_cast<std::size_t>(i)];
      if (a == kNoValue) {
        if (info.optional_from >= 0 && i >= info.optional_from) continue;
        fail_value(v, val.op == Op::Reg ? "register is not driven (no d)"
                                        : op + " operand " + std::to_string(i) + " is missing");
      }
      if (!valid(a))
        fail_value(v, op + " operand " + std::to_string(i) + " is value " + std::to_string(a) +
                          ", not a value of the module");
      if (val.op != Op::Reg && a >= v)
        fail_value(v, op + " reads %" + m_.value(a).name +
                          ", defined after it (only registers read values defined later)");
    }
    const auto width = [&](std::size_t i) { return m_.width(args[i]); };
    const auto one_bit = [&](std::size_t i, const char* role) {
      if (args[i] != kNoValue && width(i) != 1)
        fail_value(v, op + " " + role + " %" + m_.value(args[i]).name + " has " +
                          std::to_string(width(i)) + " bits, not 1");
    };
    switch (info.rule) {
      case WidthRule::Declared:
        if (val.op == Op::Input) {
          const auto p = val.imm;
          if (p < 0 || p >= static_cast<int64_t>(m_.ports().size()) ||
              m_.ports()[static_cast<std::size_t>(p)].value != v)
            fail_value(v, "input value of no input port");
          if (m_.ports()[static_cast<std::size_t>(p)].width != w)
            fail_value(v, "input of " + std::to_string(w) + " bits for a port of " +
                              std::to_string(m_.ports()[static_cast<std::size_t>(p)].width));
        } else if (val.op == Op::Const) {
          if (m_.constant_of(v).width() != w)
            fail_value(v, "constant of " + std::to_string(m_.constant_of(v).width()) +
                              " bits for a value of " + std::to_string(w));
        } else {
          if (val.imm < 0 || val.imm >= static_cast<int64_t>(m_.instance_outputs().size()))
            fail_value(v, "instance output " + std::to_string(val.imm) + " does not exist");
          const int i = m_.instance_outputs()[static_cast<std::size_t>(val.imm)].instance;
          if (i < 0 || i >= static_cast<int>(m_.instances().size()))
            fail_value(v, "output of instance " + std::to_string(i) + ", which does not exist");
        }
        break;
      case WidthRule::Same:
        for (std::size_t i = 0; i < args.size(); ++i)
          if (width(i) != w) {
            bool operands_agree = true;
            for (std::size_t j = 0; j < args.size(); ++j) operands_agree &= width(j) == width(0);
            fail_value(v, op + " of " + widths_of(args) +
                              (operands_agree ? " into " + std::to_string(w) + " bits" : "") +
                              ": operands and result must have one width");
          }
        break;
      case WidthRule::Product: break;
      case WidthRule::Shift:
        if (width(0) != w)
          fail_value(v, op + " of " + std::to_string(width(0)) + " bits into " + std::to_string(w) +
                            ": a shift keeps the width");
        if (val.imm < 0)
          fail_value(v, op + " by " + std::to_string(val.imm) + ": the amount must be at least 0");
        break;
      case WidthRule::Reduce:
        if (w != 1) fail_value(v, op + " into " + std::to_string(w) + " bits: the result is 1 bit");
        break;
      case WidthRule::Compare:
        if (width(0) != width(1))
          fail_value(v, op + " of " + widths_of(args) + ": operands must have one width");
        if (w != 1) fail_value(v, op + " into " + std::to_string(w) + " bits: the result is 1 bit");
        break;
      case WidthRule::Mux:
        one_bit(0, "condition");
        if (width(1) != w || width(2) != w)
          fail_value(v, op + " of " + std::to_string(width(1)) + " and " +
                            std::to_string(width(2)) + " bits into " + std::to_string(w) +
                            ": choices and result must have one width");
        break;
      case WidthRule::Case: {
        if (val.imm < 0 || val.imm >= static_cast<int64_t>(m_.cases().size()))
          fail_value(v, "case keys " + std::to_string(val.imm) + " do not exist");
        const std::vector<Bits>& keys = m_.cases()[static_cast<std::size_t>(val.imm)].keys;
        if (keys.size() + 2 != args.size())
          fail_value(v, "case with " + std::to_string(keys.size()) + " keys for " +
                            std::to_string(args.size() - 2) + " choices");
        std::unordered_set<std::string> seen;
        for (std::size_t k = 0; k < keys.size(); ++k) {
          if (keys[k].width() != width(0))
            fail_value(v, "case key " + keys[k].literal() + " for a selector of " +
                              std::to_string(width(0)) + " bits");
          if (!seen.insert(keys[k].hex()).second)
            fail_value(v, "case key " + keys[k].literal() + " appears twice");
        }
        for (std::size_t i = 1; i < args.size(); ++i)
          if (width(i) != w)
            fail_value(v, "case choice %" + m_.value(args[i]).name + " of " +
                              std::to_string(width(i)) + " bits for a result of " +
                              std::to_string(w));
        break;
      }
      case WidthRule::Concat: {
        int64_t sum = 0;
        for (std::size_t i = 0; i < args.size(); ++i) sum += width(i);
        if (sum != w)
          fail_value(v, op + " of " + widths_of(args) + " into " + std::to_string(w) +
                            ": the result is their sum, " + std::to_string(sum));
        break;
      }
      case WidthRule::Slice:
        if (val.imm < 0 || val.imm + w > width(0))
          fail_value(v, "slice of bits " + std::to_string(val.imm) + ".." +
                            std::to_string(val.imm + w - 1) + " of %" + m_.value(args[0]).name +
                            " of " + std::to_string(width(0)) + " bits: outside its operand");
        break;
      case WidthRule::Extend:
        if (w < width(0))
          fail_value(v, op + " of " + std::to_string(width(0)) + " bits into " + std::to_string(w) +
                            ": an extension does not narrow");
        break;
      case WidthRule::Lookup: {
        if (val.imm < 0 || val.imm >= static_cast<int64_t>(m_.tables().size()))
          fail_value(v, "lookup in table " + std::to_string(val.imm) + ", which does not exist");
        const Table& t = m_.tables()[static_cast<std::size_t>(val.imm)];
        if (t.width != w)
          fail_value(v, "lookup of " + std::to_string(w) + " bits in table " + t.name + " of " +
                            std::to_string(t.width));
        break;
      }
      case WidthRule::Reg: {
        if (val.imm < 0 || val.imm >= static_cast<int64_t>(m_.registers().size()))
          fail_value(v, "register " + std::to_string(val.imm) + " does not exist");
        if (width(0) != w)
          fail_value(v, "register of " + std::to_string(w) + " bits loads %" +
                            m_.value(args[0]).name + " of " + std::to_string(width(0)));
        one_bit(1, "enable");
        one_bit(2, "reset");
        const Bits& reset = m_.registers()[static_cast<std::size_t>(val.imm)].reset;
        if (reset.width() != w)
          fail_value(v, "register of " + std::to_string(w) + " bits with a reset value of " +
                            std::to_string(reset.width()));
        break;
      }
      case WidthRule::Read: {
        if (val.imm < 0 || val.imm >= static_cast<int64_t>(m_.reads().size()))
          fail_value(v, "read " + std::to_string(val.imm) + " does not exist");
        const Read& r = m_.reads()[static_cast<std::size_t>(val.imm)];
        if (r.memory < 0 || r.memory >= static_cast<int>(m_.memories().size()))
          fail_value(v, "read of memory " + std::to_string(r.memory) + ", which does not exist");
        const Memory& mem = m_.memories()[static_cast<std::size_t>(r.memory)];
        if (mem.width != w)
          fail_value(v, "read of " + std::to_string(w) + " bits from memory " + mem.name + " of " +
                            std::to_string(mem.width));
        one_bit(1, "enable");
        if (args[1] != kNoValue && mem.read_latency == 0)
          fail_value(v, "read with an enable from memory " + mem.name +
                            ", whose reads are combinational (latency 0)");
        if (width(0) < address_bits(mem.depth))
          fail_value(v, "address of " + std::to_string(width(0)) + " bits for memory " + mem.name +
                            " of " + std::to_string(mem.depth) + " words: at least " +
                            std::to_string(address_bits(mem.depth)));
        break;
      }
    }
  }

  // ---- names ----

  void names() {
    // Values, ports, instances, memories and tables share the Verilog
    // module's namespace. What holds each name, described on failure only.
    enum class Kind : uint8_t { Port, Value, Instance, Memory, Table };
    const auto describe = [&](Kind k, std::size_t i) -> std::string {
      switch (k) {
        case Kind::Port: return "port " + m_.ports()[i].name;
        case Kind::Value: return at_value(static_cast<ValueId>(i));
        case Kind::Instance: return "instance " + m_.instances()[i].name;
        case Kind::Memory: return "memory " + m_.memories()[i].name;
        case Kind::Table: return "table " + m_.tables()[i].name;
      }
      return "?";
    };
    std::unordered_map<std::string_view, std::pair<Kind, std::size_t>> seen;
    seen.reserve(m_.size() + m_.ports().size() + m_.instances().size());
    const auto name = [&](std::string_view n, Kind k, std::size_t i, bool unique = true) {
      if (!is_identifier(n))
        fail(describe(k, i), "name '" + std::string(n) + "' is not a Verilog identifier");
      if (is_verilog_keyword(n))
        fail(describe(k, i), "name " + std::string(n) + " is a Verilog keyword");
      if (n == "clk") fail(describe(k, i), "name clk is the clock's");
      if (!unique) return;
      const auto [it, fresh] = seen.emplace(n, std::pair{k, i});
      if (!fresh)
        fail(describe(k, i), "name " + std::string(n) + " is also " +
                                 describe(it->second.first, it->second.second) + "'s");
    };
    // An input port's name is its value's: checked with the value.
    for (std::size_t p = 0; p < m_.ports().size(); ++p)
      name(m_.ports()[p].name, Kind::Port, p, m_.ports()[p].direction == PortDirection::Out);
    for (ValueId v = 0; v < m_.size(); ++v) {
      const Value& val = m_.value(v);
      if (val.op == Op::Input && val.name != m_.ports()[static_cast<std::size_t>(val.imm)].name)
        fail_value(v, "input value named differently from its port " +
                          m_.ports()[static_cast<std::size_t>(val.imm)].name);
      name(val.name, Kind::Value, v);
    }
    for (std::size_t i = 0; i < m_.instances().size(); ++i)
      name(m_.instances()[i].name, Kind::Instance, i);
    for (std::size_t i = 0; i < m_.memories().size(); ++i)
      name(m_.memories()[i].name, Kind::Memory, i);
    for (std::size_t i = 0; i < m_.tables().size(); ++i) name(m_.tables()[i].name, Kind::Table, i);
  }

  // ---- instances ----

  void instances() {
    const auto self = std::find_if(d_.modules.begin(), d_.modules.end(),
                                   [&](const Module& x) { return &x == &m_; });
    for (std::size_t i = 0; i < m_.instances().size(); ++i) {
      const Instance& inst = m_.instances()[i];
      const std::string at = "instance " + inst.name;
      const auto sub = std::find_if(d_.modules.begin(), d_.modules.end(),
                                    [&](const Module& x) { return x.name() == inst.module; });
      if (sub == d_.modules.end()) fail(at, "module " + inst.module + " does not exist");
      if (self != d_.modules.end() && sub >= self)
        fail(at, "module " + inst.module + " comes after " + m_.name() +
                     ", which instantiates it (modules come before their instances)");
      std::vector<int> connected(sub->ports().size(), 0);
      for (const auto& [port, value] : inst.inputs) {
        const int p = sub->find_port(port);
        if (p < 0 || sub->ports()[static_cast<std::size_t>(p)].direction != PortDirection::In)
          fail(at, "connects " + port + ", not an input port of " + inst.module);
        if (!valid(value))
          fail(at, "connects " + port + " to value " + std::to_string(value) +
                       ", not a value of the module");
        const int pw = sub->ports()[static_cast<std::size_t>(p)].width;
        if (m_.width(value) != pw)
          fail(at, "connects input " + port + " of " + std::to_string(pw) + " bits to %" +
                       m_.value(value).name + " of " + std::to_string(m_.width(value)));
        if (++connected[static_cast<std::size_t>(p)] > 1)
          fail(at, "connects input " + port + " twice");
      }
      for (std::size_t p = 0; p < sub->ports().size(); ++p)
        if (sub->ports()[p].direction == PortDirection::In && connected[p] == 0)
          fail(at, "input " + sub->ports()[p].name + " of " + inst.module + " is not connected");
    }
    for (ValueId v = 0; v < m_.size(); ++v) {
      if (m_.value(v).op != Op::InstanceOutput) continue;
      const InstanceOutput& io = m_.instance_outputs()[static_cast<std::size_t>(m_.value(v).imm)];
      const Instance& inst = m_.instances()[static_cast<std::size_t>(io.instance)];
      const Module* sub = d_.find(inst.module);
      const int p = sub->find_port(io.port);
      if (p < 0 || sub->ports()[static_cast<std::size_t>(p)].direction != PortDirection::Out)
        fail_value(v, "output " + io.port + " of instance " + inst.name +
                          ": not an output port of " + inst.module);
      const int pw = sub->ports()[static_cast<std::size_t>(p)].width;
      if (pw != m_.width(v))
        fail_value(v, "output " + io.port + " of instance " + inst.name + " has " +
                          std::to_string(pw) + " bits, not " + std::to_string(m_.width(v)));
    }
  }

  // ---- memories ----

  void memories() {
    const auto n = m_.memories().size();
    std::vector<std::vector<int>> reads(n), writes(n);
    for (const Memory& mem : m_.memories()) {
      const std::string at = "memory " + mem.name;
      if (mem.width < 1) fail(at, "words of " + std::to_string(mem.width) + " bits: at least 1");
      if (mem.depth < 1) fail(at, "depth " + std::to_string(mem.depth) + ": at least 1");
      if (mem.read_latency != 0 && mem.read_latency != 1)
        fail(at, "read latency " + std::to_string(mem.read_latency) + ": 0 or 1");
      if (mem.read_ports < 0 || mem.write_ports < 0) fail(at, "a negative port count");
      if (mem.kind == MemoryKind::Rom) {
        if (mem.write_ports != 0)
          fail(at, "ROM with " + std::to_string(mem.write_ports) + " write port(s)");
        if (static_cast<int64_t>(mem.init.size()) > mem.depth)
          fail(at, "ROM of " + std::to_string(mem.depth) + " words with " +
                       std::to_string(mem.init.size()) + " initial words");
      } else if (!mem.init.empty()) {
        fail(at, "RAM with initial contents (only a ROM has them)");
      }
      for (const Bits& b : mem.init)
        if (b.width() != mem.width)
          fail(at, "initial word " + b.literal() + " in words of " + std::to_string(mem.width) +
                       " bits");
      const int ports = mem.read_ports + mem.write_ports;
      if (mem.storage == Storage::Bram) {
        if (mem.read_latency != 1) fail(at, "block RAM with combinational reads (latency 0)");
        if (ports > 2) fail(at, "block RAM with " + std::to_string(ports) + " ports: at most 2");
      }
      if (mem.storage == Storage::Lutram && mem.write_ports > 1)
        fail(at,
             "distributed RAM with " + std::to_string(mem.write_ports) + " write ports: at most 1");
    }
    for (const Table& t : m_.tables())
      for (const Bits& b : t.entries)
        if (b.width() != t.width)
          fail("table " + t.name,
               "entry " + b.literal() + " in a table of " + std::to_string(t.width) + " bits");
    for (ValueId v = 0; v < m_.size(); ++v) {
      if (m_.value(v).op != Op::Read) continue;
      const Read& r = m_.reads()[static_cast<std::size_t>(m_.value(v).imm)];
      const Memory& mem = m_.memories()[static_cast<std::size_t>(r.memory)];
      if (r.port < 0 || r.port >= mem.read_ports)
        fail_value(v, "read port " + std::to_string(r.port) + " of memory " + mem.name +
                          ", which has " + std::to_string(mem.read_ports));
      auto& used = reads[static_cast<std::size_t>(r.memory)];
      if (std::find(used.begin(), used.end(), r.port) != used.end())
        fail_value(
            v, "read port " + std::to_string(r.port) + " of memory " + mem.name + " is used twice");
      used.push_back(r.port);
    }
    for (std::size_t i = 0; i < m_.writes().size(); ++i) {
      const Write& w = m_.writes()[i];
      std::string at = "write " + std::to_string(i);
      if (w.memory < 0 || w.memory >= static_cast<int>(n))
        fail(at, "memory " + std::to_string(w.memory) + " does not exist");
      const Memory& mem = m_.memories()[static_cast<std::size_t>(w.memory)];
      at += " (memory " + mem.name + ")";
      for (const auto& [value, role] :
           {std::pair{w.addr, "address"}, {w.data, "data"}, {w.en, "enable"}}) {
        if (value == kNoValue && std::string_view(role) == "enable") continue;
        if (!valid(value))
          fail(at, std::string(role) + " is value " + std::to_string(value) +
                       ", not a value of the module");
      }
      if (mem.kind == MemoryKind::Rom) fail(at, "a ROM is not written");
      if (w.port < 0 || w.port >= mem.write_ports)
        fail(at, "write port " + std::to_string(w.port) + " of a memory with " +
                     std::to_string(mem.write_ports));
      auto& used = writes[static_cast<std::size_t>(w.memory)];
      if (std::find(used.begin(), used.end(), w.port) != used.end())
        fail(at, "write port " + std::to_string(w.port) + " is used twice");
      used.push_back(w.port);
      if (m_.width(w.data) != mem.width)
        fail(at, "data %" + m_.value(w.data).name + " of " + std::to_string(m_.width(w.data)) +
                     " bits for words of " + std::to_string(mem.width));
      if (w.en != kNoValue && m_.width(w.en) != 1)
        fail(at, "enable %" + m_.value(w.en).name + " has " + std::to_string(m_.width(w.en)) +
                     " bits, not 1");
      if (m_.width(w.addr) < address_bits(mem.depth))
        fail(at, "address of " + std::to_string(m_.width(w.addr)) + " bits for " +
                     std::to_string(mem.depth) + " words: at least " +
                     std::to_string(address_bits(mem.depth)));
    }
  }

  // ---- combinational loops ----

  // The values `v` reads within the cycle.
  std::span<const ValueId> comb_preds(ValueId v) const {
    const Value& val = m_.value(v);
    if (op_info(val.op).combinational) return m_.args(v);
    if (val.op == Op::Read) {
      const Read& r = m_.reads()[static_cast<std::size_t>(val.imm)];
      if (m_.memories()[static_cast<std::size_t>(r.memory)].read_latency == 0)
        return m_.args(v).first(1);
    } else if (val.op == Op::InstanceOutput) {
      return instance_preds_[static_cast<std::size_t>(val.imm)];
    }
    return {};
  }

  void loops() {
    // What each instance output reads in this module, through the
    // instantiated module's combinational paths.
    instance_preds_.assign(m_.instance_outputs().size(), {});
    for (std::size_t k = 0; k < m_.instance_outputs().size(); ++k) {
      const InstanceOutput& io = m_.instance_outputs()[k];
      const Instance& inst = m_.instances()[static_cast<std::size_t>(io.instance)];
      const Module* sub = d_.find(inst.module);
      const CombPaths& paths = paths_of(*sub);
      const int p = sub->find_port(io.port);
      for (int in : paths[static_cast<std::size_t>(p)])
        for (const auto& [port, value] : inst.inputs)
          if (port == sub->ports()[static_cast<std::size_t>(in)].name)
            instance_preds_[k].push_back(value);
    }
    // Depth-first over what each value reads; a value met again while on
    // the stack closes a loop.
    order_.clear();
    order_.reserve(m_.size());
    std::vector<uint8_t> state(m_.size(), 0);         // 0 new, 1 on the stack, 2 done
    std::vector<std::pair<ValueId, uint32_t>> stack;  // value, next operand
    for (ValueId root = 0; root < m_.size(); ++root) {
      if (state[root]) continue;
      state[root] = 1;
      stack.emplace_back(root, 0);
      while (!stack.empty()) {
        auto& [v, next] = stack.back();
        const std::span<const ValueId> preds = comb_preds(v);
        if (next == preds.size()) {
          state[v] = 2;
          order_.push_back(v);
          stack.pop_back();
          continue;
        }
        const ValueId a = preds[next++];
        if (state[a] == 2) continue;
        if (state[a] == 1) {
          std::string cycle;
          std::size_t from = stack.size();
          while (from > 0 && stack[from - 1].first != a) --from;
          for (std::size_t i = from - 1; i < stack.size() && cycle.size() < 400; ++i)
            cycle += " %" + m_.value(stack[i].first).name;
          fail_value(a, "combinational loop:" + cycle + " %" + m_.value(a).name);
        }
        state[a] = 1;
        stack.emplace_back(a, 0);
      }
    }
  }

  const CombPaths& paths_of(const Module& sub) const;

  const Module& m_;
  const Design& d_;
  std::map<const Module*, CombPaths>& paths_;
  std::vector<std::vector<ValueId>> instance_preds_;
  std::vector<ValueId> order_;  // every value after those it reads within the cycle
};

const CombPaths& Verifier::paths_of(const Module& sub) const {
  const auto it = paths_.find(&sub);
  if (it != paths_.end()) return it->second;
  Verifier v(sub, d_, paths_);
  v.run();
  return paths_[&sub] = v.comb_paths();
}

CombPaths Verifier::comb_paths() const {
  // The input ports each value depends on within the cycle, as bit sets,
  // in an order where every value follows what it reads.
  std::vector<int> input_index(m_.ports().size(), -1);
  int inputs = 0;
  for (std::size_t p = 0; p < m_.ports().size(); ++p)
    if (m_.ports()[p].direction == PortDirection::In) input_index[p] = inputs++;
  const std::size_t words = (static_cast<std::size_t>(inputs) + 63) / 64;
  CombPaths paths(m_.ports().size());
  if (words == 0) return paths;
  std::vector<uint64_t> sets(m_.size() * words, 0);
  for (ValueId v : order_) {
    uint64_t* s = sets.data() + v * words;
    if (m_.value(v).op == Op::Input) {
      const int i = input_index[static_cast<std::size_t>(m_.value(v).imm)];
      s[i / 64] |= uint64_t{1} << (i % 64);
    }
    for (ValueId a : comb_preds(v)) {
      const uint64_t* t = sets.data() + a * words;
      for (std::size_t k = 0; k < words; ++k) s[k] |= t[k];
    }
  }
  for (std::size_t p = 0; p < m_.ports().size(); ++p) {
    if (m_.ports()[p].direction != PortDirection::Out) continue;
    const uint64_t* s = sets.data() + m_.ports()[p].value * words;
    for (std::size_t q = 0; q < m_.ports().size(); ++q) {
      const int i = input_index[q];
      if (i >= 0 && ((s[i / 64] >> (i % 64)) & 1)) paths[p].push_back(static_cast<int>(q));
    }
  }
  return paths;
}

}  // namespace

void verify(const Module& module, const Design& design) {
  std::map<const Module*, CombPaths> paths;
  Verifier(module, design, paths).run();
}

void verify(const Design& design) {
  if (design.top.empty() || !design.find(design.top))
    throw_error(ErrorKind::Internal, "design", "top module '" + design.top + "' does not exist");
  std::unordered_set<std::string_view> names;
  for (const Module& m : design.modules) {
    if (!is_identifier(m.name()) || is_verilog_keyword(m.name()))
      throw_error(ErrorKind::Internal, "module " + m.name(),
                  "name '" + m.name() + "' is not a Verilog identifier");
    if (!names.insert(m.name()).second)
      throw_error(ErrorKind::Internal, "module " + m.name(),
                  "module name " + m.name() + " is used twice");
  }
  // The paths of instantiated modules, computed as each is verified (they
  // come before the modules that instantiate them).
  std::unordered_set<std::string_view> instantiated;
  for (const Module& m : design.modules)
    for (const Instance& i : m.instances()) instantiated.insert(i.module);
  std::map<const Module*, CombPaths> paths;
  for (const Module& m : design.modules) {
    if (paths.count(&m)) continue;
    Verifier v(m, design, paths);
    v.run();
    if (instantiated.count(m.name())) paths[&m] = v.comb_paths();
  }
}

}  // namespace kiln::netlist

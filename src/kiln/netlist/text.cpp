// The `.knl` text (docs/netlist.md). One statement per line:
//
//   netlist 1
//   top NAME
//   module NAME
//     doc "TEXT"
//     input NAME : W                      (also the value %NAME)
//     output NAME : W [= %DRIVER]
//     table NAME : W {LIT, ...}
//     memory NAME : W depth D kind K storage S latency L reads R writes W [init {LIT, ...}]
//     instance NAME MODULE (PORT %V, ...)
//     %NAME : W = OP OPERANDS
//     write MEMORY.PORT %ADDR, %DATA [, en %EN]
//   end
//
// The printer writes ports, tables, memories and instances first, then the
// values in id order, then the writes, so the parser rebuilds the same
// module; forward references (register operands, output drivers, instance
// connections, writes) are resolved at the module's end. The lexer streams:
// one token at a time, names as views into the text.
#include "kiln/netlist/text.h"

#include <charconv>
#include <unordered_map>

#include "kiln/support/error.h"

namespace kiln::netlist {

namespace {

constexpr int kVersion = 1;
constexpr std::size_t kListLine = 8;  // list entries per line in a long list

// ---- printing -----------------------------------------------------------------

class Printer {
 public:
  explicit Printer(std::string& out) : out_(out) {}

  void design(const Design& d) {
    out_ += "netlist " + std::to_string(kVersion) + "\n";
    if (!d.top.empty()) out_ += "top " + d.top + "\n";
    for (const Module& m : d.modules) module(m);
  }

 private:
  void num(int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
  void value(const Module& m, ValueId v) {
    if (v >= m.size()) {
      out_ += "%?";
      return;
    }
    out_ += '%';
    out_ += m.value(v).name;
  }
  void literal(const Bits& b) {
    num(b.width());
    out_ += "'h";
    out_ += b.hex();
  }
  void list(const std::vector<Bits>& items) {
    out_ += '{';
    const bool long_list = items.size() > kListLine;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (long_list && i % kListLine == 0)
        out_ += i == 0 ? "\n    " : ",\n    ";
      else if (i > 0)
        out_ += ", ";
      literal(items[i]);
    }
    out_ += long_list ? "\n  }" : "}";
  }
  template <class T>
  static const std::string& name_of(const std::vector<T>& items, int64_t i) {
    static const std::string unknown = "?";
    return i >= 0 && i < static_cast<int64_t>(items.size())
               ? items[static_cast<std::size_t>(i)].name
               : unknown;
  }
  void memory_port(const Module& m, int memory, int port) {
    out_ += name_of(m.memories(), memory);
    out_ += '.';
    num(port);
  }

  void module(const Module& m) {
    out_ += "\nmodule " + m.name() + "\n";
    if (!m.doc().empty()) out_ += "  doc " + quote(m.doc()) + "\n";
    for (const Port& p : m.ports()) {
      out_ += p.direction == PortDirection::In ? "  input " : "  output ";
      out_ += p.name;
      out_ += " : ";
      num(p.width);
      if (p.direction == PortDirection::Out && p.value != kNoValue) {
        out_ += " = ";
        value(m, p.value);
      }
      out_ += '\n';
    }
    for (const Table& t : m.tables()) {
      out_ += "  table " + t.name + " : ";
      num(t.width);
      out_ += ' ';
      list(t.entries);
      out_ += '\n';
    }
    for (const Memory& mem : m.memories()) {
      out_ += "  memory " + mem.name + " : ";
      num(mem.width);
      out_ += " depth ";
      num(mem.depth);
      out_ += " kind ";
      out_ += enum_name(mem.kind);
      out_ += " storage ";
      out_ += enum_name(mem.storage);
      out_ += " latency ";
      num(mem.read_latency);
      out_ += " reads ";
      num(mem.read_ports);
      out_ += " writes ";
      num(mem.write_ports);
      if (!mem.init.empty()) {
        out_ += " init ";
        list(mem.init);
      }
      out_ += '\n';
    }
    for (const Instance& inst : m.instances()) {
      out_ += "  instance " + inst.name + " " + inst.module + " (";
      for (std::size_t i = 0; i < inst.inputs.size(); ++i) {
        if (i) out_ += ", ";
        out_ += inst.inputs[i].first;
        out_ += ' ';
        value(m, inst.inputs[i].second);
      }
      out_ += ")\n";
    }
    for (ValueId v = 0; v < m.size(); ++v)
      if (m.value(v).op != Op::Input) value_line(m, v);
    for (const Write& w : m.writes()) {
      out_ += "  write ";
      memory_port(m, w.memory, w.port);
      out_ += ' ';
      value(m, w.addr);
      out_ += ", ";
      value(m, w.data);
      if (w.en != kNoValue) {
        out_ += ", en ";
        value(m, w.en);
      }
      out_ += '\n';
    }
    out_ += "end\n";
  }

  void value_line(const Module& m, ValueId v) {
    const Value& val = m.value(v);
    const std::span<const ValueId> args = m.args(v);
    out_ += "  %";
    out_ += val.name;
    out_ += " : ";
    num(val.width);
    out_ += " = ";
    out_ += op_name(val.op);
    const auto optional = [&](std::size_t i, const char* key) {
      if (i < args.size() && args[i] != kNoValue) {
        out_ += ", ";
        out_ += key;
        out_ += ' ';
        value(m, args[i]);
      }
    };
    switch (val.op) {
      case Op::Const:
        out_ += ' ';
        literal(m.constant_of(v));
        break;
      case Op::Case: {
        const bool known = val.imm >= 0 && val.imm < static_cast<int64_t>(m.cases().size());
        for (std::size_t i = 0; i < args.size(); ++i) {
          out_ += i ? ", " : " ";
          if (i + 1 == args.size() && i > 0) {
            out_ += "default ";
          } else if (i > 0 && known &&
                     i - 1 < m.cases()[static_cast<std::size_t>(val.imm)].keys.size()) {
            literal(m.cases()[static_cast<std::size_t>(val.imm)].keys[i - 1]);
            out_ += ' ';
          }
          value(m, args[i]);
        }
        break;
      }
      case Op::Lookup:
        out_ += ' ';
        out_ += name_of(m.tables(), val.imm);
        out_ += ", ";
        value(m, args[0]);
        break;
      case Op::Reg: {
        // reg [%D][, en %E][, rst %R][, reset LIT]: the first part after a space.
        const char* sep = " ";
        const auto part = [&](const char* key) {
          out_ += sep;
          out_ += key;
          sep = ", ";
        };
        if (args[0] != kNoValue) {
          part("");
          value(m, args[0]);
        }
        for (std::size_t i : {1, 2})
          if (args[i] != kNoValue) {
            part(i == 1 ? "en " : "rst ");
            value(m, args[i]);
          }
        const int64_t r = val.imm;
        if (r >= 0 && r < static_cast<int64_t>(m.registers().size())) {
          const Bits& reset = m.registers()[static_cast<std::size_t>(r)].reset;
          if (reset != Bits(std::max(val.width, 0))) {
            part("reset ");
            literal(reset);
          }
        }
        break;
      }
      case Op::Read: {
        out_ += ' ';
        const bool known = val.imm >= 0 && val.imm < static_cast<int64_t>(m.reads().size());
        const Read rd = known ? m.reads()[static_cast<std::size_t>(val.imm)] : Read{};
        memory_port(m, rd.memory, rd.port);
        out_ += ' ';
        value(m, args[0]);
        optional(1, "en");
        break;
      }
      case Op::InstanceOutput: {
        const bool known =
            val.imm >= 0 && val.imm < static_cast<int64_t>(m.instance_outputs().size());
        const InstanceOutput io =
            known ? m.instance_outputs()[static_cast<std::size_t>(val.imm)] : InstanceOutput{};
        out_ += ' ';
        out_ += name_of(m.instances(), io.instance);
        out_ += '.';
        out_ += known ? io.port : "?";
        break;
      }
      default:
        for (std::size_t i = 0; i < args.size(); ++i) {
          out_ += i ? ", " : " ";
          value(m, args[i]);
        }
        if (op_info(val.op).imm == Imm::Amount || op_info(val.op).imm == Imm::Lsb) {
          out_ += ", ";
          num(val.imm);
        }
        break;
    }
    out_ += '\n';
  }

  static std::string quote(std::string_view s) {
    std::string q = "\"";
    for (const char c : s) {
      if (c == '"' || c == '\\') {
        q += '\\';
        q += c;
      } else if (c == '\n') {
        q += "\\n";
      } else if (c == '\t') {
        q += "\\t";
      } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        static const char* hex = "0123456789abcdef";
        q += "\\x";
        q += hex[(c >> 4) & 15];
        q += hex[c & 15];
      } else {
        q += c;
      }
    }
    return q + "\"";
  }

  std::string& out_;
};

// ---- lexing -------------------------------------------------------------------

enum class Tok : uint8_t { Ident, Value, Number, Sized, String, Punct, Newline, End };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;  // identifier, %name without '%', number, punct; Sized: the whole
  int line = 1, col = 1;
};

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}
int hex_value(char c) {
  if (digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& source) : text_(text), source_(source) {
    advance();
  }

  const Token& peek() const { return tok_; }
  Token next() {
    Token t = tok_;
    advance();
    return t;
  }
  // The decoded text of the String token just peeked (valid until next()).
  const std::string& string_value() const { return str_; }

  std::string where(const Token& t) const {
    return source_ + ":" + std::to_string(t.line) + ":" + std::to_string(t.col);
  }
  [[noreturn]] void fail(const Token& t, const std::string& what) const {
    throw_error(ErrorKind::InvalidModel, where(t), what,
                "see docs/netlist.md for the netlist text syntax");
  }
  [[noreturn]] void fail(const std::string& what) const { fail(tok_, what); }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::Ident: return "'" + std::string(t.text) + "'";
      case Tok::Value: return "%" + std::string(t.text);
      case Tok::Number: return "the number " + std::string(t.text);
      case Tok::Sized: return "the literal " + std::string(t.text);
      case Tok::String: return "a string";
      case Tok::Punct: return "'" + std::string(t.text) + "'";
      case Tok::Newline: return "the end of the line";
      case Tok::End: return "the end of the text";
    }
    return "?";
  }
  [[noreturn]] void expected(const std::string& what) const {
    fail("expected " + what + ", got " + describe(tok_));
  }

 private:
  void advance() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
    tok_.line = line_;
    tok_.col = static_cast<int>(pos_ - line_start_) + 1;
    if (pos_ >= text_.size()) {
      tok_.kind = Tok::End;
      tok_.text = {};
      return;
    }
    const std::size_t b = pos_;
    const char c = text_[pos_];
    if (c == '\n') {
      tok_.kind = Tok::Newline;
      tok_.text = text_.substr(b, 1);
      ++pos_;
      ++line_;
      line_start_ = pos_;
      return;
    }
    if (ident_start(c)) {
      while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
      tok_.kind = Tok::Ident;
      tok_.text = text_.substr(b, pos_ - b);
      return;
    }
    if (c == '%') {
      ++pos_;
      if (pos_ >= text_.size() || !ident_start(text_[pos_])) fail_here("expected a name after '%'");
      const std::size_t n = pos_;
      while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
      tok_.kind = Tok::Value;
      tok_.text = text_.substr(n, pos_ - n);
      return;
    }
    if (digit(c) || (c == '-' && pos_ + 1 < text_.size() && digit(text_[pos_ + 1]))) {
      ++pos_;
      while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
      if (c != '-' && pos_ + 1 < text_.size() && text_[pos_] == '\'') {
        if (text_[pos_ + 1] != 'h') fail_here("expected 'h after the width of a literal");
        pos_ += 2;
        const std::size_t d = pos_;
        while (pos_ < text_.size() && hex_value(text_[pos_]) >= 0) ++pos_;
        if (pos_ == d) fail_here("expected hex digits in a literal");
        tok_.kind = Tok::Sized;
      } else {
        tok_.kind = Tok::Number;
      }
      tok_.text = text_.substr(b, pos_ - b);
      return;
    }
    if (c == '"') {
      ++pos_;
      str_.clear();
      while (true) {
        if (pos_ >= text_.size() || text_[pos_] == '\n') fail_here("unterminated string");
        const char d = text_[pos_++];
        if (d == '"') break;
        if (d != '\\') {
          str_ += d;
          continue;
        }
        const char e = pos_ < text_.size() ? text_[pos_++] : '\0';
        if (e == '"' || e == '\\') {
          str_ += e;
        } else if (e == 'n') {
          str_ += '\n';
        } else if (e == 't') {
          str_ += '\t';
        } else if (e == 'x' && pos_ + 1 < text_.size() && hex_value(text_[pos_]) >= 0 &&
                   hex_value(text_[pos_ + 1]) >= 0) {
          str_ += static_cast<char>(hex_value(text_[pos_]) * 16 + hex_value(text_[pos_ + 1]));
          pos_ += 2;
        } else {
          fail_here(std::string("unknown escape '\\") + e + "' in a string");
        }
      }
      tok_.kind = Tok::String;
      tok_.text = text_.substr(b, pos_ - b);
      return;
    }
    if (c == ':' || c == '=' || c == ',' || c == '.' || c == '(' || c == ')' || c == '{' ||
        c == '}') {
      ++pos_;
      tok_.kind = Tok::Punct;
      tok_.text = text_.substr(b, 1);
      return;
    }
    fail_here(std::string("unexpected character '") + c + "'");
  }

  [[noreturn]] void fail_here(const std::string& what) const {
    Token t;
    t.line = line_;
    t.col = static_cast<int>(pos_ - line_start_) + 1;
    fail(t, what);
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0, line_start_ = 0;
  int line_ = 1;
  Token tok_;
  std::string str_;
};

// ---- parsing ------------------------------------------------------------------

template <class T>
using NameMap = std::unordered_map<std::string_view, T>;

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : lex_(text, source) {}

  Design design() {
    Design d;
    skip_newlines();
    word("netlist");
    const Token v = lex_.peek();
    if (integer() != kVersion)
      lex_.fail(v, "netlist text version " + std::string(v.text) + ", expected " +
                       std::to_string(kVersion));
    end_of_line();
    skip_newlines();
    if (is_word("top")) {
      lex_.next();
      d.top = std::string(ident("the top module's name"));
      end_of_line();
    }
    NameMap<int> modules;
    for (skip_newlines(); lex_.peek().kind != Tok::End; skip_newlines()) {
      word("module");
      const Token t = lex_.peek();
      const std::string_view name = ident("a module name");
      if (!modules.emplace(name, static_cast<int>(d.modules.size())).second)
        lex_.fail(t, "module " + std::string(name) + " is defined twice");
      end_of_line();
      d.modules.emplace_back(std::string(name));
      module(d.modules.back());
    }
    return d;
  }

 private:
  // ---- tokens ----

  bool is_word(std::string_view w) const {
    return lex_.peek().kind == Tok::Ident && lex_.peek().text == w;
  }
  bool is_punct(char c) const { return lex_.peek().kind == Tok::Punct && lex_.peek().text[0] == c; }
  bool accept(char c) {
    if (!is_punct(c)) return false;
    lex_.next();
    return true;
  }
  void expect(char c) {
    if (!accept(c)) lex_.expected(std::string("'") + c + "'");
  }
  void word(std::string_view w) {
    if (!is_word(w)) lex_.expected("'" + std::string(w) + "'");
    lex_.next();
  }
  std::string_view ident(const char* what) {
    if (lex_.peek().kind != Tok::Ident) lex_.expected(what);
    return lex_.next().text;
  }
  int64_t integer() {
    const Token t = lex_.peek();
    if (t.kind != Tok::Number) lex_.expected("a number");
    int64_t v = 0;
    const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (r.ec != std::errc()) lex_.fail(t, "number " + std::string(t.text) + " is out of range");
    lex_.next();
    return v;
  }
  int int32(const char* what) {
    const Token t = lex_.peek();
    const int64_t v = integer();
    if (v < INT32_MIN || v > INT32_MAX)
      lex_.fail(t, std::string(what) + " " + std::string(t.text) + " is out of range");
    return static_cast<int>(v);
  }
  int width() {
    const Token t = lex_.peek();
    const int64_t v = integer();
    if (v < 0 || v > (int64_t{1} << 24))
      lex_.fail(t, "width " + std::string(t.text) + " is out of range");
    return static_cast<int>(v);
  }
  Bits literal() {
    const Token t = lex_.peek();
    if (t.kind != Tok::Sized) lex_.expected("a literal such as 8'h3f");
    const std::size_t q = t.text.find('\'');
    int w = 0;
    const auto r = std::from_chars(t.text.data(), t.text.data() + q, w);
    if (r.ec != std::errc() || w > (1 << 24))
      lex_.fail(t, "the width of " + std::string(t.text) + " is out of range");
    const std::optional<Bits> b = Bits::from_hex(t.text.substr(q + 2), w);
    if (!b)
      lex_.fail(
          t, "literal " + std::string(t.text) + " does not fit in " + std::to_string(w) + " bits");
    lex_.next();
    return *b;
  }
  std::vector<Bits> list() {
    std::vector<Bits> items;
    expect('{');
    skip_newlines();
    if (accept('}')) return items;
    while (true) {
      items.push_back(literal());
      skip_newlines();
      if (accept('}')) return items;
      expect(',');
      skip_newlines();
    }
  }
  std::string string() {
    if (lex_.peek().kind != Tok::String) lex_.expected("a string");
    std::string s = lex_.string_value();
    lex_.next();
    return s;
  }
  void end_of_line() {
    const Tok k = lex_.peek().kind;
    if (k == Tok::End) return;
    if (k != Tok::Newline) lex_.expected("the end of the line");
    lex_.next();
  }
  void skip_newlines() {
    while (lex_.peek().kind == Tok::Newline) lex_.next();
  }

  // ---- names ----

  // A %name of a value defined above.
  ValueId defined_value() {
    const Token t = lex_.peek();
    if (t.kind != Tok::Value) lex_.expected("a value (%name)");
    const auto it = values_.find(t.text);
    if (it == values_.end())
      lex_.fail(t, "undefined value %" + std::string(t.text) +
                       " (only register operands, output drivers, instance connections and "
                       "writes may name values defined below)");
    lex_.next();
    return it->second;
  }
  // A %name resolved at the module's end.
  Token later_value() {
    if (lex_.peek().kind != Tok::Value) lex_.expected("a value (%name)");
    return lex_.next();
  }
  ValueId resolve(const Token& t) {
    const auto it = values_.find(t.text);
    if (it == values_.end()) lex_.fail(t, "undefined value %" + std::string(t.text));
    return it->second;
  }
  void define_value(const Token& t) {
    if (!values_.emplace(t.text, static_cast<ValueId>(values_.size())).second)
      lex_.fail(t, "value %" + std::string(t.text) + " is defined twice");
  }
  template <class T>
  T named(const NameMap<T>& names, const char* what) {
    const Token t = lex_.peek();
    const std::string_view name = ident(what);
    const auto it = names.find(name);
    if (it == names.end()) lex_.fail(t, "unknown " + std::string(what) + " " + std::string(name));
    return it->second;
  }
  template <class T>
  std::string_view define(NameMap<T>& names, T index, const char* what) {
    const Token t = lex_.peek();
    const std::string_view name = ident(what);
    if (!names.emplace(name, index).second)
      lex_.fail(t, std::string(what) + " " + std::string(name) + " is defined twice");
    return name;
  }
  // MEMORY.PORT
  std::pair<int, int> memory_port() {
    const int m = named(memories_, "memory");
    expect('.');
    return {m, int32("port")};
  }

  // ---- a module ----

  struct Pending {
    Token token;
    ValueId* target;
  };

  struct RegOperands {
    ValueId reg;
    Token d, en, rst;
    bool has_d = false, has_en = false, has_rst = false;
  };

  void module(Module& m) {
    values_.clear();
    memories_.clear();
    tables_.clear();
    instances_.clear();
    ports_.clear();
    struct Output {
      int port;
      Token driver;
    };
    struct Connection {
      int instance;
      std::string_view port;
      Token value;
    };
    struct PendingWrite {
      int memory, port;
      Token addr, data, en;
      bool has_en = false;
    };
    std::vector<Output> outputs;
    std::vector<Connection> connections;
    std::vector<RegOperands> regs;
    std::vector<PendingWrite> writes;

    for (skip_newlines();; skip_newlines()) {
      const Token t = lex_.peek();
      if (t.kind == Tok::End) lex_.fail(t, "module " + m.name() + " has no 'end'");
      if (t.kind == Tok::Value) {
        value(m, regs);
        end_of_line();
        continue;
      }
      if (t.kind != Tok::Ident)
        lex_.expected(
            "a statement (doc, input, output, table, memory, instance, %value, write "
            "or end)");
      const std::string_view w = t.text;
      lex_.next();
      if (w == "end") {
        end_of_line();
        break;
      } else if (w == "doc") {
        m.set_doc(string());
      } else if (w == "input" || w == "output") {
        const Token name = lex_.peek();
        const std::string_view n = define(ports_, static_cast<int>(m.ports().size()), "port");
        expect(':');
        const int wd = width();
        if (w == "input") {
          define_value(name);
          m.input(std::string(n), wd);
        } else {
          const int p = m.output(std::string(n), wd);
          if (accept('=')) outputs.push_back({p, later_value()});
        }
      } else if (w == "table") {
        Table tb;
        tb.name = std::string(define(tables_, static_cast<int>(m.tables().size()), "table"));
        expect(':');
        tb.width = width();
        tb.entries = list();
        m.table(std::move(tb));
      } else if (w == "memory") {
        Memory mem;
        mem.name = std::string(define(memories_, static_cast<int>(m.memories().size()), "memory"));
        expect(':');
        mem.width = width();
        word("depth");
        mem.depth = integer();
        word("kind");
        mem.kind = choice<MemoryKind>();
        word("storage");
        mem.storage = choice<Storage>();
        word("latency");
        mem.read_latency = int32("latency");
        word("reads");
        mem.read_ports = int32("read port count");
        word("writes");
        mem.write_ports = int32("write port count");
        if (is_word("init")) {
          lex_.next();
          mem.init = list();
        }
        m.memory(std::move(mem));
      } else if (w == "instance") {
        const int i = static_cast<int>(m.instances().size());
        const std::string_view name = define(instances_, i, "instance");
        m.instance(std::string(name), std::string(ident("a module name")));
        expect('(');
        if (!accept(')')) {
          do {
            const std::string_view port = ident("a port name");
            connections.push_back({i, port, later_value()});
          } while (accept(','));
          expect(')');
        }
      } else if (w == "write") {
        PendingWrite pw;
        std::tie(pw.memory, pw.port) = memory_port();
        pw.addr = later_value();
        expect(',');
        pw.data = later_value();
        if (accept(',')) {
          word("en");
          pw.en = later_value();
          pw.has_en = true;
        }
        writes.push_back(pw);
      } else {
        lex_.fail(t, "unknown statement '" + std::string(w) +
                         "', expected doc, input, output, table, memory, instance, %value, "
                         "write or end");
      }
      end_of_line();
    }
    // Forward references, in the order they were written.
    for (const Output& o : outputs) m.drive_output(o.port, resolve(o.driver));
    for (const Connection& c : connections)
      m.connect(c.instance, std::string(c.port), resolve(c.value));
    for (const RegOperands& r : regs)
      m.drive_register(r.reg, r.has_d ? resolve(r.d) : kNoValue,
                       r.has_en ? resolve(r.en) : kNoValue, r.has_rst ? resolve(r.rst) : kNoValue);
    for (const PendingWrite& w : writes)
      m.write(w.memory, w.port, resolve(w.addr), resolve(w.data),
              w.has_en ? resolve(w.en) : kNoValue);
  }

  template <class E>
  E choice() {
    const Token t = lex_.peek();
    const auto e = enum_from_name<E>(ident(enum_choices<E>().c_str()));
    if (!e)
      lex_.fail(t, "unknown '" + std::string(t.text) + "', expected " + enum_choices<E>(", "));
    return *e;
  }

  // %NAME : W = OP ...
  void value(Module& m, std::vector<RegOperands>& regs) {
    const Token name = lex_.next();
    expect(':');
    const int w = width();
    expect('=');
    const Token opt = lex_.peek();
    const std::string_view op_word = ident("an operation");
    const std::optional<Op> op = op_from_name(op_word);
    if (!op || *op == Op::Input) lex_.fail(opt, "unknown operation '" + std::string(op_word) + "'");
    const OpInfo& info = op_info(*op);
    define_value(name);
    std::string n(name.text);
    switch (*op) {
      case Op::Const: {
        const Token lt = lex_.peek();
        const Bits b = literal();
        if (b.width() != w)
          lex_.fail(lt, "a constant of " + std::to_string(b.width()) + " bits for a value of " +
                            std::to_string(w));
        m.constant(b, std::move(n));
        return;
      }
      case Op::Case: {
        args_.clear();
        CaseKeys keys;
        args_.push_back(defined_value());
        while (true) {
          expect(',');
          if (is_word("default")) {
            lex_.next();
            args_.push_back(defined_value());
            break;
          }
          keys.keys.push_back(literal());
          args_.push_back(defined_value());
        }
        const int k = m.case_keys(std::move(keys));
        m.op(Op::Case, w, args_, k, std::move(n));
        return;
      }
      case Op::Lookup: {
        const int t = named(tables_, "table");
        expect(',');
        m.op(Op::Lookup, w, {defined_value()}, t, std::move(n));
        return;
      }
      case Op::Reg: {
        RegOperands r{};
        std::optional<Bits> reset;
        bool first = true;
        if (lex_.peek().kind == Tok::Value) {
          r.d = lex_.next();
          r.has_d = true;
          first = false;
        }
        while (first ? is_word("reset") || is_word("en") || is_word("rst") : accept(',')) {
          first = false;
          const Token key = lex_.peek();
          const std::string_view k = ident("en, rst or reset");
          if (k == "en" && !r.has_en) {
            r.en = later_value();
            r.has_en = true;
          } else if (k == "rst" && !r.has_rst) {
            r.rst = later_value();
            r.has_rst = true;
          } else if (k == "reset" && !reset) {
            reset = literal();
          } else {
            lex_.fail(key, "expected en, rst or reset (each once), got " + Lexer::describe(key));
          }
        }
        r.reg = m.reg(w, std::move(n), std::move(reset));
        regs.push_back(r);
        return;
      }
      case Op::Read: {
        const Token mt = lex_.peek();
        const auto [mem, port] = memory_port();
        const ValueId addr = defined_value();
        ValueId en = kNoValue;
        if (accept(',')) {
          word("en");
          en = defined_value();
        }
        const int mw = m.memories()[static_cast<std::size_t>(mem)].width;
        if (mw != w)
          lex_.fail(mt, "memory " + m.memories()[static_cast<std::size_t>(mem)].name + " has " +
                            std::to_string(mw) + "-bit words, not " + std::to_string(w));
        m.read(mem, port, addr, en, std::move(n));
        return;
      }
      case Op::InstanceOutput: {
        const int i = named(instances_, "instance");
        expect('.');
        m.instance_output(i, std::string(ident("a port name")), w, std::move(n));
        return;
      }
      default: {
        // OPERANDS, or OPERANDS, AMOUNT (shifts) / LSB (slice).
        args_.clear();
        const bool has_imm = info.imm == Imm::Amount || info.imm == Imm::Lsb;
        bool got_imm = false;
        int64_t imm = 0;
        args_.push_back(defined_value());
        while (accept(',')) {
          if (has_imm && lex_.peek().kind == Tok::Number) {
            imm = integer();
            got_imm = true;
            break;
          }
          args_.push_back(defined_value());
        }
        if (has_imm && !got_imm)
          lex_.expected("', " + std::string(info.imm == Imm::Lsb ? "LSB" : "AMOUNT") +
                        "' after the operand of " + std::string(op_word));
        const auto count = static_cast<int>(args_.size());
        if (count < info.min_args || (info.max_args >= 0 && count > info.max_args))
          lex_.fail(opt, std::string(op_word) + " takes " +
                             (info.min_args == info.max_args
                                  ? std::to_string(info.min_args)
                                  : "at least " + std::to_string(info.min_args)) +
                             " operand(s), got " + std::to_string(count));
        m.op(*op, w, args_, imm, std::move(n));
        return;
      }
    }
  }

  Lexer lex_;
  NameMap<ValueId> values_;
  NameMap<int> memories_, tables_, instances_, ports_;
  std::vector<ValueId> args_;
};

}  // namespace

std::string print(const Design& design) {
  std::string out;
  std::size_t values = 0;
  for (const Module& m : design.modules) values += m.size();
  out.reserve(64 + values * 40);
  Printer(out).design(design);
  return out;
}

Design parse(std::string_view text, const std::string& source) {
  return Parser(text, source).design();
}

}  // namespace kiln::netlist

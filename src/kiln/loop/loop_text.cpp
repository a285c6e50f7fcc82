#include "kiln/loop/loop_text.h"

#include <map>
#include <sstream>

#include "kiln/support/error.h"
#include "kiln/support/text_lexer.h"

namespace kiln::loop {

namespace {

// ---- printer ---------------------------------------------------------------

std::string dims(const std::vector<int64_t>& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

class Printer {
 public:
  explicit Printer(const Program& p) : p_(p) {}

  std::string run() {
    out_ << "program \"" << p_.name << "\"\n";
    for (const Buffer& b : p_.buffers) buffer(b);
    ports("inputs", p_.inputs);
    ports("outputs", p_.outputs);
    for (const Kernel& k : p_.kernels) kernel(k);
    return out_.str();
  }

 private:
  std::string name(int b) const { return "@" + p_.buffers.at(static_cast<std::size_t>(b)).name; }

  void ports(const char* what, const std::vector<int>& list) {
    out_ << what;
    for (int b : list) out_ << " " << name(b);
    out_ << "\n";
  }

  void buffer(const Buffer& b) {
    out_ << "buffer @" << b.name << " " << enum_name(b.role) << " " << to_string(b.type) << " ["
         << dims(b.shape) << "]";
    if (b.alias_of >= 0)
      out_ << " alias " << name(b.alias_of);
    else if (b.role == BufferRole::Const) {
      out_ << " = [";
      for (std::size_t i = 0; i < b.data.size(); ++i) out_ << (i ? ", " : "") << b.data[i];
      out_ << "]";
    }
    const BufferDirectives& d = b.directives;
    if (d.partition != Partition::None) {
      out_ << " partition=" << enum_name(d.partition) << " factor=" << d.factor << " dim=" << d.dim;
      for (int x : d.more_dims) out_ << " dim=" << x;
    }
    if (d.storage != Storage::Auto) out_ << " storage=" << enum_name(d.storage);
    out_ << "\n";
  }

  std::string affine(const Affine& a) const {
    std::string s;
    for (const auto& [loop, c] : a.terms) {
      if (!s.empty()) s += " + ";
      s += "%" + k_->loops[static_cast<std::size_t>(loop)].name;
      if (c != 1) s += "*" + std::to_string(c);
    }
    if (s.empty()) return std::to_string(a.constant);
    if (a.constant != 0) s += " + " + std::to_string(a.constant);
    return s;
  }

  std::string index(const std::vector<Affine>& idx) const {
    std::string s = "[";
    for (std::size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + affine(idx[i]);
    return s + "]";
  }

  void kernel(const Kernel& k) {
    k_ = &k;
    out_ << "kernel " << k.name << " \"" << k.onnx_name << "\"";
    if (k.line_buffered) out_ << " line_buffered";
    out_ << " reads";
    for (int b : k.reads) out_ << " " << name(b);
    out_ << " writes";
    for (int b : k.writes) out_ << " " << name(b);
    out_ << " locals";
    for (int b : k.locals) out_ << " " << name(b);
    out_ << " {\n";
    block(k.body, 1);
    out_ << "}\n";
  }

  void block(const std::vector<Stmt>& stmts, int depth) {
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    for (const Stmt& s : stmts) {
      switch (s.kind) {
        case StmtKind::Let: out_ << pad << let(s.value) << "\n"; break;
        case StmtKind::Store:
          out_ << pad << "store " << name(s.buffer) << index(s.index) << " = %v" << s.value << "\n";
          break;
        case StmtKind::For: {
          const Loop& l = k_->loops[static_cast<std::size_t>(s.loop)];
          out_ << pad << "for %" << l.name << " < " << l.trip;
          if (l.directives.unroll) out_ << " unroll=" << *l.directives.unroll;
          if (l.directives.pipeline_ii) out_ << " pipeline=" << *l.directives.pipeline_ii;
          if (l.directives.flatten) out_ << " flatten=1";
          out_ << " {\n";
          block(s.body, depth + 1);
          out_ << pad << "}\n";
          break;
        }
        case StmtKind::If: {
          out_ << pad << "if";
          for (std::size_t i = 0; i < s.guards.size(); ++i) {
            const Guard& g = s.guards[i];
            out_ << (i ? ", " : " ") << g.lo << " <= " << affine(g.expr) << " < " << g.hi;
          }
          out_ << " {\n";
          block(s.body, depth + 1);
          out_ << pad << "}\n";
          break;
        }
      }
    }
  }

  std::string let(int id) const {
    const Value& v = k_->values[static_cast<std::size_t>(id)];
    std::string s = "%v" + std::to_string(id) + " = " + std::string(enum_name(v.op));
    auto args = [&] {
      std::string a;
      for (std::size_t i = 0; i < v.args.size(); ++i)
        a += (i ? ", %v" : " %v") + std::to_string(v.args[i]);
      return a;
    };
    switch (v.op) {
      case Op::Load: s += " " + name(v.buffer) + index(v.index); break;
      case Op::Const: s += " " + std::to_string(v.imm); break;
      case Op::Shl: s += args() + " " + std::to_string(v.imm); break;
      case Op::Quantize: s += args() + " to " + v.target.to_string(); break;
      case Op::Lookup:
        s += " " + name(v.buffer) + "[%v" + std::to_string(v.args[0]) + "] shift " +
             std::to_string(v.shift) + " offset " + std::to_string(v.imm);
        break;
      default: s += args(); break;
    }
    return s + " : " + to_string(v.type);
  }

  const Program& p_;
  const Kernel* k_ = nullptr;
  std::ostringstream out_;
};

// ---- parser ----------------------------------------------------------------

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : lex_(text, source) {}

  Program run() {
    lex_.skip_newlines();
    lex_.expect_ident("program");
    p_.name = lex_.expect_string();
    lex_.expect_end_of_line();
    while (true) {
      lex_.skip_newlines();
      if (lex_.at_end()) break;
      const Token t = lex_.peek();
      if (lex_.accept_ident("buffer"))
        buffer();
      else if (lex_.accept_ident("inputs"))
        ports(p_.inputs);
      else if (lex_.accept_ident("outputs"))
        ports(p_.outputs);
      else if (lex_.accept_ident("kernel"))
        kernel();
      else
        lex_.fail_at(t, "expected buffer, inputs, outputs or kernel, got " + Lexer::describe(t));
    }
    verify(p_);
    return std::move(p_);
  }

 private:
  int buffer_ref() {
    const Token t = lex_.peek();
    if (t.kind != TokenKind::At) lex_.fail("expected a @buffer, got " + Lexer::describe(t));
    lex_.next();
    const int b = p_.find_buffer(t.text);
    if (b < 0) lex_.fail_at(t, "unknown buffer @" + t.text);
    return b;
  }

  ScalarType scalar_type() {
    const Token t = lex_.peek();
    const std::string kind = lex_.expect_ident();
    if (kind != "ap_fixed" && kind != "ap_ufixed")
      lex_.fail_at(t, "expected ap_fixed<W,I> or ap_ufixed<W,I>, got " + Lexer::describe(t));
    lex_.expect('<');
    const int64_t w = lex_.expect_int();
    lex_.expect(',');
    const int64_t i = lex_.expect_int();
    lex_.expect('>');
    if (w < 1 || w > 256) lex_.fail_at(t, "width " + std::to_string(w) + " is out of 1..256");
    return {static_cast<int>(w), static_cast<int>(w - i), kind == "ap_fixed"};
  }

  FixedType fixed_type() {
    // The tokens up to the matching '>' spell a FixedType.
    const Token first = lex_.peek();
    std::string text = lex_.expect_ident();
    lex_.expect('<');
    text += "<";
    while (!lex_.accept('>')) {
      const Token t = lex_.next();
      if (t.kind == TokenKind::Newline || t.kind == TokenKind::End)
        lex_.fail_at(t, "unterminated type " + text);
      text += t.text;
    }
    text += ">";
    std::string error;
    auto f = numeric::parse_fixed_type(text, &error);
    if (!f) lex_.fail_at(first, error);
    return *f;
  }

  std::vector<int64_t> shape() {
    lex_.expect('[');
    std::vector<int64_t> s = lex_.expect_dims();
    lex_.expect(']');
    return s;
  }

  void buffer() {
    Buffer b;
    const Token t = lex_.peek();
    if (t.kind != TokenKind::At) lex_.fail("expected a @name, got " + Lexer::describe(t));
    b.name = lex_.next().text;
    const Token r = lex_.peek();
    auto role = enum_from_name<BufferRole>(lex_.expect_ident());
    if (!role) lex_.fail_at(r, "unknown buffer role; use " + enum_choices<BufferRole>());
    b.role = *role;
    b.type = scalar_type();
    b.shape = shape();
    if (lex_.accept_ident("alias")) {
      b.alias_of = buffer_ref();
    } else if (lex_.accept('=')) {
      lex_.expect('[');
      std::vector<int64_t> data;
      if (!lex_.accept(']')) {
        do data.push_back(lex_.expect_int());
        while (lex_.accept(','));
        lex_.expect(']');
      }
      b.data = std::move(data);
    }
    bool seen_dim = false;
    while (lex_.peek().kind == TokenKind::Ident) {
      const Token key = lex_.peek();
      const std::string k = lex_.expect_ident();
      lex_.expect('=');
      if (k == "partition") {
        const Token v = lex_.peek();
        auto part = enum_from_name<Partition>(lex_.expect_ident());
        if (!part) lex_.fail_at(v, "unknown partition; use " + enum_choices<Partition>());
        b.directives.partition = *part;
      } else if (k == "factor") {
        b.directives.factor = lex_.expect_int();
      } else if (k == "dim") {
        // A second dim= names a further dimension partitioned (more_dims).
        const int x = static_cast<int>(lex_.expect_int());
        if (seen_dim)
          b.directives.more_dims.push_back(x);
        else
          b.directives.dim = x;
        seen_dim = true;
      } else if (k == "storage") {
        const Token v = lex_.peek();
        auto st = enum_from_name<Storage>(lex_.expect_ident());
        if (!st) lex_.fail_at(v, "unknown storage; use " + enum_choices<Storage>());
        b.directives.storage = *st;
      } else {
        lex_.fail_at(key,
                     "unknown buffer directive '" + k + "'; use partition, factor, dim, storage");
      }
    }
    lex_.expect_end_of_line();
    if (p_.find_buffer(b.name) >= 0) lex_.fail_at(t, "buffer @" + b.name + " is defined twice");
    p_.buffers.push_back(std::move(b));
  }

  void ports(std::vector<int>& list) {
    while (lex_.peek().kind == TokenKind::At) list.push_back(buffer_ref());
    lex_.expect_end_of_line();
  }

  void buffer_list(std::vector<int>& list) {
    while (lex_.peek().kind == TokenKind::At) list.push_back(buffer_ref());
  }

  void kernel() {
    k_ = Kernel{};
    values_.clear();
    open_loops_.clear();
    k_.name = lex_.expect_ident();
    k_.onnx_name = lex_.expect_string();
    k_.line_buffered = lex_.accept_ident("line_buffered");
    lex_.expect_ident("reads");
    buffer_list(k_.reads);
    lex_.expect_ident("writes");
    buffer_list(k_.writes);
    lex_.expect_ident("locals");
    buffer_list(k_.locals);
    lex_.expect('{');
    lex_.expect_end_of_line();
    block(k_.body);
    p_.kernels.push_back(std::move(k_));
  }

  // Statements up to the closing '}' (consumed with its line end).
  void block(std::vector<Stmt>& out) {
    std::vector<std::string> defined;
    while (true) {
      lex_.skip_newlines();
      if (lex_.accept('}')) break;
      if (lex_.at_end()) lex_.fail("missing '}'");
      out.push_back(statement(defined));
    }
    lex_.expect_end_of_line();
    for (const std::string& n : defined) values_.erase(n);
  }

  int loop_var(const Token& t) {
    auto it = open_loops_.find(t.text);
    if (it == open_loops_.end()) lex_.fail_at(t, "%" + t.text + " is not an enclosing loop");
    return it->second;
  }

  // term ('+' term)*; term: %loop ['*' int] | int ['*' %loop].
  Affine affine() {
    Affine a;
    do {
      const Token t = lex_.peek();
      if (t.kind == TokenKind::Percent) {
        lex_.next();
        int64_t c = 1;
        if (lex_.accept('*')) c = lex_.expect_int();
        a = a + Affine::var(loop_var(t), c);
      } else {
        const int64_t c = lex_.expect_int();
        if (lex_.accept('*')) {
          const Token v = lex_.next();
          if (v.kind != TokenKind::Percent) lex_.fail_at(v, "expected a %loop after '*'");
          a = a + Affine::var(loop_var(v), c);
        } else {
          a = a + c;
        }
      }
    } while (lex_.accept('+'));
    return a;
  }

  std::vector<Affine> index() {
    std::vector<Affine> idx;
    lex_.expect('[');
    if (!lex_.accept(']')) {
      do idx.push_back(affine());
      while (lex_.accept(','));
      lex_.expect(']');
    }
    return idx;
  }

  int value_ref() {
    const Token t = lex_.next();
    if (t.kind != TokenKind::Percent)
      lex_.fail_at(t, "expected a %value, got " + Lexer::describe(t));
    auto it = values_.find(t.text);
    if (it == values_.end()) lex_.fail_at(t, "%" + t.text + " is not defined before it here");
    return it->second;
  }

  Stmt statement(std::vector<std::string>& defined) {
    Stmt s;
    const Token t = lex_.peek();
    if (lex_.accept_ident("for")) {
      s.kind = StmtKind::For;
      const Token v = lex_.next();
      if (v.kind != TokenKind::Percent) lex_.fail_at(v, "expected the loop's %name");
      lex_.expect('<');
      Loop l;
      l.name = v.text;
      l.trip = lex_.expect_int();
      while (lex_.peek().kind == TokenKind::Ident) {
        const Token key = lex_.peek();
        const std::string k = lex_.expect_ident();
        lex_.expect('=');
        if (k == "unroll")
          l.directives.unroll = lex_.expect_int();
        else if (k == "pipeline")
          l.directives.pipeline_ii = static_cast<int>(lex_.expect_int());
        else if (k == "flatten")
          l.directives.flatten = lex_.expect_int() != 0;
        else
          lex_.fail_at(key, "unknown loop directive '" + k + "'; use unroll, pipeline or flatten");
      }
      lex_.expect('{');
      lex_.expect_end_of_line();
      for (const Loop& other : k_.loops)
        if (other.name == l.name) lex_.fail_at(v, "loop %" + l.name + " is defined twice");
      k_.loops.push_back(l);
      s.loop = static_cast<int>(k_.loops.size()) - 1;
      open_loops_[l.name] = s.loop;
      block(s.body);
      open_loops_.erase(l.name);
      return s;
    }
    if (lex_.accept_ident("if")) {
      s.kind = StmtKind::If;
      do {
        Guard g;
        g.lo = lex_.expect_int();
        lex_.expect('<');
        lex_.expect('=');
        g.expr = affine();
        lex_.expect('<');
        g.hi = lex_.expect_int();
        s.guards.push_back(g);
      } while (lex_.accept(','));
      lex_.expect('{');
      lex_.expect_end_of_line();
      block(s.body);
      return s;
    }
    if (lex_.accept_ident("store")) {
      s.kind = StmtKind::Store;
      s.buffer = buffer_ref();
      s.index = index();
      lex_.expect('=');
      s.value = value_ref();
      lex_.expect_end_of_line();
      return s;
    }
    if (t.kind != TokenKind::Percent)
      lex_.fail("expected for, if, store or %value =, got " + Lexer::describe(t));
    lex_.next();
    if (open_loops_.count(t.text) || values_.count(t.text))
      lex_.fail_at(t, "%" + t.text + " is already defined");
    lex_.expect('=');
    s.kind = StmtKind::Let;
    s.value = let();
    values_[t.text] = s.value;
    defined.push_back(t.text);
    return s;
  }

  int let() {
    Value v;
    const Token t = lex_.peek();
    auto op = enum_from_name<Op>(lex_.expect_ident());
    if (!op) lex_.fail_at(t, "unknown op; use " + enum_choices<Op>());
    v.op = *op;
    auto args = [&](int n) {
      for (int i = 0; i < n; ++i) {
        if (i) lex_.expect(',');
        v.args.push_back(value_ref());
      }
    };
    switch (v.op) {
      case Op::Load:
        v.buffer = buffer_ref();
        v.index = index();
        break;
      case Op::Const: v.imm = lex_.expect_int(); break;
      case Op::Shl:
        args(1);
        v.imm = lex_.expect_int();
        break;
      case Op::Quantize:
        args(1);
        lex_.expect_ident("to");
        v.target = fixed_type();
        break;
      case Op::Lookup:
        v.buffer = buffer_ref();
        lex_.expect('[');
        args(1);
        lex_.expect(']');
        lex_.expect_ident("shift");
        v.shift = static_cast<int>(lex_.expect_int());
        lex_.expect_ident("offset");
        v.imm = lex_.expect_int();
        break;
      case Op::Neg: args(1); break;
      case Op::Select: args(3); break;
      default: args(2); break;
    }
    lex_.expect(':');
    v.type = scalar_type();
    lex_.expect_end_of_line();
    k_.values.push_back(std::move(v));
    return static_cast<int>(k_.values.size()) - 1;
  }

  Lexer lex_;
  Program p_;
  Kernel k_;
  std::map<std::string, int> values_;      // in scope
  std::map<std::string, int> open_loops_;  // enclosing loops
};

}  // namespace

std::string print_program(const Program& program) {
  return Printer(program).run();
}

Program parse_program(std::string_view text, const std::string& source) {
  return Parser(text, source).run();
}

}  // namespace kiln::loop

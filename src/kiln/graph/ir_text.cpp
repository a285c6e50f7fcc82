#include "kiln/graph/ir_text.h"

#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "kiln/graph/shape_inference.h"
#include "kiln/support/atomic_dir.h"
#include "kiln/support/field_text.h"
#include "kiln/support/names.h"
#include "kiln/support/text_lexer.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kVersion = 1;
constexpr const char* kSyntaxDoc = "see docs/ir.md for the IR text syntax";

uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex64(uint64_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kHex[v & 15];
  return s;
}

std::string type_text(const TensorType& t) {
  return std::string(dtype_name(t.dtype)) + "[" + join(t.shape, "x") + "]";
}

// ---- printing ---------------------------------------------------------------

std::string element_text(const Tensor& t, int64_t i) {
  const auto k = static_cast<std::size_t>(i);
  switch (t.dtype()) {
    case DType::Float32: return format_float(t.data<float>()[k]);
    case DType::Float64: return format_double(t.data<double>()[k]);
    case DType::Bool: return t.data<bool>()[k] ? "true" : "false";
    case DType::UInt64: return std::to_string(t.data<uint64_t>()[k]);
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32: return std::to_string(t.as_int64(i));
  }
  return "?";
}

std::string values_text(const Tensor& t) {
  if (t.rank() == 0) return element_text(t, 0);
  std::string s = "[";
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (i) s += ",";
    s += element_text(t, i);
  }
  return s + "]";
}

class Printer {
 public:
  Printer(const Graph& g, const IrWriteOptions& o) : g_(g), o_(o) {}

  IrText run() {
    std::string body;
    for (ValueId in : g_.inputs) body += "input " + def(in) + "\n";
    // Constants that something reads, in value order.
    std::vector<bool> used(g_.num_values(), false);
    for (const Node& n : g_.nodes())
      for (ValueId v : n.inputs)
        if (v.valid()) used[static_cast<std::size_t>(v.index)] = true;
    for (ValueId v : g_.outputs) used[static_cast<std::size_t>(v.index)] = true;
    for (std::size_t i = 0; i < g_.num_values(); ++i) {
      const ValueId id{static_cast<int32_t>(i)};
      if (used[i] && g_.value(id).is_constant()) body += constant(id);
    }
    for (const Node& n : g_.nodes()) body += node(n);
    for (ValueId v : g_.outputs) body += "output " + ref(v) + "\n";

    IrText out;
    out.text = "kir " + std::to_string(kVersion) + "\ngraph " + quote(g_.name) + " opset " +
               std::to_string(g_.opset) + "\n";
    if (!data_.empty())
      out.text += "data size=" + std::to_string(data_.size()) +
                  " fnv1a=" + quote(hex64(fnv1a(data_))) + "\n";
    out.text += body;
    out.data = std::move(data_);
    return out;
  }

 private:
  std::string ref(ValueId v) const { return v.valid() ? "%" + g_.value(v).name : "_"; }
  std::string def(ValueId v) const {
    if (!v.valid()) return "_";
    const Value& val = g_.value(v);
    std::string s = "%" + val.name;
    if (!val.onnx_name.empty()) s += " " + quote(val.onnx_name);
    return s + ": " + type_text(val.type);
  }
  std::string constant(ValueId v) {
    const Tensor& t = *g_.value(v).constant;
    std::string s = "const " + def(v) + " = ";
    if (t.numel() <= o_.inline_limit || o_.large == IrWriteOptions::Large::Inline) {
      s += values_text(t);
    } else if (o_.large == IrWriteOptions::Large::DataFile) {
      const std::size_t begin = data_.size();
      const auto bytes = t.raw();
      data_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      s += "data[" + std::to_string(begin) + ":" + std::to_string(data_.size()) + "]";
    } else {
      s += "elided";
    }
    return s + "\n";
  }
  std::string node(const Node& n) const {
    std::string s;
    for (std::size_t i = 0; i < n.outputs.size(); ++i) s += (i ? ", " : "") + def(n.outputs[i]);
    s += " = " + std::string(op_name(n.kind)) + "(";
    for (std::size_t i = 0; i < n.inputs.size(); ++i) s += (i ? ", " : "") + ref(n.inputs[i]);
    s += ")";
    const std::string attrs = attrs_to_string(n.attrs);
    if (!attrs.empty()) s += " {" + attrs + "}";
    s += " @" + n.name;
    if (!n.onnx_name.empty()) s += " " + quote(n.onnx_name);
    return s + "\n";
  }

  const Graph& g_;
  const IrWriteOptions& o_;
  std::string data_;
};

// ---- parsing ------------------------------------------------------------------

class Parser {
 public:
  Parser(std::string_view text, const std::string& source, const std::string* data)
      : lx_(text, source), data_(data) {}

  Graph run() {
    lx_.skip_newlines();
    lx_.expect_ident("kir");
    const Token vt = lx_.peek();
    if (lx_.expect_int() != kVersion)
      lx_.fail_at(vt, "this IR text is version " + vt.text + "; kiln reads version " +
                          std::to_string(kVersion));
    lx_.expect_end_of_line();
    lx_.skip_newlines();
    lx_.expect_ident("graph");
    g_.name = lx_.expect_string();
    lx_.expect_ident("opset");
    g_.opset = lx_.expect_int();
    lx_.expect_end_of_line();
    while (true) {
      lx_.skip_newlines();
      if (lx_.at_end()) break;
      statement();
    }
    g_.verify();
    return std::move(g_);
  }

 private:
  void statement() {
    const Token& t = lx_.peek();
    if (t.kind == TokenKind::Ident && t.text == "data" && lx_.peek2().kind == TokenKind::Ident)
      return data_line();
    if (t.kind == TokenKind::Ident && t.text == "input") {
      lx_.next();
      const Def d = parse_def(true);
      const ValueId v = define(d);
      g_.inputs.push_back(v);
      return lx_.expect_end_of_line();
    }
    if (t.kind == TokenKind::Ident && t.text == "const") {
      lx_.next();
      const Def d = parse_def(true);
      lx_.expect('=');
      Tensor value = constant_value(d);
      const ValueId v = define(d);
      g_.value(v).constant = std::make_shared<const Tensor>(std::move(value));
      return lx_.expect_end_of_line();
    }
    if (t.kind == TokenKind::Ident && t.text == "output") {
      lx_.next();
      g_.outputs.push_back(use(true));
      return lx_.expect_end_of_line();
    }
    node();
  }

  void data_line() {
    const Token at = lx_.next();
    lx_.expect_ident("size");
    lx_.expect('=');
    const int64_t size = lx_.expect_int();
    lx_.expect_ident("fnv1a");
    lx_.expect('=');
    const std::string sum = lx_.expect_string();
    lx_.expect_end_of_line();
    const std::string file = lx_.source() + ".data";
    if (data_ == nullptr)
      lx_.fail_at(at, "the large constants of this IR live in " + file + ", which was not found");
    if (static_cast<int64_t>(data_->size()) != size || hex64(fnv1a(*data_)) != sum)
      lx_.fail_at(at, file + " does not belong to this IR text (its size or checksum differs)");
    have_data_ = true;
  }

  struct Def {
    Token at;
    std::string name;  // without '%'; "_" for an unused output
    std::string onnx_name;
    bool typed = false;
    TensorType type;
  };

  Def parse_def(bool need_type) {
    Def d;
    d.at = lx_.peek();
    if (lx_.peek().kind == TokenKind::Ident && lx_.peek().text == "_") {
      lx_.next();
      d.name = "_";
      return d;
    }
    if (lx_.peek().kind != TokenKind::Percent)
      lx_.fail("expected a value such as %x, got " + Lexer::describe(lx_.peek()));
    d.name = lx_.next().text;
    if (lx_.peek().kind == TokenKind::String) d.onnx_name = lx_.next().text;
    if (lx_.accept(':')) {
      d.typed = true;
      d.type = parse_type();
    } else if (need_type) {
      lx_.fail("expected ':' and the type of %" + d.name);
    }
    return d;
  }

  TensorType parse_type() {
    const Token t = lx_.peek();
    const std::string name = lx_.expect_ident();
    const auto dtype = enum_from_name<DType>(name);
    if (!dtype)
      lx_.fail_at(t, "'" + name + "' is not an element type (" + enum_choices<DType>(", ") + ")");
    TensorType type{*dtype, {}};
    lx_.expect('[');
    if (!lx_.accept(']')) {
      const Token dt = lx_.peek();
      type.shape = lx_.expect_dims();
      try {
        check_shape_sane(type.shape, "");
      } catch (const Error& e) {
        lx_.fail_at(dt, e.what_happened());
      }
      lx_.expect(']');
    }
    return type;
  }

  ValueId define(const Def& d) {
    if (symbols_.count(d.name)) lx_.fail_at(d.at, "%" + d.name + " is defined twice");
    const auto v = g_.add_named_value(d.name, d.onnx_name, d.type);
    if (!v && is_reserved_word(d.name))
      lx_.fail_at(d.at, "%" + d.name +
                            " is a C++ or Verilog reserved word, which kiln's outputs cannot use "
                            "as a name; rename it (e.g. %" +
                            d.name + "_v)");
    if (!v)
      lx_.fail_at(d.at, "%" + d.name + " is not a plain identifier or is already a node's name");
    symbols_[d.name] = *v;
    return *v;
  }

  // A value read by a node or an output line; `_` (omitted) when allowed.
  ValueId use(bool required) {
    const Token t = lx_.peek();
    if (!required && t.kind == TokenKind::Ident && t.text == "_") {
      lx_.next();
      return kNoValue;
    }
    if (t.kind != TokenKind::Percent)
      lx_.fail("expected a value such as %x" + std::string(required ? "" : " or _") + ", got " +
               Lexer::describe(t));
    lx_.next();
    const auto it = symbols_.find(t.text);
    if (it == symbols_.end())
      lx_.fail_at(t, "%" + t.text + " is used before it is defined (or never defined)");
    return it->second;
  }

  Tensor constant_value(const Def& d) {
    Tensor t(d.type);
    const Token at = lx_.peek();
    if (lx_.accept_ident("elided"))
      lx_.fail_at(at, "the value of %" + d.name +
                          " is elided in this listing; write the IR with `kiln ir MODEL -o "
                          "FILE.kir` to keep every value");
    if (lx_.accept_ident("data")) {
      lx_.expect('[');
      const Token bt = lx_.peek();
      const int64_t begin = lx_.expect_int();
      lx_.expect(':');
      const int64_t end = lx_.expect_int();
      lx_.expect(']');
      if (!have_data_) lx_.fail_at(at, "data[...] needs a `data` line before it");
      const auto need = static_cast<int64_t>(t.byte_size());
      if (begin < 0 || end - begin != need || end > static_cast<int64_t>(data_->size()))
        lx_.fail_at(bt, "data[" + std::to_string(begin) + ":" + std::to_string(end) +
                            "] does not hold the " + std::to_string(need) + " bytes of " +
                            type_text(d.type) + " within the data file's " +
                            std::to_string(data_->size()));
      if (need > 0)
        std::memcpy(t.raw().data(), data_->data() + begin, static_cast<std::size_t>(need));
      return t;
    }
    std::vector<Token> items;
    if (lx_.accept('[')) {
      if (!lx_.accept(']')) {
        do items.push_back(lx_.next());
        while (lx_.accept(','));
        lx_.expect(']');
      }
    } else {
      items.push_back(lx_.next());
    }
    if (static_cast<int64_t>(items.size()) != t.numel())
      lx_.fail_at(at, std::to_string(items.size()) + " values given for " + type_text(d.type) +
                          ", which has " + std::to_string(t.numel()));
    for (std::size_t i = 0; i < items.size(); ++i) set_element(t, i, items[i]);
    return t;
  }

  void set_element(Tensor& t, std::size_t i, const Token& tok) {
    auto bad = [&]() {
      lx_.fail_at(tok, Lexer::describe(tok) + " is not a " + dtype_name(t.dtype()) + " value");
    };
    if (t.dtype() == DType::Bool) {
      if (tok.kind != TokenKind::Ident || (tok.text != "true" && tok.text != "false")) bad();
      t.data<bool>()[i] = tok.text == "true";
      return;
    }
    if (tok.kind != TokenKind::Number) bad();
    Lexer one(tok.text, lx_.source());
    if (t.dtype() == DType::Float32) {
      t.data<float>()[i] = one.expect_float();
      return;
    }
    if (t.dtype() == DType::Float64) {
      t.data<double>()[i] = one.expect_double();
      return;
    }
    visit_dtype(t.dtype(), [&](auto v) {
      using T = decltype(v);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        T x{};
        const char* b = tok.text.data() + (tok.text[0] == '+' ? 1 : 0);
        const char* e = tok.text.data() + tok.text.size();
        const auto r = std::from_chars(b, e, x);
        if (r.ec != std::errc() || r.ptr != e) bad();
        t.data<T>()[i] = x;
      }
    });
  }

  void node() {
    // outputs
    std::vector<Def> outs;
    do outs.push_back(parse_def(false));
    while (lx_.accept(','));
    lx_.expect('=');
    const Token op_tok = lx_.peek();
    const std::string op = lx_.expect_ident();
    const auto kind = op_kind_from_name(op);
    if (!kind) {
      std::vector<std::string> names;
      for (int k = 0; k < kNumOpKinds; ++k) names.emplace_back(op_name(static_cast<OpKind>(k)));
      const auto best = closest_spelling(op, names);
      lx_.fail_at(op_tok, "unknown op '" + op + "'" +
                              (best ? "; did you mean '" + *best + "'?" : std::string()));
    }
    lx_.expect('(');
    std::vector<ValueId> inputs;
    if (!lx_.accept(')')) {
      do inputs.push_back(use(false));
      while (lx_.accept(','));
      lx_.expect(')');
    }
    Attrs attrs = default_attrs(*kind);
    if (lx_.peek().kind == TokenKind::Punct && lx_.peek().text == "{") {
      std::visit(
          [&](auto& a) {
            using A = std::decay_t<decltype(a)>;
            if constexpr (std::is_same_v<A, NoAttrs>)
              lx_.fail(op + " has no attributes");
            else
              parse_fields(lx_, a, op + " attributes");
          },
          attrs);
    }
    std::string name, onnx_name;
    Token name_tok = lx_.peek();
    if (lx_.peek().kind == TokenKind::At) {
      name = lx_.next().text;
      if (lx_.peek().kind == TokenKind::String) onnx_name = lx_.next().text;
    }
    lx_.expect_end_of_line();

    std::vector<ValueId> outputs;
    for (const Def& d : outs) outputs.push_back(d.name == "_" ? kNoValue : define(d));
    Node* n = nullptr;
    if (name.empty()) {
      n = &g_.add_node(*kind, onnx_name, inputs, outputs, std::move(attrs));
    } else {
      n = g_.add_named_node(name, *kind, onnx_name, inputs, outputs, std::move(attrs));
      if (n == nullptr)
        lx_.fail_at(name_tok, "@" + name + " is not a plain identifier or is already used");
    }
    std::vector<TensorType> types;
    try {
      types = infer_node_types(g_, *n);
    } catch (const Error& e) {
      throw e.within(lx_.where(op_tok));
    }
    for (std::size_t i = 0; i < outs.size(); ++i) {
      if (!outputs[i].valid()) continue;
      if (outs[i].typed && outs[i].type != types[i])
        lx_.fail_at(outs[i].at, "%" + outs[i].name + " is declared " + type_text(outs[i].type) +
                                    " but " + op + " gives " + type_text(types[i]));
      g_.value(outputs[i]).type = types[i];
    }
  }

  Lexer lx_;
  const std::string* data_;
  bool have_data_ = false;
  Graph g_;
  std::unordered_map<std::string, ValueId> symbols_;
};

std::string read_file(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw_error(ErrorKind::Io, path.string(), "cannot read the file",
                "check that it exists and is readable");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

IrText print_ir(const Graph& graph, const IrWriteOptions& options) {
  return Printer(graph, options).run();
}

std::string print_graph(const Graph& graph) {
  return print_ir(graph).text;
}

Graph parse_ir(std::string_view text, const std::string& source, const std::string* data) {
  return Parser(text, source, data).run();
}

fs::path ir_data_path(const fs::path& path) {
  return path.string() + ".data";
}

void write_ir_file(const Graph& graph, const fs::path& path, IrWriteOptions::Large large) {
  KILN_ASSERT(large != IrWriteOptions::Large::Elide, "an IR file must keep every constant");
  IrWriteOptions o;
  o.large = large;
  const IrText ir = print_ir(graph, o);
  if (!ir.data.empty()) {
    write_file_atomically(ir_data_path(path), ir.data);
  } else {
    std::error_code ec;
    fs::remove(ir_data_path(path), ec);
  }
  write_file_atomically(path, ir.text);
}

Graph read_ir_file(const fs::path& path) {
  const std::string text = read_file(path);
  std::string data;
  const bool has_data = fs::exists(ir_data_path(path));
  if (has_data) data = read_file(ir_data_path(path));
  return parse_ir(text, path.string(), has_data ? &data : nullptr);
}

}  // namespace kiln

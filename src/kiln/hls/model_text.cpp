#include "kiln/hls/model_text.h"

#include <map>

#include "kiln/hls/layer_kinds.h"
#include "kiln/hls/verify.h"
#include "kiln/numeric/fixed_text.h"
#include "kiln/support/error.h"
#include "kiln/support/field_text.h"

namespace kiln::hls {

namespace {

constexpr std::string_view kMagic = "layers";
constexpr int kVersion = 1;

// The model's own fields, as one struct for the `model` line.
struct ModelFields {
  IOType io_type = IOType::Parallel;
  Backend backend = Backend::Vitis;
  std::string part = "xcvu9p-flga2104-2L-e";
  double clock_period_ns = 5.0;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("io_type", s.io_type), f("backend", s.backend), f("part", s.part);
    f("clock_period_ns", s.clock_period_ns);
  }
};

// A layer's settings; a field prints when it differs from kiln's config
// defaults (a default-constructed Layer), so a configured layer's text names what was set for
// it. The result precision is not here: it is the type of the layer's
// output tensors, written once, there.
struct Settings {
  FixedType weight = Precision{}.weight, bias = Precision{}.bias, accum = Precision{}.accum;
  FixedType table = Precision{}.table, inv_table = Precision{}.inv_table;
  FixedType log_table = Precision{}.log_table;
  int64_t reuse_factor = 1;
  Strategy strategy = Strategy::Latency;
  ConvImpl conv_impl = ConvImpl::LineBuffer;
  TableConfig tables;
  int64_t target_cycles = 0;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("weight", s.weight), f("bias", s.bias), f("accum", s.accum), f("table", s.table);
    f("inv_table", s.inv_table), f("log_table", s.log_table);
    f("reuse_factor", s.reuse_factor), f("strategy", s.strategy);
    f("conv_impl", s.conv_impl), f("tables", s.tables), f("target_cycles", s.target_cycles);
  }

  static Settings of(const Layer& l) {
    const Precision& p = l.precision;
    return {p.weight,       p.bias,     p.accum,     p.table,  p.inv_table,    p.log_table,
            l.reuse_factor, l.strategy, l.conv_impl, l.tables, l.target_cycles};
  }
  void apply(Layer& l) const {
    l.precision.weight = weight, l.precision.bias = bias, l.precision.accum = accum;
    l.precision.table = table, l.precision.inv_table = inv_table;
    l.precision.log_table = log_table;
    l.reuse_factor = reuse_factor, l.strategy = strategy, l.conv_impl = conv_impl;
    l.tables = tables, l.target_cycles = target_cycles;
  }
};

struct Constants {
  std::vector<int64_t> weights, bias;
  std::vector<double> float_weights, float_bias;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("weights", s.weights), f("bias", s.bias), f("float_weights", s.float_weights);
    f("float_bias", s.float_bias);
  }
};

std::string dims_text(const std::vector<int64_t>& shape) {
  return "[" + join(shape, "x") + "]";
}

// ---- printing ----------------------------------------------------------------

class Printer {
 public:
  Printer(const Model& m, const LayerTextOptions& o) : m_(m), o_(o) {}

  std::string run() {
    std::string s = std::string(kMagic) + " " + std::to_string(kVersion) + "\n";
    const ModelFields mf{m_.io_type, m_.backend, m_.part, m_.clock_period_ns};
    s += "model " + quote(m_.name) + " {" + format_fields(mf) + "}\n";
    for (const Layer& l : m_.layers) s += layer_line(l) + "\n";
    for (std::size_t i = 0; i < m_.inputs.size(); ++i)
      s += port_line("input", m_.inputs[i], m_.input_ports[i]);
    for (std::size_t i = 0; i < m_.outputs.size(); ++i)
      s += port_line("output", m_.outputs[i], m_.output_ports[i]);
    return s;
  }

 private:
  const TensorInfo& tensor(int t) const { return m_.tensors.at(static_cast<std::size_t>(t)); }

  std::string layer_line(const Layer& l) const {
    std::vector<std::string> outs, ins;
    for (int t : l.outputs)
      outs.push_back("%" + tensor(t).name + ": " + tensor(t).type.to_string() +
                     dims_text(tensor(t).shape));
    for (int t : l.inputs) ins.push_back("%" + tensor(t).name);
    std::string s =
        join(outs, ", ") + " = " + layer_kind_name(l.kind()) + "(" + join(ins, ", ") + ")";
    const std::string params = std::visit([](const auto& p) { return format_fields(p); }, l.params);
    if (!params.empty()) s += " {" + params + "}";
    s += " @" + l.name;
    if (!l.onnx_name.empty()) s += " " + quote(l.onnx_name);
    const std::string settings = format_fields(Settings::of(l));
    if (!settings.empty()) s += " config {" + settings + "}";
    std::vector<std::string> consts;
    constant(consts, "weights", l.weights);
    constant(consts, "bias", l.bias);
    constant(consts, "float_weights", l.float_weights);
    constant(consts, "float_bias", l.float_bias);
    if (!consts.empty()) s += " constants {" + join(consts, " ") + "}";
    return s;
  }

  template <class T>
  void constant(std::vector<std::string>& out, const char* name, const std::vector<T>& v) const {
    if (v.empty()) return;
    const bool elide = static_cast<int64_t>(v.size()) > o_.inline_limit;
    out.push_back(std::string(name) + "=" + (elide ? "elided" : format_field(v)));
  }

  std::string port_line(const char* side, int t, const Model::Port& p) const {
    return std::string(side) + " %" + tensor(t).name + " " + quote(p.onnx_name) + ": " +
           dims_text(p.onnx_shape) + " perm=" + format_field(p.perm) + "\n";
  }

  const Model& m_;
  const LayerTextOptions& o_;
};

// ---- parsing -----------------------------------------------------------------

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : lx_(text, source) {}

  Model run() {
    lx_.skip_newlines();
    lx_.expect_ident(kMagic);
    const Token v = lx_.peek();
    if (lx_.expect_int() != kVersion)
      lx_.fail_at(v, "layer text version " + v.text + " (this kiln reads version " +
                         std::to_string(kVersion) + ")");
    lx_.expect_end_of_line();
    lx_.skip_newlines();
    lx_.expect_ident("model");
    m_.name = lx_.expect_string();
    ModelFields mf;
    parse_fields(lx_, mf, "model fields");
    m_.io_type = mf.io_type, m_.backend = mf.backend, m_.part = mf.part;
    m_.clock_period_ns = mf.clock_period_ns;
    lx_.expect_end_of_line();
    for (lx_.skip_newlines(); !lx_.at_end(); lx_.skip_newlines()) {
      if (lx_.peek().kind == TokenKind::Percent) {
        if (ports_started_) lx_.fail("layers come before the input and output lines");
        layer();
      } else if (lx_.accept_ident("input")) {
        port(m_.inputs, m_.input_ports);
      } else if (lx_.accept_ident("output")) {
        port(m_.outputs, m_.output_ports);
      } else {
        lx_.fail("expected a layer (%name: type = Kind(...)), `input` or `output`, got " +
                 Lexer::describe(lx_.peek()));
      }
    }
    try {
      verify_model(m_, "parse");
    } catch (const Error& e) {
      throw_error(ErrorKind::InvalidModel, lx_.source(),
                  "the layer model is inconsistent: " + e.where() + ": " + e.what_happened(),
                  "see docs/ir.md for the rules a layer model keeps");
    }
    return std::move(m_);
  }

 private:
  int use(const Token& t) {
    const auto it = tensors_.find(t.text);
    if (it == tensors_.end()) lx_.fail_at(t, "tensor %" + t.text + " is not defined before");
    return it->second;
  }

  std::vector<int64_t> dims() {
    lx_.expect('[');
    if (lx_.accept(']')) return {};
    std::vector<int64_t> d = lx_.expect_dims();
    lx_.expect(']');
    return d;
  }

  void layer() {
    Layer l;
    // Outputs: %name: type[dims], ...
    do {
      const Token t = lx_.next();
      if (t.kind != TokenKind::Percent)
        lx_.fail_at(t, "expected a tensor name (%name), got " + Lexer::describe(t));
      if (tensors_.count(t.text)) lx_.fail_at(t, "tensor %" + t.text + " is defined twice");
      lx_.expect(':');
      TensorInfo ti;
      ti.name = t.text;
      parse_field(lx_, ti.type);
      ti.shape = dims();
      tensors_[t.text] = static_cast<int>(m_.tensors.size());
      l.outputs.push_back(static_cast<int>(m_.tensors.size()));
      m_.tensors.push_back(std::move(ti));
    } while (lx_.accept(','));
    lx_.expect('=');
    const Token kt = lx_.peek();
    const std::string kind_name = lx_.expect_ident();
    const auto kind = layer_kind_from_name(kind_name);
    if (!kind) {
      std::vector<std::string> names;
      for (const auto& [k, n] : EnumNames<LayerKind>::kNames) names.emplace_back(n);
      const auto best = closest_spelling(kind_name, names);
      lx_.fail_at(kt,
                  "no layer kind '" + kind_name + "'" +
                      (best ? "; did you mean '" + *best + "'?" : "; kinds: " + join(names, ", ")));
    }
    lx_.expect('(');
    if (!lx_.accept(')')) {
      do {
        const Token t = lx_.next();
        if (t.kind != TokenKind::Percent)
          lx_.fail_at(t, "expected a tensor name (%name), got " + Lexer::describe(t));
        l.inputs.push_back(use(t));
      } while (lx_.accept(','));
      lx_.expect(')');
    }
    l.params = default_params(*kind);
    if (lx_.peek().kind == TokenKind::Punct && lx_.peek().text == "{")
      std::visit([&](auto& p) { parse_fields(lx_, p, kind_name + " parameters"); }, l.params);
    const Token nt = lx_.next();
    if (nt.kind != TokenKind::At)
      lx_.fail_at(nt, "expected the layer's name (@name), got " + Lexer::describe(nt));
    l.name = nt.text;
    if (lx_.peek().kind == TokenKind::String) l.onnx_name = lx_.expect_string();
    if (lx_.accept_ident("config")) {
      Settings s;
      parse_fields(lx_, s, "layer settings");
      s.apply(l);
    }
    if (lx_.accept_ident("constants")) {
      Constants c;
      parse_constants(c);
      l.weights = std::move(c.weights), l.bias = std::move(c.bias);
      l.float_weights = std::move(c.float_weights), l.float_bias = std::move(c.float_bias);
    }
    lx_.expect_end_of_line();
    l.precision.result = m_.tensors[static_cast<std::size_t>(l.outputs[0])].type;
    m_.layers.push_back(std::move(l));
  }

  // parse_fields, except that an elided list is named as such.
  void parse_constants(Constants& c) {
    lx_.expect('{');
    while (!lx_.accept('}')) {
      const Token name = lx_.peek();
      const std::string field = lx_.expect_ident();
      lx_.expect('=');
      if (lx_.peek().kind == TokenKind::Ident && lx_.peek().text == "elided")
        lx_.fail("the " + field +
                 " are elided in this listing; print the model with every constant to parse it");
      bool found = false;
      Constants::visit(c, [&](const char* f, auto& v) {
        if (found || field != f) return;
        found = true;
        if (!v.empty()) lx_.fail_at(name, "field '" + field + "' is given twice");
        parse_field(lx_, v);
      });
      if (!found)
        lx_.fail_at(name, "constants have no field '" + field +
                              "'; fields: weights, bias, float_weights, float_bias");
    }
  }

  void port(std::vector<int>& tensors, std::vector<Model::Port>& ports) {
    ports_started_ = true;
    const Token t = lx_.next();
    if (t.kind != TokenKind::Percent)
      lx_.fail_at(t, "expected a tensor name (%name), got " + Lexer::describe(t));
    tensors.push_back(use(t));
    Model::Port p;
    p.onnx_name = lx_.expect_string();
    lx_.expect(':');
    p.onnx_shape = dims();
    lx_.expect_ident("perm");
    lx_.expect('=');
    parse_field(lx_, p.perm);
    lx_.expect_end_of_line();
    ports.push_back(std::move(p));
  }

  Lexer lx_;
  Model m_;
  std::map<std::string, int> tensors_;
  bool ports_started_ = false;
};

}  // namespace

std::string print_layers(const Model& model, const LayerTextOptions& options) {
  return Printer(model, options).run();
}

std::string print_layer_listing(const Model& model) {
  LayerTextOptions o;
  o.inline_limit = 16;
  return print_layers(model, o);
}

Model parse_layers(std::string_view text, const std::string& source) {
  return Parser(text, source).run();
}

}  // namespace kiln::hls

namespace kiln {
std::string IrTraits<hls::Model>::print(const hls::Model& model) {
  return hls::print_layer_listing(model);
}
}  // namespace kiln

#include "kiln/cgen/print_c.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "kiln/cgen/accesses.h"
#include "kiln/cgen/c_runtime.h"
#include "kiln/cgen/find_fifos.h"
#include "kiln/cgen/parallel_loops.h"
#include "kiln/support/error.h"

namespace kiln::cgen {

namespace {

using loop::Affine;
using loop::Buffer;
using loop::BufferRole;
using loop::Kernel;
using loop::Op;
using loop::Program;
using loop::ScalarType;
using loop::Stmt;
using loop::StmtKind;
using loop::Value;

// The widest raw value int64_t arithmetic holds with a bit to spare for the
// sign of a difference.
constexpr int kMostBits = 63;

// An identifier from a name: letters, digits and '_' kept, the rest '_'.
std::string identifier(const std::string& name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

// An int64_t literal (INT64_MIN has none in C).
std::string literal(int64_t v) {
  if (v == INT64_MIN) return "(-INT64_C(9223372036854775807) - 1)";
  return fmt::format("INT64_C({})", v);
}

// The typed C++'s value types: Xilinx's ap_fixed under Vitis HLS
// (KILN_VITIS, which __SYNTHESIS__ implies), kiln's kiln_fixed.h elsewhere.
constexpr const char* kVitisTypes =
    "#include \"kiln/kiln_common.h\"\n\n"
    "/* Value types: ap_fixed under Vitis HLS (KILN_VITIS), kiln's kiln_fixed.h elsewhere. */\n"
    "#ifdef KILN_VITIS\n"
    "#define KILN_FX(W, I) ap_fixed<W, I>\n"
    "#define KILN_UFX(W, I) ap_ufixed<W, I>\n"
    "#define KILN_FXM(W, I, Q, O) ap_fixed<W, I, AP_##Q, AP_##O>\n"
    "#define KILN_UFXM(W, I, Q, O) ap_ufixed<W, I, AP_##Q, AP_##O>\n"
    "#else\n"
    "#define KILN_FX(W, I) kiln::fixed<W, I>\n"
    "#define KILN_UFX(W, I) kiln::ufixed<W, I>\n"
    "#define KILN_FXM(W, I, Q, O) kiln::fixed<W, I, kiln::Q, kiln::O>\n"
    "#define KILN_UFXM(W, I, Q, O) kiln::ufixed<W, I, kiln::Q, kiln::O>\n"
    "#endif\n\n";

class Printer {
 public:
  Printer(const Program& p, std::string top, const PrintOptions& options = {})
      : p_(p),
        top_(std::move(top)),
        vitis_(options.dialect == Dialect::VitisCpp),
        typed_(vitis_),
        weight_files_(options.weight_files) {}

  CProgram run() {
    check_widths();
    // Queues between filters: the typed C++'s streams (kiln::stream, which
    // is hls::stream under Vitis); the C99 marks them and keeps arrays.
    for (const Fifo& f : find_fifos(p_)) fifos_.insert(f.buffer);
    if (!vitis_) parallel_ = parallel_loops(p_);  // Vitis has its UNROLL pragmas
    CProgram out;
    out.parallel_loops = static_cast<int>(parallel_.size());
    out.header = header();
    std::string& s = out.source;
    s += fmt::format(
        "/* {}.{}: written by kiln from the loop IR of model {}. Each filter is a layer's\n"
        "   kernel; {}. */\n",
        top_, vitis_ ? "cpp" : "c", p_.name,
        typed_ ? "values have ap_fixed types (kiln_fixed.h's outside Vitis HLS)"
               : "values are raw integers at the fraction bits of their types");
    if (weight_files_) s += "#include <stdio.h>\n";
    if (typed_)
      s += fmt::format("#include \"{}.h\"\n\n", top_);
    else
      s += fmt::format("#include \"{}.h\"\n#include \"{}\"\n\n", top_, kCFixedHeaderName);
    if (vitis_)
      s += "/* Vitis HLS reads the pragmas; g++ sees none (it warns of unknown ones). */\n"
           "#if defined(KILN_VITIS) || defined(__SYNTHESIS__)\n"
           "#define KILN_PRAGMA(x) _Pragma(#x)\n#else\n#define KILN_PRAGMA(x)\n#endif\n"
           "/* The labels name the loops for Vitis; nothing jumps to them. */\n"
           "#if defined(__GNUC__)\n#pragma GCC diagnostic ignored \"-Wunused-label\"\n#endif\n\n";
    bool lookups = false;
    for (const Kernel& k : p_.kernels)
      for (const Value& v : k.values) lookups = lookups || v.op == Op::Lookup;
    if (lookups)  // a lookup's bin clamped into its table
      s += "static int64_t kiln_clamp_index(int64_t i, int64_t size) {\n"
           "  return i < 0 ? 0 : (i >= size ? size - 1 : i);\n}\n\n";
    s += weights();
    if (weight_files_) s += loader(out);
    s += tensors();
    for (std::size_t k = 0; k < p_.kernels.size(); ++k) s += filter(static_cast<int>(k));
    s += top_function();
    return out;
  }

  // The name of buffer b's storage array.
  std::string array(int b) const {
    const int s = p_.storage_of(b);
    return fmt::format("b{}_{}", s, identifier(p_.buffers[static_cast<std::size_t>(s)].name));
  }

  // The type of buffer b's elements: its raw integer, or its ap_fixed type.
  // Weights stay raw integers in the typed C++ too: thousands of ap_fixed
  // constants initialized from literals take a compiler minutes (the
  // vendor's constructors run at start-up), integers take nothing.
  std::string element(int b) const {
    return typed_ && !raw_weights(b) ? vitis_type(buffer(b).type) : c_storage_type(buffer(b).type);
  }

  bool raw_weights(int b) const { return buffer(p_.storage_of(b)).role == BufferRole::Const; }

  // Buffer b's element from the raw integer `x` (a long long).
  std::string from_raw(int b, const std::string& x) const {
    return typed_ ? fmt::format("kiln::from_raw_bits<{} >({})", element(b), x)
                  : fmt::format("({}) {}", element(b), x);
  }

  // Buffer b's element `e` as a long long raw integer.
  std::string to_raw(const std::string& e) const {
    return typed_ ? fmt::format("kiln::raw_bits({})", e) : fmt::format("(long long) {}", e);
  }

 private:
  const Buffer& buffer(int b) const { return p_.buffers[static_cast<std::size_t>(b)]; }

  // The widest value each dialect holds exactly: raw int64_t arithmetic
  // needs a bit to spare for a difference's sign; the typed C++ assigns to
  // at most 64 bits (buffers, quantizations, selections, a shift's or a
  // lookup's operand) and holds exact sums and products up to 128.
  int most_bits(const Value* v) const {
    if (!typed_) return kMostBits;
    if (v == nullptr) return 64;  // a buffer
    switch (v->op) {
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::Neg:
      case Op::Load: return 127;
      default: return 64;
    }
  }

  static bool fits(const ScalarType& t, int bits) {
    return t.width <= bits && (t.is_signed || t.width < bits);
  }

  void check_widths() const {
    for (const Buffer& b : p_.buffers)
      if (!fits(b.type, most_bits(nullptr)))
        throw_error(ErrorKind::Unsupported, "buffer @" + b.name,
                    fmt::format("its type {} is wider than the {} bits the C holds exactly",
                                loop::to_string(b.type), most_bits(nullptr)),
                    "narrow its precision in the config");
    for (const Kernel& k : p_.kernels)
      for (std::size_t v = 0; v < k.values.size(); ++v) {
        const Value& value = k.values[v];
        // A shift and a lookup read their operand's raw bits as 64 (typed).
        std::vector<int> checked = {static_cast<int>(v)};
        if (typed_ && (value.op == Op::Shl || value.op == Op::Lookup))
          checked.insert(checked.end(), value.args.begin(), value.args.end());
        for (int c : checked) {
          const ScalarType& t = k.values[static_cast<std::size_t>(c)].type;
          const int bits = c == static_cast<int>(v) ? most_bits(&value) : 64;
          if (!fits(t, bits))
            throw_error(ErrorKind::Unsupported, "layer '" + k.onnx_name + "'",
                        fmt::format("value %v{} of its kernel is {} bits wide, more than the {} "
                                    "the C holds exactly",
                                    c, t.width, bits),
                        "narrow the layer's accumulator or result precision in the config");
        }
      }
  }

  std::string header() const {
    const std::string guard = "KILN_" + identifier(top_) + "_H";
    std::string s = fmt::format(
        "/* {}.h: written by kiln. The top function of model {}. */\n"
        "#ifndef {}\n#define {}\n\n#include <stdint.h>\n\n",
        top_, p_.name, guard, guard);
    if (typed_) s += kVitisTypes;
    for (int b : p_.inputs)
      s += fmt::format("#define {}_IN_{} {} /* {} */\n", identifier(top_),
                       identifier(buffer(b).name), buffer(b).numel(),
                       loop::to_string(buffer(b).type));
    for (int b : p_.outputs)
      s += fmt::format("#define {}_OUT_{} {} /* {} */\n", identifier(top_),
                       identifier(buffer(b).name), buffer(b).numel(),
                       loop::to_string(buffer(b).type));
    s += "\n" + prototype() + ";\n";
    if (weight_files_)
      s += fmt::format(
          "/* Loads the weights from DIR/<array>.dat: 1 on success. */\n"
          "int {}_load_weights(const char *dir);\n",
          identifier(top_));
    s += "\n#endif\n";
    return s;
  }

  std::string prototype() const {
    std::vector<std::string> params;
    for (int b : p_.inputs)
      params.push_back(fmt::format("const {} {}[{}]", element(b), array(b), buffer(b).numel()));
    for (int b : p_.outputs)
      params.push_back(fmt::format("{} {}[{}]", element(b), array(b), buffer(b).numel()));
    return fmt::format("void {}({})", identifier(top_), fmt::join(params, ", "));
  }

  std::vector<int> weight_arrays() const {
    std::vector<int> out;
    for (std::size_t b = 0; b < p_.buffers.size(); ++b)
      if (p_.buffers[b].role == BufferRole::Const && p_.buffers[b].alias_of < 0)
        out.push_back(static_cast<int>(b));
    return out;
  }

  // The loader of the weights' .dat files, and the files.
  std::string loader(CProgram& out) const {
    std::string s = fmt::format(
        "/* Reads each weight array from DIR/<array>.dat (its raw values): 0 when a file is\n"
        "   missing or short. */\n"
        "int {}_load_weights(const char *dir) {{\n",
        identifier(top_));
    if (weight_arrays().empty()) return s + "  (void)dir; /* no weights */\n  return 1;\n}\n\n";
    s += "  char path[4096];\n  FILE *f;\n  long i;\n  long long x;\n";
    for (int b : weight_arrays()) {
      const Buffer& buf = buffer(b);
      s += fmt::format(
          "  snprintf(path, sizeof path, \"%s/{0}.dat\", dir);\n"
          "  if (!(f = fopen(path, \"r\"))) return 0;\n"
          "  for (i = 0; i < {1}; ++i) {{\n"
          "    if (fscanf(f, \"%lld\", &x) != 1) {{\n      fclose(f);\n      return 0;\n    }}\n"
          "    {0}[i] = {2};\n  }}\n  fclose(f);\n",
          array(b), buf.data.size(), from_raw(b, "x"));
      std::string text;
      for (std::size_t i = 0; i < buf.data.size(); ++i)
        text += fmt::format("{}{}", buf.data[i], (i + 1) % 16 == 0 ? "\n" : " ");
      out.weight_files.emplace_back(array(b) + ".dat", text + "\n");
    }
    return s + "  return 1;\n}\n\n";
  }

  std::string weights() const {
    std::string s;
    if (weight_files_) {
      for (int b : weight_arrays())
        s += fmt::format("static {} {}[{}];\n", c_storage_type(buffer(b).type), array(b),
                         std::max<int64_t>(1, buffer(b).numel()));
      return s + (s.empty() ? "" : "\n");
    }
    for (std::size_t b = 0; b < p_.buffers.size(); ++b) {
      const Buffer& buf = p_.buffers[b];
      if (buf.role != BufferRole::Const || buf.alias_of >= 0) continue;
      s += fmt::format("static const {} {}{} = {{", element(static_cast<int>(b)),
                       array(static_cast<int>(b)), dims(static_cast<int>(b)));
      for (std::size_t i = 0; i < buf.data.size(); ++i)
        s += fmt::format("{}{}{}", i % 16 == 0 ? "\n  " : " ", buf.data[i],
                         i + 1 < buf.data.size() ? "," : "");
      s += "};\n";
    }
    return s + (s.empty() ? "" : "\n");
  }

  // Tensors between filters and the filters' locals: static, so a large
  // map does not sit on the stack.
  // A tensor that a model input or output views is the top's parameter.
  std::string tensors() const {
    std::set<int> ports;
    for (const std::vector<int>* v : {&p_.inputs, &p_.outputs})
      for (int b : *v) ports.insert(p_.storage_of(b));
    std::string s;
    for (std::size_t b = 0; b < p_.buffers.size(); ++b) {
      const Buffer& buf = p_.buffers[b];
      if ((buf.role != BufferRole::Tensor && buf.role != BufferRole::Local) || buf.alias_of >= 0 ||
          ports.count(static_cast<int>(b)) || scalar(static_cast<int>(b)))
        continue;
      if (stream(static_cast<int>(b)))
        s += fmt::format("static kiln::stream<{} > {}; /* a FIFO: read in the order written */\n",
                         element(static_cast<int>(b)), array(static_cast<int>(b)));
      else
        s += fmt::format("static {} {}{};{}\n", element(static_cast<int>(b)),
                         array(static_cast<int>(b)), dims(static_cast<int>(b)),
                         fifos_.count(static_cast<int>(b))
                             ? " /* a FIFO: read in the order written (an array in C) */"
                             : "");
    }
    return s + (s.empty() ? "" : "\n");
  }

  // The storage buffers a kernel takes as parameters: the tensors, inputs
  // and outputs it reads or writes (weights and locals are the file's).
  std::vector<std::pair<int, bool>> parameters(const Kernel& k) const {
    std::set<int> read, written;
    for (int b : k.reads) read.insert(p_.storage_of(b));
    for (int b : k.writes) written.insert(p_.storage_of(b));
    std::vector<std::pair<int, bool>> out;  // (storage, written)
    std::set<int> all(read);
    all.insert(written.begin(), written.end());
    for (int s : all) {
      const BufferRole role = buffer(s).role;
      if (role == BufferRole::Const || role == BufferRole::Local) continue;
      out.emplace_back(s, written.count(s) > 0);
    }
    return out;
  }

  std::string filter_name(int k) const {
    return fmt::format("k{}_{}", k, identifier(p_.kernels[static_cast<std::size_t>(k)].name));
  }

  std::string filter(int kk) {
    k_ = &p_.kernels[static_cast<std::size_t>(kk)];
    kernel_ = kk;
    depth_.clear();
    index_names_.clear();
    index_decls_.clear();
    plan_indices(k_->body, 0);
    int named = 0;
    number_indices(k_->body, named);
    std::vector<std::string> params;
    for (const auto& [s, written] : parameters(*k_))
      params.push_back(
          stream(s) ? fmt::format("kiln::stream<{} > &{}", element(s), array(s))
          : multi_dim(s)
              ? fmt::format("{}{} {}{}", written ? "" : "const ", element(s), array(s), dims(s))
              : fmt::format("{}{} *{}", written ? "" : "const ", element(s), array(s)));
    std::string s =
        fmt::format("/* layer {} */\nstatic void {}({}) {{\n", k_->onnx_name, filter_name(kk),
                    params.empty() ? "void" : fmt::format("{}", fmt::join(params, ", ")));
    // One-element locals are variables: zero when the filter starts, as the
    // loop IR's buffers are when a sample starts.
    for (int b : k_->locals)
      if (scalar(b))
        s += fmt::format("  {} {} = 0; /* {} */\n", element(b), array(b), buffer(b).name);
    if (vitis_) {  // the weights' and locals' directives, where this filter uses them
      std::set<int> own;
      for (int b : k_->reads)
        if (buffer(p_.storage_of(b)).role == BufferRole::Const) own.insert(p_.storage_of(b));
      for (int b : k_->locals)
        if (!scalar(b)) own.insert(p_.storage_of(b));
      for (int b : own) s += array_pragmas(b);
    }
    bodies_.clear();
    block(k_->body, 1, s);
    s += "}\n\n";
    return bodies_ + s;  // the split loop bodies first: the filter calls them
  }

  std::string affine(const Affine& a) const {
    std::string s = a.constant != 0 || a.terms.empty() ? std::to_string(a.constant) : "";
    for (const auto& [loop, c] : a.terms) {
      // After the first term a negative coefficient is a subtraction.
      const int64_t m = c < 0 && !s.empty() ? -c : c;
      const std::string term = m == 1 ? fmt::format("l{}", loop) : fmt::format("{} * l{}", m, loop);
      s = s.empty() ? term : s + (c < 0 ? " - " : " + ") + term;
    }
    return s;
  }

  // Whether buffer b is printed with its dimensions (`T a[R][C]`, read as
  // a[i][j]), so that a partition of any dimension maps onto the array: the
  // typed C++'s tensors, locals and weights that no other buffer views.
  // Ports stay flat, as the testbench passes them.
  bool multi_dim(int b) const {
    const Buffer& buf = buffer(b);
    if (!typed_ || buf.alias_of >= 0 || buf.shape.size() < 2 || buf.role == BufferRole::Input ||
        buf.role == BufferRole::Output || scalar(b) || stream(b))
      return false;
    for (const Buffer& o : p_.buffers)
      if (o.alias_of == b) return false;
    return true;
  }

  // The declarator's dimensions of buffer b: "[R][C]", or "[N]" flat.
  std::string dims(int b) const {
    if (!multi_dim(b)) return fmt::format("[{}]", std::max<int64_t>(1, buffer(b).numel()));
    std::string d;
    for (int64_t n : buffer(b).shape) d += fmt::format("[{}]", n);
    return d;
  }

  // Whether buffer b is a FIFO printed as a stream (the typed C++).
  bool stream(int b) const { return typed_ && fifos_.count(p_.storage_of(b)) > 0; }

  // Whether buffer b is a one-element local of a kernel, printed as a
  // variable of its filter.
  bool scalar(int b) const {
    const Buffer& buf = buffer(b);
    if (buf.role != BufferRole::Local || buf.alias_of >= 0 || buf.numel() != 1) return false;
    int owners = 0;
    for (const Kernel& k : p_.kernels)
      for (int l : k.locals) owners += l == b;
    return owners == 1;
  }

  // Buffer b's element at `index`: `array[flat]`, or a scalar's variable.
  std::string access(int b, const std::vector<Affine>& index) const {
    if (scalar(b)) return array(b);
    std::string s = array(b);
    for (const Affine& a : index_units(b, index)) s += "[" + index_text(a) + "]";
    return s;
  }

  // The affine expressions an access of buffer b at `index` prints: one per
  // dimension of a multi-dimensional array, else the row-major flat index.
  std::vector<Affine> index_units(int b, const std::vector<Affine>& index) const {
    if (multi_dim(b)) return index;
    Affine flat = Affine::of(0);
    for (std::size_t d = 0; d < index.size(); ++d) flat = flat * buffer(b).shape[d] + index[d];
    return {flat};
  }

  // Seed 001's elementary operations with shared subexpressions, for the
  // indices: an affine index is a chain of partial sums, the one that adds
  // the term of loop l computed once at the top of l's body
  // (`x3 = x1 + 28 * l2`), shared by every access that needs it, so no
  // index is recomputed in a loop it does not depend on.
  using IndexKey = std::pair<int64_t, std::vector<std::pair<int, int64_t>>>;

  // a's terms merged per loop, zeros dropped, outermost loop first.
  IndexKey canonical(const Affine& a) const {
    std::map<int, int64_t> by_loop;
    for (const auto& [l, c] : a.terms) by_loop[l] += c;
    std::vector<std::pair<int, int64_t>> terms;
    for (const auto& [l, c] : by_loop)
      if (c != 0) terms.emplace_back(l, c);
    std::sort(terms.begin(), terms.end(), [&](const auto& x, const auto& y) {
      return std::make_pair(depth_.at(x.first), x.first) <
             std::make_pair(depth_.at(y.first), y.first);
    });
    return {a.constant, terms};
  }

  static bool trivial(const IndexKey& k) {
    return k.second.empty() || (k.second.size() == 1 && k.second[0].second == 1 && k.first == 0);
  }

  static std::string term_text(const std::string& prev, int loop, int64_t c) {
    if (prev.empty()) return c == 1 ? fmt::format("l{}", loop) : fmt::format("{} * l{}", c, loop);
    const int64_t m = c < 0 ? -c : c;
    return prev + (c < 0 ? " - " : " + ") +
           (m == 1 ? fmt::format("l{}", loop) : fmt::format("{} * l{}", m, loop));
  }

  // Registers a's partial sums that need a name under the loop each adds.
  void plan_index(const Affine& a) {
    const IndexKey key = canonical(a);
    IndexKey partial{key.first, {}};
    for (const auto& [l, c] : key.second) {
      partial.second.emplace_back(l, c);
      if (!trivial(partial) && index_names_.emplace(partial, "").second)
        index_decls_[l].push_back(partial);
    }
  }

  // Names the partial sums in the order they are printed: x0, x1, ...
  void number_indices(const std::vector<Stmt>& stmts, int& n) {
    for (const Stmt& st : stmts) {
      if (st.kind == StmtKind::For)
        if (const auto it = index_decls_.find(st.loop); it != index_decls_.end())
          for (const IndexKey& k : it->second) index_names_[k] = fmt::format("x{}", n++);
      if (st.kind == StmtKind::For || st.kind == StmtKind::If) number_indices(st.body, n);
    }
  }

  std::string key_text(const IndexKey& key) const {
    if (key.second.empty()) return std::to_string(key.first);
    if (trivial(key)) return fmt::format("l{}", key.second[0].first);
    return index_names_.at(key);
  }

  // A partial sum's definition: the one before it plus its last term.
  std::string definition(const IndexKey& key) const {
    IndexKey prev = key;
    prev.second.pop_back();
    const std::string before =
        prev.second.empty() ? (prev.first != 0 ? std::to_string(prev.first) : "") : key_text(prev);
    return term_text(before, key.second.back().first, key.second.back().second);
  }

  std::string index_text(const Affine& a) const { return key_text(canonical(a)); }

  // Every access's index in `stmts`, planned (depth_ set for their loops).
  void plan_indices(const std::vector<Stmt>& stmts, int depth) {
    for (const Stmt& st : stmts) {
      if (st.kind == StmtKind::For) {
        depth_[st.loop] = depth;
        plan_indices(st.body, depth + 1);
      } else if (st.kind == StmtKind::If) {
        plan_indices(st.body, depth);
      } else {
        const Value* v =
            st.kind == StmtKind::Let ? &k_->values[static_cast<std::size_t>(st.value)] : nullptr;
        const int b = v ? (v->op == Op::Load ? v->buffer : -1) : st.buffer;
        if (b < 0 || scalar(b) || stream(b)) continue;
        for (const Affine& a : index_units(b, v ? v->index : st.index)) plan_index(a);
      }
    }
  }

  const ScalarType& type_of(int v) const { return k_->values[static_cast<std::size_t>(v)].type; }

  // Value v's raw at `frac` fraction bits (>= its own).
  std::string at_frac(int v, int frac) const {
    const int up = frac - type_of(v).frac;
    KILN_ASSERT(up >= 0 && up < kMostBits, "a value aligned down or too far");
    return up == 0 ? fmt::format("v{}", v) : fmt::format("v{} * {}", v, literal(int64_t{1} << up));
  }

  std::string expression(const Value& v) const {
    const auto arg = [&](std::size_t i) { return v.args[i]; };
    switch (v.op) {
      case Op::Load: return fmt::format("(int64_t){}", access(v.buffer, v.index));
      case Op::Const: return literal(v.imm);
      case Op::Add:
        return fmt::format("{} + {}", at_frac(arg(0), v.type.frac), at_frac(arg(1), v.type.frac));
      case Op::Sub:
        return fmt::format("{} - {}", at_frac(arg(0), v.type.frac), at_frac(arg(1), v.type.frac));
      case Op::Mul: return fmt::format("v{} * v{}", arg(0), arg(1));
      case Op::Neg: return fmt::format("-v{}", arg(0));
      case Op::Shl: return fmt::format("v{}", arg(0));  // the bits stay, the type moves the point
      case Op::Quantize: {
        const numeric::FixedType& t = v.target;
        return fmt::format("kiln_quantize(v{}, {}, {}, {}, {}, KILN_{}, KILN_{})", arg(0),
                           type_of(arg(0)).frac, t.width, t.frac(), t.is_signed ? 1 : 0,
                           enum_name(t.quant), enum_name(t.overflow));
      }
      case Op::Max:
      case Op::Min: {
        const std::string a = at_frac(arg(0), v.type.frac), b = at_frac(arg(1), v.type.frac);
        return fmt::format("({}) {} ({}) ? ({}) : ({})", a, v.op == Op::Max ? ">=" : "<=", b, a, b);
      }
      case Op::Lt: {
        const int f = std::max(type_of(arg(0)).frac, type_of(arg(1)).frac);
        return fmt::format("({}) < ({}) ? 1 : 0", at_frac(arg(0), f), at_frac(arg(1), f));
      }
      case Op::Select:
        return fmt::format("v{} != 0 ? ({}) : ({})", arg(0), at_frac(arg(1), v.type.frac),
                           at_frac(arg(2), v.type.frac));
      case Op::Lookup: {
        const int64_t size = buffer(v.buffer).shape.at(0);
        return fmt::format("(int64_t){}[kiln_clamp_index(kiln_floor_scaled(v{}, {}, {}) + {}, {})]",
                           array(v.buffer), arg(0), type_of(arg(0)).frac, v.shift, literal(v.imm),
                           size);
      }
    }
    KILN_ASSERT(false, "an op the C printer does not know");
    return {};
  }

  // Value v's definition in the typed C++: exact sums, differences,
  // products and negations keep the type ap_fixed's operators give them
  // (auto), which is the loop IR's; the other ops name their type.
  std::string typed_let(const Value& v, int id) const {
    const auto a = [&](std::size_t i) { return fmt::format("v{}", v.args[i]); };
    const std::string t = vitis_type(v.type);
    switch (v.op) {
      case Op::Load:
        if (raw_weights(v.buffer))
          return fmt::format("const {} v{} = kiln::from_raw_bits<{} >({})", t, id, t,
                             access(v.buffer, v.index));
        if (stream(v.buffer))
          return fmt::format("const {} v{} = {}.read()", t, id, array(v.buffer));
        return fmt::format("const auto v{} = {}", id, access(v.buffer, v.index));
      case Op::Const:
        return fmt::format("const {} v{} = kiln::from_raw_bits<{} >({})", t, id, t, literal(v.imm));
      case Op::Add: return fmt::format("const auto v{} = {} + {}", id, a(0), a(1));
      case Op::Sub: return fmt::format("const auto v{} = {} - {}", id, a(0), a(1));
      case Op::Mul: return fmt::format("const auto v{} = {} * {}", id, a(0), a(1));
      case Op::Neg: return fmt::format("const auto v{} = -{}", id, a(0));
      case Op::Shl:  // the operand's bits at its own format, the point moved
        return fmt::format("const {} v{} = kiln::from_raw_bits<{} >(kiln::raw_bits({}({})))", t, id,
                           t, vitis_type(type_of(v.args[0])), a(0));
      case Op::Quantize: return fmt::format("const {} v{} = {}", vitis_type(v.target), id, a(0));
      // exact_less: the vendor's ap_fixed compares some mixed-sign pairs as
      // C compares unsigned integers (kiln_common.h).
      case Op::Max:
        return fmt::format("const {0} v{1} = !kiln::exact_less({2}, {3}) ? {0}({2}) : {0}({3})", t,
                           id, a(0), a(1));
      case Op::Min:
        return fmt::format("const {0} v{1} = !kiln::exact_less({3}, {2}) ? {0}({2}) : {0}({3})", t,
                           id, a(0), a(1));
      case Op::Lt:
        return fmt::format("const {} v{} = kiln::exact_less({}, {}) ? 1 : 0", t, id, a(0), a(1));
      case Op::Select:
        return fmt::format("const {0} v{1} = {2} != 0 ? {0}({3}) : {0}({4})", t, id, a(0), a(1),
                           a(2));
      case Op::Lookup:
        return fmt::format(
            "const {0} v{1} = kiln::from_raw_bits<{0} >({2}[kiln_clamp_index("
            "kiln::floor_scaled<{3}>({4}) + {5}, {6})])",
            t, id, array(v.buffer), v.shift, a(0), literal(v.imm), buffer(v.buffer).shape.at(0));
    }
    KILN_ASSERT(false, "an op the C printer does not know");
    return {};
  }

  // `flattened_into`: the statements are the body of a loop kept together
  // with the loop it holds (LoopDirectives::flatten).
  void block(const std::vector<Stmt>& stmts, int depth, std::string& s,
             bool flattened_into = false) const {
    const std::string pad(static_cast<std::size_t>(2 * depth), ' ');
    for (const Stmt& st : stmts) {
      switch (st.kind) {
        case StmtKind::Let: {
          const Value& v = k_->values[static_cast<std::size_t>(st.value)];
          if (typed_)
            s += fmt::format("{}{}; /* {} */\n", pad, typed_let(v, st.value),
                             loop::to_string(v.type));
          else
            s += fmt::format("{}const int64_t v{} = {}; /* {} */\n", pad, st.value, expression(v),
                             loop::to_string(v.type));
          break;
        }
        case StmtKind::Store: {
          const Buffer& b = buffer(st.buffer);
          if (typed_)  // the value has the buffer's format: an exact assignment
            s += stream(st.buffer)
                     ? fmt::format("{}{}.write(v{});\n", pad, array(st.buffer), st.value)
                     : fmt::format("{}{} = v{};\n", pad, access(st.buffer, st.index), st.value);
          else
            s += fmt::format("{}{} = ({}) ({});\n", pad, access(st.buffer, st.index),
                             c_storage_type(b.type), at_frac(st.value, b.type.frac));
          break;
        }
        case StmtKind::For: {
          const loop::Loop& l = k_->loops[static_cast<std::size_t>(st.loop)];
          if (vitis_) {
            s += fmt::format("{}{}:\n", pad, label(st.loop));
            s += fmt::format("{}for (int64_t l{} = 0; l{} < {}; ++l{}) {{\n", pad, st.loop, st.loop,
                             l.trip, st.loop);
            s += loop_pragmas(l, flattened_into, pad + "  ");
          } else {
            // Seed 001's coarse-grained parallelism: Bambu reads it with -fopenmp;
            // a compiler without OpenMP sees no pragma. The body is a function
            // of its own, one call per iteration, as seed 001 splits it: Bambu
            // runs calls concurrently more readily than loop bodies.
            if (parallel_.count({kernel_, st.loop})) {
              s += "#ifdef _OPENMP\n#pragma omp parallel for\n#endif\n";
              s += fmt::format("{}for (int64_t l{} = 0; l{} < {}; ++l{}) {{ /* {} */\n", pad,
                               st.loop, st.loop, l.trip, st.loop, l.name);
              s += fmt::format("{}  {};\n", pad, split_body(st));
              s += pad + "}\n";
              break;
            }
            s += fmt::format("{}for (int64_t l{} = 0; l{} < {}; ++l{}) {{ /* {} */\n", pad, st.loop,
                             st.loop, l.trip, st.loop, l.name);
          }
          if (const auto it = index_decls_.find(st.loop); it != index_decls_.end())
            for (const IndexKey& key : it->second)
              s += fmt::format("{}  const int64_t {} = {};\n", pad, index_names_.at(key),
                               definition(key));
          block(st.body, depth + 1, s, l.directives.flatten);
          s += pad + "}\n";
          break;
        }
        case StmtKind::If: {
          std::vector<std::string> conds;
          for (const loop::Guard& g : st.guards) {
            const std::string e = affine(g.expr);
            conds.push_back(fmt::format("({}) >= {} && ({}) < {}", e, g.lo, e, g.hi));
          }
          s += fmt::format("{}if ({}) {{\n", pad, fmt::join(conds, " && "));
          block(st.body, depth + 1, s, flattened_into);
          s += pad + "}\n";
          break;
        }
      }
    }
  }

  // What a loop's body uses from outside it: the loop variables its indices
  // and guards read (its own included), the values and index partial sums
  // defined before it, the filter's pointer parameters and one-element
  // variables it accesses.
  struct FreeNames {
    std::set<int> loops, values, params, scalars;
    std::set<IndexKey> indices;
  };

  void free_names(const std::vector<Stmt>& stmts, const std::set<int>& inside,
                  std::set<int>& defined, FreeNames& f) const {
    const auto use_affine = [&](const Affine& a) {
      for (const auto& [l, c] : a.terms)
        if (c != 0 && !inside.count(l)) f.loops.insert(l);
    };
    const auto use_access = [&](int b, const std::vector<Affine>& index) {
      if (scalar(b)) {
        f.scalars.insert(b);
        return;
      }
      if (buffer(p_.storage_of(b)).role != BufferRole::Const &&
          buffer(p_.storage_of(b)).role != BufferRole::Local)
        f.params.insert(p_.storage_of(b));
      // What the index's text names: a loop variable, a partial sum defined
      // outside, or one defined inside, which names the one before it.
      for (const Affine& a : index_units(b, index))
        for (IndexKey key = canonical(a); !key.second.empty(); key.second.pop_back()) {
          if (trivial(key)) {
            if (!inside.count(key.second[0].first)) f.loops.insert(key.second[0].first);
            break;
          }
          if (!inside.count(key.second.back().first)) {
            f.indices.insert(key);
            break;
          }
        }
    };
    for (const Stmt& st : stmts) {
      switch (st.kind) {
        case StmtKind::Let: {
          const Value& v = k_->values[static_cast<std::size_t>(st.value)];
          for (int a : v.args)
            if (!defined.count(a)) f.values.insert(a);
          if (v.op == Op::Load) use_access(v.buffer, v.index);
          defined.insert(st.value);
          break;
        }
        case StmtKind::Store:
          if (!defined.count(st.value)) f.values.insert(st.value);
          use_access(st.buffer, st.index);
          break;
        case StmtKind::For: free_names(st.body, inside, defined, f); break;
        case StmtKind::If:
          for (const loop::Guard& g : st.guards) use_affine(g.expr);
          free_names(st.body, inside, defined, f);
          break;
      }
    }
  }

  // Prints loop statement `loop`'s body as a function of the filter
  // (bodies_) and returns the call one iteration makes.
  std::string split_body(const Stmt& loop) const {
    std::set<int> inside = loops_in(loop.body);
    inside.insert(loop.loop);
    std::set<int> defined;
    FreeNames f;
    free_names(loop.body, inside, defined, f);
    f.loops.insert(loop.loop);
    std::vector<std::string> params, args;
    for (int b : f.params) {
      bool written = false;
      for (int w : k_->writes) written = written || p_.storage_of(w) == b;
      params.push_back(fmt::format("{}{} *{}", written ? "" : "const ", element(b), array(b)));
      args.push_back(array(b));
    }
    for (int b : f.scalars) {
      params.push_back(fmt::format("{} {}", element(b), array(b)));
      args.push_back(array(b));
    }
    for (int l : f.loops) {
      params.push_back(fmt::format("int64_t l{}", l));
      args.push_back(fmt::format("l{}", l));
    }
    for (int v : f.values) {
      params.push_back(fmt::format("int64_t v{}", v));
      args.push_back(fmt::format("v{}", v));
    }
    for (const IndexKey& key : f.indices) {
      params.push_back("int64_t " + index_names_.at(key));
      args.push_back(index_names_.at(key));
    }
    const std::string name = fmt::format("{}_{}", filter_name(kernel_), label(loop.loop));
    std::string body = fmt::format(
        "/* one iteration of loop {} of layer {}: a call per iteration, which Bambu "
        "can run concurrently (seed 001) */\nstatic void {}({}) {{\n",
        k_->loops[static_cast<std::size_t>(loop.loop)].name, k_->onnx_name, name,
        fmt::join(params, ", "));
    if (const auto it = index_decls_.find(loop.loop); it != index_decls_.end())
      for (const IndexKey& key : it->second)
        body += fmt::format("  const int64_t {} = {};\n", index_names_.at(key), definition(key));
    block(loop.body, 1, body);
    bodies_ += body + "}\n\n";
    return fmt::format("{}({})", name, fmt::join(args, ", "));
  }

  // A loop's label: its loop IR name (unique in the kernel), as kiln rtl
  // --list-loops and the config's Loop blocks name it after the layer.
  std::string label(int loop) const {
    return identifier(k_->loops[static_cast<std::size_t>(loop)].name);
  }

  std::string loop_pragmas(const loop::Loop& l, bool flattened_into, const std::string& pad) const {
    std::string s;
    const hls::LoopDirectives& d = l.directives;
    if (flattened_into) s += pad + "KILN_PRAGMA(HLS LOOP_FLATTEN)\n";
    if (d.pipeline_ii) s += fmt::format("{}KILN_PRAGMA(HLS PIPELINE II={})\n", pad, *d.pipeline_ii);
    if (d.unroll && *d.unroll == 0) s += pad + "KILN_PRAGMA(HLS UNROLL)\n";
    if (d.unroll && *d.unroll > 1)
      s += fmt::format("{}KILN_PRAGMA(HLS UNROLL factor={})\n", pad, *d.unroll);
    return s;
  }

  // A buffer's partition and storage as pragmas on its flat array: what
  // maps exactly (complete; cyclic on the last dimension; block on the
  // first), the rest said in a comment.
  std::string array_pragmas(int b) const {
    const Buffer& buf = buffer(b);
    const hls::BufferDirectives& d = buf.directives;
    const std::string v = array(b), pad = "  ";
    std::string s;
    const int rank = static_cast<int>(buf.shape.size());
    using hls::BufferPartition;
    if (multi_dim(b)) {  // every partition is Vitis's own, dimension by dimension
      if (d.storage == hls::BufferStorage::Registers)
        s += fmt::format("{}KILN_PRAGMA(HLS ARRAY_PARTITION variable={} type=complete dim=0)\n",
                         pad, v);
      else if (d.partition == BufferPartition::Complete)
        s += fmt::format("{}KILN_PRAGMA(HLS ARRAY_PARTITION variable={} type=complete dim={})\n",
                         pad, v, d.dim);
      else if (d.partition != BufferPartition::None)
        s +=
            fmt::format("{}KILN_PRAGMA(HLS ARRAY_PARTITION variable={} type={} factor={} dim={})\n",
                        pad, v, enum_name(d.partition), d.factor, d.dim);
      for (int more : d.more_dims)
        s += fmt::format("{}KILN_PRAGMA(HLS ARRAY_PARTITION variable={} type=complete dim={})\n",
                         pad, v, more);
    } else if (d.partition == BufferPartition::Complete ||
               d.storage == hls::BufferStorage::Registers)
      s += fmt::format("{}KILN_PRAGMA(HLS ARRAY_PARTITION variable={} type=complete dim=1)\n", pad,
                       v);
    else if (d.partition == BufferPartition::Cyclic && (d.dim == rank || rank == 1))
      s += fmt::format(
          "{}KILN_PRAGMA(HLS ARRAY_PARTITION variable={} type=cyclic factor={} dim=1)\n", pad, v,
          d.factor);
    else if (d.partition == BufferPartition::Block && (d.dim == 1 || rank == 1))
      s +=
          fmt::format("{}KILN_PRAGMA(HLS ARRAY_PARTITION variable={} type=block factor={} dim=1)\n",
                      pad, v, d.factor);
    else if (d.partition != BufferPartition::None)
      s += fmt::format("{}/* {}: partition {} by {} of dimension {} has no flat form here */\n",
                       pad, v, enum_name(d.partition), d.factor, d.dim);
    if (!d.more_dims.empty() && !multi_dim(b))
      s += fmt::format("{}/* {}: further dimensions partitioned completely: not expressed */\n",
                       pad, v);
    const bool rom = buf.role == BufferRole::Const;
    if (d.storage == hls::BufferStorage::Lutram || d.storage == hls::BufferStorage::Bram)
      s += fmt::format("{}KILN_PRAGMA(HLS BIND_STORAGE variable={} type={} impl={})\n", pad, v,
                       rom ? "rom_2p" : "ram_2p",
                       d.storage == hls::BufferStorage::Lutram ? "lutram" : "bram");
    return s;
  }

  std::string top_function() const {
    std::string s = prototype() + " {\n";
    for (std::size_t b = 0; b < p_.buffers.size() && vitis_; ++b)
      if (stream(static_cast<int>(b)))  // every element is written before one is read
        s += fmt::format("  KILN_PRAGMA(HLS STREAM variable={} depth={})\n",
                         array(static_cast<int>(b)), p_.buffers[b].numel());
      else if (p_.buffers[b].role == BufferRole::Tensor && p_.buffers[b].alias_of < 0)
        s += array_pragmas(static_cast<int>(b));
    for (std::size_t k = 0; k < p_.kernels.size(); ++k) {
      std::vector<std::string> args;
      for (const auto& [st, written] : parameters(p_.kernels[k])) args.push_back(array(st));
      s += fmt::format("  {}({});\n", filter_name(static_cast<int>(k)), fmt::join(args, ", "));
    }
    s += "}\n";
    return s;
  }

  const Program& p_;
  std::string top_;
  bool vitis_ = false;
  // Values and arrays of ap_fixed types (vitis_type), not raw integers.
  bool typed_ = false;
  bool weight_files_ = false;
  std::set<int> fifos_;                     // storage buffers find_fifos found
  std::set<std::pair<int, int>> parallel_;  // (kernel, loop): omp parallel for (C99)
  // The filter's index arithmetic (plan_index): each loop's depth, each
  // partial sum's name, and the names each loop's body defines.
  std::map<int, int> depth_;
  std::map<IndexKey, std::string> index_names_;
  std::map<int, std::vector<IndexKey>> index_decls_;
  // The filter's split loop bodies (split_body), printed before it.
  mutable std::string bodies_;
  const Kernel* k_ = nullptr;
  int kernel_ = -1;
};

}  // namespace

std::string vitis_type(const ScalarType& t) {
  return fmt::format("KILN_{}FX({}, {})", t.is_signed ? "" : "U", t.width, t.integer());
}

std::string vitis_type(const numeric::FixedType& t) {
  if (t.quant == numeric::QuantMode::Trn && t.overflow == numeric::OverflowMode::Wrap)
    return vitis_type(loop::scalar_of(t));
  return fmt::format("KILN_{}FXM({}, {}, {}, {})", t.is_signed ? "" : "U", t.width, t.integer,
                     enum_name(t.quant), enum_name(t.overflow));
}

std::string c_storage_type(const ScalarType& t) {
  for (int bits : {8, 16, 32, 64})
    if (t.width <= bits) return fmt::format("{}int{}_t", t.is_signed ? "" : "u", bits);
  return "int64_t";
}

CProgram print_c(const loop::Program& program, const std::string& top,
                 const PrintOptions& options) {
  return Printer(program, top, options).run();
}

std::string print_c_raw_main(const loop::Program& program, const std::string& top,
                             Dialect dialect) {
  PrintOptions options;
  options.dialect = dialect;
  const Printer names(program, top, options);
  std::string s = fmt::format(
      "/* A test driver written by kiln: raw inputs on stdin, raw outputs on stdout. */\n"
      "#include <stdio.h>\n#include \"{}.h\"\n\n",
      top);
  for (const std::vector<int>* ports : {&program.inputs, &program.outputs})
    for (int b : *ports)
      s += fmt::format("static {} {}[{}];\n", names.element(b), names.array(b),
                       program.buffers[static_cast<std::size_t>(b)].numel());
  s += "\nint main(int argc, char **argv) {\n  long long x;\n"
       "  FILE *in = argc > 1 ? fopen(argv[1], \"r\") : stdin;\n"
       "  if (!in) return 2;\n  for (;;) {\n";
  for (int b : program.inputs)
    s += fmt::format(
        "    {{\n      long i;\n      for (i = 0; i < {}; ++i) {{\n"
        "        if (fscanf(in, \"%lld\", &x) != 1) return 0;\n        {}[i] = {};\n      }}\n "
        "   }}\n",
        program.buffers[static_cast<std::size_t>(b)].numel(), names.array(b),
        names.from_raw(b, "x"));
  std::vector<std::string> args;
  for (int b : program.inputs) args.push_back(names.array(b));
  for (int b : program.outputs) args.push_back(names.array(b));
  s += fmt::format("    {}({});\n", identifier(top), fmt::join(args, ", "));
  for (int b : program.outputs)
    s += fmt::format(
        "    {{\n      long i;\n      for (i = 0; i < {}; ++i) printf(\"%lld \", {});\n"
        "    }}\n",
        program.buffers[static_cast<std::size_t>(b)].numel(), names.to_raw(names.array(b) + "[i]"));
  s += "    printf(\"\\n\");\n  }\n}\n";
  return s;
}

}  // namespace kiln::cgen

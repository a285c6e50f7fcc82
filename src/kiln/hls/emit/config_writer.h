// What the emitters of the elementwise and resampling layers share: the
// writer of a layer's `struct config_<layer>`, the call statement, and the
// layer's constant arrays.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/hls/emit/layer_code.h"
#include "kiln/hls/tables.h"

namespace kiln::hls::emit_util {

// Accumulates the `struct config_<layer> { ... };` text.
class ConfigWriter {
 public:
  explicit ConfigWriter(const std::string& layer) : name_("config_" + layer) {
    out_ << "struct " << name_ << " {\n";
  }
  void value(const char* field, int64_t v) {
    out_ << "  static const unsigned " << field << " = " << v << ";\n";
  }
  void signed_value(const char* field, int64_t v) {
    out_ << "  static const int " << field << " = " << v << ";\n";
  }
  void flag(const char* field, bool v) {
    out_ << "  static const bool " << field << " = " << (v ? "true" : "false") << ";\n";
  }
  // `static const kiln::<type> field = kiln::<type>::<enumerator>;`
  void enumerator(const char* field, const std::string& type, std::string_view enumerator) {
    out_ << "  static const kiln::" << type << " " << field << " = kiln::" << type
         << "::" << enumerator << ";\n";
  }
  void type(const char* field, const std::string& type_name) {
    out_ << "  typedef " << type_name << " " << field << ";\n";
  }
  // A parameter, quantized to param_t and written exactly.
  void param(const char* field, double v) {
    const FixedType p = param_type();
    out_ << "  static double " << field << "() { return "
         << fixed_literal(numeric::quantize(v, p), p) << "; }\n";
  }
  // A value of `type` (raw `raw`), written exactly.
  void exact(const char* field, int64_t raw, const FixedType& type) {
    out_ << "  static double " << field << "() { return " << fixed_literal(raw, type) << "; }\n";
  }
  // `static unsigned field(unsigned i)`: entry i of a constant index table
  // (a ROM in hardware).
  void index_table(const char* field, const std::vector<int64_t>& v) {
    out_ << "  static unsigned " << field << "(unsigned i) {\n    static const unsigned t["
         << (v.empty() ? 1 : v.size()) << "] = {";
    for (std::size_t i = 0; i < v.size(); ++i) out_ << (i ? ", " : "") << v[i];
    out_ << "};\n    return t[i];\n  }\n";
  }
  const std::string& name() const { return name_; }
  std::string text() const { return out_.str() + "};\n"; }

 private:
  std::string name_;
  std::ostringstream out_;
};

inline int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// The io_stream element width of a tensor: its last dimension.
inline int64_t width(const TensorInfo& t) {
  return t.shape.empty() ? 1 : t.shape.back();
}

inline std::string call(const std::string& function, const std::string& config,
                        const std::vector<std::string>& args) {
  std::string s = function + "<" + config + ">(";
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  return s + ");\n";
}

inline WeightArray table_array(const Layer& layer, const std::string& suffix,
                               const std::string& type_suffix, const FixedType& type,
                               std::vector<int64_t> raw) {
  return WeightArray{layer.name + suffix, layer.name + type_suffix, type, std::move(raw)};
}

}  // namespace kiln::hls::emit_util

// YAML configuration: parsing, validation, --set overrides, resolution and
// the default config text (docs/config.md).
#include "kiln/hls/config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "kiln/fpga/devices.h"
#include "kiln/support/error.h"

namespace kiln::hls {

// ---- spelling help ---------------------------------------------------------

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// "did you mean 'X'?" when a candidate is close, else the list of valid spellings.
std::string spelling_hint(std::string_view word, const std::vector<std::string>& valid,
                          const std::string& what_list) {
  if (auto best = closest_spelling(word, valid)) return "did you mean '" + *best + "'?";
  return what_list + ": " + join(valid);
}

const std::vector<std::string>& top_keys() {
  static const std::vector<std::string> k = {"Part",  "ClockPeriod", "IOType",    "Backend",
                                             "Style", "Model",       "LayerType", "LayerName",
                                             "Loop",  "Buffer"};
  return k;
}
const std::vector<std::string>& layer_keys() {
  static const std::vector<std::string> k = {
      "Precision",    "ReuseFactor",   "Strategy",         "ConvImplementation",
      "TargetCycles", "TableSize",     "TableRange",       "MultiplierLimit",
      "Scheduler",    "LatencyCycles", "ConstantProducts", "AdderDepth"};
  return k;
}
const std::vector<std::string>& precision_keys() {
  static const std::vector<std::string> k = {"weight", "bias",      "result",   "accum",
                                             "table",  "inv_table", "log_table"};
  return k;
}

// A layer-block key at the top level is a common slip: say where it goes.
std::string top_key_hint(const std::string& k) {
  if (k == "Scheduler" || k == "LatencyCycles")
    return "'" + k + "' goes in the Model block: Model." + k;
  if (std::find(layer_keys().begin(), layer_keys().end(), k) != layer_keys().end())
    return "'" + k + "' goes in a layer block: Model." + k + ", LayerType.<Type>." + k +
           " or LayerName.<name>." + k;
  return spelling_hint(k, top_keys(), "valid keys");
}

std::vector<std::string> kind_names() {
  std::vector<std::string> v;
  for (const auto& [k, name] : EnumNames<LayerKind>::kNames)
    if (k != LayerKind::Clone) v.emplace_back(name);  // made by kiln, not configured
  return v;
}

// Parsing context: the source name for `where`, and whether YAML marks
// (line numbers) mean anything (not for --set).
struct Ctx {
  std::string source;
  bool has_lines = true;
};

[[noreturn]] void fail(const Ctx& c, const std::string& path, const YAML::Node& node,
                       const std::string& what, const std::string& hint = {}) {
  std::string where = c.source + ": " + path;
  if (c.has_lines && node.IsDefined() && node.Mark().line >= 0)
    where += " (line " + std::to_string(node.Mark().line + 1) + ")";
  throw_error(ErrorKind::InvalidModel, where, what, hint);
}

std::string kind_of(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "nothing";
    default: return "'" + n.Scalar() + "'";
  }
}

std::string scalar_text(const Ctx& c, const std::string& path, const YAML::Node& n,
                        const std::string& expected) {
  if (!n.IsScalar() || n.Scalar().empty())
    fail(c, path, n, "expects " + expected + ", got " + kind_of(n));
  return n.Scalar();
}

int64_t parse_positive_int(const Ctx& c, const std::string& path, const YAML::Node& n) {
  const std::string s = scalar_text(c, path, n, "a positive integer");
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size())
    fail(c, path, n, "expects a positive integer, got '" + s + "'");
  if (v <= 0) fail(c, path, n, "must be a positive integer, got " + s);
  return v;
}

// MultiplierLimit: 0 is a real limit (a layer without products of two
// variables, as seed 004's max pool that Vitis built with no DSP).
int64_t parse_non_negative_int(const Ctx& c, const std::string& path, const YAML::Node& n) {
  const std::string s = scalar_text(c, path, n, "a non-negative integer");
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0)
    fail(c, path, n, "expects a non-negative integer, got '" + s + "'");
  return v;
}

double parse_positive_number(const Ctx& c, const std::string& path, const YAML::Node& n) {
  const std::string s = scalar_text(c, path, n, "a positive number");
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v))
    fail(c, path, n, "expects a positive number, got '" + s + "'");
  if (v <= 0) fail(c, path, n, "must be a positive number, got " + s);
  return v;
}

bool is_power_of_two(double v) {
  int exp = 0;
  return v > 0 && std::frexp(v, &exp) == 0.5;
}

// One value of an enum, by its EnumNames spelling matched case-insensitively.
template <class E>
E parse_enum(const Ctx& c, const std::string& path, const YAML::Node& n) {
  std::vector<std::string> names;
  for (const auto& [v, name] : EnumNames<E>::kNames) names.emplace_back(name);
  const std::string s = scalar_text(c, path, n, "one of " + join(names));
  for (const auto& [v, name] : EnumNames<E>::kNames)
    if (iequals(s, name)) return v;
  // The message lists the values; the hint names the closest one, if any.
  const std::optional<std::string> best = closest_spelling(s, names);
  fail(c, path, n, "'" + s + "' is not valid; valid values: " + join(names),
       best ? "did you mean '" + *best + "'?" : "use one of those");
}

PrecisionSpec parse_precision_value(const Ctx& c, const std::string& path, const YAML::Node& n,
                                    bool auto_allowed) {
  const std::string s = scalar_text(c, path, n, "a fixed-point type such as ap_fixed<16,6>");
  if (iequals(s, "auto")) {
    if (!auto_allowed)
      fail(c, path, n, "'auto' is available for weight, bias, result and accum only",
           "give a type such as ap_fixed<18,8>");
    return PrecisionSpec{true, FixedType{}};
  }
  std::string reason;
  const std::optional<FixedType> t = numeric::parse_fixed_type(s, &reason);
  if (!t) {
    // A comma inside {...} ends a YAML flow value: "{result: ap_fixed<16,6>}"
    // arrives here as "ap_fixed<16".
    const bool cut = s.find('<') != std::string::npos && s.find('>') == std::string::npos;
    fail(c, path, n, reason.empty() ? "bad fixed-point type '" + s + "'" : reason,
         cut ? "inside {...} quote the type ('ap_fixed<16,6>') or use one key per line"
             : "write e.g. ap_fixed<16,6> or ap_ufixed<8,0,AP_RND,AP_SAT>");
  }
  return PrecisionSpec{false, *t};
}

// Iterates a map's entries in file order, rejecting duplicate keys.
template <class F>
void for_each_entry(const Ctx& c, const std::string& path, const YAML::Node& map, F&& f) {
  if (map.IsNull()) return;  // "Model:" with nothing under it
  if (!map.IsMap()) fail(c, path, map, "expects a map of keys, got " + kind_of(map));
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const YAML::Node& key = kv.first;
    if (!key.IsScalar()) fail(c, path, key, "keys must be plain names");
    const std::string k = key.Scalar();
    const std::string sub = path.empty() ? k : path + "." + k;
    if (!seen.insert(k).second) fail(c, sub, key, "appears twice");
    f(k, sub, key, kv.second);
  }
}

void parse_precision(const Ctx& c, const std::string& path, const YAML::Node& n, LayerConfig& lc) {
  if (n.IsScalar()) {
    // A single type (or auto) sets every arithmetic field, as hls4ml users
    // expect from `Precision: ap_fixed<16,6>`; lookup tables keep theirs.
    const PrecisionSpec spec = parse_precision_value(c, path, n, true);
    lc.weight = lc.bias = lc.result = lc.accum = spec;
    return;
  }
  if (!n.IsMap())
    fail(c, path, n,
         "expects a type or a map of weight, bias, result, accum, table, inv_table, "
         "log_table; got " +
             kind_of(n));
  for_each_entry(c, path, n,
                 [&](const std::string& k, const std::string& sub, const YAML::Node& key,
                     const YAML::Node& v) {
                   if (k == "weight")
                     lc.weight = parse_precision_value(c, sub, v, true);
                   else if (k == "bias")
                     lc.bias = parse_precision_value(c, sub, v, true);
                   else if (k == "result")
                     lc.result = parse_precision_value(c, sub, v, true);
                   else if (k == "accum")
                     lc.accum = parse_precision_value(c, sub, v, true);
                   else if (k == "table")
                     lc.table = parse_precision_value(c, sub, v, false);
                   else if (k == "inv_table")
                     lc.inv_table = parse_precision_value(c, sub, v, false);
                   else if (k == "log_table")
                     lc.log_table = parse_precision_value(c, sub, v, false);
                   else
                     fail(c, sub, key, "unknown Precision field '" + k + "'",
                          spelling_hint(k, precision_keys(), "valid fields"));
                 });
}

// `whole`: where Model.Scheduler and Model.LatencyCycles go; null in LayerType
// and LayerName blocks, where they are an error (they concern the whole model).
void parse_layer_block(const Ctx& c, const std::string& path, const YAML::Node& n, LayerConfig& lc,
                       Config* whole = nullptr) {
  for_each_entry(c, path, n,
                 [&](const std::string& k, const std::string& sub, const YAML::Node& key,
                     const YAML::Node& v) {
                   if (k == "Precision") {
                     parse_precision(c, sub, v, lc);
                   } else if (k == "ReuseFactor") {
                     lc.reuse_factor = parse_positive_int(c, sub, v);
                   } else if (k == "Strategy") {
                     lc.strategy = parse_enum<Strategy>(c, sub, v);
                   } else if (k == "ConvImplementation") {
                     lc.conv_impl = parse_enum<ConvImpl>(c, sub, v);
                   } else if (k == "MultiplierLimit") {
                     lc.multiplier_limit = parse_non_negative_int(c, sub, v);
                   } else if (k == "ConstantProducts") {
                     lc.constant_products = parse_enum<ConstantProducts>(c, sub, v);
                   } else if (k == "AdderDepth") {
                     lc.adder_depth = parse_enum<AdderDepth>(c, sub, v);
                   } else if (k == "Scheduler" || k == "LatencyCycles") {
                     if (whole == nullptr)
                       fail(c, sub, key, k + " applies to the whole model",
                            "set it in the Model block (Model." + k + ")");
                     if (k == "Scheduler")
                       whole->scheduler = parse_enum<RtlScheduler>(c, sub, v);
                     else
                       whole->latency_cycles = parse_positive_int(c, sub, v);
                   } else if (k == "TargetCycles") {
                     lc.target_cycles = parse_positive_int(c, sub, v);
                   } else if (k == "TableSize") {
                     const int64_t s = parse_positive_int(c, sub, v);
                     if (!is_power_of_two(static_cast<double>(s)) || s < 2)
                       fail(c, sub, v, "must be a power of two >= 2, got " + std::to_string(s),
                            "e.g. 1024");
                     lc.table_size = s;
                   } else if (k == "TableRange") {
                     const double r = parse_positive_number(c, sub, v);
                     if (!is_power_of_two(r))
                       fail(c, sub, v, "must be a power of two, got " + v.Scalar(), "e.g. 8");
                     lc.table_range = r;
                   } else {
                     fail(c, sub, key, "unknown key '" + k + "'",
                          spelling_hint(k, layer_keys(), "valid keys"));
                   }
                 });
}

// A positive integer or `word` (Loop.<name>.Unroll's "full", Pipeline's
// "off"), which reads as 0; `what` names the integer in the error.
int64_t parse_positive_or(const Ctx& c, const std::string& path, const YAML::Node& n,
                          const std::string& word, const std::string& what) {
  if (n.IsScalar() && iequals(n.Scalar(), word)) return 0;
  if (n.IsScalar() && !n.Scalar().empty() && n.Scalar()[0] != '-')
    return parse_positive_int(c, path, n);
  fail(c, path, n, "expects '" + word + "' or " + what + ", got " + kind_of(n));
}

// `true` or `false` (YAML's other spellings of a boolean are refused: one way to say it).
bool parse_flag(const Ctx& c, const std::string& path, const YAML::Node& n) {
  if (n.IsScalar() && iequals(n.Scalar(), "true")) return true;
  if (n.IsScalar() && iequals(n.Scalar(), "false")) return false;
  fail(c, path, n, "expects true or false, got " + kind_of(n));
}

std::string where_of(const Ctx& c, const std::string& path, const YAML::Node& key) {
  std::string where = c.source + ": " + path;
  if (c.has_lines && key.Mark().line >= 0)
    where += " (line " + std::to_string(key.Mark().line + 1) + ")";
  return where;
}

// A Loop block into the Loop IR's directives: Unroll full is 0, Pipeline
// off unsets the II; a key the block leaves out keeps what an earlier file
// or block said.
void parse_loop_block(const Ctx& c, const std::string& path, const YAML::Node& n,
                      LoopDirectives& d) {
  for_each_entry(
      c, path, n,
      [&](const std::string& k, const std::string& sub, const YAML::Node& key,
          const YAML::Node& v) {
        if (k == "Unroll") {
          d.unroll = parse_positive_or(c, sub, v, "full", "a positive factor of the trip count");
        } else if (k == "Pipeline") {
          const int64_t ii = parse_positive_or(c, sub, v, "off", "a positive initiation interval");
          if (ii > std::numeric_limits<int>::max())
            fail(c, sub, v, "an initiation interval of " + std::to_string(ii) + " cycles",
                 "ask for a smaller II, or leave the loop unpipelined (off)");
          if (ii == 0)
            d.pipeline_ii.reset();
          else
            d.pipeline_ii = static_cast<int>(ii);
        } else if (k == "Flatten") {
          d.flatten = parse_flag(c, sub, v);
        } else {
          fail(c, sub, key, "unknown loop key '" + k + "'",
               spelling_hint(k, {"Unroll", "Pipeline", "Flatten"}, "valid keys"));
        }
      });
}

void parse_buffer_block(const Ctx& c, const std::string& path, const YAML::Node& n,
                        BufferDirectives& d) {
  for_each_entry(c, path, n,
                 [&](const std::string& k, const std::string& sub, const YAML::Node& key,
                     const YAML::Node& v) {
                   if (k == "Partition")
                     d.partition = parse_enum<BufferPartition>(c, sub, v);
                   else if (k == "Factor")
                     d.factor = parse_positive_int(c, sub, v);
                   else if (k == "Dim" && v.IsSequence()) {
                     // Dim: [3, 4]: the first, then the further ones.
                     d.more_dims.clear();
                     for (std::size_t i = 0; i < v.size(); ++i) {
                       const int x = static_cast<int>(std::min<int64_t>(
                           parse_positive_int(c, sub, v[i]), std::numeric_limits<int>::max()));
                       if (i == 0)
                         d.dim = x;
                       else
                         d.more_dims.push_back(x);
                     }
                   } else if (k == "Dim")
                     d.dim = static_cast<int>(std::min<int64_t>(parse_non_negative_int(c, sub, v),
                                                                std::numeric_limits<int>::max()));
                   else if (k == "Storage")
                     d.storage = parse_enum<BufferStorage>(c, sub, v);
                   else
                     fail(
                         c, sub, key, "unknown buffer key '" + k + "'",
                         spelling_hint(k, {"Partition", "Factor", "Dim", "Storage"}, "valid keys"));
                 });
}

void merge_root(Config& cfg, const YAML::Node& root, const Ctx& c) {
  if (root.IsNull()) return;  // an empty file is the default config
  if (!root.IsMap())
    fail(c, "(top level)", root, "expects a map of keys, got " + kind_of(root),
         "start from `kiln config MODEL.onnx`");
  for_each_entry(c, "", root,
                 [&](const std::string& k, const std::string& sub, const YAML::Node& key,
                     const YAML::Node& v) {
                   if (k == "Part") {
                     cfg.part = scalar_text(c, sub, v, "a part name");
                     // One device table (fpga/devices.h): a part kiln does
                     // not know is refused, never priced as another.
                     if (!fpga::find_device(cfg.part))
                       fail(c, sub, v, "unknown FPGA part '" + cfg.part + "'",
                            "kiln knows " + fpga::known_devices() +
                                ", each followed by its package and speed grade (e.g. "
                                "xcvu9p-flga2104-2L-e, xc7z020clg400-1)");
                   } else if (k == "ClockPeriod") {
                     cfg.clock_period_ns = parse_positive_number(c, sub, v);
                   } else if (k == "IOType") {
                     cfg.io_type = parse_enum<IOType>(c, sub, v);
                     cfg.io_type_set = true;
                   } else if (k == "Backend") {
                     cfg.backend = parse_enum<Backend>(c, sub, v);
                   } else if (k == "Style") {
                     cfg.style = parse_enum<Style>(c, sub, v);
                   } else if (k == "Model") {
                     parse_layer_block(c, sub, v, cfg.model, &cfg);
                   } else if (k == "LayerType") {
                     for_each_entry(c, sub, v,
                                    [&](const std::string& t, const std::string& tsub,
                                        const YAML::Node& tkey, const YAML::Node& tv) {
                                      const auto kind = layer_kind_from_name(t);
                                      if (!kind || *kind == LayerKind::Clone)
                                        fail(c, tsub, tkey, "unknown layer type '" + t + "'",
                                             spelling_hint(t, kind_names(), "layer types"));
                                      parse_layer_block(c, tsub, tv, cfg.by_type[*kind]);
                                    });
                   } else if (k == "LayerName") {
                     for_each_entry(c, sub, v,
                                    [&](const std::string& name, const std::string& nsub,
                                        const YAML::Node& nkey, const YAML::Node& nv) {
                                      cfg.by_name_where[name] = where_of(c, nsub, nkey);
                                      parse_layer_block(c, nsub, nv, cfg.by_name[name]);
                                    });
                   } else if (k == "Loop") {
                     for_each_entry(c, sub, v,
                                    [&](const std::string& name, const std::string& lsub,
                                        const YAML::Node& lkey, const YAML::Node& lv) {
                                      cfg.directives.loop_where[name] = where_of(c, lsub, lkey);
                                      parse_loop_block(c, lsub, lv, cfg.directives.loops[name]);
                                    });
                   } else if (k == "Buffer") {
                     for_each_entry(c, sub, v,
                                    [&](const std::string& name, const std::string& bsub,
                                        const YAML::Node& bkey, const YAML::Node& bv) {
                                      cfg.directives.buffer_where[name] = where_of(c, bsub, bkey);
                                      parse_buffer_block(c, bsub, bv, cfg.directives.buffers[name]);
                                    });
                   } else if (k == "HLSConfig") {
                     fail(c, sub, key, "unknown key 'HLSConfig'",
                          "kiln puts Model, LayerType and LayerName at the top level");
                   } else {
                     fail(c, sub, key, "unknown key '" + k + "'", top_key_hint(k));
                   }
                 });
}

}  // namespace

void merge_config(Config& cfg, const std::string& text, const std::string& source_name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw_error(ErrorKind::InvalidModel,
                source_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                    std::to_string(e.mark.column + 1),
                "YAML syntax error: " + e.msg);
  }
  merge_root(cfg, root, Ctx{source_name, true});
}

Config parse_config(const std::string& text, const std::string& source_name) {
  Config cfg;
  cfg.source = source_name;
  merge_config(cfg, text, source_name);
  return cfg;
}

Config load_config(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw_error(ErrorKind::Io, path, "cannot read the config file");
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw_error(ErrorKind::Io, path, "cannot read the config file");
  return parse_config(ss.str(), path);
}

void apply_set(Config& cfg, const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw_error(ErrorKind::Usage, "--set " + assignment, "expects KEY=VALUE",
                "e.g. --set Model.ReuseFactor=4");
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  const Ctx c{"--set", false};

  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const YAML::Node none;
  auto bad_path = [&](const std::string& what, const std::string& hint) {
    fail(c, key, none, what, hint);
  };
  for (const std::string& p : parts)
    if (p.empty()) bad_path("empty component in the key path", "e.g. Model.Precision.result");

  // The field path of a layer block: "Field" or "Precision.<field>", taken
  // from the end so layer names may contain dots.
  auto field_len = [&](std::size_t first) -> std::size_t {
    const std::size_t n = parts.size();
    if (n >= first + 2 && parts[n - 2] == "Precision") return 2;
    return 1;
  };

  YAML::Node root(YAML::NodeType::Map);
  const std::string& top = parts[0];
  auto put_field = [&](YAML::Node block, std::size_t from) {
    if (from >= parts.size())
      bad_path("names a block, not a key", "add a key, e.g. " + key + ".ReuseFactor=2");
    if (parts.size() - from == 2) {
      YAML::Node p(YAML::NodeType::Map);
      p[parts[from + 1]] = value;
      block[parts[from]] = p;
    } else if (parts.size() - from == 1) {
      block[parts[from]] = value;
    } else {
      bad_path("too many components", "e.g. Model.Precision.result=ap_fixed<18,8>");
    }
  };
  if (top == "Part" || top == "ClockPeriod" || top == "IOType" || top == "Backend" ||
      top == "Style") {
    if (parts.size() != 1) bad_path("'" + top + "' has no sub-keys", "--set " + top + "=VALUE");
    root[top] = value;
  } else if (top == "Model") {
    YAML::Node block(YAML::NodeType::Map);
    put_field(block, 1);
    root["Model"] = block;
  } else if (top == "LayerType") {
    if (parts.size() < 3)
      bad_path("expects LayerType.<Type>.<Key>", "e.g. LayerType.Conv.ReuseFactor=4");
    YAML::Node block(YAML::NodeType::Map);
    put_field(block, 2);
    YAML::Node types(YAML::NodeType::Map);
    types[parts[1]] = block;
    root["LayerType"] = types;
  } else if (top == "Loop" || top == "Buffer") {
    if (parts.size() < 3)
      bad_path("expects " + top + ".<name>.<Key>",
               top == "Loop" ? "e.g. Loop.fc/i.Pipeline=1 (names: kiln rtl --list-loops)"
                             : "e.g. Buffer.fc_w.Partition=complete");
    std::string name = parts[1];
    for (std::size_t i = 2; i + 1 < parts.size(); ++i) name += "." + parts[i];
    YAML::Node block(YAML::NodeType::Map);
    block[parts.back()] = value;
    YAML::Node names(YAML::NodeType::Map);
    names[name] = block;
    root[top] = names;
  } else if (top == "LayerName") {
    if (parts.size() < 3)
      bad_path("expects LayerName.<name>.<Key>", "e.g. LayerName.fc1.ReuseFactor=4");
    const std::size_t flen = field_len(2);
    std::string name = parts[1];
    for (std::size_t i = 2; i + flen < parts.size(); ++i) name += "." + parts[i];
    YAML::Node block(YAML::NodeType::Map);
    put_field(block, parts.size() - flen);
    YAML::Node names(YAML::NodeType::Map);
    names[name] = block;
    root["LayerName"] = names;
  } else {
    fail(c, key, none, "unknown key '" + top + "'", top_key_hint(top));
  }
  merge_root(cfg, root, c);
}

// ---- resolution ------------------------------------------------------------

namespace {

// The most specific level that sets field `f`, most specific first.
struct Levels {
  const LayerConfig* name_onnx = nullptr;  // by_name under the ONNX node name
  const LayerConfig* name = nullptr;       // by_name under the layer name
  const LayerConfig* type = nullptr;
  const LayerConfig* model = nullptr;
  // Most specific first, with the level each belongs to.
  std::vector<std::pair<const LayerConfig*, ConfigLevel>> ordered() const {
    std::vector<std::pair<const LayerConfig*, ConfigLevel>> v;
    if (name) v.emplace_back(name, ConfigLevel::Name);
    if (name_onnx) v.emplace_back(name_onnx, ConfigLevel::Name);
    if (type) v.emplace_back(type, ConfigLevel::Type);
    if (model) v.emplace_back(model, ConfigLevel::Model);
    return v;
  }
};

template <class T>
std::optional<std::pair<T, ConfigLevel>> pick(const Levels& lv,
                                              std::optional<T> LayerConfig::*field) {
  for (const auto& [lc, level] : lv.ordered())
    if (lc->*field) return std::make_pair(*(lc->*field), level);
  return std::nullopt;
}

PrecisionSpec pick_precision(const Levels& lv, std::optional<PrecisionSpec> LayerConfig::*field,
                             const FixedType& dflt) {
  const auto order = lv.ordered();
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& spec = order[i].first->*field;
    if (!spec) continue;
    if (!spec->automatic) return *spec;
    // auto: the width and modes come from the next less specific type.
    for (std::size_t j = i + 1; j < order.size(); ++j) {
      const auto& base = order[j].first->*field;
      if (base && !base->automatic) return PrecisionSpec{true, base->type};
    }
    return PrecisionSpec{true, dflt};
  }
  return PrecisionSpec{false, dflt};
}

}  // namespace

bool uses_auto(const Config& cfg) {
  auto block = [](const LayerConfig& c) {
    for (const auto* p :
         {&c.weight, &c.bias, &c.result, &c.accum, &c.table, &c.inv_table, &c.log_table})
      if (*p && (*p)->automatic) return true;
    return false;
  };
  if (block(cfg.model)) return true;
  for (const auto& [k, c] : cfg.by_type)
    if (block(c)) return true;
  for (const auto& [k, c] : cfg.by_name)
    if (block(c)) return true;
  return false;
}

ResolvedLayerConfig resolve_layer_config(const Config& cfg, LayerKind kind, const std::string& name,
                                         const std::string& onnx_name) {
  Levels lv;
  if (auto it = cfg.by_name.find(name); it != cfg.by_name.end()) lv.name = &it->second;
  if (!onnx_name.empty() && onnx_name != name)
    if (auto it = cfg.by_name.find(onnx_name); it != cfg.by_name.end()) lv.name_onnx = &it->second;
  if (auto it = cfg.by_type.find(kind); it != cfg.by_type.end()) lv.type = &it->second;
  lv.model = &cfg.model;

  ResolvedLayerConfig r;
  r.weight = pick_precision(lv, &LayerConfig::weight, Precision{}.weight);
  r.bias = pick_precision(lv, &LayerConfig::bias, Precision{}.bias);
  r.result = pick_precision(lv, &LayerConfig::result, Precision{}.result);
  r.accum = pick_precision(lv, &LayerConfig::accum, Precision{}.accum);
  r.table = pick_precision(lv, &LayerConfig::table, Precision{}.table);
  r.inv_table = pick_precision(lv, &LayerConfig::inv_table, Precision{}.inv_table);
  r.log_table = pick_precision(lv, &LayerConfig::log_table, Precision{}.log_table);
  if (auto v = pick(lv, &LayerConfig::reuse_factor)) std::tie(r.reuse_factor, r.reuse_level) = *v;
  if (auto v = pick(lv, &LayerConfig::target_cycles)) {
    r.target_cycles = v->first;
    r.target_level = v->second;
  }
  if (auto v = pick(lv, &LayerConfig::strategy)) r.strategy = v->first;
  if (auto v = pick(lv, &LayerConfig::conv_impl)) std::tie(r.conv_impl, r.conv_impl_level) = *v;
  if (auto v = pick(lv, &LayerConfig::table_size)) r.table_size = v->first;
  if (auto v = pick(lv, &LayerConfig::table_range)) r.table_range = v->first;
  if (auto v = pick(lv, &LayerConfig::multiplier_limit)) {
    r.multiplier_limit = v->first;
    r.multiplier_limit_level = v->second;
  }
  if (auto v = pick(lv, &LayerConfig::constant_products)) r.constant_products = v->first;
  if (auto v = pick(lv, &LayerConfig::adder_depth)) r.adder_depth = v->first;
  return r;
}

ResolvedLayerConfig resolve_layer_config(const Config& cfg, const Layer& layer) {
  return resolve_layer_config(cfg, layer.kind(), layer.name, layer.onnx_name);
}

std::string config_key_path(const Config& cfg, const Layer& l, ConfigLevel level,
                            const std::string& key) {
  switch (level) {
    case ConfigLevel::Name:
      return "LayerName." + (cfg.by_name.count(l.name) ? l.name : l.onnx_name) + "." + key;
    case ConfigLevel::Type:
      return std::string("LayerType.") + layer_kind_name(l.kind()) + "." + key;
    case ConfigLevel::Model: return "Model." + key;
    case ConfigLevel::Default: return key + " (default)";
  }
  return key;
}

// ---- default config text ---------------------------------------------------

namespace {

using Field = PrecisionField;

// Whether a block for `kind` (and, for a LayerName block, `layer`) lists a field.
bool uses(const Layer* layer, LayerKind kind, Field f) {
  return layer != nullptr ? uses_field(*layer, f) : kind_uses_field(kind, f);
}

struct BlockValues {
  Precision precision;
  int64_t reuse_factor = 1;
  Strategy strategy = Strategy::Latency;
  ConvImpl conv_impl = ConvImpl::LineBuffer;
  int64_t table_size = 1024;
  double table_range = 8.0;
};

BlockValues defaults() {
  return BlockValues{};
}

BlockValues values_of(const Layer& l) {
  BlockValues b;
  b.precision = l.precision;
  b.reuse_factor = l.reuse_factor;
  b.strategy = l.strategy;
  b.conv_impl = l.conv_impl;
  b.table_size = l.tables.table_size;
  b.table_range = l.tables.table_range;
  return b;
}

// One layer block at `indent`. `kind` nullopt: the Model block (every key).
void write_block(std::string& out, const std::string& indent, const BlockValues& v,
                 std::optional<LayerKind> kind, const Layer* layer) {
  auto all = !kind.has_value();
  auto listed = [&](Field f) { return all || uses(layer, *kind, f); };
  out += indent + "Precision:\n";
  const std::string in2 = indent + "  ";
  if (listed(Field::Weight)) out += in2 + "weight: " + v.precision.weight.to_string() + "\n";
  if (listed(Field::Bias)) out += in2 + "bias: " + v.precision.bias.to_string() + "\n";
  if (listed(Field::Result)) out += in2 + "result: " + v.precision.result.to_string() + "\n";
  if (listed(Field::Accum)) out += in2 + "accum: " + v.precision.accum.to_string() + "\n";
  if (listed(Field::Table)) out += in2 + "table: " + v.precision.table.to_string() + "\n";
  if (listed(Field::InvTable))
    out += in2 + "inv_table: " + v.precision.inv_table.to_string() + "\n";
  if (listed(Field::LogTable))
    out += in2 + "log_table: " + v.precision.log_table.to_string() + "\n";
  if (all || layer_kind_info(*kind).multipliers) {
    out += indent + "ReuseFactor: " + std::to_string(v.reuse_factor) + "\n";
    out += indent + "Strategy: " + std::string(enum_name(v.strategy)) + "  # " +
           enum_choices<Strategy>() + "\n";
  }
  if (all || layer_kind_info(*kind).encoded)
    out += indent + "ConvImplementation: " + std::string(enum_name(v.conv_impl)) + "  # " +
           enum_choices<ConvImpl>() + " (io_stream)\n";
  if (all)
    out += indent +
           "# TargetCycles: 10000  # choose each Dense/Conv reuse factor for this II target\n";
  if (all) {
    // kiln rtl's keys, off by default; the HLS flow ignores them.
    out += indent + "# Scheduler: list  # kiln rtl: " + enum_choices<RtlScheduler>() + "\n";
    out += indent +
           "# LatencyCycles: 500  # kiln rtl: most cycles per sample, in to out (default: none)\n";
    out +=
        indent + "# MultiplierLimit: 16  # kiln rtl: most multipliers per layer (default: none)\n";
    out += indent + "# ConstantProducts: DSP  # kiln rtl: products by weights on " +
           enum_choices<ConstantProducts>() + " (default: searched)\n";
    out += indent + "# AdderDepth: Least  # kiln rtl: sums of products by weights " +
           enum_choices<AdderDepth>() + " (default: searched)\n";
  }
  if (all || listed(Field::Table)) {
    out += indent + "TableSize: " + std::to_string(v.table_size) + "\n";
    out += indent + "TableRange: " + fmt::format("{}", v.table_range) + "\n";
  }
}

}  // namespace

std::string default_config_yaml(const Model& model, Granularity granularity) {
  std::string out;
  out += "# kiln HLS configuration for " + model.name + " (keys: docs/config.md)\n";
  out += "# Each field resolves per layer: LayerName > LayerType > Model > defaults.\n";
  out += "Part: " + model.part + "\n";
  out += "ClockPeriod: " + fmt::format("{}", model.clock_period_ns) + "  # ns\n";
  out +=
      "IOType: " + std::string(enum_name(model.io_type)) + "  # " + enum_choices<IOType>() + "\n";
  out +=
      "Backend: " + std::string(enum_name(model.backend)) + "  # " + enum_choices<Backend>() + "\n";
  out += "Style: " + std::string(enum_name(model.style)) + "  # " + enum_choices<Style>() + "\n";
  out += "Model:\n";
  write_block(out, "  ", defaults(), std::nullopt, nullptr);
  if (granularity == Granularity::Type) {
    out += "LayerType:\n";
    for (const auto& [k, kind_name] : EnumNames<LayerKind>::kNames) {
      if (k == LayerKind::Clone) continue;  // made by kiln, not configured
      const auto it = std::find_if(model.layers.begin(), model.layers.end(),
                                   [&](const Layer& l) { return l.kind() == k; });
      if (it == model.layers.end()) continue;
      out += std::string("  ") + layer_kind_name(k) + ":\n";
      write_block(out, "    ", values_of(*it), k, nullptr);
    }
  } else if (granularity == Granularity::Name) {
    out += "LayerName:\n";
    for (const Layer& l : model.layers) {
      if (l.kind() == LayerKind::Clone) continue;  // made by kiln, not configured
      out += "  " + l.name + ":  # " + layer_kind_name(l.kind()) +
             (l.onnx_name.empty() || l.onnx_name == l.name ? "" : ", ONNX '" + l.onnx_name + "'") +
             "\n";
      write_block(out, "    ", values_of(l), l.kind(), &l);
    }
  }
  return out;
}

}  // namespace kiln::hls

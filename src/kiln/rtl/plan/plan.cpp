#include "kiln/rtl/plan/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "kiln/dfg/unroll.h"
#include "kiln/loop/directives.h"
#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {

const loop::Loop& loop_at(const loop::Kernel& k, int l) {
  return k.loops[static_cast<std::size_t>(l)];
}

int find_loop(const loop::Kernel& k, std::string_view name) {
  for (std::size_t l = 0; l < k.loops.size(); ++l)
    if (k.loops[l].name == name) return static_cast<int>(l);
  return -1;
}

// The loops a plan keeps, outermost first: its loop and the `flatten` loops
// of the perfect nest below it (fewer when the nest is shallower).
std::vector<int> kept_loops(const loop::Kernel& k, const LayerPlan& p) {
  std::vector<int> kept = {p.loop};
  const std::vector<int> nest = dfg::perfect_nest(k, p.loop);
  for (int i = 0; i < p.flatten && i < static_cast<int>(nest.size()); ++i)
    kept.push_back(nest[static_cast<std::size_t>(i)]);
  return kept;
}

// The loop whose copies `unroll` counts: the innermost kept loop.
int copied_loop(const loop::Kernel& k, const LayerPlan& p) {
  return kept_loops(k, p).back();
}

void weights_loaded(const std::vector<loop::Stmt>& stmts, const loop::Kernel& k,
                    const loop::Program& p, std::vector<int>& out) {
  for (const loop::Stmt& s : stmts) {
    if (s.kind == loop::StmtKind::Let) {
      const loop::Value& v = k.values[static_cast<std::size_t>(s.value)];
      const int b = v.op == loop::Op::Load ? p.storage_of(v.buffer) : -1;
      if (b >= 0 && p.buffers[static_cast<std::size_t>(b)].role == loop::BufferRole::Const &&
          std::find(out.begin(), out.end(), b) == out.end())
        out.push_back(b);
    }
    weights_loaded(s.body, k, p, out);
  }
}

// A complete partition along dimension d (0-based), as a Buffer block says it.
loop::BufferDirectives banked(int d) {
  loop::BufferDirectives b;
  b.partition = loop::Partition::Complete;
  b.dim = d + 1;
  return b;
}

// The first top-level loop of a kernel (the one a fully unrolled plan's
// directive names), or -1.
int first_top_loop(const loop::Kernel& k) {
  for (const loop::Stmt& st : dfg::top_level(k))
    if (st.kind == loop::StmtKind::For) return st.loop;
  return -1;
}

}  // namespace

std::vector<int> weights_of(const loop::Program& program, int kernel) {
  std::vector<int> out;
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  weights_loaded(k.body, k, program, out);
  return out;
}

std::string plan_text(const loop::Kernel& k, const LayerPlan& p) {
  std::string s;
  if (p.loop < 0) {
    s = "unrolled";
  } else {
    s = "loop=" + loop_at(k, p.loop).name;
    if (p.flatten == 1) s += " flatten";
    if (p.flatten > 1) s += fmt::format(" flatten={}", p.flatten);
    if (p.unroll > 1) s += fmt::format(" unroll={}", p.unroll);
    if (p.pipeline_ii) s += fmt::format(" pipeline={}", *p.pipeline_ii);
    if (p.weights == WeightPlace::Banked) s += " weights=banked";
    if (p.weights == WeightPlace::Registers) s += " weights=registers";
  }
  if (p.line_buffered) s += " form=line_buffer";
  if (p.constants_on_dsps) s += " constants=dsp";
  if (p.multipliers) s += fmt::format(" multipliers={}", *p.multipliers);
  if (p.least_depth) s += " depth=least";
  return s;
}

LayerPlan parse_plan(const loop::Kernel& k, std::string_view text, const std::string& where) {
  auto bad = [&](const std::string& what, const std::string& hint = {}) -> LayerPlan {
    throw_error(ErrorKind::InvalidModel, where, what,
                hint.empty() ? "a plan reads \"unrolled\" or \"loop=NAME [flatten[=N]] [unroll=N] "
                               "[pipeline[=II]] [weights=banked|registers] [form=line_buffer] "
                               "[constants=dsp] [multipliers=N]\""
                             : hint);
  };
  LayerPlan p;
  std::istringstream words{std::string(text)};
  bool unrolled = false;
  for (std::string w; words >> w;) {
    const std::size_t eq = w.find('=');
    const std::string key = w.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : w.substr(eq + 1);
    auto number = [&]() -> int64_t {
      int64_t n = 0;
      std::size_t used = 0;
      try {
        n = std::stoll(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != value.size() || n < 1) bad("'" + w + "' needs a positive number");
      return n;
    };
    // multipliers=0 (products in LUTs) is the one count that may be 0.
    auto count = [&]() -> int {
      if (value == "0") return 0;
      return static_cast<int>(std::min<int64_t>(number(), 1 << 20));
    };
    if (key == "unrolled" && eq == std::string::npos) {
      unrolled = true;
    } else if (key == "loop") {
      p.loop = find_loop(k, value);
      if (p.loop < 0) bad("layer " + k.name + " has no loop '" + value + "'");
    } else if (key == "flatten") {
      p.flatten = eq == std::string::npos ? 1 : static_cast<int>(std::min<int64_t>(number(), 64));
    } else if (key == "unroll") {
      p.unroll = number();
    } else if (key == "pipeline") {
      // "pipeline" alone asks for II 1, the floor of every schedule.
      p.pipeline_ii =
          eq == std::string::npos ? 1 : static_cast<int>(std::min<int64_t>(number(), 1 << 20));
    } else if (key == "weights" && value == "registers") {
      p.weights = WeightPlace::Registers;
    } else if (key == "weights" && value == "banked") {
      p.weights = WeightPlace::Banked;
    } else if (key == "form" && value == "line_buffer") {
      p.line_buffered = true;
    } else if (key == "constants" && value == "dsp") {
      p.constants_on_dsps = true;
    } else if (key == "multipliers" && eq != std::string::npos) {
      p.multipliers = count();
    } else if (key == "depth" && value == "least") {
      p.least_depth = true;
    } else {
      bad("unknown word '" + w + "' in a plan");
    }
  }
  if (unrolled == (p.loop >= 0)) bad("a plan is either \"unrolled\" or keeps one loop=NAME");
  if (p.loop >= 0) {
    const auto nest = static_cast<int>(dfg::perfect_nest(k, p.loop).size());
    if (p.flatten > nest)
      bad(nest == 0
              ? "loop " + loop_at(k, p.loop).name + " is not a perfect nest: it cannot be flattened"
              : fmt::format("loop {} has {} loop(s) in its perfect nest, not {}",
                            loop_at(k, p.loop).name, nest, p.flatten));
    const loop::Loop& copied = loop_at(k, copied_loop(k, p));
    if (copied.trip % p.unroll != 0)
      bad(fmt::format("unroll={} does not divide the trip count {} of loop {}", p.unroll,
                      copied.trip, copied.name),
          "valid factors: " +
              fmt::format("{}", fmt::join(loop::unroll_factors(copied.trip), ", ")));
  }
  return p;
}

std::string plan_key(const loop::Kernel& k, const LayerPlan& p) {
  return k.name + ":" + plan_text(k, p);
}

uint64_t plan_hash(std::string_view key) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

int64_t plan_iterations(const loop::Kernel& k, const LayerPlan& p) {
  if (p.loop < 0) return 1;
  int64_t n = 1;
  for (int l : kept_loops(k, p)) n *= k.loops[static_cast<std::size_t>(l)].trip;
  return n / std::max<int64_t>(1, p.unroll);
}

int64_t plan_unrolled_ops(const loop::Kernel& k, const LayerPlan& p) {
  const int64_t all = loop::dynamic_ops(k);
  if (p.loop < 0) return all;
  for (const loop::Stmt& st : dfg::top_level(k))
    if (st.kind == loop::StmtKind::For && st.loop == p.loop) {
      const int64_t inside = loop::dynamic_ops(k, {st});
      return all - inside + inside / plan_iterations(k, p);
    }
  return all;
}

std::string describe(const loop::Kernel& k, const LayerPlan& p) {
  std::string dsps = p.constants_on_dsps ? ", products by weights on DSPs" : "";
  if (p.multipliers)
    dsps += *p.multipliers == 0 ? ", products of two variables in LUTs"
                                : fmt::format(", products of two variables on {} DSP multiplier{}",
                                              *p.multipliers, *p.multipliers == 1 ? "" : "s");
  if (p.least_depth) dsps += ", sums at the least adder depth";
  if (p.loop < 0)
    return (p.line_buffered ? "line-buffered, fully unrolled" : "fully unrolled") + dsps;
  std::string s = fmt::format("{}loop {}/{}", p.line_buffered ? "line-buffered, " : "", k.name,
                              loop_at(k, p.loop).name);
  const std::vector<int> kept = kept_loops(k, p);
  for (std::size_t i = 1; i < kept.size(); ++i)
    s += fmt::format("{}{}", i == 1 ? " flattened with " : ", ", loop_at(k, kept[i]).name);
  if (p.unroll > 1) s += fmt::format(" unrolled by {}", p.unroll);
  s += p.pipeline_ii ? ", pipelined" : ", not pipelined";
  if (p.weights == WeightPlace::Registers) s += ", weights in registers";
  if (p.weights == WeightPlace::Banked) s += ", weights banked by copy";
  return s + dsps;
}

PlanConfig plan_config(const loop::Program& program, int kernel, const LayerPlan& p,
                       bool has_line_buffered_form) {
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  PlanConfig c;
  auto loop_key = [&](int l) { return k.name + "/" + loop_at(k, l).name; };
  if (p.loop < 0) {
    if (const int first = first_top_loop(k); first >= 0)
      c.directives.loops[loop_key(first)].unroll = 0;
  } else {
    c.directives.loops[loop_key(p.loop)].pipeline_ii = p.pipeline_ii;
    const std::vector<int> kept = kept_loops(k, p);
    for (std::size_t i = 0; i + 1 < kept.size(); ++i)
      c.directives.loops[loop_key(kept[i])].flatten = true;
    if (kept.size() == 1)
      c.directives.loops[loop_key(p.loop)].unroll = p.unroll;
    else if (p.unroll > 1)
      c.directives.loops[loop_key(kept.back())].unroll = p.unroll;
  }
  for (int b : weights_of(program, kernel)) {
    const std::string& name = program.buffers[static_cast<std::size_t>(b)].name;
    if (p.weights == WeightPlace::Registers)
      c.directives.buffers[name].storage = loop::Storage::Registers;
    if (p.weights == WeightPlace::Banked)
      if (const auto d = banked_partition(program, kernel, p, b)) c.directives.buffers[name] = *d;
  }
  if (has_line_buffered_form)
    c.conv_impl = p.line_buffered ? hls::ConvImpl::LineBuffer : hls::ConvImpl::Encoded;
  c.constant_products =
      p.constants_on_dsps ? hls::ConstantProducts::Dsp : hls::ConstantProducts::Lut;
  c.multiplier_limit = p.multipliers;
  c.adder_depth = p.least_depth ? hls::AdderDepth::Least : hls::AdderDepth::Lean;
  return c;
}

LayerPlan configured_plan(const loop::Program& program, int kernel,
                          const std::map<std::string, std::string>& where) {
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  // The inner loops of flattened nests: kept with the loop they are flattened
  // into; the innermost's Unroll copies the flattened body (neighbouring
  // pixels), it does not keep it.
  std::set<int> inner_of_flattened;
  for (std::size_t l = 0; l < k.loops.size(); ++l)
    if (k.loops[l].directives.flatten)
      inner_of_flattened.insert(dfg::perfect_inner_loop(k, static_cast<int>(l)));
  LayerPlan plan;
  plan.line_buffered = k.line_buffered;
  for (std::size_t l = 0; l < k.loops.size(); ++l) {
    const loop::Loop& lp = k.loops[l];
    const loop::LoopDirectives& d = lp.directives;
    if (inner_of_flattened.count(static_cast<int>(l))) continue;
    // Kept: pipelined, flattened, or unrolled by a factor short of the trip count.
    const bool keep =
        d.pipeline_ii || d.flatten || (d.unroll && *d.unroll != 0 && *d.unroll != lp.trip);
    if (!keep) continue;
    const std::string name = k.name + "/" + lp.name;
    if (plan.loop >= 0) {
      const auto w = where.find(name);
      throw_error(ErrorKind::Unsupported, w == where.end() ? "Loop." + name : w->second,
                  fmt::format("layer '{}' keeps loop {} already; kiln rtl keeps one loop per "
                              "layer so far",
                              k.onnx_name, loop_at(k, plan.loop).name),
                  "pipeline or partially unroll one top-level loop of the layer");
    }
    plan.loop = static_cast<int>(l);
    // Flatten on this loop, on the loop inside it, ...: the nest kept with it.
    plan.flatten = 0;
    for (int f = plan.loop; f >= 0 && k.loops[static_cast<std::size_t>(f)].directives.flatten;
         f = dfg::perfect_inner_loop(k, f))
      ++plan.flatten;
    const loop::Loop& copied = loop_at(k, copied_loop(k, plan));
    const int64_t u = copied.directives.unroll.value_or(1);
    plan.unroll = u == 0 ? copied.trip : u;
    plan.pipeline_ii = d.pipeline_ii;
  }
  // Weights in registers: every weight the kernel reads is (a configured
  // storage of some of them is the config's, not a plan's); banked: every
  // weight a bank per copy has is, and one is.
  const std::vector<int> weights = weights_of(program, kernel);
  const auto every = [&](const std::function<bool(const loop::Buffer&, int)>& holds) {
    return plan.loop >= 0 && !weights.empty() &&
           std::all_of(weights.begin(), weights.end(), [&](int b) {
             return holds(program.buffers[static_cast<std::size_t>(b)], b);
           });
  };
  if (every([](const loop::Buffer& b, int) {
        return b.directives.storage == loop::Storage::Registers;
      })) {
    plan.weights = WeightPlace::Registers;
  } else {
    bool any = false;
    const bool all = every([&](const loop::Buffer& b, int id) {
      const auto d = banked_partition(program, kernel, plan, id);
      any = any || d;
      return d ? b.directives == *d : b.directives == loop::BufferDirectives{};
    });
    if (all && any) plan.weights = WeightPlace::Banked;
  }
  return plan;
}

void apply_plan(loop::Program& program, int kernel, const LayerPlan& plan) {
  loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  KILN_ASSERT(k.line_buffered == plan.line_buffered,
              "a plan applied to the other form of " + k.name);
  for (loop::Loop& l : k.loops) l.directives = {};
  if (plan.loop < 0) {
    if (const int first = first_top_loop(k); first >= 0)
      k.loops[static_cast<std::size_t>(first)].directives.unroll = 0;
  } else {
    k.loops[static_cast<std::size_t>(plan.loop)].directives.pipeline_ii = plan.pipeline_ii;
    const std::vector<int> kept = kept_loops(k, plan);
    for (std::size_t i = 0; i + 1 < kept.size(); ++i)
      k.loops[static_cast<std::size_t>(kept[i])].directives.flatten = true;
    const int copied = kept.back();
    const loop::Loop& c = k.loops[static_cast<std::size_t>(copied)];
    // Unroll 1 keeps a loop that nothing else does (not pipelined, not flattened).
    if (plan.unroll > 1 || !plan.flatten)
      k.loops[static_cast<std::size_t>(copied)].directives.unroll =
          plan.unroll == c.trip ? 0 : plan.unroll;
  }
  place_weights(program, kernel, plan);
}

void place_weights(loop::Program& program, int kernel, const LayerPlan& plan,
                   const std::set<std::string>& keep) {
  for (int b : weights_of(program, kernel)) {
    loop::Buffer& buf = program.buffers[static_cast<std::size_t>(b)];
    if (keep.count(buf.name)) continue;
    if (plan.weights == WeightPlace::Registers) buf.directives.storage = loop::Storage::Registers;
    if (plan.weights == WeightPlace::Banked)
      if (const auto d = banked_partition(program, kernel, plan, b)) buf.directives = *d;
  }
}

std::optional<loop::BufferDirectives> banked_partition(const loop::Program& program, int kernel,
                                                       const LayerPlan& plan, int buffer) {
  const loop::Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
  if (plan.loop < 0) return std::nullopt;
  const std::vector<int> kept = kept_loops(k, plan);
  const loop::Buffer& buf = program.buffers[static_cast<std::size_t>(buffer)];
  // The kept loop whose Unroll copies the body (the innermost kept), when it
  // is unrolled: its copies read along a dimension it indexes alone, with
  // coefficient 1, which a cyclic partition by the factor banks.
  const int unrolled = plan.unroll > 1 ? kept.back() : -1;
  // Per dimension: indexed by a copied loop somewhere, by a kept one anywhere;
  // and by the unrolled kept loop alone (with coefficient 1) in every load.
  std::vector<char> copied(buf.shape.size(), 0), moved(buf.shape.size(), 0);
  std::vector<char> by_unrolled(buf.shape.size(), unrolled >= 0 ? 1 : 0);
  bool loaded = false;
  for (const loop::Value& v : k.values) {
    if (v.op != loop::Op::Load || program.storage_of(v.buffer) != buffer) continue;
    // A view (a Reshape) indexes another shape: leave it unbanked.
    if (v.buffer != buffer || v.index.size() != buf.shape.size()) return std::nullopt;
    loaded = true;
    for (std::size_t d = 0; d < v.index.size(); ++d) {
      bool alone = false;
      for (const auto& [l, c] : v.index[d].terms) {
        // A loop of one iteration (a convolution's group loop) moves nothing.
        if (c == 0 || k.loops[static_cast<std::size_t>(l)].trip < 2) continue;
        const bool is_kept = std::find(kept.begin(), kept.end(), l) != kept.end();
        (is_kept ? moved : copied)[d] = 1;
        if (l == unrolled && c == 1)
          alone = true;
        else if (is_kept)
          by_unrolled[d] = 0;
      }
      if (!alone) by_unrolled[d] = 0;
    }
  }
  if (!loaded) return std::nullopt;
  const auto banks_by = [&](std::size_t d) { return copied[d] && !moved[d] && buf.shape[d] > 1; };
  // The trailing dimensions to bank by, each partitioned completely: a
  // bank per combination of them.
  std::vector<int> trailing;  // 0-based, innermost first
  for (std::size_t d = buf.shape.size(); d-- > 0;) {
    if (buf.shape[d] == 1) continue;
    if (!banks_by(d)) break;
    trailing.push_back(static_cast<int>(d));
  }
  // The unrolled kept loop's dimension, cyclic by the factor (each copy of
  // an input-channel loop unrolled by 4 its own bank), with the trailing
  // dimensions complete as well.
  for (std::size_t d = 0; d < buf.shape.size(); ++d)
    if (by_unrolled[d] && buf.shape[d] > plan.unroll && buf.shape[d] % plan.unroll == 0) {
      loop::BufferDirectives b;
      b.partition = loop::Partition::Cyclic;
      b.factor = plan.unroll;
      b.dim = static_cast<int>(d) + 1;
      for (std::size_t i = trailing.size(); i-- > 0;) b.more_dims.push_back(trailing[i] + 1);
      return b;
    }
  if (trailing.size() >= 2) {
    loop::BufferDirectives b = banked(trailing.back());
    for (std::size_t i = trailing.size() - 1; i-- > 0;) b.more_dims.push_back(trailing[i] + 1);
    return b;
  }
  int best = -1;
  for (std::size_t d = 0; d < buf.shape.size(); ++d)
    if (banks_by(d) && (best < 0 || buf.shape[d] > buf.shape[static_cast<std::size_t>(best)]))
      best = static_cast<int>(d);
  if (best < 0) return std::nullopt;
  return banked(best);
}

std::string plans_yaml(const std::vector<PlanConfig>& plans,
                       const std::vector<std::string>& layer_names, const std::string& comment) {
  KILN_ASSERT(plans.size() == layer_names.size(), "plans_yaml: a name per plan");
  std::string s;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) s += "# " + line + "\n";
  std::string impl, loops, buffers;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const PlanConfig& c = plans[i];
    std::string layer;
    if (c.conv_impl) layer += fmt::format("    ConvImplementation: {}\n", enum_name(*c.conv_impl));
    if (c.constant_products != hls::ConstantProducts::Lut)
      layer += fmt::format("    ConstantProducts: {}\n", enum_name(c.constant_products));
    if (c.multiplier_limit) layer += fmt::format("    MultiplierLimit: {}\n", *c.multiplier_limit);
    if (c.adder_depth != hls::AdderDepth::Lean)
      layer += fmt::format("    AdderDepth: {}\n", enum_name(c.adder_depth));
    if (!layer.empty()) impl += "  " + layer_names[i] + ":\n" + layer;
    // Every block says Pipeline (a number or off), so that it reads the
    // same merged over a config that pipelines the loop.
    for (const auto& [name, d] : c.directives.loops) {
      loops += "  " + name + ":\n";
      loops += d.pipeline_ii ? fmt::format("    Pipeline: {}\n", *d.pipeline_ii)
                             : std::string("    Pipeline: off\n");
      if (d.flatten) loops += "    Flatten: true\n";
      if (d.unroll)
        loops += *d.unroll == 0 ? "    Unroll: full\n" : fmt::format("    Unroll: {}\n", *d.unroll);
    }
    for (const auto& [name, d] : c.directives.buffers) {
      buffers += "  " + name + ":\n";
      if (d.partition != loop::Partition::None) {
        buffers += fmt::format("    Partition: {}\n", enum_name(d.partition));
        if (d.factor > 0) buffers += fmt::format("    Factor: {}\n", d.factor);
        if (d.dim > 0 && d.more_dims.empty()) buffers += fmt::format("    Dim: {}\n", d.dim);
        if (d.dim > 0 && !d.more_dims.empty())
          buffers += fmt::format("    Dim: [{}, {}]\n", d.dim, fmt::join(d.more_dims, ", "));
      }
      if (d.storage != loop::Storage::Auto || d.partition == loop::Partition::None)
        buffers += fmt::format("    Storage: {}\n", enum_name(d.storage));
    }
  }
  if (!impl.empty()) s += "LayerName:\n" + impl;
  if (!loops.empty()) s += "Loop:\n" + loops;
  if (!buffers.empty()) s += "Buffer:\n" + buffers;
  return s;
}

}  // namespace kiln::rtl

#include "kiln/loop/loop_sites.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

namespace kiln::loop {

namespace {

struct Walker {
  const Program& program;
  int kernel;
  std::vector<LoopSite>& out;

  std::vector<int> enclosing;

  void walk(const std::vector<Stmt>& stmts, const std::string& parent, int depth, int64_t runs) {
    const Kernel& k = program.kernels[static_cast<std::size_t>(kernel)];
    for (const Stmt& s : stmts) {
      if (s.kind == StmtKind::If) walk(s.body, parent, depth, guarded_runs(k, s, runs, enclosing));
      if (s.kind != StmtKind::For) continue;
      const Loop& l = k.loops.at(static_cast<std::size_t>(s.loop));
      LoopSite site;
      site.name = k.name + "/" + l.name;
      site.layer = k.onnx_name;
      site.kernel = kernel;
      site.loop = s.loop;
      site.parent = parent;
      site.depth = depth;
      site.trip = l.trip;
      site.runs = runs;
      enclosing.push_back(s.loop);
      std::vector<int> around = enclosing;
      int64_t ops = 0;
      // The body's operations as dynamic_ops counts them inside these loops.
      std::function<void(const std::vector<Stmt>&, int64_t)> count =
          [&](const std::vector<Stmt>& body, int64_t n) {
            for (const Stmt& b : body) {
              if (b.kind == StmtKind::Let) ops += n;
              if (b.kind == StmtKind::If) count(b.body, guarded_runs(k, b, n, around));
              if (b.kind == StmtKind::For) {
                around.push_back(b.loop);
                count(b.body, n * k.loops.at(static_cast<std::size_t>(b.loop)).trip);
                around.pop_back();
              }
            }
          };
      count(s.body, runs * l.trip);
      site.ops = ops;
      site.perfect = s.body.size() == 1 && s.body.front().kind == StmtKind::For;
      site.directives = l.directives;
      const std::string name = site.name;
      out.push_back(std::move(site));
      walk(s.body, name, depth + 1, runs * l.trip);
      enclosing.pop_back();
    }
  }
};

// As the Loop IR text spells them (unroll=0: fully unrolled).
std::string directives_text(const LoopDirectives& d) {
  std::string s;
  if (d.unroll) s += fmt::format("unroll={}", *d.unroll);
  if (d.pipeline_ii) s += fmt::format("{}pipeline={}", s.empty() ? "" : " ", *d.pipeline_ii);
  if (d.flatten) s += fmt::format("{}flatten", s.empty() ? "" : " ");
  return s.empty() ? "-" : s;
}

}  // namespace

std::vector<LoopSite> loop_sites(const Program& program) {
  std::vector<LoopSite> sites;
  for (std::size_t k = 0; k < program.kernels.size(); ++k)
    Walker{program, static_cast<int>(k), sites, {}}.walk(program.kernels[k].body, "", 0, 1);
  return sites;
}

std::optional<LoopSite> find_loop_site(const Program& program, const std::string& name) {
  for (LoopSite& s : loop_sites(program))
    if (s.name == name) return std::move(s);
  return std::nullopt;
}

std::string print_loop_sites(const std::vector<LoopSite>& sites) {
  std::size_t width = 4;
  for (const LoopSite& s : sites)
    width = std::max(width, s.name.size() + 2 * static_cast<std::size_t>(s.depth));
  std::string text = fmt::format("{:<{}}  {:>8}  {:>8}  {:>10}  {:<7}  {}\n", "loop", width, "trip",
                                 "runs", "ops", "perfect", "directives");
  for (const LoopSite& s : sites)
    text +=
        fmt::format("{:<{}}  {:>8}  {:>8}  {:>10}  {:<7}  {}\n",
                    std::string(2 * static_cast<std::size_t>(s.depth), ' ') + s.name, width, s.trip,
                    s.runs, s.ops, s.perfect ? "yes" : "no", directives_text(s.directives));
  return text;
}

std::string print_buffer_table(const Program& program) {
  std::size_t width = 6;
  for (const Buffer& b : program.buffers) width = std::max(width, b.name.size());
  std::string text = fmt::format("{:<{}}  {:<6}  {:<18}  {:<12}  {:>9}  {}\n", "buffer", width,
                                 "role", "type", "shape", "elements", "directives");
  for (const Buffer& b : program.buffers) {
    const BufferDirectives& d = b.directives;
    std::string dir;
    if (b.alias_of >= 0)
      dir = "views " + program.buffers[static_cast<std::size_t>(b.alias_of)].name;
    if (d.partition != Partition::None) {
      dir += fmt::format("{}partition={}", dir.empty() ? "" : " ", enum_name(d.partition));
      if (d.factor) dir += fmt::format(" factor={}", d.factor);
      if (d.dim) dir += fmt::format(" dim={}", d.dim);
      for (int x : d.more_dims) dir += fmt::format(" dim={}", x);
    }
    if (d.storage != Storage::Auto)
      dir += fmt::format("{}storage={}", dir.empty() ? "" : " ", enum_name(d.storage));
    text +=
        fmt::format("{:<{}}  {:<6}  {:<18}  {:<12}  {:>9}  {}\n", b.name, width, enum_name(b.role),
                    to_string(b.type), fmt::format("{}", fmt::join(b.shape, "x")), b.numel(),
                    dir.empty() ? "-" : dir);
  }
  return text;
}

}  // namespace kiln::loop

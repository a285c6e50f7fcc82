#include "kiln/loop/directives.h"

#include <fmt/format.h>

#include <algorithm>

#include "kiln/loop/loop_sites.h"
#include "kiln/support/error.h"
#include "kiln/support/strings.h"

namespace kiln::loop {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what,
                       const std::string& hint = {}) {
  throw_error(ErrorKind::InvalidModel, where, what, hint);
}

std::string names_hint(const std::string& name, const std::vector<std::string>& valid,
                       const std::string& listing) {
  if (auto best = closest_spelling(name, valid)) return "did you mean '" + *best + "'?";
  return listing;
}

}  // namespace

std::vector<int64_t> unroll_factors(int64_t trip) {
  std::vector<int64_t> f;
  for (int64_t d = 1; d <= trip; ++d)
    if (trip % d == 0) f.push_back(d);
  return f;
}

void apply_directives(Program& program, const hls::ConfiguredDirectives& settings) {
  for (const auto& [name, given] : settings.loops) {
    const std::string where = settings.where_of_loop(name);
    const std::optional<LoopSite> site = find_loop_site(program, name);
    if (!site) {
      std::vector<std::string> names;
      for (const LoopSite& s : loop_sites(program)) names.push_back(s.name);
      fail(where, "the model has no loop '" + name + "'",
           names_hint(name, names, "kiln rtl --list-loops MODEL prints the loops' names"));
    }
    Loop& loop = program.kernels[static_cast<std::size_t>(site->kernel)]
                     .loops[static_cast<std::size_t>(site->loop)];
    LoopDirectives d = given;
    if (d.unroll) {
      const int64_t u = *d.unroll;
      if (u != 0 && loop.trip % u != 0)
        fail(where + ".Unroll",
             fmt::format("{} does not divide the trip count {} of {}", u, loop.trip, name),
             "valid: " + join(unroll_factors(loop.trip), ", ") + " or full");
      if (u == loop.trip) d.unroll = 0;  // a full factor is full unrolling
    }
    if (d.flatten && !site->perfect)
      fail(where + ".Flatten",
           fmt::format("{} is not a perfect nest (its body is not exactly one loop)", name),
           "flatten a loop that kiln rtl --list-loops shows as perfect");
    if (d.flatten && d.unroll.value_or(1) != 1)
      fail(where + ".Flatten", fmt::format("{} is both flattened and unrolled", name),
           "flatten it, and unroll the loop inside it to take several of its iterations at once");
    // A block that sets nothing else (Pipeline off alone) still says how the
    // loop is built: unrolled fully, as every loop nothing keeps.
    if (!d.any()) d.unroll = 0;
    loop.directives = d;
  }
  for (const auto& [name, d] : settings.buffers) {
    const std::string where = settings.where_of_buffer(name);
    const int b = program.find_buffer(name);
    if (b < 0) {
      std::vector<std::string> names;
      for (const Buffer& buf : program.buffers) names.push_back(buf.name);
      fail(where, "the model has no buffer '" + name + "'",
           names_hint(name, names, "the Loop IR's buffers: " + join(names, ", ")));
    }
    Buffer& buf = program.buffers[static_cast<std::size_t>(b)];
    const int rank = static_cast<int>(buf.shape.size());
    if ((d.factor != 0 || d.dim != 0) && d.partition == Partition::None)
      fail(where, "Factor and Dim describe a partition, and " + name + " has none",
           "add Partition: cyclic, block or complete");
    if (d.dim < 0 || d.dim > rank)
      fail(where + ".Dim",
           fmt::format("{} has {} dimension{}; Dim {} is not one of them", name, rank,
                       rank == 1 ? "" : "s", d.dim),
           fmt::format("valid: 0 (all) to {}", rank));
    for (int x : d.more_dims) {
      if (d.partition == Partition::None || d.dim == 0)
        fail(where + ".Dim", "a list of dimensions needs a Partition and names dimensions",
             "e.g. Partition: complete with Dim: [3, 4]");
      if (x < 1 || x > rank || x == d.dim ||
          std::count(d.more_dims.begin(), d.more_dims.end(), x) > 1)
        fail(where + ".Dim",
             fmt::format("{} has {} dimension{}; Dim {} is not another one of them", name, rank,
                         rank == 1 ? "" : "s", x),
             fmt::format("list distinct dimensions from 1 to {}", rank));
    }
    const bool needs_factor = d.partition == Partition::Cyclic || d.partition == Partition::Block;
    if (needs_factor && d.factor == 0)
      fail(where, fmt::format("a {} partition needs a Factor", enum_name(d.partition)),
           "e.g. Factor: 2");
    if (!needs_factor && d.factor != 0)
      fail(where + ".Factor", fmt::format("a {} partition takes no Factor", enum_name(d.partition)),
           "remove it, or use Partition: cyclic or block");
    if (needs_factor) {
      const int64_t size =
          d.dim == 0 ? buf.numel() : buf.shape[static_cast<std::size_t>(d.dim - 1)];
      if (d.factor < 2 || d.factor > size)
        fail(where + ".Factor",
             fmt::format("{} is outside 2..{}, the size of the partitioned {}", d.factor, size,
                         d.dim == 0 ? "buffer" : "dimension"),
             fmt::format("valid: 2 to {}", size));
    }
    buf.directives = d;
  }
}

}  // namespace kiln::loop

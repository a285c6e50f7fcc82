#include "kiln/netlist/ops.h"

#include <array>
#include <string>
#include <unordered_map>

namespace kiln::netlist {

namespace {

struct Names {
  std::array<std::string_view, kNumOps> by_op{};
  std::unordered_map<std::string_view, Op> by_name;
  Names() {
    for (const auto& [op, name] : EnumNames<Op>::kNames) {
      by_op[static_cast<std::size_t>(op)] = name;
      by_name.emplace(name, op);
    }
  }
};

const Names& names() {
  static const Names n;
  return n;
}

}  // namespace

std::string_view op_name(Op op) {
  return names().by_op[static_cast<std::size_t>(op)];
}

std::optional<Op> op_from_name(std::string_view name) {
  const auto& m = names().by_name;
  const auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

}  // namespace kiln::netlist

#include "kiln/rtl/verilog_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {
using numeric::int128;
__extension__ typedef unsigned __int128 uint128;

std::string hex(uint128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v != 0) {
    s.insert(s.begin(), "0123456789abcdef"[static_cast<int>(v & 15)]);
    v >>= 4;
  }
  return s;
}

uint128 masked(int128 v, int width) {
  KILN_ASSERT(width >= 1 && width <= 127, "literal width " + std::to_string(width));
  return static_cast<uint128>(v) & ((uint128{1} << width) - 1);
}
}  // namespace

std::string range(int width) {
  KILN_ASSERT(width >= 1, "a signal of width " + std::to_string(width));
  return width == 1 ? "" : fmt::format("[{}:0] ", width - 1);
}

std::string literal(int128 v, int width) {
  // Wider than the arithmetic here (a valid bit per pipeline stage of a long
  // iteration): the value's bits, sign-extended by replication.
  if (width > 127)
    return fmt::format("{{{{{}{{1'b{}}}}}, {}}}", width - 127, v < 0 ? 1 : 0, literal(v, 127));
  return fmt::format("{}'h{}", width, hex(masked(v, width)));
}

std::string literal_signed(int128 v, int width) {
  return fmt::format("{}'sh{}", width, hex(masked(v, width)));
}

std::string literal_aligned(int64_t raw, const loop::ScalarType& type, int width, int frac) {
  const int s = frac - type.frac;
  int128 v = raw;
  if (s >= 0) {
    KILN_ASSERT(s < 120, "constant shifted too far");
    v = v * (int128{1} << s);
  } else {
    KILN_ASSERT(-s < 120 && v % (int128{1} << -s) == 0, "a constant is off the grid it is used on");
    v = v / (int128{1} << -s);
  }
  return literal(v, width);
}

std::string align(const std::string& id, const loop::ScalarType& from, int width, int frac,
                  bool* truncated) {
  const int s = frac - from.frac;
  KILN_ASSERT(s >= 0, "aligning " + id + " would drop fraction bits");
  const int keep = std::min(from.width, width - s);  // bits of id kept
  if (truncated) *truncated = keep < from.width;
  if (keep <= 0) return literal(0, width);
  std::string body = id;
  if (keep < from.width)
    body = keep == 1 ? fmt::format("{}[0]", id) : fmt::format("{}[{}:0]", id, keep - 1);
  const int high = width - s - keep;
  std::string parts;
  if (high > 0) {
    const std::string sign =
        from.is_signed ? (from.width == 1 ? id : fmt::format("{}[{}]", id, from.width - 1))
                       : "1'b0";
    parts = high == 1 ? sign : fmt::format("{{{}{{{}}}}}", high, sign);
  }
  parts += (parts.empty() ? "" : ", ") + body;
  if (s > 0) parts += fmt::format(", {}'b0", s);
  if (high <= 0 && s == 0) return body;
  return "{" + parts + "}";
}

std::string unused_sinks(const std::vector<std::string>& ids) {
  constexpr std::size_t kGroup = 64;
  std::string text;
  for (std::size_t g = 0; g < ids.size(); g += kGroup) {
    std::string list;
    for (std::size_t i = g; i < std::min(ids.size(), g + kGroup); ++i)
      list += (i > g ? ", " : "") + ids[i];
    text += fmt::format("  wire unused_ok{} = ^{{{}}};\n", g / kGroup, list);
  }
  return text;
}

}  // namespace kiln::rtl

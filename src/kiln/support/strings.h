// Small string helpers shared by every module.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kiln {

// Elements of `range` separated by `sep`: numbers through std::to_string,
// anything convertible to std::string_view as is.
template <class Range>
std::string join(const Range& range, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& x : range) {
    if (!first) out += sep;
    first = false;
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_arithmetic_v<T>)
      out += std::to_string(x);
    else
      out += std::string_view(x);
  }
  return out;
}

// The pieces of `text` between the separators, spaces around each trimmed
// ("a, b" -> {"a", "b"}); empty text gives none, and an empty piece is kept
// ("a,,b" -> {"a", "", "b"}) for the caller to refuse.
std::vector<std::string> split_list(std::string_view text, char separator = ',');

// Case-insensitive Levenshtein distance.
int edit_distance(std::string_view a, std::string_view b);
// The candidate closest to `word` if it is close enough to be a typo (at most
// a third of the word's length away, at least 2), else nullopt.
std::optional<std::string> closest_spelling(std::string_view word,
                                            const std::vector<std::string>& candidates);

}  // namespace kiln

#include "kiln/support/strings.h"

#include <algorithm>
#include <cctype>

namespace kiln {

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::size_t b = 0;
  while (true) {
    const std::size_t e = std::min(text.find(separator, b), text.size());
    std::string_view piece = text.substr(b, e - b);
    while (!piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
    out.emplace_back(piece);
    if (e == text.size()) break;
    b = e + 1;
  }
  return out;
}

int edit_distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int subst = prev[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest_spelling(std::string_view word,
                                            const std::vector<std::string>& candidates) {
  const int limit = std::max(2, static_cast<int>(word.size()) / 3);
  std::optional<std::string> best;
  int best_d = limit + 1;
  for (const std::string& c : candidates) {
    const int d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace kiln

// Facts about enums kept in one table per enum.
//
//  - EnumNames<E>: the one spelling of each value (config files, IR text,
//    reports, messages). Specialize it next to the enum:
//        template <> struct EnumNames<Mode> {
//          static constexpr std::pair<Mode, std::string_view> kNames[] = {...};
//        };
//  - make_enum_table<E, N>(rows): a constexpr array indexed by an enum whose
//    rows the compiler checks: every value has exactly one row. A table that
//    misses a value fails to compile with a call to
//    `enum_table_misses_a_value` (or `enum_table_lists_a_value_twice`) in the
//    error, which is how per-kind handlers (shape inference, evaluation, ...)
//    stay complete without a `default:`.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kiln {

template <class E>
struct EnumNames;  // specialize with `static constexpr std::pair<E, std::string_view> kNames[]`

template <class E>
std::string_view enum_name(E value) {
  for (const auto& [v, name] : EnumNames<E>::kNames)
    if (v == value) return name;
  return "?";
}

template <class E>
std::optional<E> enum_from_name(std::string_view name) {
  for (const auto& [v, n] : EnumNames<E>::kNames)
    if (n == name) return v;
  return std::nullopt;
}

// "a | b | c": every spelling, for messages and help texts.
template <class E>
std::string enum_choices(std::string_view sep = " | ") {
  std::string s;
  for (const auto& [v, n] : EnumNames<E>::kNames) {
    if (!s.empty()) s += sep;
    s += n;
  }
  return s;
}

// Not constexpr on purpose: reaching one in a constant evaluation is the
// compile error that names the problem.
inline void enum_table_misses_a_value() {}
inline void enum_table_lists_a_value_twice() {}

template <class E, class T, std::size_t N>
class EnumTable {
 public:
  constexpr explicit EnumTable(const std::array<T, N>& values) : values_(values) {}
  constexpr const T& operator[](E e) const { return values_[static_cast<std::size_t>(e)]; }
  static constexpr std::size_t size() { return N; }

 private:
  std::array<T, N> values_;
};

// One row: the enum values it covers and their entry.
template <class E, class T>
struct EnumRow {
  std::initializer_list<E> keys;
  T value;
};

template <class E, std::size_t N, class T>
consteval EnumTable<E, T, N> make_enum_table(std::initializer_list<EnumRow<E, T>> rows) {
  std::array<T, N> values{};
  std::array<bool, N> seen{};
  for (const EnumRow<E, T>& row : rows)
    for (E key : row.keys) {
      const auto i = static_cast<std::size_t>(key);
      if (i >= N || seen[i]) enum_table_lists_a_value_twice();
      seen[i] = true;
      values[i] = row.value;
    }
  for (bool s : seen)
    if (!s) enum_table_misses_a_value();
  return EnumTable<E, T, N>(values);
}

}  // namespace kiln

// Typed structs as text, for the IR texts: a struct lists its fields once in a
// static `visit(self, f)` (f("name", self.field) per field), and these
// templates print and parse it as {name=value name=value}.
//
// Values: integers, true/false, floats (shortest text that reads back
// exactly), "strings", [lists], enum spellings from EnumNames, nested structs
// in braces, and any type with a FieldCodec specialization (its own spelling,
// e.g. fixed-point types in numeric/fixed_text.h). A field equal to its value in a
// default-constructed struct is not printed, so a struct's text names what is special about it.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kiln/support/enum_table.h"
#include "kiln/support/strings.h"
#include "kiln/support/text_lexer.h"

namespace kiln {

// Specialize for a type with its own spelling:
//   template <> struct FieldCodec<T> {
//     static std::string format(const T&);
//     static void parse(Lexer&, T&);  // fails through the lexer
//   };
template <class T>
struct FieldCodec;

template <class T>
concept HasFieldCodec = requires(const T& v) {
  { FieldCodec<T>::format(v) } -> std::convertible_to<std::string>;
};

template <class T>
concept FieldStruct = requires(T& t) {
  T::visit(t, [](const char*, auto&) {});
};

template <class T>
concept NamedEnum = std::is_enum_v<T> && requires {
  EnumNames<T>::kNames;
};

template <class T>
std::string format_field(const T& v);

template <class T>
std::string format_fields(const T& s) {
  const T defaults{};
  std::vector<std::string> parts;
  // Visit the defaults alongside: the n-th call of each visit is the same field.
  std::vector<std::string> default_text;
  T::visit(defaults, [&](const char*, const auto& d) { default_text.push_back(format_field(d)); });
  std::size_t i = 0;
  T::visit(s, [&](const char* name, const auto& v) {
    std::string text = format_field(v);
    if (text != default_text[i++]) parts.push_back(std::string(name) + "=" + text);
  });
  return join(parts, " ");
}

template <class T>
std::string format_field(const T& v) {
  if constexpr (HasFieldCodec<T>) {
    return FieldCodec<T>::format(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return quote(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, float>) {
    return format_float(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return format_double(v);
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (NamedEnum<T>) {
    return std::string(enum_name(v));
  } else if constexpr (FieldStruct<T>) {
    return "{" + format_fields(v) + "}";
  } else {
    // std::vector<...>
    std::vector<std::string> items;
    for (const auto& x : v) items.push_back(format_field(x));
    return "[" + join(items, ",") + "]";
  }
}

template <class T>
void parse_field(Lexer& lx, T& v);

// Parses "{name=value ...}" into `s`; fields not named keep their values.
// `what` names the struct in messages ("Conv attributes").
template <class T>
void parse_fields(Lexer& lx, T& s, std::string_view what) {
  lx.expect('{');
  std::vector<std::string> seen;
  while (!lx.accept('}')) {
    const Token name_tok = lx.peek();
    const std::string name = lx.expect_ident();
    lx.expect('=');
    bool found = false;
    T::visit(s, [&](const char* field, auto& value) {
      if (found || name != field) return;
      found = true;
      parse_field(lx, value);
    });
    if (!found) {
      std::vector<std::string> names;
      T::visit(s, [&](const char* field, const auto&) { names.emplace_back(field); });
      const auto best = closest_spelling(name, names);
      lx.fail_at(name_tok, std::string(what) + " have no field '" + name + "'" +
                               (best            ? "; did you mean '" + *best + "'?"
                                : names.empty() ? std::string("; they have no fields")
                                                : "; fields: " + join(names, ", ")));
    }
    for (const std::string& n : seen)
      if (n == name) lx.fail_at(name_tok, "field '" + name + "' is given twice");
    seen.push_back(name);
  }
}

template <class T>
void parse_field(Lexer& lx, T& v) {
  if constexpr (HasFieldCodec<T>) {
    FieldCodec<T>::parse(lx, v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = lx.expect_string();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (lx.accept_ident("true")) {
      v = true;
    } else if (lx.accept_ident("false")) {
      v = false;
    } else {
      lx.fail("expected true or false, got " + Lexer::describe(lx.peek()));
    }
  } else if constexpr (std::is_same_v<T, float>) {
    v = lx.expect_float();
  } else if constexpr (std::is_same_v<T, double>) {
    v = lx.expect_double();
  } else if constexpr (std::is_integral_v<T>) {
    const Token t = lx.peek();
    const int64_t x = lx.expect_int();
    if (static_cast<int64_t>(static_cast<T>(x)) != x) lx.fail_at(t, "integer out of range");
    v = static_cast<T>(x);
  } else if constexpr (NamedEnum<T>) {
    const Token t = lx.peek();
    const std::string name = lx.expect_ident();
    if (auto e = enum_from_name<T>(name))
      v = *e;
    else
      lx.fail_at(t, "'" + name + "' is not one of " + enum_choices<T>(", "));
  } else if constexpr (FieldStruct<T>) {
    T fresh{};
    parse_fields(lx, fresh, "the struct");
    v = fresh;
  } else {
    v.clear();
    lx.expect('[');
    if (lx.accept(']')) return;
    do {
      typename T::value_type x{};
      parse_field(lx, x);
      v.push_back(x);
    } while (lx.accept(','));
    lx.expect(']');
  }
}

}  // namespace kiln

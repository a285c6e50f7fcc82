#include "kiln/graph/ops.h"

#include <array>
#include <utility>

#include "kiln/support/field_text.h"

namespace kiln {

namespace {

struct OpInfo {
  std::string_view name;
  OpCategory category;
  OpDomain domain;
  std::string_view roles;  // space separated
  std::array<std::string_view, 2> onnx;
  std::size_t attrs_index;
};

// (Parameter names differ from OpInfo's fields, which the designators name.)
#define KILN_OP_INFO(in_domain, kind, in_category, attrs_struct, input_roles, ...) \
  OpInfo{.name = #kind,                                                            \
         .category = OpCategory::in_category,                                      \
         .domain = OpDomain::in_domain,                                            \
         .roles = input_roles,                                                     \
         .onnx = {__VA_ARGS__},                                                    \
         .attrs_index = detail::VariantIndex<Attrs, attrs_struct>::value},
#define KILN_ONNX_OP_INFO(...) KILN_OP_INFO(Onnx, __VA_ARGS__)
#define KILN_QONNX_OP_INFO(...) KILN_OP_INFO(Qonnx, __VA_ARGS__)
#define KILN_OWN_OP_INFO(...) KILN_OP_INFO(Kiln, __VA_ARGS__)
// In KILN_OPS order, so indexed by kind.
constexpr OpInfo kOps[] = {KILN_ONNX_OPS(KILN_ONNX_OP_INFO) KILN_QONNX_OPS(KILN_QONNX_OP_INFO)
                               KILN_OWN_OPS(KILN_OWN_OP_INFO)};
#undef KILN_OWN_OP_INFO
#undef KILN_QONNX_OP_INFO
#undef KILN_ONNX_OP_INFO
#undef KILN_OP_INFO
static_assert(std::size(kOps) == kNumOpKinds);

// Every ONNX spelling of the domains kiln reads; the first of each is its
// canonical name. QONNX renamed its domain from FINN's; Brevitas's old
// exports used onnx.brevitas (QONNX reads all three as one).
constexpr std::pair<OpDomain, std::string_view> kDomainNames[] = {
    {OpDomain::Onnx, "ai.onnx"},
    {OpDomain::Onnx, ""},
    {OpDomain::Qonnx, "qonnx.custom_op.general"},
    {OpDomain::Qonnx, "finn.custom_op.general"},
    {OpDomain::Qonnx, "onnx.brevitas"},
};

const OpInfo& info(OpKind kind) {
  return kOps[static_cast<std::size_t>(kind)];
}

}  // namespace

std::string_view op_name(OpKind kind) {
  return info(kind).name;
}

std::optional<OpKind> op_kind_from_onnx(OpDomain domain, std::string_view onnx_op_type) {
  for (int i = 0; i < kNumOpKinds; ++i) {
    if (kOps[i].domain != domain) continue;
    for (std::string_view n : kOps[i].onnx)
      if (!n.empty() && n == onnx_op_type) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

OpDomain op_domain(OpKind kind) {
  return info(kind).domain;
}

std::optional<OpDomain> op_domain_from_onnx(std::string_view onnx_domain) {
  for (const auto& [domain, name] : kDomainNames)
    if (name == onnx_domain) return domain;
  return std::nullopt;
}

std::string_view onnx_domain_name(OpDomain domain) {
  for (const auto& [d, name] : kDomainNames)
    if (d == domain) return name;
  return "";  // kiln's own kinds have no ONNX domain
}

std::optional<OpKind> op_kind_from_name(std::string_view name) {
  for (int i = 0; i < kNumOpKinds; ++i)
    if (kOps[i].name == name) return static_cast<OpKind>(i);
  return std::nullopt;
}

OpCategory op_category(OpKind kind) {
  return info(kind).category;
}

std::vector<std::string_view> onnx_op_types(OpKind kind) {
  std::vector<std::string_view> out;
  for (std::string_view n : info(kind).onnx)
    if (!n.empty()) out.push_back(n);
  return out;
}

std::string input_role(OpKind kind, std::size_t i) {
  std::string_view roles = info(kind).roles;
  for (std::size_t k = 0; !roles.empty(); ++k) {
    const std::size_t space = roles.find(' ');
    const std::string_view role = roles.substr(0, space);
    if (k == i) return std::string(role);
    if (space == std::string_view::npos) break;
    roles.remove_prefix(space + 1);
  }
  return "input " + std::to_string(i);
}

std::size_t attrs_index(OpKind kind) {
  return info(kind).attrs_index;
}

namespace {
// One function per Attrs alternative that value-initializes it (a table of
// these compiles fast; assigning into an array of variants does not).
template <std::size_t I>
Attrs make_alternative() {
  return Attrs(std::in_place_index<I>);
}
template <std::size_t... I>
constexpr auto alternative_makers(std::index_sequence<I...>) {
  return std::array<Attrs (*)(), sizeof...(I)>{&make_alternative<I>...};
}
constexpr auto kMakers = alternative_makers(std::make_index_sequence<std::variant_size_v<Attrs>>());
}  // namespace

Attrs default_attrs(OpKind kind) {
  return kMakers[attrs_index(kind)]();
}

std::string attrs_to_string(const Attrs& attrs) {
  return std::visit(
      [](const auto& a) -> std::string {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, NoAttrs>)
          return "";
        else
          return format_fields(a);
      },
      attrs);
}

}  // namespace kiln

namespace kiln {

std::string FieldCodec<RnnActivationFn>::format(const RnnActivationFn& fn) {
  std::string s(enum_name(fn.kind));
  if (fn.alpha != 0.0f || fn.beta != 0.0f)
    s += "(" + format_float(fn.alpha) + "," + format_float(fn.beta) + ")";
  return s;
}

void FieldCodec<RnnActivationFn>::parse(Lexer& lx, RnnActivationFn& fn) {
  fn = RnnActivationFn{};
  parse_field(lx, fn.kind);
  if (!lx.accept('(')) return;
  fn.alpha = lx.expect_float();
  lx.expect(',');
  fn.beta = lx.expect_float();
  lx.expect(')');
}

}  // namespace kiln

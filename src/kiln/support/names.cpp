#include "kiln/support/names.h"

#include <cctype>
#include <string>

namespace kiln {

namespace {
// C, C++ and (System)Verilog keywords that a sanitized name could collide with.
constexpr std::string_view kReserved[] = {"alignas",
                                          "alignof",
                                          "always",
                                          "always_comb",
                                          "always_ff",
                                          "always_latch",
                                          "and",
                                          "assign",
                                          "asm",
                                          "auto",
                                          "begin",
                                          "bit",
                                          "bool",
                                          "break",
                                          "buf",
                                          "byte",
                                          "case",
                                          "casex",
                                          "casez",
                                          "catch",
                                          "char",
                                          "class",
                                          "cmos",
                                          "const",
                                          "constexpr",
                                          "consteval",
                                          "constinit",
                                          "const_cast",
                                          "continue",
                                          "deassign",
                                          "default",
                                          "defparam",
                                          "delete",
                                          "disable",
                                          "do",
                                          "double",
                                          "dynamic_cast",
                                          "edge",
                                          "else",
                                          "end",
                                          "endcase",
                                          "endfunction",
                                          "endgenerate",
                                          "endmodule",
                                          "endprimitive",
                                          "endspecify",
                                          "endtable",
                                          "endtask",
                                          "enum",
                                          "event",
                                          "explicit",
                                          "export",
                                          "extern",
                                          "false",
                                          "float",
                                          "for",
                                          "force",
                                          "forever",
                                          "fork",
                                          "friend",
                                          "function",
                                          "generate",
                                          "genvar",
                                          "goto",
                                          "highz0",
                                          "highz1",
                                          "if",
                                          "ifnone",
                                          "import",
                                          "initial",
                                          "inline",
                                          "inout",
                                          "input",
                                          "int",
                                          "integer",
                                          "join",
                                          "large",
                                          "logic",
                                          "localparam",
                                          "long",
                                          "macromodule",
                                          "main",
                                          "medium",
                                          "module",
                                          "mutable",
                                          "namespace",
                                          "nand",
                                          "negedge",
                                          "new",
                                          "nmos",
                                          "noexcept",
                                          "none",
                                          "nor",
                                          "not",
                                          "notif0",
                                          "notif1",
                                          "nullptr",
                                          "operator",
                                          "or",
                                          "output",
                                          "parameter",
                                          "pmos",
                                          "posedge",
                                          "primitive",
                                          "private",
                                          "protected",
                                          "public",
                                          "pull0",
                                          "pull1",
                                          "pulldown",
                                          "pullup",
                                          "rcmos",
                                          "real",
                                          "realtime",
                                          "reg",
                                          "register",
                                          "reinterpret_cast",
                                          "release",
                                          "repeat",
                                          "requires",
                                          "restrict",
                                          "return",
                                          "rnmos",
                                          "rpmos",
                                          "rtran",
                                          "rtranif0",
                                          "rtranif1",
                                          "scalared",
                                          "short",
                                          "signed",
                                          "sizeof",
                                          "small",
                                          "specify",
                                          "specparam",
                                          "static",
                                          "static_assert",
                                          "static_cast",
                                          "strong0",
                                          "strong1",
                                          "struct",
                                          "supply0",
                                          "supply1",
                                          "switch",
                                          "table",
                                          "task",
                                          "template",
                                          "this",
                                          "throw",
                                          "time",
                                          "tran",
                                          "tranif0",
                                          "tranif1",
                                          "tri",
                                          "tri0",
                                          "tri1",
                                          "triand",
                                          "trior",
                                          "trireg",
                                          "true",
                                          "try",
                                          "typedef",
                                          "typeid",
                                          "typename",
                                          "union",
                                          "unsigned",
                                          "using",
                                          "vectored",
                                          "virtual",
                                          "void",
                                          "volatile",
                                          "wait",
                                          "wand",
                                          "weak0",
                                          "weak1",
                                          "while",
                                          "wire",
                                          "wor",
                                          "xnor",
                                          "xor"};
}  // namespace

bool is_reserved_word(std::string_view word) {
  for (std::string_view k : kReserved)
    if (k == word) return true;
  return false;
}

std::string sanitize_identifier(std::string_view raw, std::string_view prefix) {
  std::string out;
  out.reserve(raw.size() + 4);
  for (char c : raw) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) != 0;
    if (ok) {
      out.push_back(c);
    } else if (!out.empty() && out.back() != '_') {
      out.push_back('_');  // collapse runs; never start with '_' (reserved in C++)
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front())))
    out = std::string(prefix) + "_" + out;
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (is_reserved_word(out)) out += "_v";
  return out;
}

std::string NameTable::unique(std::string_view raw, std::string_view prefix) {
  std::string base = sanitize_identifier(raw, prefix);
  if (used_.insert(base).second) return base;
  // Taken: suffixes are tried from where the last search for this base ended
  // (names are never released), so a million "Relu" nodes take linear time.
  int& n = next_suffix_[base];
  if (n < 2) n = 2;
  std::string candidate;
  do candidate = base + "_" + std::to_string(n++);
  while (!used_.insert(candidate).second);
  return candidate;
}

bool NameTable::claim(const std::string& id) {
  if (id.empty() || sanitize_identifier(id) != id || used_.count(id) != 0) return false;
  used_.insert(id);
  return true;
}

}  // namespace kiln

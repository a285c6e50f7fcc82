#include "kiln/support/names.h"

#include <cctype>
#include <iterator>
#include <string>
#include <unordered_set>

namespace kiln {

namespace {
// C and C++ keywords (and the few identifiers generated C++ must avoid) that
// are not also Verilog's.
constexpr std::string_view kCppReserved[] = {
    "alignas",     "alignof",      "asm",       "auto",
    "bool",        "catch",        "char",      "const_cast",
    "consteval",   "constexpr",    "constinit", "delete",
    "double",      "dynamic_cast", "explicit",  "false",
    "float",       "friend",       "goto",      "inline",
    "long",        "main",         "mutable",   "namespace",
    "noexcept",    "none",         "nullptr",   "operator",
    "private",     "public",       "register",  "reinterpret_cast",
    "requires",    "short",        "sizeof",    "static_assert",
    "static_cast", "switch",       "template",  "throw",
    "true",        "try",          "typeid",    "typename",
    "using",       "volatile"};
// Verilog-2005 and SystemVerilog-2017 keywords (Verilator reads .v files as
// SystemVerilog; Icarus runs with -g2012).
constexpr std::string_view kVerilogKeywords[] = {"accept_on",
                                                 "alias",
                                                 "always",
                                                 "always_comb",
                                                 "always_ff",
                                                 "always_latch",
                                                 "and",
                                                 "assert",
                                                 "assign",
                                                 "assume",
                                                 "automatic",
                                                 "before",
                                                 "begin",
                                                 "bind",
                                                 "bins",
                                                 "binsof",
                                                 "bit",
                                                 "break",
                                                 "buf",
                                                 "bufif0",
                                                 "bufif1",
                                                 "byte",
                                                 "case",
                                                 "casex",
                                                 "casez",
                                                 "cell",
                                                 "chandle",
                                                 "checker",
                                                 "class",
                                                 "clocking",
                                                 "cmos",
                                                 "config",
                                                 "const",
                                                 "constraint",
                                                 "context",
                                                 "continue",
                                                 "cover",
                                                 "covergroup",
                                                 "coverpoint",
                                                 "cross",
                                                 "deassign",
                                                 "default",
                                                 "defparam",
                                                 "design",
                                                 "disable",
                                                 "dist",
                                                 "do",
                                                 "edge",
                                                 "else",
                                                 "end",
                                                 "endcase",
                                                 "endchecker",
                                                 "endclass",
                                                 "endclocking",
                                                 "endconfig",
                                                 "endfunction",
                                                 "endgenerate",
                                                 "endgroup",
                                                 "endinterface",
                                                 "endmodule",
                                                 "endpackage",
                                                 "endprimitive",
                                                 "endprogram",
                                                 "endproperty",
                                                 "endsequence",
                                                 "endspecify",
                                                 "endtable",
                                                 "endtask",
                                                 "enum",
                                                 "event",
                                                 "eventually",
                                                 "expect",
                                                 "export",
                                                 "extends",
                                                 "extern",
                                                 "final",
                                                 "first_match",
                                                 "for",
                                                 "force",
                                                 "foreach",
                                                 "forever",
                                                 "fork",
                                                 "forkjoin",
                                                 "function",
                                                 "generate",
                                                 "genvar",
                                                 "global",
                                                 "highz0",
                                                 "highz1",
                                                 "if",
                                                 "iff",
                                                 "ifnone",
                                                 "ignore_bins",
                                                 "illegal_bins",
                                                 "implements",
                                                 "implies",
                                                 "import",
                                                 "incdir",
                                                 "include",
                                                 "initial",
                                                 "inout",
                                                 "input",
                                                 "inside",
                                                 "instance",
                                                 "int",
                                                 "integer",
                                                 "interconnect",
                                                 "interface",
                                                 "intersect",
                                                 "join",
                                                 "join_any",
                                                 "join_none",
                                                 "large",
                                                 "let",
                                                 "liblist",
                                                 "library",
                                                 "local",
                                                 "localparam",
                                                 "logic",
                                                 "longint",
                                                 "macromodule",
                                                 "matches",
                                                 "medium",
                                                 "modport",
                                                 "module",
                                                 "nand",
                                                 "negedge",
                                                 "nettype",
                                                 "new",
                                                 "nexttime",
                                                 "nmos",
                                                 "nor",
                                                 "noshowcancelled",
                                                 "not",
                                                 "notif0",
                                                 "notif1",
                                                 "null",
                                                 "or",
                                                 "output",
                                                 "package",
                                                 "packed",
                                                 "parameter",
                                                 "pmos",
                                                 "posedge",
                                                 "primitive",
                                                 "priority",
                                                 "program",
                                                 "property",
                                                 "protected",
                                                 "pull0",
                                                 "pull1",
                                                 "pulldown",
                                                 "pullup",
                                                 "pulsestyle_ondetect",
                                                 "pulsestyle_onevent",
                                                 "pure",
                                                 "rand",
                                                 "randc",
                                                 "randcase",
                                                 "randsequence",
                                                 "rcmos",
                                                 "real",
                                                 "realtime",
                                                 "ref",
                                                 "reg",
                                                 "reject_on",
                                                 "release",
                                                 "repeat",
                                                 "restrict",
                                                 "return",
                                                 "rnmos",
                                                 "rpmos",
                                                 "rtran",
                                                 "rtranif0",
                                                 "rtranif1",
                                                 "s_always",
                                                 "s_eventually",
                                                 "s_nexttime",
                                                 "s_until",
                                                 "s_until_with",
                                                 "scalared",
                                                 "sequence",
                                                 "shortint",
                                                 "shortreal",
                                                 "showcancelled",
                                                 "signed",
                                                 "small",
                                                 "soft",
                                                 "solve",
                                                 "specify",
                                                 "specparam",
                                                 "static",
                                                 "string",
                                                 "strong",
                                                 "strong0",
                                                 "strong1",
                                                 "struct",
                                                 "super",
                                                 "supply0",
                                                 "supply1",
                                                 "sync_accept_on",
                                                 "sync_reject_on",
                                                 "table",
                                                 "tagged",
                                                 "task",
                                                 "this",
                                                 "throughout",
                                                 "time",
                                                 "timeprecision",
                                                 "timeunit",
                                                 "tran",
                                                 "tranif0",
                                                 "tranif1",
                                                 "tri",
                                                 "tri0",
                                                 "tri1",
                                                 "triand",
                                                 "trior",
                                                 "trireg",
                                                 "type",
                                                 "typedef",
                                                 "union",
                                                 "unique",
                                                 "unique0",
                                                 "unsigned",
                                                 "until",
                                                 "until_with",
                                                 "untyped",
                                                 "use",
                                                 "uwire",
                                                 "var",
                                                 "vectored",
                                                 "virtual",
                                                 "void",
                                                 "wait",
                                                 "wait_order",
                                                 "wand",
                                                 "weak",
                                                 "weak0",
                                                 "weak1",
                                                 "while",
                                                 "wildcard",
                                                 "wire",
                                                 "with",
                                                 "within",
                                                 "wor",
                                                 "xnor",
                                                 "xor"};

const std::unordered_set<std::string_view>& verilog_keywords() {
  static const std::unordered_set<std::string_view> k(std::begin(kVerilogKeywords),
                                                      std::end(kVerilogKeywords));
  return k;
}

const std::unordered_set<std::string_view>& reserved_words() {
  static const std::unordered_set<std::string_view> k = [] {
    std::unordered_set<std::string_view> all(std::begin(kCppReserved), std::end(kCppReserved));
    all.insert(std::begin(kVerilogKeywords), std::end(kVerilogKeywords));
    return all;
  }();
  return k;
}
}  // namespace

bool is_reserved_word(std::string_view word) {
  return reserved_words().count(word) != 0;
}

bool is_verilog_keyword(std::string_view word) {
  return verilog_keywords().count(word) != 0;
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

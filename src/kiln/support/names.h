// Identifiers that are valid in C, C++ and Verilog, made once from ONNX names.
//
// ONNX names may start with a digit or contain '/', ':' or '.' (seed 001
// §4.3.1); generated code needs plain identifiers that never clash.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace kiln {

// Maps any string to [A-Za-z][A-Za-z0-9_]*: other characters become '_', runs of
// '_' collapse, a leading digit or empty result gets a prefix, and C/C++/Verilog
// keywords get a suffix. Not unique by itself; see NameTable.
std::string sanitize_identifier(std::string_view raw, std::string_view prefix = "t");

// A C, C++ or Verilog keyword (what sanitize_identifier avoids).
bool is_reserved_word(std::string_view word);
// A Verilog-2005 or SystemVerilog-2017 keyword (what a netlist name may not be).
bool is_verilog_keyword(std::string_view word);

// Hands out unique sanitized identifiers ("conv", "conv_2", "conv_3", ...).
class NameTable {
 public:
  std::string unique(std::string_view raw, std::string_view prefix = "t");
  bool contains(const std::string& id) const { return used_.count(id) != 0; }
  // Takes `id` exactly; false if it is taken or not a sanitized identifier.
  bool claim(const std::string& id);

 private:
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, int> next_suffix_;  // per base: the next suffix to try
};

}  // namespace kiln

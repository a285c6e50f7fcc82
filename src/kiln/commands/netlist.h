// `kiln netlist FILE.knl [--verify] [-o OUT.knl]`: a design's netlist
// (netlist/netlist.h, the netlist.knl `kiln rtl` writes) read, checked and
// written again, byte for byte the same; a summary of its modules otherwise.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kiln::commands {

struct NetlistOptions {
  bool verify = false;  // check every rule of netlist::verify (always when writing)
  std::optional<std::filesystem::path> output;
  bool overwrite = false;
};

struct NetlistModuleSummary {
  std::string name;
  int64_t values = 0, registers = 0, register_bits = 0, memories = 0, memory_bits = 0,
          instances = 0, ports = 0;
};

struct NetlistResult {
  std::filesystem::path file;
  std::string top;
  bool verified = false;
  std::vector<NetlistModuleSummary> modules;
  std::filesystem::path written;  // -o's file, if any
};

// Io for a file that cannot be read or written (an existing -o without
// --force is Usage); InvalidModel naming the file and line for text that is
// not a netlist or a netlist that breaks a rule.
NetlistResult netlist_file(const std::filesystem::path& file, const NetlistOptions& options);
std::string format_netlist(const NetlistResult& result);
nlohmann::json netlist_to_json(const NetlistResult& result);

}  // namespace kiln::commands

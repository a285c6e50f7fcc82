#include "kiln/commands/netlist.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "kiln/commands/hls_flow.h"
#include "kiln/netlist/text.h"
#include "kiln/netlist/verify.h"
#include "kiln/rtl/dir/design_dir.h"
#include "kiln/support/error.h"

namespace kiln::commands {

namespace fs = std::filesystem;

NetlistResult netlist_file(const fs::path& file, const NetlistOptions& options) {
  NetlistResult r;
  r.file = file;
  netlist::Design d;
  if (options.verify || options.output) {
    d = rtl::read_netlist(file);  // parsed and verified
    r.verified = true;
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw_error(ErrorKind::Io, file.string(), "cannot read the netlist", "check the path");
    std::ostringstream text;
    text << in.rdbuf();
    d = netlist::parse(text.str(), file.string());
  }
  r.top = d.top;
  for (const netlist::Module& m : d.modules) {
    NetlistModuleSummary s;
    s.name = m.name();
    s.values = static_cast<int64_t>(m.size());
    for (netlist::ValueId v = 0; v < m.size(); ++v)
      if (m.value(v).op == netlist::Op::Reg) {
        ++s.registers;
        s.register_bits += m.width(v);
      }
    s.memories = static_cast<int64_t>(m.memories().size());
    for (const netlist::Memory& mem : m.memories()) s.memory_bits += mem.depth * mem.width;
    s.instances = static_cast<int64_t>(m.instances().size());
    s.ports = static_cast<int64_t>(m.ports().size());
    r.modules.push_back(s);
  }
  if (options.output) {
    write_text_file(*options.output, netlist::print(d), options.overwrite);
    r.written = *options.output;
  }
  return r;
}

std::string format_netlist(const NetlistResult& r) {
  std::string s = fmt::format("kiln netlist: {} (top {}){}\n", r.file.string(), r.top,
                              r.verified ? ", every rule of netlist::verify holds" : "");
  s += fmt::format("{:<32} {:>6} {:>9} {:>10} {:>9} {:>10} {:>10}\n", "module", "ports", "values",
                   "registers", "reg bits", "memories", "instances");
  for (const NetlistModuleSummary& m : r.modules)
    s += fmt::format("{:<32} {:>6} {:>9} {:>10} {:>9} {:>10} {:>10}\n", m.name, m.ports, m.values,
                     m.registers, m.register_bits, m.memories, m.instances);
  if (!r.written.empty()) s += "wrote " + r.written.string() + "\n";
  return s;
}

nlohmann::json netlist_to_json(const NetlistResult& r) {
  nlohmann::json modules = nlohmann::json::array();
  for (const NetlistModuleSummary& m : r.modules)
    modules.push_back({{"name", m.name},
                       {"ports", m.ports},
                       {"values", m.values},
                       {"registers", m.registers},
                       {"register_bits", m.register_bits},
                       {"memories", m.memories},
                       {"memory_bits", m.memory_bits},
                       {"instances", m.instances}});
  return {{"file", r.file.string()},
          {"top", r.top},
          {"verified", r.verified},
          {"modules", modules},
          {"written",
           r.written.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.written.string())}};
}

}  // namespace kiln::commands

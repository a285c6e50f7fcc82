#include "kiln/estimate/devices.h"

#include <array>

namespace kiln::estimate {

namespace {

// LUTs, flip-flops, DSP slices, 18 Kb block RAMs (two per 36 Kb block).
const std::array<Device, 7> kDevices = {{
    {"xcvu9p", 1182240, 2364480, 6840, 4320},   // Virtex UltraScale+ (DS923)
    {"xcu250", 1728000, 3456000, 12288, 5376},  // Alveo U250 (DS962)
    {"xcu200", 1182240, 2364480, 6840, 4320},   // Alveo U200 = VU9P (DS962)
    {"xczu9eg", 274080, 548160, 2520, 1824},    // Zynq UltraScale+ (DS891)
    {"xczu7ev", 230400, 460800, 1728, 624},     // Zynq UltraScale+ (DS891)
    {"xcku115", 663360, 1326720, 5520, 4320},   // Kintex UltraScale (DS890)
    {"xc7z020", 53200, 106400, 220, 280},       // Zynq-7000 (DS190)
}};

}  // namespace

std::optional<Device> find_device(std::string_view part) {
  for (const Device& d : kDevices) {
    if (part.size() < d.name.size()) continue;
    bool prefix = true;
    for (size_t i = 0; i < d.name.size(); ++i) {
      char c = part[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != d.name[i]) prefix = false;
    }
    if (prefix && (part.size() == d.name.size() || part[d.name.size()] == '-')) return d;
  }
  return std::nullopt;
}

}  // namespace kiln::estimate

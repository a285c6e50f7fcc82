#include "kiln/fpga/devices.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>

#include "kiln/support/error.h"

namespace kiln::fpga {

namespace {

Device row(const char* name, const char* title, Family family, double lut, double ff, double dsp,
           double bram36, double uram, double lutram = 0) {
  Device d{name, title, family, {}};
  d.capacity.lutram = lutram;
  d.capacity.lut = lut;
  d.capacity.ff = ff;
  d.capacity.dsp = dsp;
  d.capacity.bram18 = 2 * bram36;  // an 18 Kb block is half of a 36 Kb one
  d.capacity.uram = uram;
  return d;
}

// CLB LUTs, CLB flip-flops, DSP slices, 36 Kb block RAMs, UltraRAMs, and
// where known the LUTs of SLICEMs (four per SLICEM on 7-series, eight per
// CLBM on UltraScale+): what distributed RAM can use.
const std::vector<Device> kDevices = {
    // Virtex UltraScale+ (DS923) and the Alveo cards built on them (DS962).
    row("xcvu9p", "Virtex UltraScale+ VU9P", Family::UltraScalePlus, 1182240, 2364480, 6840, 2160,
        960, 591840),
    row("xcvu13p", "Virtex UltraScale+ VU13P", Family::UltraScalePlus, 1728000, 3456000, 12288,
        2688, 1280),
    row("xcu200", "Alveo U200 (VU9P)", Family::UltraScalePlus, 1182240, 2364480, 6840, 2160, 960,
        591840),
    row("xcu250", "Alveo U250 (VU13P)", Family::UltraScalePlus, 1728000, 3456000, 12288, 2688,
        1280),
    row("xcu280", "Alveo U280", Family::UltraScalePlus, 1303680, 2607360, 9024, 2016, 960),
    row("xcu55c", "Alveo U55C", Family::UltraScalePlus, 1303680, 2607360, 9024, 2016, 960),
    row("xcu50", "Alveo U50", Family::UltraScalePlus, 872160, 1743360, 5952, 1344, 640),
    // Kintex UltraScale+ and UltraScale (DS922, DS890).
    row("xcku5p", "Kintex UltraScale+ KU5P", Family::UltraScalePlus, 216960, 433920, 1824, 480, 64),
    row("xcku115", "Kintex UltraScale KU115", Family::UltraScale, 663360, 1326720, 5520, 2160, 0),
    // Zynq UltraScale+ MPSoC (DS891): ZCU102 (ZU9EG), ZCU104 (ZU7EV), Ultra96 (ZU3EG).
    row("xczu9eg", "Zynq UltraScale+ ZU9EG (ZCU102)", Family::UltraScalePlus, 274080, 548160, 2520,
        912, 0),
    row("xczu7ev", "Zynq UltraScale+ ZU7EV (ZCU104)", Family::UltraScalePlus, 230400, 460800, 1728,
        312, 96),
    row("xczu3eg", "Zynq UltraScale+ ZU3EG (Ultra96)", Family::UltraScalePlus, 70560, 141120, 360,
        216, 0),
    // Zynq-7000 (DS190) and Artix-7 (DS180).
    row("xc7z020", "Zynq-7000 Z-7020 (PYNQ-Z2, ZedBoard)", Family::Series7, 53200, 106400, 220, 140,
        0, 17400),
    row("xc7z010", "Zynq-7000 Z-7010", Family::Series7, 17600, 35200, 80, 60, 0, 6000),
    row("xc7a100t", "Artix-7 100T", Family::Series7, 63400, 126800, 240, 135, 0),
    row("xc7a35t", "Artix-7 35T", Family::Series7, 20800, 41600, 90, 50, 0),
    row("xc7a200t", "Artix-7 200T", Family::Series7, 134600, 269200, 740, 365, 0),
};

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

}  // namespace

const std::vector<Device>& devices() {
  return kDevices;
}

std::optional<Device> find_device(std::string_view part) {
  for (const Device& d : kDevices) {
    if (part.size() < d.name.size()) continue;
    bool prefix = true;
    for (std::size_t i = 0; i < d.name.size() && prefix; ++i) prefix = lower(part[i]) == d.name[i];
    if (!prefix) continue;
    // Then the end, a '-' or a package code: "xc7z020clg400-1". Not a digit:
    // "xcu2000" is not the U200.
    if (part.size() == d.name.size() || part[d.name.size()] == '-' ||
        std::isalpha(static_cast<unsigned char>(part[d.name.size()])))
      return d;
  }
  return std::nullopt;
}

std::string known_devices() {
  std::string s;
  for (const Device& d : kDevices) s += (s.empty() ? "" : ", ") + d.name;
  return s;
}

Device device_of_part(std::string_view part) {
  if (std::optional<Device> d = find_device(part)) return *d;
  throw_error(ErrorKind::InvalidModel, "Part " + std::string(part),
              "kiln does not know this FPGA part",
              "use one of " + known_devices() +
                  ", followed by its package and speed grade (e.g. xcvu9p-flga2104-2L-e, "
                  "xc7z020clg400-1)");
}

double share(const Resources& used, const Resources& capacity) {
  double s = 0;
  for (double Resources::*m :
       {&Resources::lut, &Resources::ff, &Resources::dsp, &Resources::bram18, &Resources::uram}) {
    if (used.*m <= 0) continue;
    s += capacity.*m > 0 ? used.*m / capacity.*m : std::numeric_limits<double>::infinity();
  }
  return s;
}

std::vector<std::string> over_capacity(const Resources& used, const Resources& capacity) {
  std::vector<std::string> out;
  for (const ResourceField& f : kResourceFields) {
    const double have = capacity.*f.member, need = used.*f.member;
    const bool counted = f.member == &Resources::lut || f.member == &Resources::ff ||
                         f.member == &Resources::dsp || f.member == &Resources::bram18 ||
                         f.member == &Resources::uram ||
                         (f.member == &Resources::lutram && have > 0);  // 0: not known
    if (counted && need > have)
      out.push_back(fmt::format("{} {:.0f} of {:.0f}", f.label, std::ceil(need), have));
  }
  return out;
}

nlohmann::json device_json(const std::string& part, const Device& d) {
  return {{"part", part},
          {"name", d.name},
          {"title", d.title},
          {"family", std::string(enum_name(d.family))},
          {"lut", static_cast<int64_t>(d.capacity.lut)},
          {"ff", static_cast<int64_t>(d.capacity.ff)},
          {"dsp", static_cast<int64_t>(d.capacity.dsp)},
          {"bram18", static_cast<int64_t>(d.capacity.bram18)},
          {"uram", static_cast<int64_t>(d.capacity.uram)},
          {"lutram", static_cast<int64_t>(d.capacity.lutram)}};
}

}  // namespace kiln::fpga

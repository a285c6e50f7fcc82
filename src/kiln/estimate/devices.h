// Resources of a few Xilinx/AMD parts (vendor data sheets DS890, DS891,
// DS190, DS962), for utilization percentages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::estimate {

struct Device {
  std::string name;  // part prefix, e.g. "xcvu9p"
  int64_t lut = 0;
  int64_t ff = 0;
  int64_t dsp = 0;
  int64_t bram18 = 0;
};

// The device whose name is a prefix of `part` followed by '-' or the end
// ("xcvu9p-flga2104-2L-e" -> xcvu9p); nullopt for an unknown part.
std::optional<Device> find_device(std::string_view part);

}  // namespace kiln::estimate

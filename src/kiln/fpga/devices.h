// The one device table: every FPGA part kiln's flows accept, with its family
// and capacity (vendor data sheets: DS890, DS891, DS923, DS962, DS190, DS180,
// DS963). A part name is a device's name followed by its package and speed
// grade ("xc7z020clg400-1", "xcvu9p-flga2104-2L-e", "xcu280-fsvh2892-2L-e").
// A part that matches no row is an error that names the known ones, never a
// silent substitute.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/fpga/family.h"
#include "kiln/fpga/resources.h"

namespace kiln::fpga {

struct Device {
  std::string name;   // the part's prefix: "xcvu9p"
  std::string title;  // "Virtex UltraScale+ VU9P"
  Family family = Family::UltraScalePlus;
  // lut, ff, dsp, bram18 and uram, and lutram: the LUTs that can be
  // distributed RAM (SLICEM LUTs), 0 where kiln's table does not have it
  // (not checked then). carry and srl are 0.
  Resources capacity;
};

// Every row, in the table's order.
const std::vector<Device>& devices();

// The device whose name `part` starts with, followed by the end of the name, a
// '-' or a package code (a letter), case-insensitive; nullopt when none.
std::optional<Device> find_device(std::string_view part);

// find_device, or kiln::Error(InvalidModel) at "Part <part>" naming the known
// devices.
Device device_of_part(std::string_view part);

// "xcvu9p, xcvu13p, ...": the known device names, for messages.
std::string known_devices();

// The share of `capacity` that `used` takes, summed over LUT, FF, DSP, BRAM18
// and URAM (a resource the device lacks counts when used: infinity). The
// searches compare plans by it: one DSP of a VU9P weighs 1/6,840.
double share(const Resources& used, const Resources& capacity);

// The resources `used` needs more of than `capacity` has, as "DSP 1,544 of
// 220" phrases; empty when it fits.
std::vector<std::string> over_capacity(const Resources& used, const Resources& capacity);

// {"part", "name", "family", "lut", "ff", "dsp", "bram18", "uram"}: what
// reports carry as "device".
nlohmann::json device_json(const std::string& part, const Device& device);

}  // namespace kiln::fpga

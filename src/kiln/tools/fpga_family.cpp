#include "kiln/tools/fpga_family.h"

#include <algorithm>
#include <cctype>

#include "kiln/support/error.h"

namespace kiln::tools {

namespace {

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// "xcvu9p..." / "xcku15p...": the letters, then digits, then 'p' (plain
// UltraScale parts such as xcvu095 have no 'p').
bool plus_part(const std::string& part, const char* prefix) {
  if (!starts_with(part, prefix)) return false;
  std::size_t i = std::string(prefix).size();
  const std::size_t digits = i;
  while (i < part.size() && std::isdigit(static_cast<unsigned char>(part[i]))) ++i;
  return i > digits && i < part.size() && part[i] == 'p';
}

}  // namespace

const char* to_string(FpgaFamily f) {
  switch (f) {
    case FpgaFamily::UltraScalePlus: return "UltraScale+";
    case FpgaFamily::Series7: return "7-series";
  }
  return "?";
}

const char* synth_family_name(FpgaFamily f) {
  switch (f) {
    case FpgaFamily::UltraScalePlus: return "xcup";
    case FpgaFamily::Series7: return "xc7";
  }
  return "?";
}

FpgaFamily family_of_part(const std::string& part) {
  std::string p = part;
  std::transform(p.begin(), p.end(), p.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // Alveo (xcu200, xcu280, ...), Zynq MPSoC/RFSoC, Artix UltraScale+.
  if (starts_with(p, "xczu") || starts_with(p, "xcau") ||
      (starts_with(p, "xcu") && p.size() > 3 && std::isdigit(static_cast<unsigned char>(p[3]))) ||
      plus_part(p, "xcvu") || plus_part(p, "xcku"))
    return FpgaFamily::UltraScalePlus;
  for (const char* prefix : {"xc7a", "xc7k", "xc7v", "xc7z", "xc7s"})
    if (starts_with(p, prefix)) return FpgaFamily::Series7;
  throw_error(ErrorKind::InvalidModel, "part '" + part + "'", "unknown Xilinx FPGA family",
              "known prefixes: xcvu<N>p, xcku<N>p, xczu, xcau, xcu<N> (UltraScale+, e.g. "
              "xcvu9p-flga2104-2L-e); xc7a, xc7k, xc7v, xc7z, xc7s (7-series, e.g. "
              "xc7z020clg400-1)");
}

}  // namespace kiln::tools

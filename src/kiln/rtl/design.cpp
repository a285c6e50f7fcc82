#include "kiln/rtl/design.h"

#include "kiln/support/error.h"

namespace kiln::rtl {

Design build_design(const hls::Model& model, const RtlOptions&) {
  throw_error(ErrorKind::Unsupported, "model " + model.name, "kiln rtl is being built");
}

std::string testbench_verilog(const Design&, int) {
  return {};
}

}  // namespace kiln::rtl

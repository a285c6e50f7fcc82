// The netlist's text form (`.knl`, docs/netlist.md): print(parse(t)) == t
// byte for byte for every t that print() wrote.
#pragma once

#include <string>
#include <string_view>

#include "kiln/netlist/netlist.h"

namespace kiln::netlist {

std::string print(const Design& design);

// Throws kiln::Error(InvalidModel) at "SOURCE:LINE:COL" for text that is not
// a netlist (syntax, an undefined or twice-defined name, a width that
// contradicts a declaration). It does not verify(): callers that need a
// valid design call verify() after.
Design parse(std::string_view text, const std::string& source = "<netlist>");

}  // namespace kiln::netlist

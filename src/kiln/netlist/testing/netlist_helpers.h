// Helpers for the netlist tests: errors, example texts and a generated
// design of any size.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "kiln/netlist/netlist.h"
#include "kiln/netlist/verilog.h"
#include "kiln/support/error.h"

namespace kiln::netlist::testing {

// The Error `f` throws, which must be of `kind`; a failure if it throws none.
inline Error error_of(const std::function<void()>& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(to_string(e.kind()), std::string(to_string(kind))) << e.message();
    return e;
  }
  ADD_FAILURE() << "no error thrown";
  return Error(kind, "", "");
}

// A fully unrolled 3x3 convolution over an n x n image of 8-bit pixels, as
// the RTL builders make it: pixels in packed input ports of 64 elements,
// constant weights, products and adder trees, two pipeline stages whose
// registers sit in banks of about 1 Kbit, and outputs packed like the
// inputs. About 40 values per output pixel.
Design convolution_design(int n);

// print_verilog's files written into `dir`; their paths.
std::vector<std::filesystem::path> write_verilog(const Design& design,
                                                 const std::filesystem::path& dir,
                                                 const VerilogOptions& options = {});

}  // namespace kiln::netlist::testing

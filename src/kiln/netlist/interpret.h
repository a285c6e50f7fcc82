// Runs a netlist design cycle by cycle with exact widths: the simulator
// `kiln rtlsim --simulator kiln` uses (rtl/dir/rtlsim.h drives its testbench
// protocol over it). The hierarchy is flattened once; each cycle evaluates
// the combinational operations in a topological order, then the clock edge
// loads every register and registered read and performs every write from the
// values before the edge. Registers and memories start at zero.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "kiln/netlist/netlist.h"

namespace kiln::netlist {

class Interpreter {
 public:
  // The design must verify(). Throws kiln::Error(Internal) otherwise.
  explicit Interpreter(const Design& design);
  ~Interpreter();
  Interpreter(Interpreter&&) noexcept;
  Interpreter& operator=(Interpreter&&) noexcept;

  // The top's port named `name` (-1 if none).
  int port(std::string_view name) const;
  void set_input(int port, const Bits& value);
  void set_input(int port, uint64_t value);  // ports of up to 64 bits
  // Evaluates the combinational logic from the inputs and the state.
  void settle();
  // The top's output port (after settle()).
  Bits output(int port) const;
  uint64_t output_word(int port) const;  // ports of up to 64 bits
  // The clock edge: state takes the values the last settle() computed.
  void clock();
  int64_t cycles() const;  // edges so far

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace kiln::netlist

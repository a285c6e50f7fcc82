// An arbitrary-width bit vector: the value of a wire, a constant, a table
// entry or a reset (netlist.h). Words of 64 bits, least significant first;
// the bits above the width are always zero, so == compares words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::netlist {

class Bits {
 public:
  Bits() = default;          // width 0
  explicit Bits(int width);  // zero

  // v's two's complement, sign-extended past 64 bits, cut to `width`.
  static Bits from_int(int64_t v, int width);
  static Bits from_uint(uint64_t v, int width);
  // Hex digits (no prefix) of a value of `width` bits; nullopt if a digit is
  // not hex or the value does not fit the width.
  static std::optional<Bits> from_hex(std::string_view digits, int width);

  int width() const { return width_; }
  bool bit(int i) const { return (words_[static_cast<std::size_t>(i) / 64] >> (i % 64)) & 1; }
  void set_bit(int i, bool b);
  std::size_t words() const { return words_.size(); }
  uint64_t word(std::size_t i) const { return words_[i]; }
  const uint64_t* data() const { return words_.data(); }
  uint64_t* data() { return words_.data(); }
  bool is_zero() const;

  uint64_t to_uint64() const { return words_.empty() ? 0 : words_[0]; }  // the low 64 bits
  int64_t to_int64() const;  // sign-extended from the width (width <= 64)

  // Lowercase hex digits without leading zeros ("0" for zero and width 0).
  std::string hex() const;
  // Verilog's sized literal: "16'h3fa".
  std::string literal() const { return std::to_string(width_) + "'h" + hex(); }

  friend bool operator==(const Bits&, const Bits&) = default;

 private:
  int width_ = 0;
  std::vector<uint64_t> words_;
};

// Words needed for `width` bits.
inline std::size_t words_for(int width) {
  return width <= 0 ? 0 : (static_cast<std::size_t>(width) + 63) / 64;
}

}  // namespace kiln::netlist

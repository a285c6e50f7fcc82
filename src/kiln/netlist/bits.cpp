#include "kiln/netlist/bits.h"

#include "kiln/support/error.h"

namespace kiln::netlist {

Bits::Bits(int width) : width_(width), words_(words_for(width), 0) {
  KILN_ASSERT(width >= 0, "a bit vector of width " + std::to_string(width));
}

Bits Bits::from_int(int64_t v, int width) {
  Bits b(width);
  const uint64_t fill = v < 0 ? ~uint64_t{0} : 0;
  for (std::size_t i = 0; i < b.words_.size(); ++i)
    b.words_[i] = i == 0 ? static_cast<uint64_t>(v) : fill;
  if (width % 64 != 0 && !b.words_.empty()) b.words_.back() &= (uint64_t{1} << (width % 64)) - 1;
  return b;
}

Bits Bits::from_uint(uint64_t v, int width) {
  Bits b(width);
  if (!b.words_.empty()) b.words_[0] = width < 64 ? v & ((uint64_t{1} << width) - 1) : v;
  return b;
}

std::optional<Bits> Bits::from_hex(std::string_view digits, int width) {
  if (digits.empty() || width < 0) return std::nullopt;
  Bits b(width);
  int bit = 0;
  for (std::size_t i = digits.size(); i-- > 0;) {
    const char c = digits[i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    for (int k = 0; k < 4; ++k, ++bit)
      if ((d >> k) & 1) {
        if (bit >= width) return std::nullopt;
        b.set_bit(bit, true);
      }
  }
  return b;
}

void Bits::set_bit(int i, bool v) {
  KILN_ASSERT(i >= 0 && i < width_, "bit " + std::to_string(i) + " of " + std::to_string(width_));
  const uint64_t m = uint64_t{1} << (i % 64);
  uint64_t& w = words_[static_cast<std::size_t>(i) / 64];
  w = v ? w | m : w & ~m;
}

bool Bits::is_zero() const {
  for (uint64_t w : words_)
    if (w) return false;
  return true;
}

int64_t Bits::to_int64() const {
  KILN_ASSERT(width_ <= 64, "to_int64 of " + std::to_string(width_) + " bits");
  if (width_ == 0) return 0;
  const int up = 64 - width_;
  return static_cast<int64_t>(words_[0] << up) >> up;
}

std::string Bits::hex() const {
  std::string s;
  for (std::size_t i = words_.size(); i-- > 0;)
    for (int k = 60; k >= 0; k -= 4) {
      const int d = static_cast<int>((words_[i] >> k) & 15);
      if (s.empty() && d == 0) continue;
      s += "0123456789abcdef"[d];
    }
  return s.empty() ? "0" : s;
}

}  // namespace kiln::netlist

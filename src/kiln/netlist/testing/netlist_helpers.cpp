#include "kiln/netlist/testing/netlist_helpers.h"

#include <algorithm>
#include <fstream>

#include "kiln/netlist/verilog.h"

namespace kiln::netlist::testing {

namespace {

// Values collected into register banks of about 1 Kbit: the bank loads the
// concatenation, the values come back as slices.
class Banks {
 public:
  explicit Banks(Module& m) : m_(m) {}
  void add(ValueId v) {
    if (width_ + m_.width(v) > 1024) flush();
    pending_.push_back(v);
    width_ += m_.width(v);
  }
  // The registered copy of each value added, in order.
  std::vector<ValueId> flush_all() {
    flush();
    return std::move(out_);
  }

 private:
  void flush() {
    if (pending_.empty()) return;
    std::vector<ValueId> msb_first(pending_.rbegin(), pending_.rend());
    const ValueId d = m_.concat(msb_first);
    const ValueId r = m_.reg(width_);
    m_.drive_register(r, d);
    int lsb = 0;
    for (ValueId v : pending_) {
      out_.push_back(m_.slice(r, lsb, m_.width(v)));
      lsb += m_.width(v);
    }
    pending_.clear();
    width_ = 0;
  }
  Module& m_;
  std::vector<ValueId> pending_, out_;
  int width_ = 0;
};

}  // namespace

Design convolution_design(int n) {
  Design d;
  d.top = "conv";
  d.modules.emplace_back("conv", "A 3x3 convolution over a " + std::to_string(n) + "x" +
                                     std::to_string(n) + " image, fully unrolled.");
  Module& m = d.modules.back();
  constexpr int kPerPort = 64;
  std::vector<ValueId> pixels;
  const int count = n * n;
  for (int p = 0; p * kPerPort < count; ++p) {
    const int k = std::min(kPerPort, count - p * kPerPort);
    const ValueId port = m.input("i" + std::to_string(p), 8 * k);
    for (int e = 0; e < k; ++e) pixels.push_back(m.slice(port, 8 * e, 8));
  }
  const int weights[9] = {1, -2, 3, -4, 5, -6, 7, -8, 9};
  std::vector<ValueId> w;
  for (int k = 0; k < 9; ++k) w.push_back(m.constant(weights[k], 8));
  // Stage 1: the nine products of each output pixel, registered.
  const int out = n - 2;
  Banks stage1(m);
  for (int y = 0; y < out; ++y)
    for (int x = 0; x < out; ++x)
      for (int k = 0; k < 9; ++k) {
        const ValueId px = m.zext(pixels[static_cast<std::size_t>((y + k / 3) * n + x + k % 3)], 9);
        stage1.add(m.op(Op::MulS, 16, {px, w[static_cast<std::size_t>(k)]}));
      }
  const std::vector<ValueId> products = stage1.flush_all();
  // Stage 2: the sums, registered.
  Banks stage2(m);
  for (std::size_t p = 0; p < products.size(); p += 9) {
    ValueId acc = m.sext(products[p], 20);
    for (std::size_t k = 1; k < 9; ++k) acc = m.add(acc, m.sext(products[p + k], 20));
    stage2.add(acc);
  }
  const std::vector<ValueId> sums = stage2.flush_all();
  for (std::size_t p = 0; p < sums.size(); p += kPerPort) {
    std::vector<ValueId> msb_first;
    for (std::size_t e = std::min(sums.size(), p + kPerPort); e-- > p;)
      msb_first.push_back(sums[e]);
    m.output("q" + std::to_string(p / kPerPort), m.concat(msb_first));
  }
  return d;
}

std::vector<std::filesystem::path> write_verilog(const Design& design,
                                                 const std::filesystem::path& dir,
                                                 const VerilogOptions& options) {
  std::vector<std::filesystem::path> paths;
  for (const auto& [file, text] : print_verilog(design, options)) {
    paths.push_back(dir / file);
    std::ofstream(paths.back(), std::ios::binary) << text;
  }
  return paths;
}

}  // namespace kiln::netlist::testing

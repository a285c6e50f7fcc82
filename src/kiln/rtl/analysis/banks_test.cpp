// Banks of partitioned buffers: which bank an access of a kept loop reaches,
// its address there, and each bank's contents, for each partition kind.
#include "kiln/rtl/analysis/banks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "kiln/loop/builder.h"

namespace kiln::rtl {
namespace {

// A 4x6 weight buffer w[r][c] = 10 * r + c and its partition.
struct Weights {
  loop::Program p;
  int w = -1;
  explicit Weights(loop::Partition kind, int64_t factor, int dim) {
    w = loop::add_buffer(p, "w", loop::BufferRole::Const, loop::ScalarType{8, 0, true}, {4, 6});
    loop::Buffer& b = p.buffers[static_cast<std::size_t>(w)];
    std::vector<int64_t> data;
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 6; ++c) data.push_back(10 * r + c);
    b.data = data;
    b.directives = {kind, factor, dim, loop::Storage::Auto, {}};
  }
  // w[row][col] with row = step * v + base (v the loop's variable), col fixed.
  dfg::PortAccess row_access(int64_t step, int64_t base, int64_t col) const {
    dfg::PortAccess pa;
    pa.buffer = pa.accessed = w;
    pa.index = {loop::Affine::var(0, step) + base, loop::Affine::of(col)};
    pa.element = loop::Affine::var(0, step * 6) + (base * 6 + col);
    return pa;
  }
};

// A loop kept alone (loop 0), and a flattened nest of loops 0 and 1.
dfg::LoopBody one_loop() {
  dfg::LoopBody b;
  b.loop = 0;
  b.kept = {0};
  b.extents = {4};
  b.trip = 4;
  return b;
}
dfg::LoopBody two_loops() {
  dfg::LoopBody b;
  b.loop = 0;
  b.kept = {0, 1};
  b.extents = {4, 2};
  b.trip = 8;
  return b;
}

TEST(Banks, CyclicOverColumnsFixesTheBankOfAColumn) {
  const Weights w(loop::Partition::Cyclic, 3, 2);
  const dfg::PortAccess pa = w.row_access(1, 0, 4);  // w[v][4]: column 4 is in bank 1
  const Bank bank = bank_of(pa, w.p);
  EXPECT_FALSE(bank.any);
  EXPECT_EQ(bank.part, std::vector<int64_t>{1});
  EXPECT_EQ(bank_name(w.p.buffers[0], bank), "@w[1]");
  // Bank 1 holds columns 1 and 4 of each row, row-major: address 2 * v + 1.
  const Linear a = bank_address(pa, w.p, one_loop());
  EXPECT_EQ(a.step, std::vector<int64_t>{2});
  EXPECT_EQ(a.base, 1);
  EXPECT_EQ(bank_elements(w.p, w.w, {1}), (std::vector<int64_t>{1, 4, 7, 10, 13, 16, 19, 22}));
}

TEST(Banks, BlockOverRowsAndTheLoopMovingAcrossThem) {
  const Weights w(loop::Partition::Block, 2, 1);  // rows 0-1 and 2-3
  EXPECT_EQ(bank_elements(w.p, w.w, {1}),
            (std::vector<int64_t>{12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
  // A read that walks the rows crosses the blocks: no single bank.
  EXPECT_TRUE(bank_of(w.row_access(1, 0, 2), w.p).any);
  // One that stays on row 3 is in bank 1 at address 6 + col.
  dfg::PortAccess fixed = w.row_access(0, 3, 2);
  fixed.index[0] = loop::Affine::of(3);
  const Linear a = bank_address(fixed, w.p, one_loop());
  EXPECT_EQ(bank_of(fixed, w.p).part, std::vector<int64_t>{1});
  EXPECT_EQ(a.base, 8);
}

TEST(Banks, CyclicWhoseStepIsNotAMultipleCrossesBanks) {
  const Weights w(loop::Partition::Cyclic, 2, 1);
  EXPECT_TRUE(bank_of(w.row_access(1, 0, 0), w.p).any);
  const Bank even = bank_of(w.row_access(2, 1, 0), w.p);  // rows 1, 3: bank 1
  EXPECT_FALSE(even.any);
  EXPECT_EQ(even.part, std::vector<int64_t>{1});
  // One bank row per step.
  EXPECT_EQ(bank_address(w.row_access(2, 1, 0), w.p, one_loop()).step, std::vector<int64_t>{6});
}

// A flattened nest moves an index with two variables: w[v0][3 * v1 + 1]
// stays in bank 1 of a cyclic partition by 3 over columns (columns 1 and 4),
// at address 2 * v0 + v1; a column step of 2 would cross the banks.
TEST(Banks, AFlattenedNestsVariablesEachGetAStep) {
  const Weights w(loop::Partition::Cyclic, 3, 2);
  dfg::PortAccess pa;
  pa.buffer = pa.accessed = w.w;
  pa.index = {loop::Affine::var(0, 1), loop::Affine::var(1, 3) + 1};
  pa.element = loop::Affine::var(0, 6) + loop::Affine::var(1, 3) + 1;
  const Bank bank = bank_of(pa, w.p);
  EXPECT_FALSE(bank.any);
  EXPECT_EQ(bank.part, std::vector<int64_t>{1});
  const Linear a = bank_address(pa, w.p, two_loops());
  EXPECT_EQ(a.step, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(a.base, 0);
  pa.index[1] = loop::Affine::var(1, 2) + 1;
  EXPECT_TRUE(bank_of(pa, w.p).any);
}

TEST(Banks, CompleteOverAllDimensionsIsRegisters) {
  const Weights w(loop::Partition::Complete, 0, 0);
  EXPECT_TRUE(bank_of(w.row_access(1, 0, 0), w.p).registers);
}

// Every element is in exactly one bank, at the address bank_of and
// bank_address give its constant access, for every kind, factor (parts the
// shape does not fill included) and dimension, and for a Dim list.
TEST(Banks, EachElementIsOnceInTheBankItsAccessNames) {
  struct Case {
    loop::Partition kind;
    int64_t factor;
    int dim;
    std::vector<int> more;
  };
  std::vector<Case> cases;
  for (auto kind : {loop::Partition::Cyclic, loop::Partition::Block})
    for (int64_t factor = 1; factor <= 7; ++factor)
      for (int dim = 1; dim <= 2; ++dim) cases.push_back({kind, factor, dim, {}});
  cases.push_back({loop::Partition::Complete, 0, 2, {}});
  cases.push_back({loop::Partition::Cyclic, 4, 1, {2}});
  cases.push_back({loop::Partition::Block, 3, 1, {2}});
  for (const Case& c : cases) {
    Weights w(c.kind, c.factor, c.dim);
    w.p.buffers[0].directives.more_dims = c.more;
    std::map<std::vector<int64_t>, std::vector<int64_t>> banks;
    for (int64_t e = 0; e < 24; ++e) {
      dfg::PortAccess pa = w.row_access(0, e / 6, e % 6);
      pa.index[0] = loop::Affine::of(e / 6);
      const Bank bank = bank_of(pa, w.p);
      ASSERT_FALSE(bank.any);
      if (!banks.count(bank.part)) banks[bank.part] = bank_elements(w.p, w.w, bank.part);
      const std::vector<int64_t>& elements = banks[bank.part];
      EXPECT_EQ(static_cast<int64_t>(elements.size()), bank_depth(w.p, w.w));
      const int64_t address = bank_address(pa, w.p, one_loop()).base;
      ASSERT_LT(address, static_cast<int64_t>(elements.size()));
      EXPECT_EQ(elements[static_cast<std::size_t>(address)], e)
          << "factor " << c.factor << " dim " << c.dim;
    }
    int64_t held = 0;
    for (const auto& [part, elements] : banks)
      held += std::count_if(elements.begin(), elements.end(), [](int64_t e) { return e >= 0; });
    EXPECT_EQ(held, 24);
  }
}

}  // namespace
}  // namespace kiln::rtl

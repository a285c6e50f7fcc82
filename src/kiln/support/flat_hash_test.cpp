#include "kiln/support/flat_hash.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

namespace kiln {
namespace {

struct Identity {
  std::size_t operator()(uint64_t k) const { return static_cast<std::size_t>(k); }
};

TEST(FlatHashMap, InsertsFindsAndKeepsTheFirstValue) {
  FlatHashMap<uint64_t, int, Identity> m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.find(7), nullptr);
  auto [v, added] = m.try_emplace(7, 1);
  EXPECT_TRUE(added);
  EXPECT_EQ(*v, 1);
  auto [w, again] = m.try_emplace(7, 2);
  EXPECT_FALSE(again);
  EXPECT_EQ(*w, 1);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_TRUE(m.contains(7));
  EXPECT_FALSE(m.contains(8));
  m.clear();
  EXPECT_TRUE(m.empty());
  EXPECT_FALSE(m.contains(7));
}

// Against std::unordered_map over many keys that collide in their low bits
// (the table grows through many sizes).
TEST(FlatHashMap, AgreesWithUnorderedMap) {
  FlatHashMap<uint64_t, uint32_t, Identity> m;
  std::unordered_map<uint64_t, uint32_t> ref;
  std::mt19937_64 rng(5);
  for (uint32_t i = 0; i < 100000; ++i) {
    const uint64_t k = (rng() % 20000) << 20;
    const auto [v, added] = m.try_emplace(k, i);
    const auto [it, ref_added] = ref.try_emplace(k, i);
    ASSERT_EQ(added, ref_added);
    ASSERT_EQ(*v, it->second);
  }
  EXPECT_EQ(m.size(), ref.size());
  for (const auto& [k, v] : ref) {
    ASSERT_NE(m.find(k), nullptr);
    EXPECT_EQ(*m.find(k), v);
  }
  EXPECT_EQ(m.find(uint64_t{1} << 63), nullptr);
}

}  // namespace
}  // namespace kiln

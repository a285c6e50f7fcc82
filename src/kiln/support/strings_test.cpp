#include "kiln/support/strings.h"

#include <gtest/gtest.h>

#include <vector>

namespace kiln {
namespace {

TEST(Strings, Join) {
  EXPECT_EQ(join(std::vector<int64_t>{1, -2, 3}, ","), "1,-2,3");
  EXPECT_EQ(join(std::vector<std::string>{"a", "b"}, ", "), "a, b");
  EXPECT_EQ(join(std::vector<int>{}, ","), "");
}

TEST(Strings, EditDistanceAndClosestSpelling) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
  EXPECT_EQ(edit_distance("ReuseFactor", "reusefactor"), 0);
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(closest_spelling("Strtegy", {"Strategy", "Precision"}), "Strategy");
  EXPECT_EQ(closest_spelling("zzzzzzzz", {"Strategy", "Precision"}), std::nullopt);
}

}  // namespace
}  // namespace kiln

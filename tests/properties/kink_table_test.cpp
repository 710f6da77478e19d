// The kink table (properties/oracles/kink_table.h) that kink_conventions holds every engine to: it covers
// every op with kinks and every choice the op library lists, and its values are those of
// docs/semantics.md §2.3 and §2.5, written out here a third time.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/ops/library.hpp"
#include "properties/oracles/kink_table.h"

namespace tc {
namespace {

using props::kinks::Choices;
using props::kinks::Element;

TEST(KinkTable, HasARowForEveryOpWithKinksWithTheLibrarysChoices) {
  std::size_t rows = 0;
  for (std::size_t i = 0; i < kOpCount; ++i) {
    const auto kind = static_cast<OpKind>(i);
    const auto* row = props::kinks::rowOf<double>(opName(kind));
    EXPECT_EQ(ops::hasKinks(kind), row != nullptr) << opName(kind);
    EXPECT_EQ(ops::hasKinks(kind), ops::kinkPlace(kind) != KinkPlace::none) << opName(kind);
    if (!row) continue;
    ++rows;
    auto library = ops::kinkChoices(kind);
    auto table = row->choiceNames();
    EXPECT_TRUE(std::equal(library.begin(), library.end(), table.begin(), table.end())) << opName(kind);
  }
  EXPECT_EQ(rows, props::kinks::kTable<double>.size());
}

std::array<double, 2> terms(std::string_view op, Element<double> e, Choices choices) {
  return props::kinks::rowOf<double>(op)->terms(e, choices);
}

TEST(KinkTable, GivesTheSpecifiedValueAtEachKinkUnderEachChoice) {
  using A = std::array<double, 2>;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double lo = 0, hi = 1;
  EXPECT_EQ(terms("relu", {0, 0, nullptr, nullptr, 3}, {"zero"}), (A{0, 0}));
  EXPECT_EQ(terms("relu", {-0.0, 0, nullptr, nullptr, 3}, {"one"}), (A{3, 0}));
  EXPECT_EQ(terms("relu", {2, 0, nullptr, nullptr, 3}, {"zero"}), (A{3, 0}));
  EXPECT_EQ(terms("relu", {-2, 0, nullptr, nullptr, 3}, {"one"}), (A{0, 0}));
  EXPECT_EQ(terms("relu", {nan, 0, nullptr, nullptr, 3}, {"zero"}), (A{0, 0}));
  EXPECT_EQ(terms("relu", {nan, 0, nullptr, nullptr, 3}, {"zero", true}), (A{3, 0}));
  EXPECT_TRUE(std::isnan(terms("abs", {0, 0, nullptr, nullptr, nan}, {"product"})[0]));
  EXPECT_EQ(terms("abs", {0, 0, nullptr, nullptr, nan}, {"zero"})[0], 0);
  EXPECT_TRUE(std::signbit(terms("abs", {0, 0, nullptr, nullptr, -3}, {"product"})[0]));
  EXPECT_FALSE(std::signbit(terms("abs", {0, 0, nullptr, nullptr, -3}, {"zero"})[0]));
  EXPECT_EQ(terms("abs", {nan, 0, nullptr, nullptr, 3}, {"sign", true})[0], 0) << "sgn(NaN) = 0";
  EXPECT_TRUE(std::isnan(terms("abs", {nan, 0, nullptr, nullptr, 3}, {"product", true})[0]));
  EXPECT_EQ(terms("abs", {-2, 0, nullptr, nullptr, 3}, {"zero"})[0], -3);
  EXPECT_EQ(terms("clamp", {0, 0, &lo, &hi, 3}, {"pass"})[0], 3);
  EXPECT_EQ(terms("clamp", {1, 0, &lo, &hi, 3}, {"block"})[0], 0);
  EXPECT_EQ(terms("clamp", {0.5, 0, &lo, &hi, 3}, {"block"})[0], 3);
  EXPECT_EQ(terms("clamp", {2, 0, &lo, &hi, 3}, {"pass"})[0], 0);
  EXPECT_EQ(terms("clamp", {lo, 0, &lo, &lo, 3}, {"pass"})[0], 3) << "lo = hi: ct passes at the bound";
  EXPECT_EQ(terms("max", {2, 2, nullptr, nullptr, 3}, {"split"}), (A{1.5, 1.5}));
  EXPECT_EQ(terms("max", {2, 2, nullptr, nullptr, 3}, {"first"}), (A{3, 0}));
  EXPECT_EQ(terms("min", {2, 2, nullptr, nullptr, 3}, {"both"}), (A{3, 3}));
  EXPECT_EQ(terms("max", {1, 2, nullptr, nullptr, 3}, {"split"}), (A{0, 3}));
  EXPECT_EQ(terms("min", {1, 2, nullptr, nullptr, 3}, {"split"}), (A{3, 0}));
  EXPECT_EQ(terms("max", {nan, 1, nullptr, nullptr, 3}, {"split"}), (A{1.5, 1.5})) << "unordered: a tie";
  EXPECT_EQ(terms("max", {nan, 1, nullptr, nullptr, 3}, {"split", true}), (A{3, 3}));
}

TEST(KinkTable, SaysWhereTheKinksAre) {
  const double lo = -1, hi = 2;
  EXPECT_TRUE(props::kinks::rowOf<double>("relu")->atKink({-0.0, 0, nullptr, nullptr, 1}));
  EXPECT_FALSE(props::kinks::rowOf<double>("abs")->atKink({1, 0, nullptr, nullptr, 1}));
  EXPECT_TRUE(props::kinks::rowOf<double>("clamp")->atKink({2, 0, &lo, &hi, 1}));
  EXPECT_FALSE(props::kinks::rowOf<double>("clamp")->atKink({0, 0, &lo, &hi, 1}));
  EXPECT_TRUE(props::kinks::rowOf<double>("min")->atKink({-0.0, 0, nullptr, nullptr, 1}));
}

}  // namespace
}  // namespace tc

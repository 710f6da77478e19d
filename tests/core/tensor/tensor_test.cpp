// core/tensor: shapes (inline dimensions, validity limits, text) and tensors.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "core/tensor/shape.h"
#include "core/tensor/tensor.h"

namespace tc {
namespace {

TEST(Shape, HoldsDimensionsOutermostFirst) {
  Shape scalar;
  EXPECT_TRUE(scalar.empty());
  EXPECT_EQ(scalar.size(), 0u);
  EXPECT_EQ(scalar.begin(), scalar.end());

  Shape s{2, 3, 4};
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], 2u);
  EXPECT_EQ(s[2], 4u);
  EXPECT_EQ(s.back(), 4u);
  EXPECT_EQ(std::vector<std::size_t>(s.begin(), s.end()), (std::vector<std::size_t>{2, 3, 4}));
  s[1] = 7;
  EXPECT_EQ(s, (Shape{2, 7, 4}));

  std::vector<std::size_t> dims{5, 6};
  EXPECT_EQ(Shape(dims.begin(), dims.end()), (Shape{5, 6}));
}

TEST(Shape, ComparesRankAndDimensions) {
  EXPECT_EQ((Shape{2, 3}), (Shape{2, 3}));
  EXPECT_NE((Shape{2, 3}), (Shape{3, 2}));
  EXPECT_NE((Shape{2}), (Shape{2, 1}));
  EXPECT_NE((Shape{1}), Shape{});
  EXPECT_EQ(Shape{}, Shape{});
}

TEST(Shape, PushBackAndEraseKeepTheOrder) {
  Shape s;
  s.push_back(4);
  s.push_back(5);
  s.push_back(6);
  EXPECT_EQ(s, (Shape{4, 5, 6}));
  s.erase(s.begin() + 1);
  EXPECT_EQ(s, (Shape{4, 6}));
  s.erase(s.begin());
  EXPECT_EQ(s, (Shape{6}));
  s.erase(s.begin());
  EXPECT_TRUE(s.empty());
}

TEST(Shape, IsTriviallyCopyableAndCopiesAreIndependent) {
  static_assert(std::is_trivially_copyable_v<Shape>);
  Shape a{2, 3};
  Shape b = a;
  b[0] = 9;
  EXPECT_EQ(a, (Shape{2, 3}));
  EXPECT_EQ(b, (Shape{9, 3}));
}

TEST(Shape, HoldsUpToMaxRankDimensions) {
  EXPECT_EQ(kMaxRank, 8u);
  Shape s{1, 1, 1, 1, 1, 1, 1, 2};
  EXPECT_EQ(s.size(), kMaxRank);
  EXPECT_EQ(s.back(), 2u);
}

TEST(ShapeDeathTest, ANinthDimensionIsABrokenInvariant) {
  Shape s{1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_DEATH(s.push_back(1), "shape rank exceeds kMaxRank");
}

TEST(ShapeDeathTest, ADimensionAboveMaxElementsIsABrokenInvariant) {
  Shape s;
  s.push_back(kMaxElements);  // the largest dimension a shape may hold
  EXPECT_EQ(s.back(), kMaxElements);
  EXPECT_DEATH(s.push_back(kMaxElements + 1), "shape dimension exceeds kMaxElements");
}

TEST(Shape, ElementCountIsTheProductOfTheDimensions) {
  EXPECT_EQ(elementCount(Shape{}), 1u);
  EXPECT_EQ(elementCount(Shape{7}), 7u);
  EXPECT_EQ(elementCount(Shape{2, 3, 4}), 24u);
  EXPECT_EQ(elementCount(Shape{1, 1, 1}), 1u);
}

TEST(Shape, FormatShapeWritesBrackets) {
  EXPECT_EQ(formatShape(Shape{}), "[]");
  EXPECT_EQ(formatShape(Shape{5}), "[5]");
  EXPECT_EQ(formatShape(Shape{2, 3, 4}), "[2, 3, 4]");
}

TEST(Shape, LimitsAreConsistent) {
  EXPECT_EQ(kMaxElements, std::size_t{1} << 22);
  EXPECT_EQ(kMaxGraphElements, std::size_t{1} << 24);
}

TEST(CheckShape, ValidShapesGiveTheirElementCount) {
  EXPECT_EQ(checkShape(Shape{}), 1u);
  EXPECT_EQ(checkShape(Shape{2, 3}), 6u);
  EXPECT_EQ(checkShape(Shape{kMaxElements}), kMaxElements);
  EXPECT_EQ(checkShape(Shape{2048, 2048}), kMaxElements);  // exactly at the limit
}

TEST(CheckShape, ZeroDimensionIsNamed) {
  auto zero = checkShape(Shape{2, 0, 3});
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message, "shape [2, 0, 3]: dimension 1 is 0; every dimension must be at least 1");
  EXPECT_EQ(checkShape(Shape{0}).error().message, "shape [0]: dimension 0 is 0; every dimension must be at least 1");
}

TEST(CheckShape, TooManyElementsAreRejected) {
  auto big = checkShape(Shape{2048, 2049});
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message, "shape [2048, 2049] has more than 4194304 elements");
  EXPECT_EQ(checkShape(Shape{kMaxElements, 2}).error().message, "shape [4194304, 2] has more than 4194304 elements");
}

TEST(CheckDimensions, ChecksDimensionsTooLargeForAShape) {
  std::vector<std::size_t> ok{4, 5};
  EXPECT_EQ(checkDimensions(ok), 20u);
  EXPECT_EQ(checkDimensions(std::vector<std::size_t>{}), 1u);

  std::vector<std::size_t> huge{std::size_t{1} << 40};
  EXPECT_EQ(checkDimensions(huge).error().message, "shape [1099511627776] has more than 4194304 elements");
  // A product that would overflow 64 bits is still reported, not wrapped around.
  std::vector<std::size_t> overflow{std::size_t{1} << 21, std::size_t{1} << 62};
  EXPECT_EQ(checkDimensions(overflow).error().message,
            "shape [2097152, 4611686018427387904] has more than 4194304 elements");
  // The first offending dimension decides the message.
  std::vector<std::size_t> zeroFirst{0, std::size_t{1} << 40};
  EXPECT_EQ(checkDimensions(zeroFirst).error().message, "shape [0, 1099511627776]: dimension 0 is 0; every dimension must be at least 1");
  std::vector<std::size_t> zeroLater{3, 0};
  EXPECT_EQ(checkDimensions(zeroLater).error().message, "shape [3, 0]: dimension 1 is 0; every dimension must be at least 1");
}

TEST(Tensor, FilledRepeatsTheValueOverTheShape) {
  Tensor<int> t = Tensor<int>::filled({2, 3}, 7);
  EXPECT_EQ(t.shape, (Shape{2, 3}));
  EXPECT_EQ(t.size(), 6u);
  EXPECT_EQ(t.values, std::vector<int>(6, 7));

  Tensor<double> scalar = Tensor<double>::filled({}, -0.5);
  EXPECT_EQ(scalar.shape, Shape{});
  ASSERT_EQ(scalar.size(), 1u);
  EXPECT_EQ(scalar[0], -0.5);
}

TEST(Tensor, HoldsRowMajorValues) {
  Tensor<int> t({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(t[1], 2);
  EXPECT_EQ(t[2], 3);
  t[3] = 9;
  EXPECT_EQ(t.values, (std::vector<int>{1, 2, 3, 9}));
  Tensor<int> empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_TRUE(empty.shape.empty());
}

TEST(TensorDeathTest, ValuesMustMatchTheShape) {
  EXPECT_DEATH(Tensor<int>({2, 2}, {1, 2, 3}), "values.size\\(\\) == elementCount\\(shape\\)");
}

}  // namespace
}  // namespace tc

#include "xla/util/math_util.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(MathUtil, Product) {
  EXPECT_EQ(Product({3, 5, 7}), 105);
  EXPECT_EQ(Product({}), 1);
  EXPECT_EQ(Product({4, 0, 9}), 0);
  const std::vector<int64_t> dims = {2, 3, 5, 7};
  EXPECT_EQ(Product(dims), 210);
}

TEST(MathUtil, ProductOfRange) {
  const std::vector<int64_t> dims = {2, 3, 5, 7};
  EXPECT_EQ(Product(dims, 0, 2), 6);
  EXPECT_EQ(Product(dims, 1, 4), 105);
  EXPECT_EQ(Product(dims, 2, 2), 1);
  EXPECT_EQ(Product(dims, 3, 1), 1);
  EXPECT_EQ(Product(dims, 0, dims.size()), 210);
}

TEST(MathUtil, CheckedProduct) {
  EXPECT_EQ(CheckedProduct({3, 5, 7}), 105);
  EXPECT_EQ(CheckedProduct({}), 1);
  EXPECT_EQ(CheckedProduct({0, kMax}), 0);
  EXPECT_EQ(CheckedProduct({3, -1}), std::nullopt);
  EXPECT_EQ(CheckedProduct({kMax, 2}), std::nullopt);
  EXPECT_EQ(CheckedProduct({int64_t{1} << 32, int64_t{1} << 31}), std::nullopt);
  EXPECT_EQ(CheckedProduct({int64_t{1} << 31, int64_t{1} << 31}), int64_t{1} << 62);
}

TEST(MathUtil, CeilDiv) {
  EXPECT_EQ(CeilDiv(0, 4), 0);
  EXPECT_EQ(CeilDiv(1, 4), 1);
  EXPECT_EQ(CeilDiv(4, 4), 1);
  EXPECT_EQ(CeilDiv(5, 4), 2);
  EXPECT_EQ(CeilDiv(33, 32), 2);
  EXPECT_EQ(CeilDiv(257, 1), 257);
  EXPECT_EQ(CeilDiv(kMax, 2), kMax / 2 + 1);  // no overflow in a + b - 1
  EXPECT_EQ(CeilDiv(kMax, kMax), 1);
}

TEST(MathUtil, CeilDivOfNonPositive) {
  EXPECT_EQ(CeilDiv(5, 0), 0);
  EXPECT_EQ(CeilDiv(5, -3), 0);
  EXPECT_EQ(CeilDiv(-5, 3), 0);
  EXPECT_EQ(CeilDiv(0, 0), 0);
}

TEST(MathUtil, RoundUp) {
  EXPECT_EQ(RoundUp(0, 32), 0);
  EXPECT_EQ(RoundUp(1, 32), 32);
  EXPECT_EQ(RoundUp(32, 32), 32);
  EXPECT_EQ(RoundUp(33, 32), 64);
  EXPECT_EQ(RoundUp(257, 8), 264);
  EXPECT_EQ(RoundUp(7, 0), 0);
}

}  // namespace
}  // namespace xla

#include "xla/types/physical_layout.h"

#include <cstdint>
#include <vector>

#include <cstring>

#include "gtest/gtest.h"

namespace xla {
namespace {

Shape WithLayout(std::vector<int64_t> dims, std::vector<int64_t> m2m) {
  Shape s = Shape::Array(PrimitiveType::S16, dims);
  Layout layout;
  layout.minor_to_major = std::move(m2m);
  s.set_layout(layout);
  return s;
}

std::vector<uint8_t> Bytes(const std::vector<int16_t>& v) {
  std::vector<uint8_t> b(v.size() * 2);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(PhysicalLayout, ColumnMajorMatrixByHand) {
  // Logical [2,3] row-major: 0 1 2 / 3 4 5. Column-major physical order
  // walks down columns: 0 3 1 4 2 5.
  const Shape s = WithLayout({2, 3}, {0, 1});
  EXPECT_FALSE(PhysicalOrderIsLogical(s));
  std::vector<uint8_t> physical(12);
  ASSERT_TRUE(LogicalToPhysical(s, Bytes({0, 1, 2, 3, 4, 5}), absl::MakeSpan(physical)).ok());
  EXPECT_EQ(physical, Bytes({0, 3, 1, 4, 2, 5}));
  std::vector<uint8_t> back(12);
  ASSERT_TRUE(PhysicalToLogical(s, physical, absl::MakeSpan(back)).ok());
  EXPECT_EQ(back, Bytes({0, 1, 2, 3, 4, 5}));
}

TEST(PhysicalLayout, Rank3PermutationRoundTripsAndMatchesStrides) {
  // dims [3,5,7], minor_to_major {1,2,0}: dim 1 fastest (stride 1), then
  // dim 2 (stride 5), then dim 0 (stride 35).
  const Shape s = WithLayout({3, 5, 7}, {1, 2, 0});
  std::vector<int16_t> logical(105);
  for (int i = 0; i < 105; ++i) logical[i] = static_cast<int16_t>(i * 3 - 50);
  std::vector<uint8_t> physical(210);
  ASSERT_TRUE(LogicalToPhysical(s, Bytes(logical), absl::MakeSpan(physical)).ok());
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 5; ++b) {
      for (int c = 0; c < 7; ++c) {
        int16_t v;
        std::memcpy(&v, physical.data() + 2 * (b + 5 * c + 35 * a), 2);
        EXPECT_EQ(v, logical[a * 35 + b * 7 + c]) << a << "," << b << "," << c;
      }
    }
  }
  std::vector<uint8_t> back(210);
  ASSERT_TRUE(PhysicalToLogical(s, physical, absl::MakeSpan(back)).ok());
  EXPECT_EQ(back, Bytes(logical));
}

TEST(PhysicalLayout, RowMajorDetectionAndErrors) {
  EXPECT_TRUE(PhysicalOrderIsLogical(WithLayout({4, 6}, {1, 0})));
  EXPECT_TRUE(PhysicalOrderIsLogical(Shape::Array(PrimitiveType::F32, {4, 6})));
  EXPECT_TRUE(PhysicalOrderIsLogical(WithLayout({1, 1}, {0, 1})));
  std::vector<uint8_t> buf(48);
  EXPECT_FALSE(LogicalToPhysical(WithLayout({4, 6}, {0, 0}), buf, absl::MakeSpan(buf)).ok());
  std::vector<uint8_t> small(10);
  EXPECT_FALSE(LogicalToPhysical(WithLayout({4, 6}, {0, 1}), buf, absl::MakeSpan(small)).ok());
  Shape packed = WithLayout({4, 6}, {1, 0});
  packed.mutable_layout()->suffix = "E(4)S(1)";
  EXPECT_TRUE(PhysicalOrderIsLogical(packed));
  Shape tiled = WithLayout({4, 6}, {1, 0});
  tiled.mutable_layout()->suffix = "T(8,128)";
  absl::Status s = LogicalToPhysical(tiled, buf, absl::MakeSpan(buf));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("T(8,128)"), std::string::npos) << s;
}

}  // namespace
}  // namespace xla

// Tests of ragged-dot in the evaluator, one per ragged mode, against naive
// loops written here over explicit group boundaries (odd sizes, an empty
// group, rows past the last group).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"

namespace xla {
namespace {

using evaluator_test::EvalText;
using evaluator_test::MakeIntLiteral;
using evaluator_test::Values;

// Random values in [-1, 1) rounded to `type`.
Literal RandomLiteral(PrimitiveType type, std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Literal l(Shape::Array(type, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, dist(gen));
  return l;
}

// The group of position x for consecutive groups of `sizes`, or -1.
int64_t GroupOf(const std::vector<int64_t>& sizes, int64_t x) {
  int64_t start = 0;
  for (size_t g = 0; g < sizes.size(); ++g) {
    if (x >= start && x < start + sizes[g]) return static_cast<int64_t>(g);
    start += sizes[g];
  }
  return -1;
}

Literal Eval(const std::string& hlo, const std::vector<Literal>& args) {
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : Literal();
}

TEST(RaggedDotTest, NonContractingRowsUseTheirGroupsMatrix) {
  // 11 rows in groups {4, 0, 5}: rows 0-3 use rhs[0], 4-8 rhs[2], 9-10 none.
  const std::vector<int64_t> sizes = {4, 0, 5};
  const Literal a = RandomLiteral(PrimitiveType::F32, {11, 5}, 1);
  const Literal b = RandomLiteral(PrimitiveType::F32, {3, 5, 7}, 2);
  const Literal g = MakeIntLiteral(PrimitiveType::S32, {3}, sizes);
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[11,5] parameter(0)
  b = f32[3,5,7] parameter(1)
  g = s32[3] parameter(2)
  ROOT d = f32[11,7] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})", {a, b, g});
  std::vector<double> want;
  for (int64_t i = 0; i < 11; ++i) {
    const int64_t grp = GroupOf(sizes, i);
    for (int64_t j = 0; j < 7; ++j) {
      double s = 0;
      for (int64_t k = 0; grp >= 0 && k < 5; ++k) {
        s += a.GetDouble(i * 5 + k) * b.GetDouble(b.LinearIndex({grp, k, j}));
      }
      want.push_back(static_cast<float>(s));
    }
  }
  EXPECT_EQ(Values(r), want);
}

TEST(RaggedDotTest, NonContractingGroupSizesPerOuterRow) {
  // group_sizes [2, 3]: the groups of a[0] and a[1] differ.
  const std::vector<std::vector<int64_t>> sizes = {{4, 0, 5}, {1, 6, 4}};
  const Literal a = RandomLiteral(PrimitiveType::F32, {2, 11, 5}, 3);
  const Literal b = RandomLiteral(PrimitiveType::F32, {3, 5, 7}, 4);
  const Literal g = MakeIntLiteral(PrimitiveType::S64, {2, 3}, {4, 0, 5, 1, 6, 4});
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[2,11,5] parameter(0)
  b = f32[3,5,7] parameter(1)
  g = s64[2,3] parameter(2)
  ROOT d = f32[2,11,7] ragged-dot(a, b, g), lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={0}
})", {a, b, g});
  std::vector<double> want;
  for (int64_t o = 0; o < 2; ++o) {
    for (int64_t i = 0; i < 11; ++i) {
      const int64_t grp = GroupOf(sizes[o], i);
      for (int64_t j = 0; j < 7; ++j) {
        double s = 0;
        for (int64_t k = 0; grp >= 0 && k < 5; ++k) {
          s += a.GetDouble(a.LinearIndex({o, i, k})) * b.GetDouble(b.LinearIndex({grp, k, j}));
        }
        want.push_back(static_cast<float>(s));
      }
    }
  }
  EXPECT_EQ(Values(r), want);
}

TEST(RaggedDotTest, ContractingSumsEachGroupsSpanSeparately) {
  // k = 11 in groups {2, 5, 3}; position 10 is in no group.
  const std::vector<int64_t> sizes = {2, 5, 3};
  const Literal a = RandomLiteral(PrimitiveType::F64, {3, 11}, 5);
  const Literal b = RandomLiteral(PrimitiveType::F64, {11, 7}, 6);
  const Literal g = MakeIntLiteral(PrimitiveType::S32, {3}, sizes);
  const Literal r = Eval(R"(
ENTRY e {
  a = f64[3,11] parameter(0)
  b = f64[11,7] parameter(1)
  g = s32[3] parameter(2)
  ROOT d = f64[3,3,7] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
})", {a, b, g});
  std::vector<double> want;
  for (int64_t grp = 0; grp < 3; ++grp) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 7; ++j) {
        double s = 0;
        for (int64_t k = 0; k < 11; ++k) {
          if (GroupOf(sizes, k) == grp) s += a.GetDouble(i * 11 + k) * b.GetDouble(k * 7 + j);
        }
        want.push_back(s);
      }
    }
  }
  EXPECT_EQ(Values(r), want);
}

TEST(RaggedDotTest, BatchIsThePlainDotInsideTheGroups) {
  // 5 batches in groups {1, 3}: batch 4 is in no group and gives zeros.
  const std::vector<int64_t> sizes = {1, 3};
  const Literal a = RandomLiteral(PrimitiveType::F32, {5, 3, 4}, 7);
  const Literal b = RandomLiteral(PrimitiveType::F32, {5, 4, 2}, 8);
  const Literal g = MakeIntLiteral(PrimitiveType::S32, {2}, sizes);
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[5,3,4] parameter(0)
  b = f32[5,4,2] parameter(1)
  g = s32[2] parameter(2)
  ROOT d = f32[5,3,2] ragged-dot(a, b, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
})", {a, b, g});
  std::vector<double> want;
  for (int64_t n = 0; n < 5; ++n) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 2; ++j) {
        double s = 0;
        for (int64_t k = 0; GroupOf(sizes, n) >= 0 && k < 4; ++k) {
          s += a.GetDouble(a.LinearIndex({n, i, k})) * b.GetDouble(b.LinearIndex({n, k, j}));
        }
        want.push_back(static_cast<float>(s));
      }
    }
  }
  EXPECT_EQ(Values(r), want);
}

TEST(RaggedDotTest, GroupSizesOfTheWrongRankIsAnError) {
  const Literal a = RandomLiteral(PrimitiveType::F32, {2, 11, 5}, 9);
  const Literal b = RandomLiteral(PrimitiveType::F32, {3, 5, 7}, 10);
  const Literal g = MakeIntLiteral(PrimitiveType::S32, {2, 2, 3}, std::vector<int64_t>(12, 1));
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  a = f32[2,11,5] parameter(0)
  b = f32[3,5,7] parameter(1)
  g = s32[2,2,3] parameter(2)
  ROOT d = f32[2,11,7] ragged-dot(a, b, g), lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={0}
})", {a, b, g});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("group sizes"), std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace xla

#include "xla/tools/stacked_literals.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla::tools {
namespace {

using ::testing::HasSubstr;

// s32[3,5] with element (i, j) = 100 * i + j - 7.
Literal Stacked() {
  Literal l(Shape::Array(PrimitiveType::S32, {3, 5}));
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 5; ++j) l.SetInt(i * 5 + j, 100 * i + j - 7);
  }
  return l;
}

TEST(StackedLiterals, UnstackThenStackIsTheIdentity) {
  const Literal stacked = Stacked();
  absl::StatusOr<std::vector<Literal>> slices = UnstackLeading(stacked, 3, "input 0");
  ASSERT_TRUE(slices.ok()) << slices.status();
  ASSERT_EQ(slices->size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*slices)[i].shape().dimensions(), std::vector<int64_t>{5});
    for (int64_t j = 0; j < 5; ++j) EXPECT_EQ((*slices)[i].GetInt(j), 100 * i + j - 7);
  }
  EXPECT_EQ(LeadingSlice(stacked, 2).GetInt(4), 197);
  absl::StatusOr<Literal> back = StackLeading(*slices, "output 0");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, stacked);
}

TEST(StackedLiterals, WrongLeadingDimensionIsNamed) {
  absl::StatusOr<std::vector<Literal>> slices = UnstackLeading(Stacked(), 4, "input 1");
  ASSERT_FALSE(slices.ok());
  EXPECT_THAT(slices.status().message(), HasSubstr("input 1 has shape s32[3,5]"));
  EXPECT_THAT(slices.status().message(), HasSubstr("--replicas=4"));
}

TEST(StackedLiterals, MismatchedPartsAreRefused) {
  std::vector<Literal> parts;
  parts.emplace_back(Shape::Array(PrimitiveType::F32, {2}));
  parts.emplace_back(Shape::Array(PrimitiveType::F32, {3}));
  absl::StatusOr<Literal> stacked = StackLeading(parts, "output 2");
  ASSERT_FALSE(stacked.ok());
  EXPECT_THAT(stacked.status().message(), HasSubstr("output 2: participant 1 has shape f32[3]"));
  EXPECT_FALSE(StackLeading(std::vector<Literal>{}, "output 3").ok());
}

TEST(StackedLiterals, ArgumentsAndLeavesOfSeveralParticipants) {
  absl::StatusOr<std::vector<std::vector<Literal>>> args = UnstackArguments({Stacked()}, 3);
  ASSERT_TRUE(args.ok()) << args.status();
  ASSERT_EQ(args->size(), 3u);
  EXPECT_EQ((*args)[1][0].GetInt(2), 95);
  // Two leaves per participant: its argument and the same again.
  std::vector<std::vector<const Literal*>> leaves;
  for (const auto& a : *args) leaves.push_back({&a[0], &a[0]});
  absl::StatusOr<std::vector<Literal>> stacked = StackParticipantLeaves(leaves, "output");
  ASSERT_TRUE(stacked.ok()) << stacked.status();
  ASSERT_EQ(stacked->size(), 2u);
  EXPECT_EQ((*stacked)[1], Stacked());
  leaves[2].pop_back();
  absl::StatusOr<std::vector<Literal>> uneven = StackParticipantLeaves(leaves, "output");
  ASSERT_FALSE(uneven.ok());
  EXPECT_THAT(uneven.status().message(), HasSubstr("participant 2 has 1 result leaves"));
  EXPECT_THAT(UnstackArguments({Stacked()}, 2).status().message(), HasSubstr("input 0 has shape"));
}

TEST(StackedLiterals, ATokenInputGivesEveryParticipantAToken) {
  std::vector<Literal> inputs;
  inputs.push_back(Stacked());
  inputs.emplace_back(Shape::Token());
  absl::StatusOr<std::vector<std::vector<Literal>>> args = UnstackArguments(inputs, 3);
  ASSERT_TRUE(args.ok()) << args.status();
  for (const std::vector<Literal>& a : *args) {
    ASSERT_EQ(a.size(), 2u);
    EXPECT_TRUE(a[1].shape().IsToken());
  }
  EXPECT_EQ((*args)[1][0].GetInt(2), 95);
}

}  // namespace
}  // namespace xla::tools

#include "xla/backends/gpu/runtime/collectives/communicator.h"

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

TEST(ReductionKindTest, ProtoRoundTripAndNames) {
  for (ReductionKind k : {ReductionKind::kSum, ReductionKind::kProd, ReductionKind::kMin,
                          ReductionKind::kMax, ReductionKind::kAnd, ReductionKind::kOr}) {
    absl::StatusOr<ReductionKind> back = ReductionKindFromProto(ReductionKindToProto(k));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, k);
  }
  EXPECT_EQ(ReductionKindName(ReductionKind::kMax), "max");
  EXPECT_EQ(ReductionKindToProto(ReductionKind::kOr), REDUCTION_KIND_OR);
  absl::StatusOr<ReductionKind> bad = ReductionKindFromProto(REDUCTION_KIND_UNSPECIFIED);
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(ReductionKindFromProto(77).ok());
}

TEST(ReductionKindTest, SupportedTypes) {
  EXPECT_TRUE(IsSupportedReduction(ReductionKind::kSum, PrimitiveType::F32));
  EXPECT_TRUE(IsSupportedReduction(ReductionKind::kMax, PrimitiveType::S32));
  EXPECT_TRUE(IsSupportedReduction(ReductionKind::kAnd, PrimitiveType::U8));
  EXPECT_TRUE(IsSupportedReduction(ReductionKind::kOr, PrimitiveType::PRED));
  EXPECT_FALSE(IsSupportedReduction(ReductionKind::kSum, PrimitiveType::PRED));
  EXPECT_FALSE(IsSupportedReduction(ReductionKind::kAnd, PrimitiveType::F32));
  EXPECT_FALSE(IsSupportedReduction(ReductionKind::kSum, PrimitiveType::C64));
  EXPECT_FALSE(IsSupportedReduction(ReductionKind::kSum, PrimitiveType::S4));
}

TEST(CliqueKeyTest, SortsAndRanks) {
  absl::StatusOr<CliqueKey> key = CliqueKey::Create({5, 1, 3});
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->devices(), (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(key->size(), 3);
  EXPECT_EQ(key->RankOf(5), 2);
  EXPECT_EQ(key->RankOf(1), 0);
  EXPECT_FALSE(key->RankOf(2).has_value());
  EXPECT_EQ(key->ToString(), "devices [1,3,5]");
  EXPECT_TRUE(*key == *CliqueKey::Create({3, 5, 1}));
}

TEST(CliqueKeyTest, RejectsBadLists) {
  EXPECT_FALSE(CliqueKey::Create({}).ok());
  absl::StatusOr<CliqueKey> dup = CliqueKey::Create({0, 2, 2});
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("device id 2 appears twice"), std::string::npos);
  EXPECT_FALSE(CliqueKey::Create({-1, 0}).ok());
}

}  // namespace
}  // namespace xla::gpu

// ResolveParticipants: groups, permute pairs, clique ranks, and the errors
// naming a missing participant.
#include "xla/backends/gpu/runtime/collectives/collective_participants.h"

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

CollectiveContext Context(int64_t replica, std::vector<int64_t> devices) {
  CollectiveContext ctx;
  ctx.replica_id = replica;
  ctx.replica_devices = std::move(devices);
  return ctx;
}

TEST(CollectiveParticipantsTest, GroupOrderAndCliqueRanks) {
  // Devices 7, 5, 9 for replicas 0, 1, 2; group {2, 0}: clique [7, 9].
  const CollectiveContext ctx = Context(2, {7, 5, 9});
  absl::StatusOr<CollectiveParticipants> who =
      ResolveParticipants("all-gather", {{1}, {2, 0}}, {}, ctx);
  ASSERT_TRUE(who.ok()) << who.status();
  EXPECT_TRUE(who->participates);
  EXPECT_EQ(who->device, 9);
  EXPECT_EQ(who->clique->devices(), (std::vector<int64_t>{7, 9}));
  EXPECT_EQ(who->to_rank, (std::vector<int64_t>{1, 0}));
  EXPECT_FALSE(who->ranks_in_group_order());
}

TEST(CollectiveParticipantsTest, PermuteSourceTargetsAndBystanders) {
  const std::vector<std::pair<int64_t, int64_t>> pairs = {{0, 1}, {1, 2}};
  absl::StatusOr<CollectiveParticipants> middle =
      ResolveParticipants("collective-permute", {}, pairs, Context(1, {0, 1, 2, 3}));
  ASSERT_TRUE(middle.ok()) << middle.status();
  EXPECT_EQ(middle->source_rank, 0);
  EXPECT_EQ(middle->target_ranks, (std::vector<int64_t>{2}));
  absl::StatusOr<CollectiveParticipants> bystander =
      ResolveParticipants("collective-permute", {}, pairs, Context(3, {0, 1, 2, 3}));
  ASSERT_TRUE(bystander.ok()) << bystander.status();
  EXPECT_FALSE(bystander->participates);
}

TEST(CollectiveParticipantsTest, MissingParticipantsAreNamed) {
  absl::StatusOr<CollectiveParticipants> beyond =
      ResolveParticipants("all-reduce", {{0, 1, 2}}, {}, Context(0, {0, 1}));
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.status().message().find("names replica 2 but the execution has 2 replicas"),
            std::string::npos)
      << beyond.status();
  absl::StatusOr<CollectiveParticipants> outside =
      ResolveParticipants("all-reduce", {{0}}, {}, Context(1, {0, 1}));
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("replica 1 is in no replica group"), std::string::npos)
      << outside.status();
}

}  // namespace
}  // namespace xla::gpu

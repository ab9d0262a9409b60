#include "xla/hlo/ir/collective_groups.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

// Parses a one-collective module whose root is `root` (operand p: f32[4]).
std::unique_ptr<HloModule> Parse(const std::string& root) {
  const std::string text = absl::StrCat(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  ROOT r = )",
                                        root, "\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

TEST(CollectiveGroupsTest, ModeRules) {
  EXPECT_EQ(*GetCollectiveOpGroupMode(false, std::nullopt), CollectiveOpGroupMode::kCrossReplica);
  EXPECT_EQ(*GetCollectiveOpGroupMode(false, false), CollectiveOpGroupMode::kCrossReplica);
  EXPECT_FALSE(GetCollectiveOpGroupMode(false, true).ok());
  EXPECT_EQ(*GetCollectiveOpGroupMode(true, std::nullopt), CollectiveOpGroupMode::kCrossPartition);
  EXPECT_EQ(*GetCollectiveOpGroupMode(true, false),
            CollectiveOpGroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(*GetCollectiveOpGroupMode(true, true), CollectiveOpGroupMode::kFlattenedId);
}

TEST(CollectiveGroupsTest, CrossReplicaPerPartition) {
  // 2 replicas x 3 partitions: device = r * 3 + p.
  auto g = GetParticipantGroups({{1, 0}}, CollectiveOpGroupMode::kCrossReplica, 2, 3);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(*g, (Groups{{3, 0}, {4, 1}, {5, 2}}));
  auto all = GetParticipantGroups({}, CollectiveOpGroupMode::kCrossReplica, 3, 1);
  EXPECT_EQ(*all, (Groups{{0, 1, 2}}));
}

TEST(CollectiveGroupsTest, CrossPartitionPerReplica) {
  auto g = GetParticipantGroups({{0, 2}, {1}}, CollectiveOpGroupMode::kCrossPartition, 2, 3);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(*g, (Groups{{0, 2}, {3, 5}, {1}, {4}}));
}

TEST(CollectiveGroupsTest, CrossReplicaAndPartitionIsReplicaMajor) {
  auto g = GetParticipantGroups({{1}, {0}}, CollectiveOpGroupMode::kCrossReplicaAndPartition, 2, 2);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(*g, (Groups{{2, 3}, {0, 1}}));
}

TEST(CollectiveGroupsTest, FlattenedIdsAsGiven) {
  auto g = GetParticipantGroups({{0, 3}, {2, 1}}, CollectiveOpGroupMode::kFlattenedId, 2, 2);
  EXPECT_EQ(*g, (Groups{{0, 3}, {2, 1}}));
  EXPECT_FALSE(GetParticipantGroups({}, CollectiveOpGroupMode::kFlattenedId, 2, 2).ok());
}

TEST(CollectiveGroupsTest, Errors) {
  auto out_of_range = GetParticipantGroups({{0, 4}}, CollectiveOpGroupMode::kCrossReplica, 4, 1);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(std::string(out_of_range.status().message()).find("replica 4"), std::string::npos);
  auto twice = GetParticipantGroups({{0, 1}, {1}}, CollectiveOpGroupMode::kCrossReplica, 2, 1);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(std::string(twice.status().message()).find("more than one"), std::string::npos);
  EXPECT_FALSE(GetParticipantGroups({{0}}, CollectiveOpGroupMode::kCrossReplica, 0, 1).ok());
}

TEST(CollectiveGroupsTest, InstructionIotaForm) {
  auto m = Parse("f32[4] all-reduce(p), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add");
  ASSERT_NE(m, nullptr);
  auto g = GetParticipantGroups(*m->entry_computation()->root_instruction(), 4, 1);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(*g, (Groups{{0, 2}, {1, 3}}));
  auto plain = Parse("f32[4] all-reduce(p), replica_groups=[2,2]<=[4], to_apply=add");
  EXPECT_EQ(*GetParticipantGroups(*plain->entry_computation()->root_instruction(), 4, 1),
            (Groups{{0, 1}, {2, 3}}));
}

TEST(CollectiveGroupsTest, InstructionModes) {
  auto global = Parse(
      "f32[4] all-reduce(p), channel_id=1, replica_groups={{0,3},{1,2}}, "
      "use_global_device_ids=true, to_apply=add");
  const HloInstruction& ar = *global->entry_computation()->root_instruction();
  EXPECT_EQ(*GetCollectiveOpGroupMode(ar), CollectiveOpGroupMode::kFlattenedId);
  EXPECT_EQ(*GetParticipantGroups(ar, 2, 2), (Groups{{0, 3}, {1, 2}}));

  auto a2a = Parse("f32[4] all-to-all(p), channel_id=2, replica_groups={{0,1}}, dimensions={0}");
  const HloInstruction& aa = *a2a->entry_computation()->root_instruction();
  EXPECT_EQ(*GetCollectiveOpGroupMode(aa), CollectiveOpGroupMode::kCrossPartition);
  EXPECT_EQ(*GetParticipantGroups(aa, 2, 2), (Groups{{0, 1}, {2, 3}}));

  auto bad = Parse(
      "f32[4] all-reduce(p), replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add");
  auto status = GetParticipantGroups(*bad->entry_computation()->root_instruction(), 2, 1);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.status().message()).find("'r'"), std::string::npos);
}

}  // namespace
}  // namespace xla

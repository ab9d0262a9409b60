#include "xla/hlo/ir/collective_device_counts.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

// The counts of a module with header `header` whose entry's root is `root`
// (operand p: f32[4]); fails the test on a parse error.
absl::StatusOr<DeviceCounts> CountsOf(const std::string& header, const std::string& root) {
  const std::string text = absl::StrCat("HloModule m", header, R"(
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
  if (!m.ok()) return m.status();
  return DeviceCountsForCollectives(**m);
}

DeviceCounts Counts(int64_t r, int64_t p) { return DeviceCounts{r, p}; }

TEST(CollectiveDeviceCountsTest, NoCollectivesKeepTheHeader) {
  EXPECT_EQ(*CountsOf("", "f32[4] negate(p)"), Counts(1, 1));
  EXPECT_EQ(*CountsOf(", replica_count=3, num_partitions=5", "f32[4] negate(p)"), Counts(3, 5));
}

TEST(CollectiveDeviceCountsTest, ReplicaGroupsByMode) {
  // No channel: replica ids.
  EXPECT_EQ(*CountsOf("", "f32[4] all-reduce(p), replica_groups={{0,2},{1,4},{3}}, to_apply=add"),
            Counts(5, 1));
  // A channel on all-to-all: partition ids.
  EXPECT_EQ(*CountsOf("", "f32[4] all-to-all(p), channel_id=1, replica_groups={{1,2},{3,0}}, "
                          "dimensions={0}"),
            Counts(1, 4));
  // A channel without global ids on all-gather: replica ids, iota form.
  EXPECT_EQ(*CountsOf("", "f32[24] all-gather(p), channel_id=1, replica_groups=[2,3]<=[6], "
                          "dimensions={0}"),
            Counts(6, 1));
  // Global ids raise the partitions, over the header's replicas.
  EXPECT_EQ(*CountsOf(", replica_count=2",
                      "f32[16] all-gather(p), channel_id=1, replica_groups={{0,2,4,6},{1,3,5,7}}, "
                      "dimensions={0}, use_global_device_ids=true"),
            Counts(2, 4));
  EXPECT_EQ(*CountsOf(", replica_count=2",
                      "f32[12] all-gather(p), channel_id=1, replica_groups={{0,1,2},{3,4,6}}, "
                      "dimensions={0}, use_global_device_ids=true"),
            Counts(2, 4));
}

TEST(CollectiveDeviceCountsTest, HeaderCountsAreOnlyRaised) {
  EXPECT_EQ(*CountsOf(", replica_count=8", "f32[4] all-reduce(p), replica_groups={{0,1}}, "
                                           "to_apply=add"),
            Counts(8, 1));
}

TEST(CollectiveDeviceCountsTest, SourceTargetPairs) {
  EXPECT_EQ(*CountsOf("", "f32[4] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,3}}"),
            Counts(4, 1));
  EXPECT_EQ(*CountsOf("", "f32[4] collective-permute(p), channel_id=1, "
                          "source_target_pairs={{0,5},{5,0}}"),
            Counts(1, 6));
}

TEST(CollectiveDeviceCountsTest, MeshGroupsCountAndUnexpandableOnesLeaveTheCounts) {
  EXPECT_EQ(*CountsOf("", "f32[16] all-gather(p), channel_id=1, "
                          "replica_groups=mesh['x'=4] {'x'}, dimensions={0}, "
                          "use_global_device_ids=true"),
            Counts(1, 4));
  EXPECT_EQ(*CountsOf("", "f32[16] all-gather(p), channel_id=1, "
                          "replica_groups=mesh['x'=4] {'x':(1)2}, dimensions={0}, "
                          "use_global_device_ids=true"),
            Counts(1, 1));
}

TEST(CollectiveDeviceCountsTest, CalledComputationsCountAndDeadOnesDoNot) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
dead {
  q = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(q), replica_groups={{0,1,2,3,4,5,6,7}}, to_apply=add
}
body {
  q = f32[4] parameter(0)
  ROOT r = f32[4] collective-permute(q), channel_id=1, source_target_pairs={{0,1},{1,2}}
}
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] call(p), to_apply=body
}
)");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(*DeviceCountsForCollectives(**m), Counts(1, 3));
}

TEST(CollectiveDeviceCountsTest, GlobalIdsWithoutAChannelAreRefused) {
  absl::StatusOr<DeviceCounts> counts =
      CountsOf("", "f32[4] all-reduce(p), replica_groups={{0,1}}, use_global_device_ids=true, "
                   "to_apply=add");
  ASSERT_FALSE(counts.ok());
  EXPECT_NE(counts.status().message().find("all-reduce 'r'"), std::string::npos)
      << counts.status().message();
}

}  // namespace
}  // namespace xla

#include "xla/hlo/ir/mesh_replica_groups.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

TEST(MeshReplicaGroupsTest, TheCorpusForm) {
  // import_async part017: a 4 x 2 mesh gathered along its outer axis.
  EXPECT_EQ(ExpandMeshReplicaGroups("mesh['axis_0'=4,'axis_1'=2] {'axis_0'}"),
            (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(ExpandMeshReplicaGroups("mesh['axis_0'=4,'axis_1'=2] {'axis_1'}"),
            (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
}

TEST(MeshReplicaGroupsTest, ListedOrderOrdersTheGroup) {
  EXPECT_EQ(ExpandMeshReplicaGroups("mesh['x'=2,'y'=3] {'x','y'}"),
            (Groups{{0, 1, 2, 3, 4, 5}}));
  EXPECT_EQ(ExpandMeshReplicaGroups("mesh['x'=2,'y'=3] {'y','x'}"),
            (Groups{{0, 3, 1, 4, 2, 5}}));
  // Three axes, the middle one listed: groups over (x, z) row-major.
  EXPECT_EQ(ExpandMeshReplicaGroups("mesh['x'=2, 'y'=3, 'z'=2] {'y'}"),
            (Groups{{0, 2, 4}, {1, 3, 5}, {6, 8, 10}, {7, 9, 11}}));
}

TEST(MeshReplicaGroupsTest, FormsItDoesNotExpandGiveNoGroups) {
  for (const char* text : {"mesh['x'=4] {'y'}", "mesh['x'=4,'x'=2] {'x'}",
                           "mesh['x'=4] {'x','x'}", "mesh['x'=0] {'x'}",
                           "mesh['x'=4] {'x':(1)2}", "mesh['x'=4] {'x'} device_ids=[3,2,1,0]",
                           "mesh['x'=1048576,'y'=2] {'x'}", "mesh[] {}", "{{0,1}}"}) {
    EXPECT_TRUE(ExpandMeshReplicaGroups(text).empty()) << text;
  }
}

}  // namespace
}  // namespace xla

#include "xla/backends/gpu/runtime/collective_thunk.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using testing::DeserializeError;

TEST(CollectiveThunkTest, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("collective_thunk.textproto");
}

TEST(CollectiveThunkTest, PrepareDeclaresGroupsAndPermutePeers) {
  testing::ThunkTestContext ctx;
  ThunkProto proto;
  auto* c = proto.mutable_collective();
  c->set_op(COLLECTIVE_OP_COLLECTIVE_PERMUTE);
  c->mutable_operand()->set_allocation(0);
  c->mutable_operand()->set_size(12);
  c->mutable_result()->set_allocation(2);
  c->mutable_result()->set_size(12);
  c->set_element_type(PRIMITIVE_TYPE_S32);
  c->add_operand_dimensions(3);
  for (auto [s, t] : {std::pair<int, int>{3, 1}, {1, 5}}) {
    auto* p = c->add_source_target_pairs();
    p->set_source(s);
    p->set_target(t);
  }
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = ctx.Deserialize(proto);
  ASSERT_TRUE(thunk.ok()) << thunk.status();
  ResourceRequests requests;
  ASSERT_TRUE((*thunk)->Prepare(requests).ok());
  EXPECT_EQ(requests.collective_groups, (std::set<std::vector<int64_t>>{{1, 3, 5}}));
}

TEST(CollectiveThunkTest, ExecuteWithoutReplicatedExecutionFails) {
  testing::ThunkTestContext ctx;
  ThunkProto proto;
  proto.mutable_collective()->set_op(COLLECTIVE_OP_REPLICA_ID);
  proto.mutable_collective()->mutable_result()->set_allocation(3);
  proto.mutable_collective()->mutable_result()->set_size(4);
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = ctx.Deserialize(proto);
  ASSERT_TRUE(thunk.ok()) << thunk.status();
  ExecuteParams params;
  absl::Status s = (*thunk)->ExecuteOnStream(params);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("replica-id needs a replicated execution"), std::string::npos) << s;
}

// An all-reduce over allocation 0 (64 bytes = 16 f32) into allocation 2,
// with `extra` appended to the collective message.
std::string AllReduce(const std::string& extra) {
  return absl::StrCat(
      "collective { op: COLLECTIVE_OP_ALL_REDUCE operand { allocation: 0 size: 64 } "
      "result { allocation: 2 size: 64 } ",
      extra, " }");
}

TEST(CollectiveThunkTest, ValidAllReduceAndIds) {
  EXPECT_EQ(DeserializeError(AllReduce(
                "element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_MAX "
                "operand_dimensions: 16 replica_groups { replica_ids: [0, 1, 2] }")),
            "");
  EXPECT_EQ(DeserializeError("collective { op: COLLECTIVE_OP_PARTITION_ID "
                             "result { allocation: 3 size: 4 } }"),
            "");
}

TEST(CollectiveThunkTest, RejectsMalformed) {
  const std::string ok_tail = "operand_dimensions: 16 replica_groups { replica_ids: [0, 1] }";
  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {"collective { op: 42 result { allocation: 2 size: 4 } }", "unknown collective op 42"},
      {"collective { result { allocation: 2 size: 4 } }", "unknown collective op 0"},
      {"collective { op: COLLECTIVE_OP_REPLICA_ID result { allocation: 4 size: 8 } }",
       "writes a u32 scalar (4 bytes), not 8"},
      {"collective { op: COLLECTIVE_OP_REPLICA_ID result { allocation: 3 size: 4 } "
       "operand { allocation: 0 size: 4 } }",
       "takes no operand"},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 " + ok_tail), "reduction kind 0 is not one of"},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_AND " + ok_tail),
       "and is not supported for f32"},
      {AllReduce("element_type: PRIMITIVE_TYPE_S4 reduction: REDUCTION_KIND_SUM " + ok_tail),
       "array type of whole bytes"},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_SUM "
                 "operand_dimensions: 15 replica_groups { replica_ids: [0, 1] }"),
       "is 60 bytes but the operand slice has 64"},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_SUM "
                 "operand_dimensions: 16"),
       "replica_groups: empty"},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_SUM "
                 "operand_dimensions: 16 replica_groups { replica_ids: [0, 1] } "
                 "replica_groups { replica_ids: [1, 2] }"),
       "replica id 1 appears twice"},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_SUM "
                 "operand_dimensions: 16 replica_groups { replica_ids: [0, 1] } "
                 "replica_groups { replica_ids: [2] }"),
       "replica_groups[1]: has 1 replicas but group 0 has 2"},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_SUM "
                 "operand_dimensions: 16 replica_groups { replica_ids: [0, 70000] }"),
       "replica id 70000 is outside"},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_SUM " + ok_tail +
                 " dimension: 1"),
       "all-reduce takes no dimension"},
      {"collective { op: COLLECTIVE_OP_ALL_GATHER operand { allocation: 0 size: 64 } "
       "result { allocation: 4 size: 100 } element_type: PRIMITIVE_TYPE_F32 " +
           ok_tail + " }",
       "all-gather over groups of 2 writes 128 bytes, not 100"},
      {"collective { op: COLLECTIVE_OP_ALL_GATHER operand { allocation: 0 size: 64 } "
       "result { allocation: 4 size: 128 } element_type: PRIMITIVE_TYPE_F32 dimension: 1 " +
           ok_tail + " }",
       "dimension 1 is outside the operand's rank 1"},
      {"collective { op: COLLECTIVE_OP_REDUCE_SCATTER operand { allocation: 0 size: 60 } "
       "result { allocation: 4 size: 20 } element_type: PRIMITIVE_TYPE_F32 "
       "reduction: REDUCTION_KIND_SUM operand_dimensions: 15 "
       "replica_groups { replica_ids: [0, 1] } }",
       "has size 15, not a multiple of the group size 2"},
      {"collective { op: COLLECTIVE_OP_COLLECTIVE_PERMUTE operand { allocation: 0 size: 64 } "
       "result { allocation: 2 size: 64 } element_type: PRIMITIVE_TYPE_F32 "
       "operand_dimensions: 16 source_target_pairs { source: 0 target: 1 } "
       "source_target_pairs { source: 2 target: 1 } }",
       "replica id 1 appears twice"},
      {"collective { op: COLLECTIVE_OP_COLLECTIVE_PERMUTE operand { allocation: 0 size: 64 } "
       "result { allocation: 2 size: 64 } element_type: PRIMITIVE_TYPE_F32 " +
           ok_tail + " }",
       "collective-permute uses source_target_pairs"},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_SUM "
                 "operand_dimensions: -16 " + ok_tail),
       "dimension -16 is negative"},
  };
  for (const Case& c : cases) {
    const std::string error = DeserializeError(c.text);
    EXPECT_NE(error.find(c.error), std::string::npos) << c.text << "\n got: " << error;
    EXPECT_NE(error.find("collective"), std::string::npos) << error;  // the field path
  }
}

}  // namespace
}  // namespace xla::gpu

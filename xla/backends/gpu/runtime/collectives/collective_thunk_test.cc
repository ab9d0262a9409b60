#include "xla/backends/gpu/runtime/collectives/collective_thunk.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"
#include "xla/backends/gpu/runtime/collectives/collective_context.h"
#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"
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
  EXPECT_EQ(DeserializeError("collective { op: COLLECTIVE_OP_PARTITION_ID "
                             "result { allocation: 3 size: 4 } num_partitions: 4 }"),
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
      {"collective { op: COLLECTIVE_OP_PARTITION_ID result { allocation: 3 size: 4 } "
       "num_partitions: -2 }",
       "num_partitions: num_partitions -2 is outside [0, "},
      {AllReduce("element_type: PRIMITIVE_TYPE_F32 reduction: REDUCTION_KIND_SUM " + ok_tail +
                 " num_partitions: 70000"),
       "num_partitions 70000 is outside"},
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


namespace se = ::stream_executor;

// A collective-broadcast thunk from allocation 0 (offset 4) into allocation
// 2 (offset 8) of `elements` s32 (operand_dimensions [elements]), over
// `groups`.
std::unique_ptr<Thunk> Broadcast(const testing::ThunkTestContext& ctx, int elements,
                                 const std::vector<std::vector<int64_t>>& groups) {
  ThunkProto proto;
  CollectiveThunkProto* c = proto.mutable_collective();
  c->set_op(COLLECTIVE_OP_COLLECTIVE_BROADCAST);
  c->mutable_operand()->set_allocation(0);
  c->mutable_operand()->set_offset(4);
  c->mutable_operand()->set_size(4 * elements);
  c->mutable_result()->set_allocation(2);
  c->mutable_result()->set_offset(8);
  c->mutable_result()->set_size(4 * elements);
  c->set_element_type(PRIMITIVE_TYPE_S32);
  c->add_operand_dimensions(elements);
  for (const std::vector<int64_t>& g : groups) {
    ReplicaGroupProto* group = c->add_replica_groups();
    for (int64_t id : g) group->add_replica_ids(id);
  }
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = ctx.Deserialize(proto);
  EXPECT_TRUE(thunk.ok()) << thunk.status();
  return thunk.ok() ? std::move(*thunk) : nullptr;
}

// Replica r's 64-byte allocation 0: word i = 1000 * r - 37 * i + 5.
int32_t Input(int r, int word) { return 1000 * r - 37 * word + 5; }

// Runs `thunk` on `n` replicas (replica r on device 10 + r, one thread and
// stream each) with the inputs above and allocation 2 pre-filled with -1;
// returns each replica's allocation 2 as s32 words.
std::vector<std::vector<int32_t>> RunReplicated(const Thunk& thunk, int n, int64_t run_id,
                                                InProcessCliques& cliques,
                                                std::vector<absl::Status>* status) {
  std::vector<std::vector<int32_t>> out(n, std::vector<int32_t>(16, -1));
  status->assign(n, absl::OkStatus());
  std::vector<int64_t> devices;
  for (int r = 0; r < n; ++r) devices.push_back(10 + r);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      std::vector<int32_t> in(16), other(16), temp(1), scratch(256);
      for (int i = 0; i < 16; ++i) in[i] = Input(r, i);
      CollectiveContext context;
      context.replica_id = r;
      context.run_id = run_id;
      context.replica_devices = devices;
      context.communicator = [&cliques](const CliqueKey& key, int64_t device) {
        return cliques.GetForStream(key, device);
      };
      se::StreamExecutor* executor = testing::HostExecutor();
      absl::StatusOr<std::unique_ptr<se::Stream>> stream = executor->CreateStream();
      if (!stream.ok()) {
        (*status)[r] = stream.status();
        return;
      }
      const BufferAllocations buffers({se::DeviceMemoryBase(in.data(), 64),
                                       se::DeviceMemoryBase(other.data(), 64),
                                       se::DeviceMemoryBase(out[r].data(), 64),
                                       se::DeviceMemoryBase(temp.data(), 4),
                                       se::DeviceMemoryBase(scratch.data(), 1024)});
      se::Stream* const streams[] = {stream->get(), stream->get()};
      ExecuteParams params;
      params.executor = executor;
      params.buffers = &buffers;
      params.streams = streams;
      params.collectives = &context;
      absl::Status s = thunk.ExecuteOnStream(params);
      absl::Status done = (*stream)->BlockHostUntilDone();
      (*status)[r] = s.ok() ? done : s;
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

struct BroadcastCase {
  int replicas;
  std::vector<std::vector<int64_t>> groups;
};

class CollectiveBroadcastTest : public ::testing::TestWithParam<BroadcastCase> {};

// Every member of a group gets its first listed replica's operand (words
// 1..7 of allocation 0, written to words 2..8 of allocation 2); the rest
// of allocation 2 is untouched. Hand-computed: member r of a group rooted
// at `root` holds Input(root, 1 + i) at word 2 + i.
TEST_P(CollectiveBroadcastTest, EveryMemberGetsTheFirstListedReplicasOperand) {
  const BroadcastCase& c = GetParam();
  constexpr int kElements = 7;  // odd
  testing::ThunkTestContext ctx;
  std::unique_ptr<Thunk> thunk = Broadcast(ctx, kElements, c.groups);
  ASSERT_NE(thunk, nullptr);
  InProcessCliques cliques(absl::Seconds(20));
  for (int run = 1; run <= 2; ++run) {  // twice: the clique is reused
    std::vector<absl::Status> status;
    std::vector<std::vector<int32_t>> out =
        RunReplicated(*thunk, c.replicas, run, cliques, &status);
    for (int r = 0; r < c.replicas; ++r) {
      ASSERT_TRUE(status[r].ok()) << "replica " << r << ": " << status[r];
      int64_t root = -1;
      for (const auto& g : c.groups) {
        if (std::find(g.begin(), g.end(), r) != g.end()) root = g[0];
      }
      ASSERT_GE(root, 0);
      for (int w = 0; w < 16; ++w) {
        const int32_t want = (w >= 2 && w < 2 + kElements) ? Input(root, w - 1) : -1;
        EXPECT_EQ(out[r][w], want) << "replica " << r << " word " << w << " run " << run;
      }
    }
  }
  EXPECT_EQ(cliques.num_cliques(), static_cast<int64_t>(c.groups.size()));
}

INSTANTIATE_TEST_SUITE_P(
    Groups, CollectiveBroadcastTest,
    ::testing::Values(BroadcastCase{2, {{1, 0}}}, BroadcastCase{2, {{0, 1}}},
                      BroadcastCase{4, {{1, 0}, {3, 2}}}, BroadcastCase{4, {{2, 0, 3, 1}}},
                      BroadcastCase{4, {{3}, {0}, {2}, {1}}}),
    [](const ::testing::TestParamInfo<BroadcastCase>& info) {
      std::vector<std::string> parts;
      for (const auto& g : info.param.groups) parts.push_back(absl::StrJoin(g, ""));
      return absl::StrCat(info.param.replicas, "dev_", absl::StrJoin(parts, "_"));
    });

TEST(CollectiveThunkTest, BroadcastValidation) {
  EXPECT_EQ(DeserializeError("collective { op: COLLECTIVE_OP_COLLECTIVE_BROADCAST "
                             "operand { allocation: 0 size: 28 } result { allocation: 2 size: 28 } "
                             "element_type: PRIMITIVE_TYPE_S32 operand_dimensions: 7 "
                             "replica_groups { replica_ids: [1, 0] } }"),
            "");
  const std::string wrong_size = DeserializeError(
      "collective { op: COLLECTIVE_OP_COLLECTIVE_BROADCAST operand { allocation: 0 size: 28 } "
      "result { allocation: 2 size: 56 } element_type: PRIMITIVE_TYPE_S32 operand_dimensions: 7 "
      "replica_groups { replica_ids: [1, 0] } }");
  EXPECT_NE(wrong_size.find("collective-broadcast over groups of 2 writes 28 bytes, not 56"),
            std::string::npos)
      << wrong_size;
  const std::string reduction = DeserializeError(
      "collective { op: COLLECTIVE_OP_COLLECTIVE_BROADCAST operand { allocation: 0 size: 28 } "
      "result { allocation: 2 size: 28 } element_type: PRIMITIVE_TYPE_S32 operand_dimensions: 7 "
      "reduction: REDUCTION_KIND_SUM replica_groups { replica_ids: [1, 0] } }");
  EXPECT_NE(reduction.find("collective-broadcast takes no reduction"), std::string::npos)
      << reduction;
}

TEST(CollectiveThunkTest, BroadcastGroupNamingAMissingReplicaFails) {
  testing::ThunkTestContext ctx;
  std::unique_ptr<Thunk> thunk = Broadcast(ctx, 3, {{1, 0}, {3, 2}});
  ASSERT_NE(thunk, nullptr);
  InProcessCliques cliques(absl::Seconds(5));
  std::vector<absl::Status> status;
  RunReplicated(*thunk, 2, 1, cliques, &status);
  // Replicas 0 and 1 form a complete group; a run of 2 never reaches
  // replicas 2 and 3, so every replica runs fine, but on 3 devices replica
  // 2's group names replica 3.
  for (const absl::Status& s : status) EXPECT_TRUE(s.ok()) << s;
  RunReplicated(*thunk, 3, 2, cliques, &status);
  EXPECT_EQ(status[2].code(), absl::StatusCode::kInvalidArgument) << status[2];
  EXPECT_NE(status[2].message().find("names replica 3 but the execution has 3 replicas"),
            std::string::npos)
      << status[2];
}

}  // namespace
}  // namespace xla::gpu

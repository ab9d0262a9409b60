// CollectiveEmitter on its own, over a module that went through the middle
// end: which ops it owns, the flag, one thunk per data collective, and the
// async pair on the communication stream. The whole-artifact checks of
// collectives (groups, SPMD ids, overlap rules) are in thunk_emitter_test.cc
// and thunk_emitter_async_collectives_test.cc.
#include "xla/backends/gpu/compiler/collective_emitter.h"

#include <memory>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/middle_end.h"

namespace xla::gpu {
namespace {

constexpr char kAsyncAllReduce[] = R"(
HloModule ar, replica_count=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[33]{0} parameter(0)
  start = f32[33]{0} all-reduce-start(x), replica_groups={}, to_apply=add
  ROOT done = f32[33]{0} all-reduce-done(start)
}
)";

struct Compiled {
  std::unique_ptr<HloModule> module;
  MiddleEndResult middle;
};

std::unique_ptr<Compiled> MiddleEnd(absl::string_view hlo) {
  auto c = std::make_unique<Compiled>();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  c->module = std::move(*module);
  absl::StatusOr<MiddleEndResult> middle = RunMiddleEnd(c->module.get(), MiddleEndOptions());
  EXPECT_TRUE(middle.ok()) << middle.status();
  if (!middle.ok()) return nullptr;
  c->middle = std::move(*middle);
  return c;
}

// Emits every collective of the entry, in schedule order.
absl::Status EmitEntry(const Compiled& c, CollectiveEmitter* emitter, Thunks* out) {
  const HloComputation* entry = c.module->entry_computation();
  for (const HloInstruction* instr : c.middle.schedule.sequence(entry)) {
    if (!CollectiveEmitter::IsCollective(instr->opcode())) continue;
    absl::Status s = emitter->Emit(*instr, out);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

TEST(CollectiveEmitterTest, OwnsTheCollectiveOpcodesOnly) {
  EXPECT_TRUE(CollectiveEmitter::IsCollective(HloOpcode::kAllReduce));
  EXPECT_TRUE(CollectiveEmitter::IsCollective(HloOpcode::kAllGatherDone));
  EXPECT_TRUE(CollectiveEmitter::IsCollective(HloOpcode::kCollectiveBroadcast));
  EXPECT_TRUE(CollectiveEmitter::IsCollective(HloOpcode::kPartitionId));
  EXPECT_FALSE(CollectiveEmitter::IsCollective(HloOpcode::kAdd));
  EXPECT_FALSE(CollectiveEmitter::IsCollective(HloOpcode::kFusion));
}

TEST(CollectiveEmitterTest, OffMeansUnimplementedNamingTheFlag) {
  std::unique_ptr<Compiled> c = MiddleEnd(kAsyncAllReduce);
  ASSERT_NE(c, nullptr);
  CollectiveEmitter emitter(*c->module, c->middle.schedule, *c->middle.assignment, false);
  Thunks thunks;
  absl::Status s = EmitEntry(*c, &emitter, &thunks);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(s.message(), "--emit_collectives")) << s;
  EXPECT_FALSE(emitter.UsedCollectiveStream());
}

TEST(CollectiveEmitterTest, AsyncAllReduceRunsOnTheCollectiveStream) {
  std::unique_ptr<Compiled> c = MiddleEnd(kAsyncAllReduce);
  ASSERT_NE(c, nullptr);
  CollectiveEmitter emitter(*c->module, c->middle.schedule, *c->middle.assignment, true);
  Thunks thunks;
  ASSERT_TRUE(EmitEntry(*c, &emitter, &thunks).ok());
  EXPECT_TRUE(emitter.UsedCollectiveStream());
  ASSERT_GE(thunks.size(), 2);
  ASSERT_TRUE(thunks[0].has_async_start());
  const AsyncStartThunkProto& start = thunks[0].async_start();
  EXPECT_EQ(start.stream_id(), kCollectiveStream);
  ASSERT_EQ(start.thunks().thunks_size(), 1);
  const ThunkProto& nested = start.thunks().thunks(0);
  EXPECT_EQ(nested.execution_stream_id(), kCollectiveStream);
  EXPECT_EQ(nested.collective().op(), COLLECTIVE_OP_ALL_REDUCE);
  EXPECT_EQ(nested.collective().reduction(), REDUCTION_KIND_SUM);
  EXPECT_EQ(nested.collective().operand().size(), 33 * 4);
  EXPECT_EQ(nested.profile_annotation(), "start");
  bool joined = false;
  for (const ThunkProto& t : thunks) joined |= t.has_async_done();
  EXPECT_TRUE(joined);
}

}  // namespace
}  // namespace xla::gpu

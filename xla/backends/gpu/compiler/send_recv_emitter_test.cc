#include "xla/backends/gpu/compiler/send_recv_emitter.h"

#include <map>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/ir/host_transfer_attributes.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/middle_end.h"
#include "xla/types/xla_data_convert.h"

namespace xla::gpu {
namespace {

// What EmitSendOrRecv made of every send/recv of `text`'s entry, in order,
// after the middle end: the first error, or the thunks.
struct Emitted {
  absl::Status status;
  Thunks thunks;
  std::unique_ptr<HloModule> module;
  MiddleEndResult middle;
};

std::unique_ptr<Emitted> EmitAll(const std::string& text, bool emit_host_transfers) {
  auto e = std::make_unique<Emitted>();
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return e;
  e->module = *std::move(m);
  absl::StatusOr<MiddleEndResult> middle = RunMiddleEnd(e->module.get(), MiddleEndOptions());
  EXPECT_TRUE(middle.ok()) << middle.status();
  if (!middle.ok()) return e;
  e->middle = *std::move(middle);
  int seen = 0;
  for (const HloInstruction* instr : e->middle.schedule.sequence(e->module->entry_computation())) {
    if (!IsSendOrRecv(instr->opcode())) continue;
    ++seen;
    e->status = EmitSendOrRecv(*instr, *e->middle.assignment, emit_host_transfers, &e->thunks);
    if (!e->status.ok()) break;
  }
  EXPECT_GT(seen, 0);
  return e;
}

TEST(SendRecvEmitterTest, AnEmptyDeviceToDevicePayloadNeedsNoThunk) {
  // The corpus's import_async part 7 and import_emit_stablehlo part 73.
  std::unique_ptr<Emitted> send = EmitAll(R"(HloModule m
ENTRY e {
  t = () tuple()
  tok = token[] parameter(0)
  s = ((), u32[], token[]) send(t, tok), channel_id=5
  ROOT d = token[] send-done(s), channel_id=5
})", false);
  EXPECT_TRUE(send->status.ok()) << send->status;
  EXPECT_TRUE(send->thunks.empty());
  std::unique_ptr<Emitted> recv = EmitAll(R"(HloModule m
ENTRY e {
  tok = token[] parameter(0)
  r = (f32[0,3], u32[], token[]) recv(tok), channel_id=5
  d = (f32[0,3], token[]) recv-done(r), channel_id=5
  ROOT g = token[] get-tuple-element(d), index=1
})", false);
  EXPECT_TRUE(recv->status.ok()) << recv->status;
}

TEST(SendRecvEmitterTest, DeviceToDeviceDataIsRefusedWithTheReason) {
  const absl::Status data = EmitAll(R"(HloModule m
ENTRY e {
  p = f32[3,4] parameter(0)
  tok = token[] parameter(1)
  s = (f32[3,4], u32[], token[]) send(p, tok), channel_id=1
  ROOT d = token[] send-done(s), channel_id=1
})", true)->status;
  EXPECT_EQ(data.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(data.message(), "48 bytes (f32[3,4])")) << data;
  EXPECT_TRUE(absl::StrContains(data.message(), "collective-permute")) << data;
}

constexpr char kSendThenRecv[] = R"(HloModule m
ENTRY e {
  p = f32[3,5] parameter(0)
  tok = token[] parameter(1)
  s = (f32[3,5], u32[], token[]) send(p, tok), channel_id=4, is_host_transfer=true, frontend_attributes={_xla_host_transfer_handler_name="tf_rendezvous", _xla_host_transfer_rendezvous="_x_dtoh_0"}
  sd = token[] send-done(s), channel_id=4, is_host_transfer=true
  r = (s8[33], u32[], token[]) recv(sd), channel_id=9, is_host_transfer=true
  rd = (s8[33], token[]) recv-done(r), channel_id=9, is_host_transfer=true
  ROOT g = s8[33] get-tuple-element(rd), index=0
})";

TEST(SendRecvEmitterTest, WithoutTheFlagAHostTransferNamesIt) {
  const absl::Status host = EmitAll(kSendThenRecv, false)->status;
  EXPECT_EQ(host.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(host.message(), "device to host, channel 4")) << host;
  EXPECT_TRUE(absl::StrContains(host.message(), "--emit_host_transfers")) << host;
}

TEST(SendRecvEmitterTest, HostTransfersBecomeSendAndRecvThunks) {
  std::unique_ptr<Emitted> e = EmitAll(kSendThenRecv, true);
  ASSERT_TRUE(e->status.ok()) << e->status;
  ASSERT_GE(e->thunks.size(), 2);
  const ThunkProto& send = e->thunks[0];
  ASSERT_TRUE(send.has_host_send()) << send.DebugString();
  EXPECT_EQ(send.profile_annotation(), "s");
  EXPECT_EQ(send.host_send().channel_id(), 4);
  EXPECT_EQ(send.host_send().rendezvous(), "_x_dtoh_0");
  EXPECT_EQ(ShapeFromProto(send.host_send().shape())->ToString(false), "f32[3,5]");
  EXPECT_EQ(send.host_send().slice().size(), 60);
  const HloInstruction* p = e->module->entry_computation()->parameter_instruction(0);
  const BufferSlice p_slice = e->middle.assignment->GetSlice(p, {}).value();
  EXPECT_EQ(send.host_send().slice().allocation(), p_slice.allocation);
  const ThunkProto& recv = e->thunks[1];
  ASSERT_TRUE(recv.has_host_recv()) << recv.DebugString();
  EXPECT_EQ(recv.host_recv().channel_id(), 9);
  EXPECT_EQ(recv.host_recv().rendezvous(), "");
  EXPECT_EQ(recv.host_recv().slice().size(), 33);
  // Anything after the recv is the recv-done's copy into its own buffer.
  for (int i = 2; i < e->thunks.size(); ++i) EXPECT_TRUE(e->thunks[i].has_copy());
}

TEST(SendRecvEmitterTest, TheRendezvousComesFromTheFrontendAttribute) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(kSendThenRecv);
  ASSERT_TRUE(m.ok()) << m.status();
  std::map<std::string, std::string> names;
  for (const auto& instr : (*m)->entry_computation()->instructions()) {
    names[instr->name()] = HostTransferRendezvous(*instr);
  }
  EXPECT_EQ(names["s"], "_x_dtoh_0");
  EXPECT_EQ(names["r"], "");
}

}  // namespace
}  // namespace xla::gpu

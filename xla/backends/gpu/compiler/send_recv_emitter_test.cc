#include "xla/backends/gpu/compiler/send_recv_emitter.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::gpu {
namespace {

// The status of every send/recv of `text`'s entry, all of which must agree.
absl::Status CheckAll(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return m.status();
  absl::Status first = absl::OkStatus();
  int seen = 0;
  for (const auto& instr : (*m)->entry_computation()->instructions()) {
    if (!IsSendOrRecv(instr->opcode())) continue;
    absl::Status s = CheckSendOrRecvNeedsNoThunk(*instr);
    if (seen++ == 0) first = s;
    EXPECT_EQ(s.ok(), first.ok()) << instr->name();
  }
  EXPECT_GT(seen, 0);
  return first;
}

TEST(SendRecvEmitterTest, AnEmptyDeviceToDevicePayloadNeedsNoThunk) {
  // The corpus's import_async part 7 and import_emit_stablehlo part 73.
  EXPECT_TRUE(CheckAll(R"(HloModule m
ENTRY e {
  t = () tuple()
  tok = token[] parameter(0)
  s = ((), u32[], token[]) send(t, tok), channel_id=5
  ROOT d = token[] send-done(s), channel_id=5
})").ok());
  EXPECT_TRUE(CheckAll(R"(HloModule m
ENTRY e {
  tok = token[] parameter(0)
  r = (f32[0,3], u32[], token[]) recv(tok), channel_id=5
  d = (f32[0,3], token[]) recv-done(r), channel_id=5
  ROOT g = token[] get-tuple-element(d), index=1
})").ok());
}

TEST(SendRecvEmitterTest, DataOrHostTransfersAreRefusedWithTheReason) {
  absl::Status data = CheckAll(R"(HloModule m
ENTRY e {
  p = f32[3,4] parameter(0)
  tok = token[] parameter(1)
  s = (f32[3,4], u32[], token[]) send(p, tok), channel_id=1
  ROOT d = token[] send-done(s), channel_id=1
})");
  EXPECT_EQ(data.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(data.message(), "48 bytes (f32[3,4])")) << data;
  EXPECT_TRUE(absl::StrContains(data.message(), "collective-permute")) << data;
  absl::Status host = CheckAll(R"(HloModule m
ENTRY e {
  tok = token[] parameter(0)
  r = ((), u32[], token[]) recv(tok), channel_id=2, is_host_transfer=true
  d = ((), token[]) recv-done(r), channel_id=2, is_host_transfer=true
  ROOT g = token[] get-tuple-element(d), index=1
})");
  EXPECT_EQ(host.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(host.message(), "host-transfer callbacks")) << host;
  EXPECT_TRUE(absl::StrContains(host.message(), "host to device, channel 2")) << host;
}

}  // namespace
}  // namespace xla::gpu

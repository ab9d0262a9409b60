// Round trip and golden of CustomCallThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/custom_call_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(CustomCallThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("custom_call_thunk.textproto");
}

TEST(CustomCallThunk, UnknownTargetFailsAtLoad) {
  const std::string error = DeserializeError(R"pb(custom_call { target_name: "no.such.handler" })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.custom_call.target_name: no FFI handler 'no.such.handler' for platform host")) << error;
}

TEST(CustomCallThunk, AliasResolves) {
  EXPECT_EQ(DeserializeError(R"pb(custom_call { target_name: "xla_host_fill_f32" results { allocation: 2 size: 64 } attributes { name: "value" i64: 3 } })pb"), "");
}

TEST(CustomCallThunk, RejectsDuplicateAttribute) {
  const std::string error = DeserializeError(R"pb(custom_call { target_name: "xla.host.fill_f32" results { allocation: 2 size: 64 } attributes { name: "value" i64: 3 } attributes { name: "value" i64: 4 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "attribute 'value' appears twice")) << error;
}

}  // namespace
}  // namespace xla::gpu

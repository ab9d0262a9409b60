// Round trip and golden of CustomCallThunk, what its FromProto rejects, and
// handler resolution at Initialize.
#include "xla/backends/gpu/runtime/custom_call_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "google/protobuf/text_format.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

absl::Status Nop(const ffi::CallFrame&) { return absl::OkStatus(); }

std::unique_ptr<CustomCallThunk> Load(absl::string_view text) {
  ThunkProto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(std::string(text), &proto)) << text;
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = testing::ThunkTestContext().Deserialize(proto);
  EXPECT_TRUE(thunk.ok()) << thunk.status();
  if (!thunk.ok()) return nullptr;
  return std::unique_ptr<CustomCallThunk>(static_cast<CustomCallThunk*>(thunk->release()));
}

TEST(CustomCallThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("custom_call_thunk.textproto");
}

TEST(CustomCallThunk, UnknownTargetLoadsAndFailsAtInitialize) {
  std::unique_ptr<CustomCallThunk> thunk =
      Load(R"pb(custom_call { target_name: "no.such.handler" })pb");
  ASSERT_NE(thunk, nullptr);
  EXPECT_FALSE(thunk->resolved());
  absl::Status s = thunk->Initialize(InitializeParams{});
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "thunk.custom_call.target_name: custom call not resolved at Initialize: no FFI handler 'no.such.handler' for platform host (registered: ")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "xla.host.fill_f32@host")) << s;
  // Nothing runs without a handler.
  absl::Status run = thunk->ExecuteOnStream(ExecuteParams{});
  EXPECT_EQ(run.code(), absl::StatusCode::kFailedPrecondition) << run;
}

TEST(CustomCallThunk, HandlerRegisteredAfterLoadResolvesAtInitialize) {
  std::unique_ptr<CustomCallThunk> thunk =
      Load(R"pb(custom_call { target_name: "test.late_handler" attributes { name: "k" i64: 1 } })pb");
  ASSERT_NE(thunk, nullptr);
  EXPECT_FALSE(thunk->Initialize(InitializeParams{}).ok());
  ASSERT_TRUE(ffi::FfiRegistry::Global()
                  .Register({"test.late_handler", "host", &Nop,
                             {0, 0, {}, {{"k", ffi::AttributeKind::kI64}}}})
                  .ok());
  absl::Status s = thunk->Initialize(InitializeParams{});
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(thunk->resolved());
}

TEST(CustomCallThunk, LateHandlerStillChecksTheSignatureAtInitialize) {
  std::unique_ptr<CustomCallThunk> thunk =
      Load(R"pb(custom_call { target_name: "test.late_typed" attributes { name: "k" f64: 1 } })pb");
  ASSERT_NE(thunk, nullptr);
  ASSERT_TRUE(ffi::FfiRegistry::Global()
                  .Register({"test.late_typed", "host", &Nop,
                             {0, 0, {}, {{"k", ffi::AttributeKind::kI64}}}})
                  .ok());
  absl::Status s = thunk->Initialize(InitializeParams{});
  EXPECT_EQ(s.message(), "thunk.custom_call.attributes: handler 'test.late_typed' needs attribute 'k' as i64, the call has f64");
  EXPECT_FALSE(thunk->resolved());
}

TEST(CustomCallThunk, KnownHandlerIsCheckedAtLoad) {
  const std::string error = DeserializeError(R"pb(custom_call { target_name: "xla.host.fill_f32" results { allocation: 2 size: 64 } })pb");
  EXPECT_EQ(error, "thunk.custom_call.attributes: handler 'xla.host.fill_f32' needs attribute 'value'");
}

TEST(CustomCallThunk, AliasResolves) {
  EXPECT_EQ(DeserializeError(R"pb(custom_call { target_name: "xla_host_fill_f32" results { allocation: 2 size: 64 } attributes { name: "value" i64: 3 } })pb"), "");
}

TEST(CustomCallThunk, RejectsDuplicateAttribute) {
  const std::string error = DeserializeError(R"pb(custom_call { target_name: "xla.host.fill_f32" results { allocation: 2 size: 64 } attributes { name: "value" i64: 3 } attributes { name: "value" i64: 4 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "attribute 'value' appears twice")) << error;
}

TEST(CustomCallThunk, RejectsValuelessEmptyNamedAndOversizeAttributes) {
  EXPECT_EQ(DeserializeError(R"pb(custom_call { target_name: "x" attributes { name: "a" } })pb"),
            "thunk.custom_call.attributes[0]: attribute 'a' has no value of a known type (artifact newer than runtime?)");
  EXPECT_EQ(DeserializeError(R"pb(custom_call { target_name: "x" attributes { b: true } })pb"),
            "thunk.custom_call.attributes[0]: attribute name is empty");
  EXPECT_EQ(DeserializeError(R"pb(custom_call { target_name: "" })pb"),
            "thunk.custom_call.target_name: target name is empty");
  ThunkProto proto;
  proto.mutable_custom_call()->set_target_name("x");
  FfiAttributeProto* a = proto.mutable_custom_call()->add_attributes();
  a->set_name("big");
  for (int64_t i = 0; i <= ffi::kMaxAttributeArrayElements; ++i) a->mutable_f64_array()->add_values(0.5);
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = testing::ThunkTestContext().Deserialize(proto);
  ASSERT_FALSE(thunk.ok());
  EXPECT_EQ(thunk.status().message(), "thunk.custom_call.attributes[0]: array attribute 'big' has 65537 elements, more than the limit 65536");
}

TEST(CustomCallThunk, EmptyArrayStaysAnArray) {
  std::unique_ptr<CustomCallThunk> thunk = Load(R"pb(custom_call { target_name: "x" attributes { name: "e" i64_array {} } })pb");
  ASSERT_NE(thunk, nullptr);
  EXPECT_EQ(ffi::KindOf(thunk->attributes().at("e")), ffi::AttributeKind::kI64Array);
  EXPECT_TRUE(thunk->ToProto()->custom_call().attributes(0).has_i64_array());
}

}  // namespace
}  // namespace xla::gpu

// ReadLayerNormCall: epsilon from its bits (absent: 0), and the refusals
// (config, rescale, fused ops, operand count, shapes, types, epsilon), each
// naming the instruction and what is wrong.
#include "xla/hlo/proto/onednn_layer_norm_call.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/proto/onednn_layer_norm_test_util.h"

namespace xla::onednn {
namespace {

absl::StatusOr<LayerNormCall> Read(const std::string& config, const std::string& x = "f32[3,5]",
                                   const std::string& vector = "f32[5]") {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(LayerNormModule(x, vector, config));
  if (!module.ok()) return module.status();
  return ReadLayerNormCall(*(*module)->entry_computation()->root_instruction());
}

void ExpectRefused(const absl::StatusOr<LayerNormCall>& call, absl::StatusCode code,
                   const std::string& mentions) {
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().code(), code) << call.status();
  EXPECT_NE(call.status().message().find("'ln'"), std::string::npos) << call.status();
  EXPECT_NE(call.status().message().find(mentions), std::string::npos) << call.status();
}

TEST(OneDnnLayerNormCall, EpsilonIsReadFromItsBits) {
  absl::StatusOr<LayerNormCall> call = Read(ScaleAndShift(1e-5f));
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(call->epsilon, 1e-5f);
}

TEST(OneDnnLayerNormCall, CorpusConfigWithoutEpsilonIsEpsilonZero) {
  // backends/cpu/tests/thunk_coverage/cpu.hlo's config, on bf16 x and f32
  // scale and shift (XLA:CPU's rewriter converts those to f32).
  absl::StatusOr<LayerNormCall> call =
      Read(NormConfig(R"(\"rescale\":\"SCALE_AND_SHIFT\")"), "bf16[2,15,15,2]", "f32[2]");
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(call->epsilon, 0.0f);
}

TEST(OneDnnLayerNormCall, EpsilonAsAJsonStringIsRead) {
  absl::StatusOr<LayerNormCall> call = Read(NormConfig(
      "\\\"rescale\\\":\\\"SCALE_AND_SHIFT\\\",\\\"epsilon_typecast\\\":\\\"" +
      std::to_string(EpsilonBits(0.25f)) + "\\\""));
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(call->epsilon, 0.25f);
}

TEST(OneDnnLayerNormCall, OtherRescaleIsRefusedByName) {
  ExpectRefused(Read(NormConfig(R"(\"rescale\":\"SCALE\")")), absl::StatusCode::kUnimplemented,
                "rescale 'SCALE'");
  ExpectRefused(Read(NormConfig("")), absl::StatusCode::kUnimplemented, "rescale ''");
}

TEST(OneDnnLayerNormCall, FusedOpsAreRefusedByName) {
  ExpectRefused(
      Read(NormConfig(R"(\"rescale\":\"SCALE_AND_SHIFT\",\"fusions\":{\"ops\":[\"RELU\"]})")),
      absl::StatusCode::kUnimplemented, "[RELU]");
}

TEST(OneDnnLayerNormCall, MissingOrMalformedConfigIsRefused) {
  ExpectRefused(Read("\"{\\\"other_config\\\":{}}\""), absl::StatusCode::kInvalidArgument,
                "no onednn_layer_norm_config");
  ExpectRefused(Read("\"{not json\""), absl::StatusCode::kInvalidArgument, "in JSON");
}

TEST(OneDnnLayerNormCall, ScaleOfTheWrongLengthIsRefused) {
  ExpectRefused(Read(ScaleAndShift(1e-5f), "f32[3,5]", "f32[3]"),
                absl::StatusCode::kInvalidArgument, "scale (operand 1) must be a float [5]");
}

TEST(OneDnnLayerNormCall, IntegerXIsRefused) {
  ExpectRefused(Read(ScaleAndShift(1e-5f), "s32[3,5]", "f32[5]"),
                absl::StatusCode::kInvalidArgument, "f16, bf16 or f32");
}

TEST(OneDnnLayerNormCall, NegativeEpsilonIsRefused) {
  ExpectRefused(Read(ScaleAndShift(-1.0f)), absl::StatusCode::kInvalidArgument,
                "must be finite and >= 0");
}

TEST(OneDnnLayerNormCall, TwoOperandsAreRefused) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      "HloModule m\nENTRY e {\n  x = f32[3,5] parameter(0)\n  s = f32[5] parameter(1)\n"
      "  ROOT ln = f32[3,5] custom-call(x, s), custom_call_target=\"__onednn$layernorm\", "
      "backend_config=" + ScaleAndShift(1e-5f) + "\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectRefused(ReadLayerNormCall(*(*module)->entry_computation()->root_instruction()),
                absl::StatusCode::kInvalidArgument, "takes 3 operands");
}

}  // namespace
}  // namespace xla::onednn

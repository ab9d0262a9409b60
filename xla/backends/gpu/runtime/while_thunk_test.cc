// Round trip and golden of WhileThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/while_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(WhileThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("while_thunk.textproto");
}

TEST(WhileThunk, RejectsWidePredicate) {
  const std::string error = DeserializeError(R"pb(while { predicate { allocation: 3 size: 4 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.while.predicate: a PRED slice has 1 byte, got 4")) << error;
}

TEST(WhileThunk, RejectsNegativeTripCount) {
  const std::string error = DeserializeError(R"pb(while { predicate { allocation: 3 size: 1 } known_trip_count: -2 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.while.known_trip_count: -2 is negative")) << error;
}

}  // namespace
}  // namespace xla::gpu

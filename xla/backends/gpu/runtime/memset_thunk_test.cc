// Round trip and golden of MemsetThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/memset_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(MemsetThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("memset_thunk.textproto");
}

TEST(MemsetThunk, RejectsPatternOnOddSize) {
  const std::string error = DeserializeError(R"pb(memset { destination { allocation: 4 size: 6 } pattern: 7 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.memset.destination: a 32-bit pattern needs a size that is a multiple of 4, got 6")) << error;
}

TEST(MemsetThunk, RejectsNegativeSize) {
  const std::string error = DeserializeError(R"pb(memset { destination { allocation: 4 size: -4 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.memset.destination: slice offset 0 and size -4 must be >= 0")) << error;
}

}  // namespace
}  // namespace xla::gpu

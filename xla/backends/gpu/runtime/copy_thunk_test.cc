// Round trip and golden of CopyThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/copy_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "google/protobuf/text_format.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(CopyThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("copy_thunk.textproto");
}

TEST(CopyThunk, RejectsSizeMismatch) {
  const std::string error = DeserializeError(R"pb(copy { source { allocation: 0 size: 8 } destination { allocation: 2 size: 16 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.copy: source size 8 differs from destination size 16")) << error;
}

TEST(CopyThunk, RejectsPartialOverlap) {
  const std::string error = DeserializeError(R"pb(copy { source { allocation: 4 size: 16 } destination { allocation: 4 offset: 8 size: 16 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "overlap partially")) << error;
}

// The direction follows the allocations' memory spaces (allocation 5 of
// the test context is in host memory).
TEST(CopyThunk, DirectionFollowsTheMemorySpaces) {
  struct Case {
    const char* text;
    CopyThunk::Direction direction;
  };
  const Case cases[] = {
      {R"pb(copy { source { allocation: 4 size: 16 } destination { allocation: 5 size: 16 } })pb",
       CopyThunk::Direction::kDeviceToHost},
      {R"pb(copy { source { allocation: 5 size: 16 } destination { allocation: 4 size: 16 } })pb",
       CopyThunk::Direction::kHostToDevice},
      {R"pb(copy { source { allocation: 0 size: 16 } destination { allocation: 4 size: 16 } })pb",
       CopyThunk::Direction::kDeviceToDevice},
  };
  for (const Case& c : cases) {
    ThunkProto proto;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(c.text, &proto)) << c.text;
    absl::StatusOr<std::unique_ptr<Thunk>> thunk = testing::ThunkTestContext().Deserialize(proto);
    ASSERT_TRUE(thunk.ok()) << thunk.status();
    EXPECT_EQ(static_cast<const CopyThunk&>(**thunk).direction(), c.direction) << c.text;
  }
}

}  // namespace
}  // namespace xla::gpu

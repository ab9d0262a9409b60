#include "xla/stream_executor/device_memory.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stream_executor {
namespace {

using ::testing::HasSubstr;

TEST(DeviceMemoryBaseTest, SliceInsideBoundsPointsIntoTheBuffer) {
  std::vector<char> storage(257);
  DeviceMemoryBase memory(storage.data(), storage.size());
  absl::StatusOr<DeviceMemoryBase> slice = memory.GetSlice(33, 100);
  ASSERT_TRUE(slice.ok()) << slice.status();
  EXPECT_EQ(slice->opaque, storage.data() + 33);
  EXPECT_EQ(slice->size, 100u);

  absl::StatusOr<DeviceMemoryBase> tail = memory.GetSlice(200, 57);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->opaque, storage.data() + 200);
  absl::StatusOr<DeviceMemoryBase> end = memory.GetSlice(257, 0);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(end->size, 0u);
  absl::StatusOr<DeviceMemoryBase> whole = memory.GetSlice(0, 257);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, memory);
}

TEST(DeviceMemoryBaseTest, SliceOutOfBoundsIsInvalidArgument) {
  std::vector<char> storage(257);
  DeviceMemoryBase memory(storage.data(), storage.size());
  struct Case {
    uint64_t offset, size;
  };
  for (Case c : {Case{200, 58}, Case{258, 0}, Case{0, 258},
                 Case{~uint64_t{0}, 2}, Case{1, ~uint64_t{0}}}) {
    absl::StatusOr<DeviceMemoryBase> slice = memory.GetSlice(c.offset, c.size);
    EXPECT_EQ(slice.status().code(), absl::StatusCode::kInvalidArgument)
        << c.offset << "+" << c.size;
    EXPECT_THAT(slice.status().message(), HasSubstr("257 bytes"));
  }
}

TEST(DeviceMemoryBaseTest, NullViewHasOnlyTheEmptySlice) {
  DeviceMemoryBase null;
  EXPECT_TRUE(null.is_null());
  absl::StatusOr<DeviceMemoryBase> empty = null.GetSlice(0, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->is_null());
  EXPECT_FALSE(null.GetSlice(0, 1).ok());
}

}  // namespace
}  // namespace stream_executor

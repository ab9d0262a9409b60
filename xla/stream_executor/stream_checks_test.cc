// The shared stream argument checks, each refusal with its exact message
// (the host and CUDA streams' tests depend on these words), and the sizes
// on the boundary (a buffer filled exactly, zero bytes at null).
#include "xla/stream_executor/stream_checks.h"

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/device_memory.h"

namespace stream_executor {
namespace {

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

TEST(StreamChecksTest, AnnotateKeepsTheCodeAndPutsTheOperationFirst) {
  EXPECT_EQ(AnnotateStreamError(kMemcpyDeviceToHost,
                                absl::ResourceExhaustedError("no memory")),
            absl::ResourceExhaustedError("memcpy device-to-host failed: no memory"));
  EXPECT_EQ(AnnotateStreamError("memzero", Invalid("x")),
            Invalid("memzero failed: x"));
}

TEST(StreamChecksTest, BufferMustHoldTheSizeAndBeNonNullUnlessEmpty) {
  int word = 7;
  EXPECT_TRUE(CheckBuffer("output", &word, 4, 4).ok());
  EXPECT_TRUE(CheckBuffer("output", nullptr, 0, 0).ok());
  EXPECT_EQ(CheckBuffer("output", &word, 4, 5),
            Invalid("5 bytes do not fit in the output buffer of 4 bytes"));
  // The size is checked before the pointer.
  EXPECT_EQ(CheckBuffer("output", nullptr, 0, 3),
            Invalid("3 bytes do not fit in the output buffer of 0 bytes"));
  EXPECT_EQ(CheckBuffer("output", nullptr, 33, 1),
            Invalid("the output pointer is null"));
  EXPECT_EQ(CheckHostBuffer("host source", nullptr, 257),
            Invalid("the host source pointer is null"));
  EXPECT_TRUE(CheckHostBuffer("host source", nullptr, 0).ok());
}

TEST(StreamChecksTest, DeviceBufferMustBeGivenAndLargeEnough) {
  std::vector<uint8_t> bytes(33, 0x5a);
  const DeviceMemoryBase memory(bytes.data(), bytes.size());
  EXPECT_TRUE(CheckDeviceBuffer("destination", &memory, 33).ok());
  EXPECT_EQ(CheckDeviceBuffer("destination", nullptr, 0),
            Invalid("the destination buffer is null"));
  EXPECT_EQ(CheckDeviceBuffer("source", &memory, 34),
            Invalid("34 bytes do not fit in the source buffer of 33 bytes"));
  const DeviceMemoryBase empty;
  EXPECT_TRUE(CheckDeviceBuffer("source", &empty, 0).ok());
  const DeviceMemoryBase null_but_sized(nullptr, 8);
  EXPECT_EQ(CheckDeviceBuffer("source", &null_but_sized, 8),
            Invalid("the source pointer is null"));
}

TEST(StreamChecksTest, MemcpyChecksTheDeviceSideFirst) {
  std::vector<float> host(9, 1.5f);
  std::vector<float> device_bytes(9, -2.0f);
  const DeviceMemoryBase device(device_bytes.data(), 36);
  const DeviceMemoryBase small(device_bytes.data(), 12);

  EXPECT_TRUE(CheckMemcpyHostToDevice(&device, host.data(), 36).ok());
  EXPECT_EQ(CheckMemcpyHostToDevice(&small, nullptr, 36),
            Invalid("36 bytes do not fit in the destination buffer of 12 bytes"));
  EXPECT_EQ(CheckMemcpyHostToDevice(&device, nullptr, 36),
            Invalid("the host source pointer is null"));
  EXPECT_EQ(CheckMemcpyHostToDevice(nullptr, host.data(), 4),
            Invalid("the destination buffer is null"));

  EXPECT_TRUE(CheckMemcpyDeviceToHost(host.data(), device, 36).ok());
  EXPECT_EQ(CheckMemcpyDeviceToHost(nullptr, small, 20),
            Invalid("20 bytes do not fit in the source buffer of 12 bytes"));
  EXPECT_EQ(CheckMemcpyDeviceToHost(nullptr, device, 20),
            Invalid("the host destination pointer is null"));

  EXPECT_TRUE(CheckMemcpyDeviceToDevice(&device, small, 12).ok());
  EXPECT_EQ(CheckMemcpyDeviceToDevice(&small, device, 36),
            Invalid("36 bytes do not fit in the destination buffer of 12 bytes"));
  EXPECT_EQ(CheckMemcpyDeviceToDevice(&device, small, 36),
            Invalid("36 bytes do not fit in the source buffer of 12 bytes"));
  EXPECT_EQ(CheckMemcpyDeviceToDevice(nullptr, small, 0),
            Invalid("the destination buffer is null"));
}

TEST(StreamChecksTest, Memset32NeedsWholeWordsThatFit) {
  std::vector<uint32_t> words(5, 3);
  const DeviceMemoryBase memory(words.data(), 20);
  EXPECT_TRUE(CheckMemset32(&memory, 20).ok());
  EXPECT_TRUE(CheckMemset32(&memory, 0).ok());
  EXPECT_EQ(CheckMemset32(&memory, 6), Invalid("size 6 is not a multiple of 4"));
  // Fitting is checked before the multiple of 4.
  EXPECT_EQ(CheckMemset32(&memory, 22),
            Invalid("22 bytes do not fit in the destination buffer of 20 bytes"));
  EXPECT_EQ(CheckMemset32(nullptr, 4), Invalid("the destination buffer is null"));
}

}  // namespace
}  // namespace stream_executor

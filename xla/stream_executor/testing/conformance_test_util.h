// Helpers shared by the conformance suite's test files. Test-only; not for
// use outside xla/stream_executor/testing.
#ifndef XLA_STREAM_EXECUTOR_TESTING_CONFORMANCE_TEST_UTIL_H_
#define XLA_STREAM_EXECUTOR_TESTING_CONFORMANCE_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/stream.h"

namespace stream_executor::testing {

// The status of a Status or StatusOr, for the macros below.
inline absl::Status ToStatus(const absl::Status& status) { return status; }
template <typename T>
absl::Status ToStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// ASSERT_OK(expr) / EXPECT_OK(expr): `expr` (a Status or StatusOr) is OK.
// ASSERT_OK_AND_ASSIGN(lhs, expr): asserts `expr` (a StatusOr) is OK and
// move-assigns its value to `lhs` (which may be a declaration).
#define SE_CONCAT_INNER_(a, b) a##b
#define SE_CONCAT_(a, b) SE_CONCAT_INNER_(a, b)
#define ASSERT_OK(expr)                                  \
  do {                                                   \
    const absl::Status se_status_ = ::stream_executor::testing::ToStatus((expr));    \
    ASSERT_TRUE(se_status_.ok()) << se_status_;          \
  } while (0)
#define EXPECT_OK(expr) EXPECT_TRUE(::stream_executor::testing::ToStatus((expr)).ok()) << ::stream_executor::testing::ToStatus((expr))
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(SE_CONCAT_(se_statusor_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL_(var, lhs, expr) \
  auto var = (expr);                               \
  ASSERT_TRUE(var.ok()) << var.status();           \
  lhs = std::move(var).value()

// A generator with a fresh seed every run; the seed is printed and recorded
// as a test property so a failure can be replayed.
std::mt19937 SeededRng();
// `size` random bytes / floats in [-100, 100).
std::vector<uint8_t> RandomBytes(size_t size, std::mt19937& rng);
std::vector<float> RandomFloats(size_t size, std::mt19937& rng);

// Copies `memory` to the host on `stream` and waits.
template <typename T>
absl::StatusOr<std::vector<T>> ReadBack(Stream& stream,
                                        const DeviceMemoryBase& memory) {
  std::vector<T> host(memory.size / sizeof(T));
  absl::Status status = stream.Memcpy(host.data(), memory, host.size() * sizeof(T));
  if (!status.ok()) return status;
  status = stream.BlockHostUntilDone();
  if (!status.ok()) return status;
  return host;
}

// Copies `host` to the start of `*memory` on `stream` and waits.
template <typename T>
absl::Status Upload(Stream& stream, DeviceMemoryBase* memory,
                    const std::vector<T>& host) {
  absl::Status status = stream.Memcpy(memory, host.data(), host.size() * sizeof(T));
  if (!status.ok()) return status;
  return stream.BlockHostUntilDone();
}

}  // namespace stream_executor::testing

#endif  // XLA_STREAM_EXECUTOR_TESTING_CONFORMANCE_TEST_UTIL_H_

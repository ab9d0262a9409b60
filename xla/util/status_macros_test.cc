#include "xla/util/status_macros.h"

#include <memory>

#include "gtest/gtest.h"
#include "xla/util/logging.h"

namespace xla {
namespace {

absl::StatusOr<std::unique_ptr<int>> MakeInt(int v) {
  if (v < 0) return absl::InvalidArgumentError("negative");
  return std::make_unique<int>(v);
}

absl::StatusOr<int> Twice(int v) {
  ASSIGN_OR_RETURN(std::unique_ptr<int> p, MakeInt(v));
  return *p * 2;
}

absl::Status CheckBoth(int a, int b) {
  RETURN_IF_ERROR(Twice(a).status());
  RETURN_IF_ERROR(Twice(b).status());
  return absl::OkStatus();
}

TEST(StatusMacros, PropagatesValuesAndErrors) {
  EXPECT_EQ(*Twice(21), 42);
  EXPECT_EQ(Twice(-1).status().message(), "negative");
  EXPECT_TRUE(CheckBoth(1, 2).ok());
  EXPECT_EQ(CheckBoth(1, -2).code(), absl::StatusCode::kInvalidArgument);
}

TEST(Logging, CheckFailureAborts) {
  XLA_CHECK(1 + 1 == 2) << "never printed";
  EXPECT_DEATH(XLA_CHECK(1 + 1 == 3) << "arithmetic", "check failed: 1 \\+ 1 == 3 arithmetic");
}

}  // namespace
}  // namespace xla

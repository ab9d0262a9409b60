// NCCL loading without NCCL, and NCCL error translation.
#include "xla/stream_executor/cuda/nccl_api.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stream_executor::cuda {
namespace {

using ::testing::HasSubstr;

TEST(NcclApiTest, MissingLibraryIsAClearError) {
  // XLA_NCCL_LIBRARY points nowhere (see BUILD).
  absl::StatusOr<const NcclApi*> api = LoadNcclApi();
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(api.status().message(),
              HasSubstr("NCCL not found: cannot dlopen /nonexistent/libnccl.so.2"));
  EXPECT_THAT(api.status().message(), HasSubstr("--target=host"));
}

const char* FakeErrorString(ncclResult_t result) {
  return result == ncclRemoteError ? "remote process exited or there was a "
                                     "network error"
                                   : "other";
}

TEST(NcclApiTest, ErrorsNameTheCallAndNcclsText) {
  NcclApi api;
  api.ncclGetErrorString = &FakeErrorString;
  EXPECT_TRUE(NcclStatus(api, "ncclAllReduce", ncclSuccess).ok());
  absl::Status remote = NcclStatus(api, "ncclAllReduce", ncclRemoteError);
  EXPECT_EQ(remote.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(remote.message(),
            "ncclAllReduce: ncclResult_t 6: remote process exited or there "
            "was a network error");
  EXPECT_EQ(NcclStatus(api, "ncclSend", ncclInvalidUsage).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(NcclStatus(api, "ncclSend", ncclSystemError).code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace stream_executor::cuda

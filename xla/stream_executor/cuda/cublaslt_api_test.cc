// cuBLASLt loading: the real library of this machine (no GPU needed: only
// host-side entry points are called), a missing library, a library without
// the symbols, error translation and the testing override.
#include "xla/stream_executor/cuda/cublaslt_api.h"

#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stream_executor::cuda {
namespace {

using ::testing::HasSubstr;

std::string WhereTheLoaderLooks() {
  const char* path = std::getenv("LD_LIBRARY_PATH");
  return "looked for " + absl::StrJoin(kCublasLtLibraries, ", ") +
         " through the dynamic loader (LD_LIBRARY_PATH=" +
         (path != nullptr ? path : "<unset>") +
         ", /etc/ld.so.cache, the system directories); the CUDA toolkit "
         "installs them in /usr/local/cuda/lib64 (run ldconfig or set "
         "XLA_CUBLASLT_LIBRARY)";
}

// Fails (never skips) when the library is absent: this machine is expected
// to have the CUDA toolkit.
TEST(CublasLtApiTest, RealLibraryResolvesEveryEntryPoint) {
  absl::StatusOr<const CublasLtApi*> loaded = LoadCublasLtApi();
  ASSERT_TRUE(loaded.ok()) << loaded.status() << "\n" << WhereTheLoaderLooks();
  const CublasLtApi& lt = **loaded;
  int resolved = 0;
#define XLA_CUBLASLT_CHECK(name, type) \
  EXPECT_NE(lt.name, nullptr) << #name; \
  resolved += lt.name != nullptr;
  XLA_CUBLASLT_API(XLA_CUBLASLT_CHECK)
#undef XLA_CUBLASLT_CHECK
  EXPECT_EQ(resolved, 16);
  EXPECT_GE(lt.cublasLtGetVersion(), size_t{110000});
  EXPECT_STREQ(lt.cublasLtGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED),
               "CUBLAS_STATUS_NOT_SUPPORTED");
  absl::Status status =
      CublasLtStatus(lt, "cublasLtMatmul", CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(),
              HasSubstr("cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED: "));
}

// The attribute value types cuda_blaslt_gemm.cc passes, accepted by the
// real library (which rejects a wrong size with INVALID_VALUE). Descriptor
// calls are host-only.
TEST(CublasLtApiTest, RealLibraryAcceptsTheAttributeTypesTheGemmUses) {
  absl::StatusOr<const CublasLtApi*> loaded = LoadCublasLtApi();
  ASSERT_TRUE(loaded.ok()) << loaded.status() << "\n" << WhereTheLoaderLooks();
  const CublasLtApi& lt = **loaded;
  cublasLtMatrixLayout_t layout = nullptr;
  ASSERT_EQ(lt.cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, 5, 3, 7),
            CUBLAS_STATUS_SUCCESS);
  const int32_t batch = 3;
  const int64_t stride = 33;
  EXPECT_EQ(lt.cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(lt.cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                sizeof(stride)),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(lt.cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &stride, sizeof(stride)),
            CUBLAS_STATUS_INVALID_VALUE);  // the check can fail
  EXPECT_EQ(lt.cublasLtMatrixLayoutDestroy(layout), CUBLAS_STATUS_SUCCESS);

  cublasLtMatmulDesc_t desc = nullptr;
  ASSERT_EQ(lt.cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
            CUBLAS_STATUS_SUCCESS);
  const int32_t transpose = CUBLAS_OP_T;
  EXPECT_EQ(lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                              &transpose, sizeof(transpose)),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                              &transpose, sizeof(transpose)),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(lt.cublasLtMatmulDescDestroy(desc), CUBLAS_STATUS_SUCCESS);

  cublasLtMatmulPreference_t preference = nullptr;
  ASSERT_EQ(lt.cublasLtMatmulPreferenceCreate(&preference), CUBLAS_STATUS_SUCCESS);
  const uint64_t workspace = uint64_t{32} << 20;
  const uint32_t alignment = 4;
  EXPECT_EQ(lt.cublasLtMatmulPreferenceSetAttribute(
                preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                sizeof(workspace)),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(lt.cublasLtMatmulPreferenceSetAttribute(
                preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &alignment,
                sizeof(alignment)),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(lt.cublasLtMatmulPreferenceDestroy(preference), CUBLAS_STATUS_SUCCESS);
}

TEST(CublasLtApiTest, MissingLibraryIsAClearError) {
  absl::StatusOr<CublasLtApi> api =
      OpenCublasLtApi({"/nonexistent/libcublasLt.so.13", "/nonexistent/libcublasLt.so.12"});
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(api.status().message(),
              HasSubstr("cuBLASLt not found: cannot dlopen "
                        "/nonexistent/libcublasLt.so.13, "
                        "/nonexistent/libcublasLt.so.12 ("));
  EXPECT_THAT(api.status().message(), HasSubstr("XLA_CUBLASLT_LIBRARY"));
}

TEST(CublasLtApiTest, LibraryWithoutTheSymbolsNamesTheFirstMissingOne) {
  absl::StatusOr<CublasLtApi> api = OpenCublasLtApi({"libc.so.6"});
  ASSERT_FALSE(api.ok());
  EXPECT_THAT(api.status().message(),
              HasSubstr("libc.so.6 has no symbol 'cublasLtCreate'"));
}

TEST(CublasLtApiTest, ErrorsWithoutNameFunctionsStillNameTheCall) {
  CublasLtApi empty;
  absl::Status status = CublasLtStatus(empty, "cublasLtCreate",
                                       CUBLAS_STATUS_ALLOC_FAILED);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(), "cublasLtCreate: cublasStatus_t 3: no description");
  EXPECT_TRUE(CublasLtStatus(empty, "x", CUBLAS_STATUS_SUCCESS).ok());
}

TEST(CublasLtApiTest, TestingOverrideWins) {
  CublasLtApi fake;
  SetCublasLtApiForTesting(&fake);
  EXPECT_EQ(CublasLtApiForTesting(), &fake);
  absl::StatusOr<const CublasLtApi*> api = LoadCublasLtApi();
  ASSERT_TRUE(api.ok());
  EXPECT_EQ(*api, &fake);
  SetCublasLtApiForTesting(nullptr);
  EXPECT_EQ(CublasLtApiForTesting(), nullptr);
}

}  // namespace
}  // namespace stream_executor::cuda

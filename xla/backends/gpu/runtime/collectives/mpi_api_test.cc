#include "xla/backends/gpu/runtime/collectives/mpi_api.h"

#include <dlfcn.h>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

// First in the file (gtest runs tests in declaration order): nothing has
// called LoadMpiApi yet, so libmpi must not be in the process: mpi_api does
// not link it (RTLD_NOLOAD asks without loading).
TEST(MpiApiTest, AaaLibmpiIsNotLinked) {
  void* h = dlopen(kMpiLibrary, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_EQ(h, nullptr) << kMpiLibrary << " is linked into a binary that only uses mpi_api";
  if (h != nullptr) dlclose(h);
}

TEST(MpiApiTest, MissingLibraryNamesFileAndRemedy) {
  absl::StatusOr<std::unique_ptr<MpiApi>> api = LoadMpiApiFrom("libmpi_not_here.so.99");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  const absl::string_view m = api.status().message();
  EXPECT_TRUE(absl::StrContains(m, "cannot load the MPI library libmpi_not_here.so.99")) << m;
  EXPECT_TRUE(absl::StrContains(m, "apt-get install libopenmpi-dev")) << m;
  EXPECT_TRUE(absl::StrContains(m, "--replicas=N")) << m;
}

TEST(MpiApiTest, LibraryWithoutMpiSymbolsNamesTheFirstMissing) {
  // libm loads but has no MPI: the first function of the table is named.
  absl::StatusOr<std::unique_ptr<MpiApi>> api = LoadMpiApiFrom("libm.so.6");
  ASSERT_FALSE(api.ok());
  const absl::string_view m = api.status().message();
  EXPECT_TRUE(absl::StrContains(m, "libm.so.6 has no symbol MPI_Initialized")) << m;
}

TEST(MpiApiTest, ErrorNamesCallAndMpiString) {
  MpiApi none;  // no MPI_Error_string: a generic text, still naming the call
  EXPECT_TRUE(MpiError(none, MPI_SUCCESS, "MPI_Barrier").ok());
  absl::Status s = MpiError(none, MPI_ERR_COUNT, "MPI_Iallgather");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(s.message(), "MPI_Iallgather failed: unknown MPI error"))
      << s.message();

  absl::StatusOr<const MpiApi*> api = LoadMpiApi();
  if (!api.ok()) GTEST_SKIP() << "no OpenMPI here: " << api.status();
  // Loading resolved the handles too.
  EXPECT_NE((*api)->comm_world, nullptr);
  EXPECT_NE((*api)->byte, nullptr);
  EXPECT_EQ(LoadMpiApi().value(), *api);  // one process-wide table
  // Before MPI_Init OpenMPI would abort in MPI_Error_string: not asked.
  s = MpiError(**api, MPI_ERR_COUNT, "MPI_Iallgather");
  EXPECT_TRUE(absl::StrContains(s.message(), "MPI_Iallgather failed: unknown MPI error (MPI error " +
                                                 std::to_string(MPI_ERR_COUNT) + ")"))
      << s.message();
  // (MPI's own strings are checked under mpirun in tests/mpi.)
}

}  // namespace
}  // namespace xla::gpu

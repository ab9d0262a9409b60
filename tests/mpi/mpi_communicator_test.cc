// Runs mpi_communicator_check under `timeout 60 mpirun` (2 and 4
// processes): the communicator's ops on sub-cliques against hand-computed
// values, MPI's own error strings, and a peer that never arrives (an error
// naming the operation and clique after the deadline, then the job aborts
// instead of hanging).
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace {

constexpr char kMpirun[] = "/usr/bin/mpirun";

std::string TmpDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d == nullptr ? "/tmp" : d;
}

// Runs the check with `np` processes; returns the wait status, fills *out
// with stdout and stderr.
int RunCheck(int np, const std::string& mode, std::string* out) {
  const char* src = std::getenv("TEST_SRCDIR");
  const std::string bin =
      absl::StrCat(src == nullptr ? "." : src, "/xla_aot/tests/mpi/mpi_communicator_check");
  const std::string log = absl::StrCat(TmpDir(), "/", mode, np, ".log");
  const std::string cmd = absl::StrCat(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 ", kMpirun,
      " --oversubscribe -np ", np, " ", bin, " ", mode, " >", log, " 2>&1");
  const int rc = std::system(cmd.c_str());
  std::ifstream f(log);
  std::stringstream s;
  s << f.rdbuf();
  *out = s.str();
  return rc;
}

class MpiCommunicatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    struct stat st;
    ASSERT_EQ(stat(kMpirun, &st), 0) << kMpirun << " is missing (tools/install_deps.sh)";
  }
};

TEST_F(MpiCommunicatorTest, OpsOnSubCliquesMatchHandComputedValues) {
  for (int np : {2, 4}) {
    std::string out;
    EXPECT_EQ(RunCheck(np, "ops", &out), 0) << out;
    for (int r = 0; r < np; ++r) {
      EXPECT_TRUE(absl::StrContains(out, absl::StrCat("rank ", r, " ok"))) << np << ": " << out;
    }
    EXPECT_FALSE(absl::StrContains(out, "FAIL")) << out;
  }
}

TEST_F(MpiCommunicatorTest, ErrorsCarryMpisOwnString) {
  std::string out;
  EXPECT_EQ(RunCheck(2, "error", &out), 0) << out;
  EXPECT_TRUE(absl::StrContains(out, "MPI_Iallgather failed: MPI_ERR_COUNT")) << out;
}

TEST_F(MpiCommunicatorTest, MissingPeerTimesOutWithMessageAndAborts) {
  std::string out;
  const auto start = std::chrono::steady_clock::now();
  const int rc = RunCheck(2, "timeout", &out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(rc, 0) << out;
  EXPECT_LT(seconds, 30) << "the job should abort soon after the 1 s deadline, not hang";
  EXPECT_TRUE(absl::StrContains(out, "DEADLINE_EXCEEDED: all-reduce on the MPI clique of "
                                     "devices [0,1] (rank 1 of 2): not every process arrived "
                                     "within 1s"))
      << out;
}

}  // namespace

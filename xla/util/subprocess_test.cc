#include "xla/util/subprocess.h"

#include <cstdlib>
#include <filesystem>

#include "gtest/gtest.h"

namespace xla {
namespace {

TEST(Subprocess, RunsCapturesOutputAndExitCode) {
  absl::StatusOr<std::string> sh = FindTool({"sh"}, {});
  ASSERT_TRUE(sh.ok()) << sh.status();
  absl::StatusOr<ProcessResult> r = RunProcess({*sh, "-c", "echo out; echo err 1>&2; exit 3"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->output, "out\nerr\n");
  absl::StatusOr<ProcessResult> killed = RunProcess({*sh, "-c", "kill -9 $$"});
  ASSERT_TRUE(killed.ok());
  EXPECT_EQ(killed->exit_code, 128 + 9);
}

TEST(Subprocess, MissingToolsAndProgramsAreErrors) {
  absl::StatusOr<std::string> none = FindTool({"no-such-tool-xyz", "/no/such/path"}, {"/nonexistent"});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no-such-tool-xyz"), std::string::npos);
  absl::StatusOr<ProcessResult> r = RunProcess({"/no/such/program"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/no/such/program"), std::string::npos);
}

TEST(Subprocess, TempDirIsRemovedWithItsFiles) {
  std::string path;
  {
    absl::StatusOr<std::unique_ptr<ScopedTempDir>> dir = ScopedTempDir::Create("subprocess_test_");
    ASSERT_TRUE(dir.ok()) << dir.status();
    path = (*dir)->path();
    ASSERT_TRUE(WriteFileBytes(path + "/f", std::string("a\0b", 3)).ok());
    absl::StatusOr<std::string> back = ReadFileBytes(path + "/f");
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, std::string("a\0b", 3));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(ReadFileBytes(path + "/f").ok());
}

}  // namespace
}  // namespace xla

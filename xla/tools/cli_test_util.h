// Test helpers for the subcommands' tests: run one subcommand function
// (RunEval, RunRun, RunCompile, ...) on arguments and keep its exit code and
// both streams; paths and files under the test's TEST_TMPDIR.
//
// Test-only, header-only. Thread-compatible.
#ifndef XLA_TOOLS_CLI_TEST_UTIL_H_
#define XLA_TOOLS_CLI_TEST_UTIL_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace xla::cli {

// What one subcommand call gave.
struct CliResult {
  int code;
  std::string out;
  std::string err;
};

// Calls `command(args, out, err)` (a subcommand's Run function).
template <typename Command>
CliResult RunCommand(Command command, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = command(args, out, err);
  return {code, out.str(), err.str()};
}

// $TEST_TMPDIR/name (/tmp/name outside Bazel).
inline std::string TestTempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir == nullptr ? "/tmp" : dir) + "/" + name;
}

// Writes `text` to TestTempPath(name), creating its folders; the path.
inline std::string WriteTestFile(const std::string& name, const std::string& text) {
  const std::string path = TestTempPath(name);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
  return path;
}

}  // namespace xla::cli

#endif  // XLA_TOOLS_CLI_TEST_UTIL_H_

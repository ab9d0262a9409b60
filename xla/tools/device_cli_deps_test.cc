// Proves xla_aot_device carries no compiler: its dependency closure (a
// genquery result) names no pass, service, codegen, compiler or LLVM target,
// so the binary runs where LLVM is not installed. The HLO parser and
// evaluator are allowed: `run --reference` evaluates on the device machine.
#include "gtest/gtest.h"
#include "xla/util/dependency_closure_test_util.h"

namespace {

TEST(DeviceCliDepsTest, ClosureHasNoCompilerOrLlvm) {
  std::vector<std::string> forbidden;
  for (const std::string& p : xla::testing::CompilerLabelPrefixes()) {
    if (p != "//xla/hlo") forbidden.push_back(p);
  }
  forbidden.push_back("//xla/tools:compile_command");
  xla::testing::ExpectClosure(
      "xla/tools/device_cli_deps", forbidden,
      {"//xla/tools:device_cli", "//xla/stream_executor/cuda:cuda_platform",
       "//xla/stream_executor/host:host_platform"},
      "xla_aot_device");
}

}  // namespace

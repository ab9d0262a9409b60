// Proves the runtime's device layer stays separate from the compiler: the
// dependency closure of the host platform (a genquery result) must not name
// HLO IR, passes, code generation or LLVM.
#include "gtest/gtest.h"
#include "xla/util/dependency_closure_test_util.h"

namespace {

TEST(RuntimeDepsTest, HostPlatformClosureHasNoCompilerCode) {
  xla::testing::ExpectClosure("xla/stream_executor/runtime_deps",
                              xla::testing::CompilerLabelPrefixes(),
                              {"//xla/stream_executor/host:host_platform"},
                              "the runtime's closure");
}

}  // namespace

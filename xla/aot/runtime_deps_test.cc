// Proves the runtime stays separate from the compiler: the dependency
// closure of the public API (xla/aot:executable, which pulls in every
// xla/backends/gpu/runtime target it executes) and of the runtime's thunk
// deserializer (a genquery result) names no HLO IR, pass, service, codegen,
// compiler or LLVM target, and not the compiler's public API
// (//xla/aot:compile).
#include "gtest/gtest.h"
#include "xla/util/dependency_closure_test_util.h"

namespace {

TEST(RuntimeDepsTest, RuntimeClosureHasNoCompilerCode) {
  xla::testing::ExpectClosure(
      "xla/aot/runtime_deps", xla::testing::CompilerLabelPrefixes(),
      {"//xla/aot:executable", "//xla/backends/gpu/runtime:thunk_deserializer",
       "//xla/stream_executor/host:host_platform"},
      "the runtime's closure");
}

TEST(RuntimeDepsTest, RuntimeClosureHasNoCompileApi) {
  xla::testing::ExpectClosure("xla/aot/runtime_deps", {"//xla/aot:compile"},
                              {"//xla/aot:executable"}, "the runtime's closure");
}

}  // namespace

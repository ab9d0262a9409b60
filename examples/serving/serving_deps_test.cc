// Proves the serving example links the runtime only: the dependency closure
// of //examples/serving:serving_example (a genquery result) names no HLO
// IR, pass, service, codegen, compiler or LLVM target, and not the
// compiler's public API (//xla/aot:compile).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/util/dependency_closure_test_util.h"

namespace {

TEST(ServingDepsTest, ServingBinaryHasNoCompilerCode) {
  std::vector<std::string> forbidden = xla::testing::CompilerLabelPrefixes();
  forbidden.push_back("//xla/aot:compile");
  xla::testing::ExpectClosure("examples/serving/serving_deps", forbidden,
                              {"//examples/serving:model_server", "//xla/aot:executable",
                               "//xla/stream_executor/host:host_platform",
                               "//xla/stream_executor/cuda:cuda_platform"},
                              "the serving example");
}

}  // namespace

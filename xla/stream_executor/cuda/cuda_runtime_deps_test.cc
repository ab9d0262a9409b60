// Proves the CUDA platform stays runtime-only: the dependency closure of
// //xla/stream_executor/cuda:cuda_platform (a genquery result) names no HLO
// IR, pass, code generation or LLVM target.
#include "gtest/gtest.h"
#include "xla/util/dependency_closure_test_util.h"

namespace {

TEST(CudaRuntimeDepsTest, CudaPlatformClosureHasNoCompilerCode) {
  xla::testing::ExpectClosure("xla/stream_executor/cuda/cuda_runtime_deps",
                              xla::testing::CompilerLabelPrefixes(),
                              {"//xla/stream_executor/cuda:cuda_platform",
                               "//xla/stream_executor/cuda:cuda_driver_api"},
                              "the CUDA runtime's closure");
}

}  // namespace

// Proves the Bazel wrappers of the system packages compile and link: LLVM 16
// (with the NVPTX and X86 backends the compiler will need), Eigen, the CUDA
// toolkit headers (headers only; nothing links libcuda) and Google Benchmark.
#include <string>

#include "Eigen/Dense"
#include "benchmark/benchmark.h"
#include "cuda.h"
#include "gtest/gtest.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"

namespace {

TEST(Wrappers, Llvm16WithNvptxAndX86) {
  EXPECT_EQ(LLVM_VERSION_MAJOR, 16);
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  std::string error;
  EXPECT_NE(llvm::TargetRegistry::lookupTarget("nvptx64-nvidia-cuda", error), nullptr) << error;
  EXPECT_NE(llvm::TargetRegistry::lookupTarget("x86_64-unknown-linux-gnu", error), nullptr) << error;
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  EXPECT_EQ(module.getName(), "m");
}

TEST(Wrappers, EigenComputes) {
  Eigen::Matrix<double, 2, 3> a;
  a << 1, 2, 3, 4, 5, 6;
  Eigen::Matrix<double, 3, 1> b(7, 8, 9);
  Eigen::Vector2d c = a * b;
  EXPECT_EQ(c(0), 50);   // 1*7 + 2*8 + 3*9
  EXPECT_EQ(c(1), 122);  // 4*7 + 5*8 + 6*9
}

TEST(Wrappers, CudaHeadersOnly) {
  EXPECT_GE(CUDA_VERSION, 11000);
  EXPECT_EQ(sizeof(CUdeviceptr), 8u);
}

TEST(Wrappers, BenchmarkRuns) {
  int runs = 0;
  benchmark::RegisterBenchmark("wrappers_probe", [&runs](benchmark::State& state) {
    for (auto _ : state) ++runs;
  })->Iterations(5);
  int argc = 1;
  char arg0[] = "wrappers_test";
  char* argv[] = {arg0, nullptr};
  benchmark::Initialize(&argc, argv);
  EXPECT_EQ(benchmark::RunSpecifiedBenchmarks(), 1u);
  EXPECT_EQ(runs, 5);
}

}  // namespace

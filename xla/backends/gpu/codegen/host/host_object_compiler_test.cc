#include "xla/backends/gpu/codegen/host/host_object_compiler.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <utility>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/stream_executor/host/cpu_features.h"
#include "xla/stream_executor/host/host_kernel_module.h"
#include "xla/util/subprocess.h"

namespace xla::gpu {
namespace {

using ::stream_executor::host::HostKernel;
using ::stream_executor::host::HostKernelModule;

// Builds `extern "C" void NAME(void* const* buffers, int64_t n, int64_t begin,
// int64_t end)` computing out[i] = f(in[i]) for i in [begin, end), where
// buffers = {in, out} hold f32 and f is given by `body`.
void AddUnaryKernel(llvm::Module& module, const std::string& name,
                    const std::function<llvm::Value*(llvm::IRBuilder<>&, llvm::Value*)>& body) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* f32 = llvm::Type::getFloatTy(ctx);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, i64, i64, i64}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(ctx, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  llvm::IRBuilder<> b(entry);
  llvm::Value* buffers = fn->getArg(0);
  llvm::Value* in = b.CreateLoad(ptr, buffers, "in");
  llvm::Value* out = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, buffers, 1), "out");
  llvm::Value* begin = fn->getArg(2);
  llvm::Value* end = fn->getArg(3);
  b.CreateCondBr(b.CreateICmpSLT(begin, end), loop, exit);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(i64, 2, "i");
  i->addIncoming(begin, entry);
  llvm::Value* x = b.CreateLoad(f32, b.CreateGEP(f32, in, i));
  b.CreateStore(body(b, x), b.CreateGEP(f32, out, i));
  llvm::Value* next = b.CreateAdd(i, llvm::ConstantInt::get(i64, 1));
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, end), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
}

std::unique_ptr<llvm::Module> MakeModule(llvm::LLVMContext& ctx) {
  auto module = std::make_unique<llvm::Module>("test_kernels", ctx);
  AddUnaryKernel(*module, "scale_add", [](llvm::IRBuilder<>& b, llvm::Value* x) {
    return b.CreateFAdd(b.CreateFMul(x, llvm::ConstantFP::get(x->getType(), 2.0)),
                        llvm::ConstantFP::get(x->getType(), 1.0));
  });
  AddUnaryKernel(*module, "exp_kernel", [](llvm::IRBuilder<>& b, llvm::Value* x) {
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
  });
  return module;
}

// Runs kernel `symbol` of `so` over blocks [0, n) in two ranges.
std::vector<float> RunUnary(const std::string& so, const std::string& symbol,
                            std::vector<float> input) {
  absl::StatusOr<std::unique_ptr<HostKernelModule>> loaded = HostKernelModule::Load("t", so);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return {};
  auto kernel = (*loaded)->GetKernel(symbol);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (!kernel.ok()) return {};
  auto* host = dynamic_cast<HostKernel*>(kernel->get());
  std::vector<float> output(input.size(), -7.0f);
  void* buffers[] = {input.data(), output.data()};
  const int64_t n = static_cast<int64_t>(input.size());
  host->function()(buffers, 2, 0, n / 3);
  host->function()(buffers, 2, n / 3, n);
  return output;
}

TEST(HostObjectCompiler, CompilesLinksLoadsAndRuns) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module = MakeModule(ctx);
  absl::StatusOr<std::string> so = CompileHostSharedObject(*module, HostCompileOptions());
  ASSERT_TRUE(so.ok()) << so.status();
  ASSERT_GT(so->size(), 4u);
  EXPECT_EQ(so->substr(0, 4), "\x7f" "ELF");
  std::vector<float> input;
  for (int i = 0; i < 37; ++i) input.push_back(0.25f * static_cast<float>(i) - 3.5f);
  std::vector<float> scaled = RunUnary(*so, "scale_add", input);
  std::vector<float> exps = RunUnary(*so, "exp_kernel", input);
  ASSERT_EQ(scaled.size(), input.size());
  ASSERT_EQ(exps.size(), input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    EXPECT_EQ(scaled[i], input[i] * 2.0f + 1.0f) << i;
    EXPECT_NEAR(exps[i], std::exp(input[i]), 1e-6f * std::exp(input[i])) << i;
  }
}

TEST(HostObjectCompiler, SameModuleGivesSameBytesAndNoTempFilesRemain) {
  const std::string tmp = ::testing::TempDir() + "/host_object_compiler_tmp";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  ASSERT_EQ(setenv("TMPDIR", tmp.c_str(), 1), 0);
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> a = MakeModule(ctx);
  std::unique_ptr<llvm::Module> b = MakeModule(ctx);
  absl::StatusOr<std::string> so_a = CompileHostSharedObject(*a, HostCompileOptions());
  absl::StatusOr<std::string> so_b = CompileHostSharedObject(*b, HostCompileOptions());
  unsetenv("TMPDIR");
  ASSERT_TRUE(so_a.ok()) << so_a.status();
  ASSERT_TRUE(so_b.ok()) << so_b.status();
  EXPECT_TRUE(*so_a == *so_b) << "linking is not deterministic";
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "temporary files left in " << tmp;
}

TEST(HostObjectCompiler, ReportsForeignSymbolsAndBadOptions) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module = MakeModule(ctx);
  llvm::Type* f32 = llvm::Type::getFloatTy(ctx);
  llvm::FunctionCallee foreign =
      module->getOrInsertFunction("my_private_helper", llvm::FunctionType::get(f32, {f32}, false));
  AddUnaryKernel(*module, "calls_foreign", [&](llvm::IRBuilder<>& b, llvm::Value* x) {
    return b.CreateCall(foreign, {x});
  });
  absl::StatusOr<std::string> so = CompileHostSharedObject(*module, HostCompileOptions());
  ASSERT_FALSE(so.ok());
  EXPECT_NE(so.status().message().find("my_private_helper"), std::string::npos) << so.status();

  HostCompileOptions bad_cpu;
  bad_cpu.cpu = "pentium-9000";
  std::unique_ptr<llvm::Module> m2 = MakeModule(ctx);
  absl::StatusOr<std::string> r = CompileHostObject(*m2, bad_cpu);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("pentium-9000"), std::string::npos) << r.status();

  HostCompileOptions no_linker;
  no_linker.linker = "/nonexistent/ld";
  absl::StatusOr<std::string> l = LinkHostSharedObject("not an object", no_linker);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("/nonexistent/ld"), std::string::npos) << l.status();

  HostCompileOptions real;
  absl::StatusOr<std::string> garbage = LinkHostSharedObject("not an object", real);
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("failed"), std::string::npos) << garbage.status();
}

// A linker that makes what the runtime refuses (here: an executable stack)
// fails the compile, naming the finding, instead of writing an artifact
// that no runtime loads.
TEST(HostObjectCompiler, RefusesAnObjectTheRuntimeWouldRefuse) {
  const std::string script = std::string(std::getenv("TEST_TMPDIR")) + "/execstack_ld.sh";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\nfor ld in ld.lld-16 ld.lld ld; do\n"
           "  if command -v $ld >/dev/null; then exec $ld \"$@\" -z execstack; fi\ndone\nexit 1\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module = MakeModule(ctx);
  HostCompileOptions options;
  options.linker = script;
  absl::StatusOr<std::string> so = CompileHostSharedObject(*module, options);
  ASSERT_FALSE(so.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(so.status())) << so.status();
  EXPECT_NE(so.status().message().find("the runtime would refuse to load"), std::string::npos) << so.status();
  EXPECT_NE(so.status().message().find("stack"), std::string::npos) << so.status();
  EXPECT_TRUE(CompileHostSharedObject(*MakeModule(ctx), HostCompileOptions()).ok());  // the default links
}

// Four kernels, one of which calls a foreign symbol defined by a sibling
// kernel's part: the parts must link into one working object.
std::unique_ptr<llvm::Module> MakeFourKernelModule(llvm::LLVMContext& ctx) {
  std::unique_ptr<llvm::Module> module = MakeModule(ctx);
  AddUnaryKernel(*module, "square", [](llvm::IRBuilder<>& b, llvm::Value* x) {
    return b.CreateFMul(x, x);
  });
  AddUnaryKernel(*module, "negate_minus_3", [](llvm::IRBuilder<>& b, llvm::Value* x) {
    return b.CreateFSub(b.CreateFNeg(x), llvm::ConstantFP::get(x->getType(), 3.0));
  });
  return module;
}

TEST(HostObjectCompiler, PartsCompileInParallelToTheSameBytesForAnyThreadCount) {
  llvm::LLVMContext ctx;
  std::vector<std::string> results;
  std::vector<int64_t> last_progress;
  for (int threads : {1, 3, 2}) {
    std::unique_ptr<llvm::Module> module = MakeFourKernelModule(ctx);
    HostCompileOptions options;
    options.parts = 3;
    options.threads = threads;
    std::vector<std::string> phases;
    options.phase_observer = [&phases](const std::string& p, double) { phases.push_back(p); };
    std::vector<std::pair<int64_t, int64_t>> progress;
    options.kernel_progress = [&progress](int64_t done, int64_t total) {
      progress.emplace_back(done, total);
    };
    absl::StatusOr<std::vector<std::string>> objects = CompileHostObjects(*module, options);
    ASSERT_TRUE(objects.ok()) << objects.status();
    EXPECT_EQ(objects->size(), 3u);
    ASSERT_EQ(progress.size(), 3u);  // one call per part
    EXPECT_EQ(progress.back(), std::make_pair(int64_t{4}, int64_t{4}));
    EXPECT_EQ(phases, (std::vector<std::string>{"llvm_verify", "llvm_split", "llvm_optimize",
                                                "machine_code", "llvm_parallel_wall"}));
    std::unique_ptr<llvm::Module> again = MakeFourKernelModule(ctx);
    absl::StatusOr<std::string> so = CompileHostSharedObject(*again, options);
    ASSERT_TRUE(so.ok()) << so.status();
    results.push_back(*so);
  }
  EXPECT_TRUE(results[0] == results[1]) << "1 and 3 threads differ";
  EXPECT_TRUE(results[0] == results[2]) << "1 and 2 threads differ";
  std::vector<float> input;
  for (int i = 0; i < 29; ++i) input.push_back(0.5f * static_cast<float>(i) - 6.25f);
  std::vector<float> squares = RunUnary(results[0], "square", input);
  std::vector<float> negs = RunUnary(results[0], "negate_minus_3", input);
  std::vector<float> scaled = RunUnary(results[0], "scale_add", input);
  ASSERT_EQ(squares.size(), input.size());
  ASSERT_EQ(negs.size(), input.size());
  ASSERT_EQ(scaled.size(), input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    EXPECT_EQ(squares[i], input[i] * input[i]) << i;
    EXPECT_EQ(negs[i], -input[i] - 3.0f) << i;
    EXPECT_EQ(scaled[i], input[i] * 2.0f + 1.0f) << i;
  }
}

// The default links in process with lld's library; an explicit external
// linker (options.linker, or XLA_HOST_LINKER) is still run when asked for,
// and ld.lld-16 with the same arguments gives the same bytes, for one
// object and for a module compiled in three parts.
TEST(HostObjectCompiler, InProcessLinkGivesTheBytesOfAnExternalLdLld16) {
  absl::StatusOr<std::string> lld = FindTool({"ld.lld-16"}, {});
  if (!lld.ok()) GTEST_SKIP() << "no ld.lld-16 on PATH to compare with: " << lld.status();
  llvm::LLVMContext ctx;
  for (int parts : {1, 3}) {
    HostCompileOptions options;
    options.parts = parts;
    absl::StatusOr<std::vector<std::string>> objects =
        CompileHostObjects(*MakeFourKernelModule(ctx), options);
    ASSERT_TRUE(objects.ok()) << objects.status();
    ASSERT_EQ(objects->size(), static_cast<size_t>(parts));
    absl::StatusOr<std::string> in_process = LinkHostSharedObjects(*objects, options);
    ASSERT_TRUE(in_process.ok()) << in_process.status();
    HostCompileOptions external = options;
    external.linker = "ld.lld-16";
    absl::StatusOr<std::string> by_process = LinkHostSharedObjects(*objects, external);
    ASSERT_TRUE(by_process.ok()) << by_process.status();
    EXPECT_TRUE(*in_process == *by_process) << parts << " part(s): " << in_process->size()
                                            << " bytes in process, " << by_process->size();
    std::vector<float> input = {-2.5f, 0.75f, 3.0f, 11.0f, -0.125f};
    std::vector<float> squares = RunUnary(*in_process, "square", input);
    ASSERT_EQ(squares.size(), input.size());
    for (size_t i = 0; i < input.size(); ++i) EXPECT_EQ(squares[i], input[i] * input[i]) << i;
  }
  // XLA_HOST_LINKER overrides the in-process default (here: with a linker
  // that does not exist, so the override is visible in the error).
  ASSERT_EQ(setenv("XLA_HOST_LINKER", "/nonexistent/ld.env", 1), 0);
  absl::StatusOr<std::string> env_link = CompileHostSharedObject(*MakeModule(ctx), {});
  unsetenv("XLA_HOST_LINKER");
  ASSERT_FALSE(env_link.ok());
  EXPECT_NE(env_link.status().message().find("/nonexistent/ld.env"), std::string::npos)
      << env_link.status();
  EXPECT_TRUE(CompileHostSharedObject(*MakeModule(ctx), {}).ok());
}

TEST(HostObjectCompiler, ForeignSymbolInOnePartIsStillReported) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module = MakeFourKernelModule(ctx);
  llvm::Type* f32 = llvm::Type::getFloatTy(ctx);
  llvm::FunctionCallee foreign =
      module->getOrInsertFunction("not_in_libc", llvm::FunctionType::get(f32, {f32}, false));
  AddUnaryKernel(*module, "calls_foreign", [&](llvm::IRBuilder<>& b, llvm::Value* x) {
    return b.CreateCall(foreign, {x});
  });
  HostCompileOptions options;
  options.parts = 4;
  options.threads = 2;
  absl::StatusOr<std::string> so = CompileHostSharedObject(*module, options);
  ASSERT_FALSE(so.ok());
  EXPECT_NE(so.status().message().find("not_in_libc"), std::string::npos) << so.status();
  options.threads = -1;
  EXPECT_FALSE(CompileHostObjects(*module, options).ok());
}

// The code generator's pipeline per level: loop strength reduction only
// where the vectorizers did not run (docs/perf.md, branch ctime5).
TEST(HostObjectCompiler, LoopStrengthReductionOnlyBelowO2) {
  EXPECT_TRUE(HostMachineCodeOptions(0).loop_strength_reduction);
  EXPECT_TRUE(HostMachineCodeOptions(1).loop_strength_reduction);
  EXPECT_FALSE(HostMachineCodeOptions(2).loop_strength_reduction);
  EXPECT_FALSE(HostMachineCodeOptions(3).loop_strength_reduction);
}

// Every level, whole and in parts, computes the same values (the pipeline
// changes with the level: loop strength reduction at O0 and O1 only).
TEST(HostObjectCompiler, EveryLevelComputesTheSameValues) {
  std::vector<float> input;
  for (int i = 0; i < 257; ++i) input.push_back(0.37f * static_cast<float>(i % 41) - 6.1f);
  for (int level = 0; level <= 3; ++level) {
    for (int parts : {1, 2}) {
      llvm::LLVMContext ctx;
      std::unique_ptr<llvm::Module> module = MakeModule(ctx);
      HostCompileOptions options;
      options.opt_level = level;
      options.parts = parts;
      absl::StatusOr<std::string> so = CompileHostSharedObject(*module, options);
      ASSERT_TRUE(so.ok()) << "O" << level << ": " << so.status();
      std::vector<float> scaled = RunUnary(*so, "scale_add", input);
      std::vector<float> exps = RunUnary(*so, "exp_kernel", input);
      ASSERT_EQ(scaled.size(), input.size());
      ASSERT_EQ(exps.size(), input.size());
      for (size_t i = 0; i < input.size(); ++i) {
        EXPECT_EQ(scaled[i], input[i] * 2.0f + 1.0f) << "O" << level << " " << i;
        EXPECT_NEAR(exps[i], std::exp(input[i]), 1e-6f * std::exp(input[i]))
            << "O" << level << " " << i;
      }
    }
  }
}

TEST(HostObjectCompiler, NativeCpuAndO0Work) {
  llvm::LLVMContext ctx;
  for (const char* cpu : {"native", "x86-64"}) {
    for (int level : {0, 3}) {
      std::unique_ptr<llvm::Module> module = MakeModule(ctx);
      HostCompileOptions options;
      options.cpu = cpu;
      options.opt_level = level;
      absl::StatusOr<std::string> so = CompileHostSharedObject(*module, options);
      ASSERT_TRUE(so.ok()) << cpu << " O" << level << ": " << so.status();
      std::vector<float> out = RunUnary(*so, "scale_add", {1.5f, -2.0f, 3.0f});
      EXPECT_EQ(out, (std::vector<float>{4.0f, -3.0f, 7.0f}));
    }
  }
}

// The features recorded per CPU: the psABI levels exactly (as the x86-64
// psABI lists them), the vendors' own extensions, and "native" against the
// runtime's own CPUID detection.
TEST(HostObjectCompiler, CpuFeaturesFollowTheCpu) {
  auto features = [](const std::string& cpu) {
    HostCompileOptions options;
    options.cpu = cpu;
    absl::StatusOr<std::vector<std::string>> f = HostCpuFeaturesOf(options);
    EXPECT_TRUE(f.ok()) << cpu << ": " << f.status();
    return f.ok() ? *f : std::vector<std::string>{};
  };
  const std::vector<std::string> v2 = {"sse3", "ssse3", "cx16", "sse4.1", "sse4.2", "popcnt", "sahf"};
  EXPECT_EQ(features("x86-64-v2"), v2);
  EXPECT_EQ(features("x86-64-v3"),
            (std::vector<std::string>{"sse3", "ssse3", "fma", "cx16", "sse4.1", "sse4.2", "movbe",
                                      "popcnt", "xsave", "avx", "f16c", "bmi", "avx2", "bmi2",
                                      "sahf", "lzcnt"}));
  const std::vector<std::string> v4 = features("x86-64-v4");
  for (const char* f : {"avx2", "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl"}) {
    EXPECT_NE(std::find(v4.begin(), v4.end(), f), v4.end()) << f;
  }
  EXPECT_EQ(std::find(v4.begin(), v4.end(), "avx512fp16"), v4.end());
  const std::vector<std::string> spr = features("sapphirerapids");
  EXPECT_NE(std::find(spr.begin(), spr.end(), "avx512fp16"), spr.end());
  EXPECT_EQ(std::find(spr.begin(), spr.end(), "sse4a"), spr.end());
  const std::vector<std::string> zen = features("znver3");
  EXPECT_NE(std::find(zen.begin(), zen.end(), "sse4a"), zen.end());
  EXPECT_TRUE(features("x86-64").empty());
  // LLVM's host detection and the runtime's agree on this machine.
  const std::set<std::string>& machine = stream_executor::host::MachineCpuFeatures();
  const std::vector<std::string> native = features("native");
  EXPECT_EQ(std::set<std::string>(native.begin(), native.end()), machine);
  HostCompileOptions bad;
  bad.cpu = "pentium-9000";
  EXPECT_FALSE(HostCpuFeaturesOf(bad).ok());
}

}  // namespace
}  // namespace xla::gpu

#include "xla/backends/gpu/codegen/host/host_cpu_variant_builds.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

namespace xla::gpu {
namespace {

// Three kernels with the host ABI's shape: a loop over [begin, end) that the
// vectorizer widens (to 8 floats with AVX2, 4 with SSE), a 16-float vector
// add (one zmm register with AVX-512, two ymm with AVX2), and a scalar
// clamp.
constexpr char kKernels[] = R"(
define void @axpy_kernel(ptr %buffers, i64 %n, i64 %begin, i64 %end) {
entry:
  %in = load ptr, ptr %buffers
  %out.addr = getelementptr ptr, ptr %buffers, i64 1
  %out = load ptr, ptr %out.addr
  %any = icmp slt i64 %begin, %end
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i64 [ %begin, %entry ], [ %next, %loop ]
  %p = getelementptr float, ptr %in, i64 %i
  %x = load float, ptr %p
  %m = fmul float %x, 3.0
  %y = fadd float %m, 0.5
  %q = getelementptr float, ptr %out, i64 %i
  store float %y, ptr %q
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %end
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

define void @wide_kernel(ptr %buffers, i64 %n, i64 %begin, i64 %end) {
entry:
  %in = load ptr, ptr %buffers
  %out.addr = getelementptr ptr, ptr %buffers, i64 1
  %out = load ptr, ptr %out.addr
  %x = load <16 x float>, ptr %in
  %y = fadd <16 x float> %x, %x
  store <16 x float> %y, ptr %out
  ret void
}

define void @clamp_kernel(ptr %buffers, i64 %n, i64 %begin, i64 %end) {
entry:
  %in = load ptr, ptr %buffers
  %out.addr = getelementptr ptr, ptr %buffers, i64 1
  %out = load ptr, ptr %out.addr
  %x = load i32, ptr %in
  %big = icmp sgt i32 %x, 17
  %y = select i1 %big, i32 17, i32 %x
  store i32 %y, ptr %out
  ret void
}
)";

std::unique_ptr<llvm::Module> ParseKernels(llvm::LLVMContext& context) {
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(kKernels, error, context);
  EXPECT_NE(module, nullptr) << error.getMessage().str();
  if (module != nullptr) module->setModuleIdentifier("variant_test_kernels");
  return module;
}

HostCompileOptions Baseline(int threads, int parts) {
  HostCompileOptions options;
  options.cpu = "x86-64-v2";
  options.opt_level = 3;
  options.threads = threads;
  options.parts = parts;
  return options;
}

TEST(HostBuildsAtOnceTest, OneThreadOrOneBuildCompilesInTurn) {
  struct Case {
    int threads;
    size_t builds;
    int at_once;
  };
  const Case cases[] = {{1, 2, 1}, {1, 5, 1}, {2, 1, 1}, {8, 1, 1},
                        {2, 2, 2}, {2, 3, 3}, {7, 2, 2}, {16, 4, 4}};
  for (const Case& c : cases) {
    EXPECT_EQ(HostBuildsAtOnce(c.threads, c.builds), c.at_once)
        << "threads=" << c.threads << " builds=" << c.builds;
  }
}

TEST(PlanHostCpuVariantBuildsTest, WidestFirstAndEachInItsOwnContext) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> kernels = ParseKernels(context);
  ASSERT_NE(kernels, nullptr);
  const HostCompileOptions base = Baseline(0, 0);
  absl::StatusOr<std::vector<std::string>> base_features = HostCpuFeaturesOf(base);
  ASSERT_TRUE(base_features.ok()) << base_features.status();
  absl::StatusOr<std::vector<HostCpuVariantBuild>> builds = PlanHostCpuVariantBuilds(
      *kernels, base, *base_features, {"x86-64", "x86-64-v3", "x86-64-v2", "x86-64-v4"});
  ASSERT_TRUE(builds.ok()) << builds.status();
  // x86-64 and x86-64-v2 add nothing to the baseline.
  ASSERT_EQ(builds->size(), 2u);
  EXPECT_EQ((*builds)[0].options.cpu, "x86-64-v4");
  EXPECT_EQ((*builds)[1].options.cpu, "x86-64-v3");
  EXPECT_GT((*builds)[0].cpu_features.size(), (*builds)[1].cpu_features.size());
  for (const HostCpuVariantBuild& b : *builds) {
    ASSERT_NE(b.module, nullptr);
    EXPECT_EQ(&b.module->getContext(), b.context.get());
    EXPECT_NE(b.context.get(), &context);
    EXPECT_EQ(b.module->getModuleIdentifier(), "variant_test_kernels");
    EXPECT_NE(b.module->getFunction("axpy_kernel"), nullptr);
    EXPECT_NE(b.module->getFunction("clamp_kernel"), nullptr);
    EXPECT_FALSE(b.options.phase_observer);
  }
}

TEST(PlanHostCpuVariantBuildsTest, UnknownCpuNamesTheVariant) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> kernels = ParseKernels(context);
  ASSERT_NE(kernels, nullptr);
  absl::StatusOr<std::vector<HostCpuVariantBuild>> builds =
      PlanHostCpuVariantBuilds(*kernels, Baseline(0, 0), {}, {"x86-64-v9"});
  ASSERT_FALSE(builds.ok());
  EXPECT_EQ(builds.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(builds.status().message().find("host CPU variant"), std::string::npos);
  EXPECT_NE(builds.status().message().find("x86-64-v9"), std::string::npos);
}

// The oracle: each build compiled alone, from its own parse of the kernels.
std::string CompileAlone(const HostCompileOptions& options) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> kernels = ParseKernels(context);
  absl::StatusOr<std::string> so = CompileHostSharedObject(*kernels, options);
  EXPECT_TRUE(so.ok()) << so.status();
  return so.ok() ? *so : "";
}

// The kernels parsed into their own context, and their x86-64-v3 build
// planned against the baseline `base`.
struct V3Plan {
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> kernels;
  std::vector<HostCpuVariantBuild> builds;
};

V3Plan PlanV3(const HostCompileOptions& base) {
  V3Plan plan;
  plan.kernels = ParseKernels(*plan.context);
  absl::StatusOr<std::vector<std::string>> base_features = HostCpuFeaturesOf(base);
  EXPECT_TRUE(base_features.ok()) << base_features.status();
  if (plan.kernels == nullptr || !base_features.ok()) return plan;
  absl::StatusOr<std::vector<HostCpuVariantBuild>> builds =
      PlanHostCpuVariantBuilds(*plan.kernels, base, *base_features, {"x86-64-v3"});
  EXPECT_TRUE(builds.ok()) << builds.status();
  if (builds.ok()) plan.builds = *std::move(builds);
  return plan;
}

TEST(CompileHostBuildsTest, BesideOrInTurnTheBytesOfEachBuildAlone) {
  for (int parts : {1, 2}) {
    HostCompileOptions v3 = Baseline(1, parts);
    v3.cpu = "x86-64-v3";
    const std::string baseline_alone = CompileAlone(Baseline(1, parts));
    const std::string v3_alone = CompileAlone(v3);
    ASSERT_FALSE(baseline_alone.empty());
    // The loop is widened differently: the builds really differ.
    EXPECT_NE(baseline_alone, v3_alone);
    for (int threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << "parts=" << parts << " threads=" << threads);
      const HostCompileOptions base = Baseline(threads, parts);
      V3Plan plan = PlanV3(base);
      ASSERT_EQ(plan.builds.size(), 1u);
      absl::StatusOr<HostBuildObjects> objects =
          CompileHostBuilds(*plan.kernels, base, plan.builds);
      ASSERT_TRUE(objects.ok()) << objects.status();
      EXPECT_EQ(objects->baseline, baseline_alone);
      ASSERT_EQ(objects->variants.size(), 1u);
      EXPECT_EQ(objects->variants[0], v3_alone);
      EXPECT_GE(objects->variants_extra_seconds, 0.0);
    }
  }
}

TEST(CompileHostBuildsTest, NoVariantsIsTheBaselineAlone) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> kernels = ParseKernels(context);
  ASSERT_NE(kernels, nullptr);
  std::vector<HostCpuVariantBuild> none;
  absl::StatusOr<HostBuildObjects> objects = CompileHostBuilds(*kernels, Baseline(2, 0), none);
  ASSERT_TRUE(objects.ok()) << objects.status();
  EXPECT_EQ(objects->baseline, CompileAlone(Baseline(2, 0)));
  EXPECT_TRUE(objects->variants.empty());
}

TEST(CompileHostBuildsTest, ABaselineErrorWinsOverTheVariants) {
  HostCompileOptions base = Baseline(2, 0);
  V3Plan plan = PlanV3(base);
  ASSERT_EQ(plan.builds.size(), 1u);
  base.opt_level = 7;  // refused by the baseline's compile only
  absl::StatusOr<HostBuildObjects> objects = CompileHostBuilds(*plan.kernels, base, plan.builds);
  ASSERT_FALSE(objects.ok());
  EXPECT_NE(objects.status().message().find("opt_level must be 0..3"), std::string::npos);
}

TEST(CompileHostBuildsTest, AVariantErrorNamesItsCpu) {
  const HostCompileOptions base = Baseline(2, 0);
  V3Plan plan = PlanV3(base);
  ASSERT_EQ(plan.builds.size(), 1u);
  plan.builds[0].options.opt_level = -1;
  absl::StatusOr<HostBuildObjects> objects = CompileHostBuilds(*plan.kernels, base, plan.builds);
  ASSERT_FALSE(objects.ok());
  EXPECT_NE(objects.status().message().find("host CPU variant x86-64-v3"), std::string::npos)
      << objects.status();
}

// The kernels planned against the x86-64-v2 baseline `base` for `cpus`.
V3Plan PlanFor(const HostCompileOptions& base, const std::vector<std::string>& cpus) {
  V3Plan plan;
  plan.kernels = ParseKernels(*plan.context);
  absl::StatusOr<std::vector<std::string>> base_features = HostCpuFeaturesOf(base);
  EXPECT_TRUE(base_features.ok()) << base_features.status();
  if (plan.kernels == nullptr || !base_features.ok()) return plan;
  absl::StatusOr<std::vector<HostCpuVariantBuild>> builds =
      PlanHostCpuVariantBuilds(*plan.kernels, base, *base_features, cpus);
  EXPECT_TRUE(builds.ok()) << builds.status();
  if (builds.ok()) plan.builds = *std::move(builds);
  return plan;
}

TEST(HostVariantIrSourcesTest, V4IsGeneratedFromV3AndOthersFromThemselves) {
  V3Plan plan = PlanFor(Baseline(2, 0), {"x86-64-v3", "x86-64-v4"});
  ASSERT_EQ(plan.builds.size(), 2u);
  ASSERT_EQ(plan.builds[0].options.cpu, "x86-64-v4");  // widest first
  EXPECT_EQ(HostVariantIrSources(plan.builds), (std::vector<int>{1, 1}));
  // A different optimization level cannot share the IR.
  plan.builds[1].options.opt_level = 2;
  EXPECT_EQ(HostVariantIrSources(plan.builds), (std::vector<int>{0, 1}));
  // Neither CPU's extensions contain the other's (AMD's SSE4a against
  // Intel's AVX2): each is optimized for itself.
  V3Plan apart = PlanFor(Baseline(2, 0), {"amdfam10", "x86-64-v3"});
  ASSERT_EQ(apart.builds.size(), 2u);
  EXPECT_EQ(HostVariantIrSources(apart.builds), (std::vector<int>{0, 1}));
  EXPECT_TRUE(HostVariantIrSources({}).empty());
}

// x86-64-v4 comes out of x86-64-v3's optimized IR: the bytes of
// CompileHostSharedObjectsSharingIr, whichever way the builds run, and
// different from the x86-64-v3 build's (its own instruction selection).
TEST(CompileHostBuildsTest, V4SharesV3sOptimizedIr) {
  for (int parts : {1, 2}) {
    HostCompileOptions v3 = Baseline(1, parts);
    v3.cpu = "x86-64-v3";
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> kernels = ParseKernels(context);
    ASSERT_NE(kernels, nullptr);
    absl::StatusOr<std::vector<std::string>> shared =
        CompileHostSharedObjectsSharingIr(*kernels, v3, {"x86-64-v4"});
    ASSERT_TRUE(shared.ok()) << shared.status();
    ASSERT_EQ(shared->size(), 2u);
    EXPECT_EQ((*shared)[0], CompileAlone(v3));
    EXPECT_NE((*shared)[1], (*shared)[0]);
    for (int threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << "parts=" << parts << " threads=" << threads);
      const HostCompileOptions base = Baseline(threads, parts);
      V3Plan plan = PlanFor(base, {"x86-64-v3", "x86-64-v4"});
      ASSERT_EQ(plan.builds.size(), 2u);
      absl::StatusOr<HostBuildObjects> objects =
          CompileHostBuilds(*plan.kernels, base, plan.builds);
      ASSERT_TRUE(objects.ok()) << objects.status();
      EXPECT_EQ(objects->baseline, CompileAlone(Baseline(1, parts)));
      ASSERT_EQ(objects->variants.size(), 2u);
      EXPECT_EQ(objects->variants[0], (*shared)[1]);  // x86-64-v4
      EXPECT_EQ(objects->variants[1], (*shared)[0]);  // x86-64-v3
    }
  }
}

TEST(CompileHostBuildsTest, ASharedIrErrorNamesTheCpu) {
  HostCompileOptions v3 = Baseline(2, 0);
  v3.cpu = "x86-64-v3";
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> kernels = ParseKernels(context);
  ASSERT_NE(kernels, nullptr);
  // x86-64-v2 lacks AVX2: v3's IR is not legal for it.
  absl::StatusOr<std::vector<std::string>> narrower =
      CompileHostSharedObjectsSharingIr(*kernels, v3, {"x86-64-v2"});
  ASSERT_FALSE(narrower.ok());
  EXPECT_NE(narrower.status().message().find("host CPU x86-64-v2 cannot run code optimized for "
                                             "x86-64-v3"),
            std::string::npos)
      << narrower.status();
  absl::StatusOr<std::vector<std::string>> unknown =
      CompileHostSharedObjectsSharingIr(*kernels, v3, {"x86-64-v9"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("x86-64-v9"), std::string::npos) << unknown.status();
}

}  // namespace
}  // namespace xla::gpu

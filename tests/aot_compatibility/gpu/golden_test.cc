// The golden suite of stored artifacts (docs/aot_compatibility.md, "Golden
// suite"): executables/<target>/v<N>/<module>/{module.hlo, artifact.xaot,
// input_<i>.npy, expected_<i>.npy}. Stored artifacts are never regenerated;
// tools/update_goldens.sh adds v<N+1>.
//
// Backward mode: today's runtime loads the stored artifacts of the oldest
// and the second-newest version (every version with
// XLA_AOT_TEST_ALL_VERSIONS=1), runs the host ones and compares with the
// reference evaluator's outputs stored beside them; host_<N>dev artifacts
// (collective modules) run on N host devices with tools::RunReplicated,
// their stored inputs and outputs stacked along a leading dimension of N;
// sm_XX artifacts are validated on the CPU, their PTX is assembled with
// ptxas (when found) and they run only when a GPU is present; sm_XX_<N>gpu
// artifacts (collective modules for N GPUs) are validated and assembled
// the same way, and run on N GPUs through NCCL (tools::RunReplicated) when
// the machine has that many and NCCL loads.
//
// Verification mode: today's compiler compiles each module of the newest
// version again; the result must match the stored artifact structurally
// (machine code, dates, toolchain versions and the optimized HLO ignored).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_compiler.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"
#include "xla/stream_executor/cuda/nccl_api.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/tools/replicated_run.h"
#include "xla/backends/gpu/runtime/thunk_proto_visit.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/types/npy.h"
#include "tests/aot_compatibility/gpu/golden_io.h"

namespace xla::golden {
namespace {

constexpr char kRoot[] = "tests/aot_compatibility/gpu/executables";
const char* const kTargets[] = {"host", "host_2dev", "host_offload", "sm_90", "sm_90_2gpu"};

// The host target compiled with --offload_scan_stacks (scan stacks in host
// memory, feature copy_thunk.dynamic_offset).
constexpr char kHostOffload[] = "host_offload";

// Whether `target`'s artifacts are host artifacts (host, host_offload,
// host_<N>dev).
bool IsHostTarget(const std::string& target) {
  return target == "host" || target == kHostOffload || ReplicaCountOfTarget(target) > 0;
}

constexpr char kLoadHint[] =
    "\nHint: the runtime must keep loading what compilers produced in the last 6 months "
    "(docs/aot_compatibility.md); a removed or renamed thunk kind, field, enum value, kernel "
    "symbol or FFI handler is the likely cause. Restore it (or add a fallback with an expiry "
    "line) instead of regenerating the golden.";

constexpr char kUpdateHint[] =
    "If this change is intended, add a new golden version with tools/update_goldens.sh "
    "(it writes v<N+1>; stored versions are never regenerated).";

bool EnvSet(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == "1";
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string VersionDir(const std::string& target, int version) {
  return absl::StrCat(kRoot, "/", target, "/v", version);
}

// `shape` with a leading dimension of `n` (n == 0: `shape` itself).
Shape Stacked(const Shape& shape, int64_t n) {
  if (n == 0) return shape;
  std::vector<int64_t> dims = {n};
  dims.insert(dims.end(), shape.dimensions().begin(), shape.dimensions().end());
  return Shape::Array(shape.element_type(), dims);
}

// Runs `exe` on the stored inputs and compares every result leaf with the
// stored expected output: on `device` when `replicas` is 0, else on
// `replicas` host devices with tools::RunReplicated (stored inputs and
// outputs carry a leading dimension of `replicas`).
// `tolerance_scale` widens the comparison (literal_compare.h) for artifacts
// whose GEMMs may round f32 operands to TF32 (Tf32ToleranceScale).
void RunAndCompare(aot::Executable& exe, stream_executor::StreamExecutor* device,
                   int64_t replicas, const std::string& dir, double tolerance_scale = 1.0) {
  absl::StatusOr<std::vector<Literal>> files = ReadNumberedNpy(dir, "input_");
  ASSERT_TRUE(files.ok()) << files.status();
  const std::vector<Shape>& params = exe.program_shape().parameters;
  ASSERT_EQ(files->size(), params.size()) << dir << ": stored inputs vs artifact parameters";
  std::vector<Literal> inputs;
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StatusOr<Literal> arg = ConvertNpyLiteral((*files)[i], Stacked(params[i], replicas),
                                                    absl::StrCat(dir, " input_", i));
    ASSERT_TRUE(arg.ok()) << arg.status();
    inputs.push_back(std::move(*arg));
  }
  absl::StatusOr<std::vector<Literal>> got =
      replicas == 0 ? aot::ExecuteOnLiterals(exe, device, inputs)
                    : tools::RunReplicated(exe, replicas, inputs);
  ASSERT_TRUE(got.ok()) << dir << ": execution failed"
                        << (replicas == 0 ? "" : absl::StrCat(" on ", replicas, " devices"))
                        << ": " << got.status() << kLoadHint;
  absl::StatusOr<std::vector<Literal>> want = ReadNumberedNpy(dir, "expected_");
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_FALSE(want->empty()) << dir << ": no expected_<i>.npy";
  ASSERT_EQ(got->size(), want->size()) << dir << ": result leaves vs stored expected outputs";
  for (size_t i = 0; i < want->size(); ++i) {
    absl::StatusOr<Literal> expected = ConvertNpyLiteral(
        (*want)[i], (*got)[i].shape(), absl::StrCat(dir, " expected_", i));
    ASSERT_TRUE(expected.ok()) << expected.status();
    absl::Status same = CompareOutputLeaf(*expected, (*got)[i], tolerance_scale);
    EXPECT_TRUE(same.ok()) << dir << " output " << i << ": " << same.message();
  }
}

// True when a GEMM thunk anywhere in `thunks` may use TF32.
bool HasTf32Gemm(const google::protobuf::RepeatedPtrField<gpu::ThunkProto>& thunks) {
  bool found = false;
  gpu::ForEachThunkProto(thunks, [&found](const gpu::ThunkProto& t) {
    found |= t.has_gemm() && t.gemm().allow_tf32();
  });
  return found;
}

// The expected outputs come from the evaluator in exact f32. A GEMM with
// TF32 allowed rounds each operand to 10 mantissa bits (relative error up
// to 2^-11 per operand), so on a GPU such artifacts are compared at about
// 2e-3 of the largest magnitude instead of f32's 1e-5.
double Tf32ToleranceScale(const gpu::GpuExecutableProto& artifact) {
  return HasTf32Gemm(artifact.payload().thunks()) ? 2e-3 / DefaultRelativeTolerance(PrimitiveType::F32) : 1.0;
}

// Assembles every kernel's PTX (ptx and cubin_with_ptx specs) with ptxas.
// Returns how many were assembled.
int AssembleAllPtx(const gpu::GpuExecutableProto& artifact, const std::string& target,
                   const std::string& ptxas, const std::string& dir) {
  absl::StatusOr<gpu::NvptxTarget> nvptx = gpu::FindNvptxTarget(target);
  EXPECT_TRUE(nvptx.ok()) << nvptx.status();
  if (!nvptx.ok()) return 0;
  int assembled = 0;
  for (const gpu::KernelProto& kernel : artifact.payload().kernels()) {
    const std::string* ptx = nullptr;
    if (kernel.has_ptx()) ptx = &kernel.ptx().ptx();
    if (kernel.has_cubin_with_ptx()) ptx = &kernel.cubin_with_ptx().ptx();
    if (ptx == nullptr) continue;
    absl::StatusOr<std::string> cubin = gpu::AssemblePtx(*ptx, *nvptx, ptxas);
    EXPECT_TRUE(cubin.ok()) << dir << " kernel " << kernel.name() << ": ptxas -arch=" << target
                            << " rejects the stored PTX: " << cubin.status();
    if (cubin.ok()) ++assembled;
  }
  return assembled;
}

// The GPU device to run sm_XX artifacts on, or null (with the reason).
stream_executor::StreamExecutor* FindGpu(std::string* why_not) {
  absl::StatusOr<stream_executor::Platform*> platform =
      stream_executor::PlatformRegistry::GetPlatform("cuda");
  if (!platform.ok()) {
    *why_not = std::string(platform.status().message());
    return nullptr;
  }
  absl::StatusOr<stream_executor::StreamExecutor*> device = (*platform)->GetDevice(0);
  if (!device.ok()) {
    *why_not = std::string(device.status().message());
    return nullptr;
  }
  return *device;
}

// Whether the machine can run collectives on `gpus` GPUs (CUDA devices and
// NCCL); `why_not` says what is missing.
bool CanRunOnGpus(int64_t gpus, std::string* why_not) {
  absl::StatusOr<stream_executor::Platform*> platform =
      stream_executor::PlatformRegistry::GetPlatform("cuda");
  if (!platform.ok()) {
    *why_not = std::string(platform.status().message());
    return false;
  }
  if ((*platform)->device_count() < gpus) {
    *why_not = absl::StrCat("collectives on ", gpus, " GPUs; this machine has ",
                            (*platform)->device_count());
    return false;
  }
  absl::StatusOr<const stream_executor::cuda::NcclApi*> nccl = stream_executor::cuda::LoadNcclApi();
  if (!nccl.ok()) {
    *why_not = std::string(nccl.status().message());
    return false;
  }
  return true;
}

void CheckVersion(const std::string& target, int version, int* modules_checked) {
  const std::string vdir = VersionDir(target, version);
  absl::StatusOr<std::vector<std::string>> modules = ListModules(vdir);
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_FALSE(modules->empty()) << vdir << " holds no modules";
  const int64_t replicas = ReplicaCountOfTarget(target);
  const bool host = IsHostTarget(target);
  absl::StatusOr<std::string> ptxas = gpu::FindPtxas(gpu::NvptxCompileOptions());
  std::string no_gpu;
  stream_executor::StreamExecutor* gpu = host ? nullptr : FindGpu(&no_gpu);
  // One module; an ASSERT failure ends only that module's check.
  auto check = [&](const std::string& module) {
    const std::string dir = absl::StrCat(vdir, "/", module);
    absl::StatusOr<std::string> bytes = ReadFile(dir + "/artifact.xaot");
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(*bytes);
    ASSERT_TRUE(exe.ok()) << dir << "/artifact.xaot does not load: " << exe.status() << kLoadHint;
    ++*modules_checked;
    if (host) {
      absl::StatusOr<stream_executor::Platform*> platform =
          stream_executor::PlatformRegistry::GetPlatform("host");
      ASSERT_TRUE(platform.ok()) << platform.status();
      absl::StatusOr<stream_executor::StreamExecutor*> device = (*platform)->GetDevice(0);
      ASSERT_TRUE(device.ok()) << device.status();
      RunAndCompare(**exe, *device, replicas, dir);
      std::cout << "[golden] " << dir << ": loaded, ran"
                << (replicas == 0 ? "" : absl::StrCat(" on ", replicas, " host devices"))
                << ", outputs match\n";
      return;
    }
    gpu::GpuExecutableProto artifact;
    ASSERT_TRUE(artifact.ParseFromString(*bytes));
    std::string ptx_note = "ptxas not found (" + std::string(ptxas.status().message()) +
                           "): PTX assembly skipped";
    const std::string arch = GpuArchOfTarget(target);
    if (ptxas.ok()) {
      const int n = AssembleAllPtx(artifact, arch, *ptxas, dir);
      ptx_note = n == 0 ? std::string("no PTX stored (cubin specs only)")
                        : absl::StrCat("PTX of ", n, " kernel(s) assembled with ptxas -arch=", arch);
    }
    if (const int64_t gpus = GpuCountOfTarget(target); gpus > 0) {
      std::string why_not;
      if (!CanRunOnGpus(gpus, &why_not)) {
        std::cout << "[golden] " << dir << ": loaded and validated on CPU; " << ptx_note
                  << "; execution skipped (" << why_not << ")\n";
        return;
      }
      RunAndCompare(**exe, nullptr, gpus, dir, Tf32ToleranceScale(artifact));
      std::cout << "[golden] " << dir << ": loaded; " << ptx_note << "; ran on " << gpus
                << " GPUs through NCCL, outputs match\n";
      return;
    }
    if (gpu == nullptr) {
      std::cout << "[golden] " << dir << ": loaded and validated on CPU; " << ptx_note
                << "; execution skipped (no GPU: " << no_gpu << ")\n";
      return;
    }
    RunAndCompare(**exe, gpu, /*replicas=*/0, dir, Tf32ToleranceScale(artifact));
    std::cout << "[golden] " << dir << ": loaded; " << ptx_note << "; ran on the GPU, outputs match\n";
  };
  for (const std::string& module : *modules) {
    SCOPED_TRACE(absl::StrCat(target, "/v", version, "/", module));
    check(module);
  }
}

// Every directory under kRoot is a target this test knows, so a new target
// directory is never silently skipped.
TEST(GoldenTest, EveryTargetDirectoryIsChecked) {
  absl::StatusOr<std::vector<std::string>> dirs = ListModules(kRoot);
  ASSERT_TRUE(dirs.ok()) << dirs.status();
  for (const std::string& dir : *dirs) {
    bool known = false;
    for (const char* target : kTargets) known = known || dir == target;
    EXPECT_TRUE(known) << kRoot << "/" << dir << " is not in golden_test.cc's kTargets; add it";
  }
}

TEST(GoldenTest, BackwardModeLoadsAndRunsStoredArtifacts) {
  const bool all = EnvSet("XLA_AOT_TEST_ALL_VERSIONS");
  for (const char* target : kTargets) {
    SCOPED_TRACE(target);
    absl::StatusOr<std::vector<int>> versions = ListVersions(absl::StrCat(kRoot, "/", target));
    ASSERT_TRUE(versions.ok()) << versions.status();
    // Finding nothing is a failure, never a pass.
    ASSERT_FALSE(versions->empty()) << "no v<N> directories under " << kRoot << "/" << target;
    int modules_checked = 0;
    for (int version : VersionsToCheck(*versions, all)) {
      CheckVersion(target, version, &modules_checked);
    }
    EXPECT_GE(modules_checked, 3) << target << ": too few golden modules were checked";
  }
}

// The fresh artifact of `module_hlo` for `target` with the options the
// newest goldens were made with, `xla_aot compile`'s defaults (host: the
// default wider build too; sm_XX: cubin_with_ptx; host_<N>dev: host with
// collectives; host_offload: host with --offload_scan_stacks;
// sm_XX_<N>gpu: sm_XX with both).
absl::StatusOr<gpu::GpuExecutableProto> CompileFresh(const std::string& module_hlo,
                                                     const std::string& target) {
  aot::CompileOptions options;
  const bool host = IsHostTarget(target);
  options.target = host ? "host" : GpuArchOfTarget(target);
  options.emit_collectives = host ? ReplicaCountOfTarget(target) > 0 : GpuCountOfTarget(target) > 0;
  options.offload_scan_stacks = target == kHostOffload;
  options.emit_cubin_with_ptx = !host;
  return aot::CompileToProto(module_hlo, options);
}

TEST(GoldenTest, VerificationModeMatchesNewestGoldenStructurally) {
  const bool have_ptxas = gpu::FindPtxas(gpu::NvptxCompileOptions()).ok();
  int compared = 0;
  for (const char* target : kTargets) {
    SCOPED_TRACE(target);
    absl::StatusOr<std::vector<int>> versions = ListVersions(absl::StrCat(kRoot, "/", target));
    ASSERT_TRUE(versions.ok()) << versions.status();
    ASSERT_FALSE(versions->empty()) << "no v<N> directories under " << kRoot << "/" << target;
    const bool host = IsHostTarget(target);
    if (!host && !have_ptxas) {
      std::cout << "[golden] " << target << ": verification skipped: ptxas not found (the "
                << "goldens were made with cubins)\n";
      continue;
    }
    const int newest = versions->back();
    const std::string vdir = VersionDir(target, newest);
    absl::StatusOr<std::vector<std::string>> modules = ListModules(vdir);
    ASSERT_TRUE(modules.ok()) << modules.status();
    ASSERT_FALSE(modules->empty()) << vdir << " holds no modules";
    for (const std::string& module : *modules) {
      const std::string dir = absl::StrCat(vdir, "/", module);
      absl::StatusOr<std::string> hlo = ReadFile(dir + "/module.hlo");
      ASSERT_TRUE(hlo.ok()) << hlo.status();
      absl::StatusOr<std::string> bytes = ReadFile(dir + "/artifact.xaot");
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      gpu::GpuExecutableProto stored;
      ASSERT_TRUE(stored.ParseFromString(*bytes)) << dir << "/artifact.xaot does not parse";
      absl::StatusOr<gpu::GpuExecutableProto> fresh = CompileFresh(*hlo, target);
      ASSERT_TRUE(fresh.ok()) << dir << "/module.hlo no longer compiles: " << fresh.status();
      const std::string diff = LineDiff(StructuralText(stored), StructuralText(*fresh));
      EXPECT_TRUE(diff.empty())
          << dir << ": today's compiler produces a structurally different artifact "
          << "(- stored v" << newest << ", + fresh; machine code, dates, toolchain versions and "
          << "optimized HLO ignored):\n"
          << diff << kUpdateHint;
      ++compared;
      std::cout << "[golden] " << dir << ": fresh compile "
                << (diff.empty() ? "matches" : "DIFFERS") << " structurally\n";
    }
  }
  EXPECT_GE(compared, 3) << "too few modules were verified";
}

}  // namespace
}  // namespace xla::golden

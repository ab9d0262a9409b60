#include "xla/backends/gpu/codegen/host/host_cpu_variant_builds.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/util/parallel_for.h"

namespace xla::gpu {
namespace {

// `kernels` written as bitcode (use-list order kept, so that a copy
// optimizes exactly like the original).
std::string KernelBitcode(const llvm::Module& kernels) {
  std::string bitcode;
  llvm::raw_string_ostream stream(bitcode);
  llvm::WriteBitcodeToFile(kernels, stream, /*ShouldPreserveUseListOrder=*/true);
  stream.flush();
  return bitcode;
}

// Parses `bitcode` into the build's own context, under `name`.
absl::Status CopyKernelsInto(const std::string& bitcode, const std::string& name,
                             HostCpuVariantBuild& build) {
  build.context = std::make_unique<llvm::LLVMContext>();
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), name),
      *build.context);
  if (!module) {
    return absl::InternalError(absl::StrCat("cannot copy host kernels for CPU variant ",
                                            build.options.cpu, ": ",
                                            llvm::toString(module.takeError())));
  }
  build.module = std::move(*module);
  build.module->setModuleIdentifier(name);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<HostCpuVariantBuild>> PlanHostCpuVariantBuilds(
    const llvm::Module& kernels, const HostCompileOptions& base,
    const std::vector<std::string>& base_features, const std::vector<std::string>& cpus) {
  std::vector<HostCpuVariantBuild> builds;
  for (const std::string& cpu : cpus) {
    HostCpuVariantBuild build;
    build.options = base;
    build.options.cpu = cpu;
    build.options.kernel_progress = nullptr;
    build.options.phase_observer = nullptr;
    build.options.part_observer = nullptr;
    build.options.ir_observer = nullptr;
    absl::StatusOr<std::vector<std::string>> features = HostCpuFeaturesOf(build.options);
    if (!features.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("host CPU variant: ", features.status().message()));
    }
    build.cpu_features = *std::move(features);
    const bool wider = std::any_of(
        build.cpu_features.begin(), build.cpu_features.end(), [&](const std::string& f) {
          return std::find(base_features.begin(), base_features.end(), f) == base_features.end();
        });
    if (wider) builds.push_back(std::move(build));
  }
  if (builds.empty()) return builds;
  const std::string bitcode = KernelBitcode(kernels);
  for (HostCpuVariantBuild& build : builds) {
    if (absl::Status s = CopyKernelsInto(bitcode, kernels.getModuleIdentifier(), build); !s.ok()) {
      return s;
    }
  }
  // Best first: the runtime runs the first its CPU has.
  std::stable_sort(builds.begin(), builds.end(),
                   [](const HostCpuVariantBuild& a, const HostCpuVariantBuild& b) {
                     return a.cpu_features.size() > b.cpu_features.size();
                   });
  return builds;
}

std::vector<int> HostVariantIrSources(const std::vector<HostCpuVariantBuild>& variants) {
  std::vector<int> source(variants.size());
  for (size_t j = 0; j < variants.size(); ++j) {
    source[j] = static_cast<int>(j);
    // The narrowest qualifying source: the last one (widest first).
    for (size_t i = variants.size(); i-- > 0;) {
      if (i == j) continue;
      const HostCompileOptions& a = variants[i].options;
      const HostCompileOptions& b = variants[j].options;
      if (a.opt_level != b.opt_level || a.parts != b.parts || a.threads != b.threads ||
          a.linker != b.linker) {
        continue;
      }
      const std::vector<std::string>& have = variants[j].cpu_features;
      const bool subset = std::all_of(
          variants[i].cpu_features.begin(), variants[i].cpu_features.end(),
          [&](const std::string& f) { return std::find(have.begin(), have.end(), f) != have.end(); });
      if (subset && variants[i].cpu_features.size() < have.size()) {
        source[j] = static_cast<int>(i);
        break;
      }
    }
  }
  // A source is never a follower itself (features grow strictly along a
  // chain, so follow it to its end).
  for (size_t j = 0; j < variants.size(); ++j) {
    while (source[source[j]] != source[j]) source[j] = source[source[j]];
  }
  return source;
}

int HostBuildsAtOnce(int threads, size_t builds) {
  if (builds <= 1 || ThreadCount(threads, kMaxHostCompileThreads) <= 1) return 1;
  return static_cast<int>(builds);
}

absl::StatusOr<HostBuildObjects> CompileHostBuilds(llvm::Module& baseline,
                                                   const HostCompileOptions& baseline_options,
                                                   std::vector<HostCpuVariantBuild>& variants) {
  std::vector<absl::StatusOr<std::string>> objects(
      variants.size(), absl::UnknownError("host CPU variant was not compiled"));
  const std::vector<int> source = HostVariantIrSources(variants);
  std::vector<size_t> sources;
  for (size_t i = 0; i < variants.size(); ++i) {
    if (source[i] == static_cast<int>(i)) sources.push_back(i);
  }
  // One job per source: its build, and the code generation of the
  // variants that share its optimized IR.
  auto compile_source = [&](size_t i) {
    std::vector<size_t> followers;
    std::vector<std::string> cpus;
    for (size_t j = 0; j < variants.size(); ++j) {
      if (j == i || source[j] != static_cast<int>(i)) continue;
      followers.push_back(j);
      cpus.push_back(variants[j].options.cpu);
    }
    absl::StatusOr<std::vector<std::string>> built =
        CompileHostSharedObjectsSharingIr(*variants[i].module, variants[i].options, cpus);
    if (!built.ok()) {
      objects[i] = built.status();
      for (size_t j : followers) objects[j] = built.status();
      return;
    }
    objects[i] = std::move((*built)[0]);
    for (size_t k = 0; k < followers.size(); ++k) objects[followers[k]] = std::move((*built)[k + 1]);
  };
  auto compile_variants = [&](int threads) {
    ParallelForEach(static_cast<int64_t>(sources.size()), threads,
                    [&](int64_t k) { compile_source(sources[k]); });
  };
  const int at_once = HostBuildsAtOnce(baseline_options.threads, sources.size() + 1);
  std::thread helper;
  if (at_once > 1) {
    try {
      helper = std::thread(compile_variants, at_once - 1);
    } catch (const std::system_error&) {
      // No helper thread: the variants compile after the baseline.
    }
  }
  HostBuildObjects result;
  absl::StatusOr<std::string> so = CompileHostSharedObject(baseline, baseline_options);
  const absl::Time baseline_done = absl::Now();
  if (helper.joinable()) {
    helper.join();
  } else {
    compile_variants(1);
  }
  result.variants_extra_seconds = absl::ToDoubleSeconds(absl::Now() - baseline_done);
  if (!so.ok()) return so.status();
  result.baseline = *std::move(so);
  for (size_t i = 0; i < variants.size(); ++i) {
    if (!objects[i].ok()) {
      return absl::Status(objects[i].status().code(),
                          absl::StrCat("host CPU variant ", variants[i].options.cpu, ": ",
                                       objects[i].status().message()));
    }
    result.variants.push_back(*std::move(objects[i]));
  }
  return result;
}

}  // namespace xla::gpu

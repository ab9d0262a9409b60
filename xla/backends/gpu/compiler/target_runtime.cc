#include "xla/backends/gpu/compiler/target_runtime.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/feature_registry.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// cubin_with_ptx -> cubin: the older runtime loads the cubin alone (no PTX
// JIT fallback on a GPU the cubin does not fit).
void LowerCubinWithPtx(GpuExecutableProto* artifact) {
  for (KernelProto& k : *artifact->mutable_payload()->mutable_kernels()) {
    if (!k.has_cubin_with_ptx()) continue;
    CubinWithPtxKernelSpecProto both = std::move(*k.mutable_cubin_with_ptx());
    CubinKernelSpecProto* cubin = k.mutable_cubin();
    cubin->set_cubin(std::move(*both.mutable_cubin()));
    cubin->set_entry(std::move(*both.mutable_entry()));
  }
}

// CRC-32C -> FNV-1a: SealArtifact then checksums with FNV-1a.
void LowerCrc32c(GpuExecutableProto* artifact) {
  artifact->mutable_header()->set_checksum_algorithm(CHECKSUM_ALGORITHM_FNV1A_64);
}

struct Lowering {
  const char* feature;
  void (*lower)(GpuExecutableProto* artifact);
};

// The legacy form of each construct that has one.
constexpr Lowering kLowerings[] = {
    {"kernel_spec.cubin_with_ptx", LowerCubinWithPtx},
    {"payload_checksum.crc32c", LowerCrc32c},
};

}  // namespace

absl::Status FinalizeRuntimeFeatures(absl::string_view target_runtime,
                                     GpuExecutableProto* artifact) {
  if (!target_runtime.empty()) {
    ASSIGN_OR_RETURN(std::vector<std::string> supported, FeaturesSupportedOn(target_runtime));
    ASSIGN_OR_RETURN(const int64_t target_day, ParseIsoDate(target_runtime));
    for (const std::string& used : RequiredFeaturesOf(*artifact)) {
      if (std::find(supported.begin(), supported.end(), used) != supported.end()) continue;
      const Lowering* lowering = nullptr;
      for (const Lowering& l : kLowerings) {
        if (used == l.feature) lowering = &l;
      }
      if (lowering != nullptr) {
        lowering->lower(artifact);
        continue;
      }
      const RuntimeFeature* f = FindRuntimeFeature(used);
      return absl::FailedPreconditionError(absl::StrCat(
          "the module needs runtime feature `", used, "` (",
          f != nullptr ? f->construct : "unregistered", "), which runtimes read only since ",
          f != nullptr ? f->runtime_support : "?", ", but --target_runtime=", target_runtime,
          " (day ", target_day, ") is older and the feature has no legacy form: deploy a newer "
          "runtime first, or drop the flag that enables it"));
    }
  }
  ArtifactHeaderProto* header = artifact->mutable_header();
  header->clear_required_runtime_features();
  for (const std::string& f : RequiredFeaturesOf(*artifact)) header->add_required_runtime_features(f);
  return absl::OkStatus();
}

}  // namespace xla::gpu

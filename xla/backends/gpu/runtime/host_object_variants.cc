#include "xla/backends/gpu/runtime/host_object_variants.h"

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/artifact_header.h"
#include "xla/stream_executor/host/cpu_features.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::Status ValidateHostObjectVariants(const GpuExecutablePayloadProto& payload,
                                        const Target& target,
                                        absl::string_view host_shared_object) {
  if (payload.host_object_variants_size() == 0) return absl::OkStatus();
  if (target.platform != "host") {
    return absl::InvalidArgumentError(
        absl::StrCat("host_object_variants: target ", target.name, " has no host kernels"));
  }
  if (host_shared_object.empty()) {
    return absl::InvalidArgumentError(
        "host_object_variants: builds for wider CPUs without the baseline host_shared_object");
  }
  for (int i = 0; i < payload.host_object_variants_size(); ++i) {
    const HostObjectVariantProto& v = payload.host_object_variants(i);
    const std::string field = absl::StrCat("host_object_variants[", i, "]");
    if (v.shared_object().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".shared_object: is empty"));
    }
    RETURN_IF_ERROR(CheckCpuFeatureNames(v.cpu_features(), field + ".cpu_features"));
  }
  return absl::OkStatus();
}

int ChooseHostObjectVariant(const GpuExecutablePayloadProto& payload,
                            const std::set<std::string>& machine_features) {
  for (int i = 0; i < payload.host_object_variants_size(); ++i) {
    bool runs = true;
    for (const std::string& f : payload.host_object_variants(i).cpu_features()) {
      runs &= stream_executor::host::IsKnownCpuFeature(f) && machine_features.count(f) == 1;
    }
    if (runs) return i;
  }
  return -1;
}

}  // namespace xla::gpu

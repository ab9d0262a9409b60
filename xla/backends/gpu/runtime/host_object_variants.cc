#include "xla/backends/gpu/runtime/host_object_variants.h"

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/artifact_header.h"
#include "xla/stream_executor/host/cpu_features.h"
#include "xla/stream_executor/host/host_object_check.h"
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

std::vector<HostObjectField> HostObjectsOf(const GpuExecutablePayloadProto& payload,
                                           absl::string_view host_shared_object) {
  std::vector<HostObjectField> objects = {{"payload.host_shared_object", host_shared_object}};
  for (int i = 0; i < payload.host_object_variants_size(); ++i) {
    objects.push_back({absl::StrCat("payload.host_object_variants[", i, "].shared_object"),
                       payload.host_object_variants(i).shared_object()});
  }
  return objects;
}

std::set<std::string, std::less<>> HostKernelSymbols(const GpuExecutablePayloadProto& payload) {
  std::set<std::string, std::less<>> symbols;
  for (const KernelProto& k : payload.kernels()) {
    if (k.has_host_symbol()) symbols.insert(k.host_symbol());
  }
  return symbols;
}

absl::Status CheckHostObjects(const GpuExecutablePayloadProto& payload,
                              absl::string_view host_shared_object) {
  const std::set<std::string, std::less<>> symbols = HostKernelSymbols(payload);
  stream_executor::host::HostObjectRules rules;
  rules.allowed_exports = &symbols;
  for (const HostObjectField& object : HostObjectsOf(payload, host_shared_object)) {
    if (object.bytes.empty()) continue;
    RETURN_IF_ERROR(stream_executor::host::CheckHostSharedObject(object.bytes, object.field, rules));
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

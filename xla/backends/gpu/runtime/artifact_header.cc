#include "xla/backends/gpu/runtime/artifact_header.h"

#include <algorithm>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/feature_registry.h"
#include "xla/stream_executor/host/cpu_features.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

absl::Status Invalid(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("header.", field, ": ", what));
}

// "12.4" -> {12, 4}; nullopt unless dotted decimal numbers.
std::optional<std::vector<int64_t>> ParseVersion(absl::string_view text) {
  std::vector<int64_t> parts;
  for (absl::string_view part : absl::StrSplit(text, '.')) {
    int64_t value = 0;
    if (part.empty() || !absl::SimpleAtoi(part, &value) || value < 0) return std::nullopt;
    parts.push_back(value);
  }
  return parts;
}

absl::Status ValidateToolchain(const ArtifactHeaderProto& header, const Target& target) {
  for (int i = 0; i < header.toolchain_requirements_size(); ++i) {
    const ToolchainRequirementProto& r = header.toolchain_requirements(i);
    const std::string field = absl::StrCat("toolchain_requirements[", i, "]");
    if (r.component() != "cuda_driver") {
      return Invalid(field + ".component", absl::StrCat("unknown component '", r.component(),
                                                        "' (this runtime knows cuda_driver)"));
    }
    if (target.platform != "cuda") {
      return Invalid(field, absl::StrCat("target ", target.name, " needs no cuda_driver"));
    }
    if (!ParseVersion(r.min_version()).has_value()) {
      return Invalid(field + ".min_version", absl::StrCat("'", r.min_version(), "' is not a dotted version"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateHostCpuFeatures(const ArtifactHeaderProto& header, const Target& target) {
  if (header.host_cpu_features_size() > 0 && target.platform != "host") {
    return Invalid("host_cpu_features[0]", absl::StrCat("target ", target.name, " has no host kernels"));
  }
  return CheckCpuFeatureNames(header.host_cpu_features(), "header.host_cpu_features");
}

}  // namespace

absl::Status CheckCpuFeatureNames(const google::protobuf::RepeatedPtrField<std::string>& names,
                                  absl::string_view field) {
  constexpr size_t kMaxName = 32;
  for (int i = 0; i < names.size(); ++i) {
    const std::string& name = names.Get(i);
    const bool well_formed =
        !name.empty() && name.size() <= kMaxName &&
        std::all_of(name.begin(), name.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        });
    if (!well_formed) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, "[", i, "]: '", absl::CHexEscape(name.substr(0, kMaxName)),
                       "' is not a CPU feature name (1 to ", kMaxName, " of a-z, 0-9, '.', '_', '-')"));
    }
  }
  return absl::OkStatus();
}

const std::vector<std::string>& SupportedRuntimeFeatures() {
  static const auto* features = [] {
    auto* names = new std::vector<std::string>;
    for (const RuntimeFeature& f : RuntimeFeatureRegistry()) names->push_back(f.name);
    std::sort(names->begin(), names->end());
    return names;
  }();
  return *features;
}

absl::StatusOr<Target> ValidateHeader(const ArtifactHeaderProto& header) {
  if (header.format_version() == 0) {
    return Invalid("format_version", "is missing (0); is this a GpuExecutableProto artifact?");
  }
  if (header.format_version() > kArtifactFormatVersion) {
    return Invalid("format_version", absl::StrCat(
        "artifact format ", header.format_version(), " is newer than this runtime, which reads up to format ",
        kArtifactFormatVersion, ": upgrade the runtime or compile for format ", kArtifactFormatVersion));
  }
  if (!IsSupportedChecksum(header.checksum_algorithm())) {
    return Invalid("checksum_algorithm",
                   absl::StrCat("unsupported value ", static_cast<int>(header.checksum_algorithm()),
                                " (this runtime checks FNV1A_64 = 1 and CRC32C = 2)"));
  }
  ASSIGN_OR_RETURN(Target target, ParseTarget(header.target()));
  const std::vector<std::string>& supported = SupportedRuntimeFeatures();
  for (int i = 0; i < header.required_runtime_features_size(); ++i) {
    const std::string& feature = header.required_runtime_features(i);
    if (std::find(supported.begin(), supported.end(), feature) == supported.end()) {
      return Invalid(absl::StrCat("required_runtime_features[", i, "]"),
                     absl::StrCat("artifact needs runtime feature `", feature,
                                  "`, which this runtime lacks (it supports: ",
                                  absl::StrJoin(supported, ", "),
                                  "): upgrade the runtime or compile without it"));
    }
  }
  RETURN_IF_ERROR(ValidateToolchain(header, target));
  RETURN_IF_ERROR(ValidateHostCpuFeatures(header, target));
  return target;
}

absl::Status CheckHostCpuFeatures(const ArtifactHeaderProto& header,
                                  const std::set<std::string>& machine_features) {
  for (const std::string& name : header.host_cpu_features()) {
    if (!stream_executor::host::IsKnownCpuFeature(name) || machine_features.count(name) != 0) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        "the artifact's host kernels use the CPU feature '", name,
        "', which this machine's CPU lacks (it has: ", absl::StrJoin(machine_features, ", "),
        "); compile the module again with --host_cpu set to a CPU this machine has (the "
        "default x86-64-v2 runs on any x86-64 server of the last decade)"));
  }
  return absl::OkStatus();
}

absl::Status CheckToolchain(const ArtifactHeaderProto& header,
                            const std::map<std::string, std::string>& machine_versions) {
  for (const ToolchainRequirementProto& r : header.toolchain_requirements()) {
    auto it = machine_versions.find(r.component());
    if (it == machine_versions.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "artifact needs ", r.component(), " >= ", r.min_version(),
          " but the device does not report a ", r.component(), " version"));
    }
    std::optional<std::vector<int64_t>> need = ParseVersion(r.min_version());
    std::optional<std::vector<int64_t>> have = ParseVersion(it->second);
    if (!need.has_value() || !have.has_value() || *have < *need) {
      return absl::FailedPreconditionError(absl::StrCat("artifact needs ", r.component(), " >= ",
                                                        r.min_version(), " but the machine has ",
                                                        it->second));
    }
  }
  return absl::OkStatus();
}

}  // namespace xla::gpu

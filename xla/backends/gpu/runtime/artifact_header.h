// Checks an artifact's header against what this runtime supports, before
// the payload is looked at: the format version, the checksum algorithm, the
// target, the required runtime features, and the syntax of the toolchain
// requirements and host CPU features. Those are checked against the machine
// later, at Initialize (CheckToolchain, CheckHostCpuFeatures).
//
// Thread-safety: pure functions.
#ifndef XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_HEADER_H_
#define XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_HEADER_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/target.h"

namespace xla::gpu {

// The artifact format this runtime reads (and the newest it knows).
inline constexpr uint32_t kArtifactFormatVersion = 1;

// The runtime features this build supports, sorted. An artifact listing any
// other feature is refused with a message naming it.
const std::vector<std::string>& SupportedRuntimeFeatures();

// Validates the header; returns the parsed target. InvalidArgument naming
// `header.<field>` and the values (a newer format or an unknown feature
// says to upgrade the runtime or compile for format 1).
absl::StatusOr<Target> ValidateHeader(const ArtifactHeaderProto& header);

// Checks the header's toolchain requirements against the versions the
// machine reports ("cuda_driver" -> "12.4"). FailedPrecondition naming the
// component, the required and the found version (or "not reported").
absl::Status CheckToolchain(const ArtifactHeaderProto& header,
                            const std::map<std::string, std::string>& machine_versions);

// Syntax only (a runtime must accept names it does not know, since a newer
// compiler's table may be longer): InvalidArgument "<field>[i]: '<name>' is
// not a CPU feature name (...)" for the first name that is empty, longer
// than 32 bytes, or not of a-z, 0-9, '.', '_', '-'.
absl::Status CheckCpuFeatureNames(const google::protobuf::RepeatedPtrField<std::string>& names,
                                  absl::string_view field);

// Checks the header's host_cpu_features against the features the machine
// has (stream_executor::host::MachineCpuFeatures() in production). Names
// that this runtime's table does not know are skipped: it cannot tell, and
// a runtime without this check would run the artifact as well.
// FailedPrecondition naming the first missing feature, the machine's
// features, and the fix (recompile with another --host_cpu). Validation of
// the names' syntax is ValidateHeader's.
absl::Status CheckHostCpuFeatures(const ArtifactHeaderProto& header,
                                  const std::set<std::string>& machine_features);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_HEADER_H_

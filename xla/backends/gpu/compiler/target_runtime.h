// Emitting for an older runtime (the forward window of the compatibility
// contract): `xla_aot compile --target_runtime=YYYY-MM-DD`.
//
// A runtime built on a date supports the features whose runtime_support
// date is not later (feature_registry.h). FinalizeRuntimeFeatures rewrites
// each newer construct the payload uses into its legacy form where one
// exists (a table here: cubin_with_ptx -> cubin, a CRC-32C checksum ->
// FNV-1a), then writes the features the artifact still uses into
// header.required_runtime_features.
//
// Thread-safety: pure functions over the caller's proto.
#ifndef XLA_BACKENDS_GPU_COMPILER_TARGET_RUNTIME_H_
#define XLA_BACKENDS_GPU_COMPILER_TARGET_RUNTIME_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::gpu {

// Lowers `artifact`'s payload for a runtime built on `target_runtime`
// ("YYYY-MM-DD"; empty means this build's runtime, so nothing is lowered)
// and sets header.required_runtime_features to what the payload uses.
// Errors (nothing is written to the header then): InvalidArgument for a
// malformed date; FailedPrecondition naming the feature, the date its
// runtime support landed and the target date when the payload needs a
// construct that runtime cannot read and that has no legacy form. Call
// before SealArtifact (the payload changes).
absl::Status FinalizeRuntimeFeatures(absl::string_view target_runtime,
                                     GpuExecutableProto* artifact);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_TARGET_RUNTIME_H_
